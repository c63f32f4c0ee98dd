"""Editable defaults for the TCO model, each with the evidence behind it.

The achieved fractions below were calibrated once against the worked table in
docs/tco-model.md §2 and the validation points in §4 (see tests/quoting/engine/test_tco_model.py);
the nccl-tests busbw shares against NVIDIA's 46-48 GB/s per NDR NIC and the 377 GB/s measured
on 4 x 8 GPUs (§4 points 2 and 7, tests/quoting/engine/test_tco_busbw.py). No loss percentage
is stored anywhere, it always comes out of the step-time model.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from quoting.engine.messages import gettext_noop as _


@dataclass(frozen=True, slots=True)
class Transport:
    label: str
    efficiency: float  # achieved fraction of NIC line rate in a training step's gradient buckets
    latency_us: float  # alpha per inter-node ring step
    nic_ceiling_gbytes: float | None  # throughput one NIC cannot exceed, whatever its line rate
    source: str
    # Share of line rate nccl-tests reports as busbw for a large (4 GiB) AllReduce. Higher than
    # `efficiency`: one huge buffer with nothing else on the GPU, where a training step reduces
    # 80 MB buckets next to its own kernels (NCCL's busbw curve is still rising at 80 MB).
    busbw_efficiency: float = 0.0
    busbw_source: str = ""


TRANSPORTS: dict[str, Transport] = {
    "infiniband": Transport(
        label=_("InfiniBand with GPUDirect RDMA"),
        efficiency=0.80,
        latency_us=10.0,
        nic_ceiling_gbytes=None,
        source=_("fits the §2 worked table (hierarchical AllReduce of 80 MB gradient buckets)"),
        busbw_efficiency=0.94,
        busbw_source=_(
            "NVIDIA nccl-tests guidance: 46-48 GB/s busbw per NDR 400G NIC, flat with "
            "node count; 377 GB/s measured on 4 x 8 GPUs with 8 x 400G (tco-model §4 points 2, 7)"
        ),
    ),
    "roce": Transport(
        label=_("RoCE, tuned (adaptive routing, QP scaling)"),
        efficiency=0.80,
        latency_us=10.0,
        nic_ceiling_gbytes=None,
        source=_("64xH20: RoCE 231.8 vs IB 230.7 GB/s busbw (Tolly 225107); fits §2 100G rows"),
        busbw_efficiency=0.94,
        busbw_source=_("as InfiniBand: 64xH20 RoCE 231.8 vs IB 230.7 GB/s busbw (Tolly 225107)"),
    ),
    "roce_untuned": Transport(
        label=_("RoCE, untuned ECMP"),
        efficiency=0.55,
        latency_us=10.0,
        nic_ceiling_gbytes=None,
        # xgettext:no-python-format
        source=_("up to 40 % lower AllReduce before E-ECMP tuning (Meta, SIGCOMM 2024)"),
        busbw_efficiency=0.65,
        busbw_source=_(
            "tuned RoCE's 0.94 less 30 % (up to 40 % lower AllReduce before E-ECMP "
            "tuning, Meta, SIGCOMM 2024)"
        ),
    ),
    "tcp": Transport(
        label=_("TCP sockets, no RDMA"),
        efficiency=0.60,
        # Kernel sockets pay syscalls and copies on every hop: tens of microseconds, not ~10.
        latency_us=50.0,
        # Copies through the CPU cap a 100G NIC at 4-6 GB/s, so faster NICs do not help TCP.
        nic_ceiling_gbytes=5.6,
        source=_("4-6 GB/s on 100 Gb/s TCP (NCCL issue 450); 25G TCP reaches ~60 % of line rate"),
        # The CPU, not the message size, limits TCP: the same share and ceiling as in training.
        busbw_efficiency=0.60,
        busbw_source=_("4-6 GB/s busbw on 100 Gb/s TCP (NCCL issue 450), 5.6 GB/s ceiling per NIC"),
    ),
}

# Servers under one leaf when an option does not say: a 64-port leaf (QM9700; SN5600 at the NIC
# speed) split 32 down / 32 up and rail-optimized as NVIDIA's reference designs are, so its 32
# down ports are the 32 servers of a rail group (DGX SuperPOD's scalable unit, §4 point 8). Held
# at the non-blocking split for every ratio, so a higher ratio never looks better.
DEFAULT_SERVERS_PER_LEAF = 32
MAX_SERVERS_PER_LEAF = 100_000  # the largest cluster the request takes
MAX_OVERSUBSCRIPTION = 16  # above 16:1 is not a GPU fabric (the fabric design's own bound)

NVLINK_LATENCY_US = 3.4  # NCCL's ring/simple NVLink hop latency (src/graph/tuning.cc)

# ZeRO-3 / FSDP gathers parameters in forward and backward as well as reducing gradients.
SHARDING_FACTORS: dict[str, float] = {
    "ddp": 1.0,
    "zero1": 1.0,
    "zero2": 1.0,
    "zero3": 1.5,
    "fsdp": 1.5,
}
# Each sharding's proper name, as the form offers it and the assumptions print it.
SHARDING_NAMES: dict[str, str] = {
    "ddp": "DDP",
    "zero1": "ZeRO-1",
    "zero2": "ZeRO-2",
    "zero3": "ZeRO-3",
    "fsdp": "FSDP",
}


def sharding_name(code: str) -> str:
    """A sharding's proper name (fsdp -> FSDP); an unknown code as it is."""
    return SHARDING_NAMES.get(code, code)


# Units as printed: microseconds are µs (snapshots kept before wrote "us").
MICROSECONDS = "µs"

# Defaults that only make sense in one currency (a tariff or a rental price is not a number
# without its currency): a request in another currency must state them.
DEFAULT_CURRENCY = "CNY"
CNY_TARIFF_PER_KWH = Decimal("0.7")
# What one H100 GPU-hour sells for on public cloud, on demand: AWS p5.48xlarge (8 x H100 SXM
# 80 GB), us-east-1, USD 55.04 an hour, USD 6.88 per GPU-hour (AWS price list as transcribed
# in datareceipts/data-receipts 109-gpu-pricing/hyperscalers.json, retrieved 2026-11-09),
# at 7.2 CNY to the dollar (the rate catalog/data/SOURCES.md converts at): 49.536, 49.54 CNY.
# The value is what the compute earns, so a market price: the 12 CNY used before sat below
# what an owned effective GPU-hour costs (26.65 CNY for the 256-GPU H100 design), and every
# NPV read negative. Blackwell rents for more (Lambda: B200 USD 6.69 vs H100 USD 3.99 a
# GPU-hour, 2026-09-20), so the H100 figure is the conservative default for every class
# (tco-model §3).
GPU_HOUR_VALUE_USD = Decimal("6.88")
CNY_PER_USD = Decimal("7.2")
CNY_GPU_HOUR_VALUE = Decimal("49.54")
# CNY per unit of the other currency the portal quotes in. A comparison in it gets the CNY
# defaults above converted at this rate, exactly (never rounded, so its figures are the CNY
# comparison's divided by the rate): the catalog's reference rate, at which its USD and CNY
# list prices are set (catalog/data/SOURCES.md, "CNY at the catalog's reference rate of 7.2").
# A currency not named here must state its tariff and GPU-hour value (tco-model §3, issue 26).
CNY_PER_UNIT = {"USD": CNY_PER_USD}

# One 8-GPU server at training load when neither the costs nor a named catalog server give a
# figure: HGX/DGX H100-class, 6.5-8.5 kW typical, 10.2 kW max. A named catalog server's own
# figure always wins (DGX B200 11 kW, DGX B300 12 kW typical, from the catalog).
ASSUMED_SERVER_POWER_KW = Decimal("8.0")


@dataclass(frozen=True, slots=True)
class WorkloadPreset:
    label: str
    workload: dict  # the REST `workload` body, so a picked preset fills the form as-is
    note: str


WORKLOAD_PRESETS: dict[str, WorkloadPreset] = {
    "llm_pretrain_7b": WorkloadPreset(
        label=_("LLM pre-training, 7B"),
        workload={
            "params_billion": 7,
            "tokens_per_node_per_step": 131_072,
            "sharding": "zero1",
            "overlap": 0.5,
            "mfu": 0.45,
        },
        note=_("Llama-2-7B-like: 4M-token global batch over 32 nodes = 128K tokens per node."),
    ),
    "llm_pretrain_70b": WorkloadPreset(
        label=_("LLM pre-training, 70B"),
        workload={
            "params_billion": 70,
            "tokens_per_node_per_step": 131_072,
            "sharding": "fsdp",
            "overlap": 0.7,
            "mfu": 0.40,
        },
        note=_("Llama-2-70B-like: 4M-token batch over 32 nodes, sharded parameters (FSDP)."),
    ),
    "fine_tune_8b": WorkloadPreset(
        label=_("Full fine-tuning, 8B"),
        workload={
            "params_billion": 8,
            "tokens_per_node_per_step": 32_768,
            "sharding": "fsdp",
            "overlap": 0.3,
            "mfu": 0.35,
        },
        note=_("Small batches of short sequences: 2 x 2,048 tokens per GPU per step."),
    ),
    "moe_47b": WorkloadPreset(
        label=_("Mixture-of-experts pre-training, 47B (13B active)"),
        workload={
            "params_billion": 46.7,
            "active_params_billion": 12.9,
            "tokens_per_node_per_step": 65_536,
            "sharding": "zero1",
            "overlap": 0.5,
            "mfu": 0.35,
            # Experts spread over the nodes: every MoE layer sends each token's hidden state to
            # its top-2 experts and back, forward and backward: 4 x 2 x 4096 x 2 B x 32 layers.
            "cross_node_bytes_per_token": 2_097_152,
        },
        note=_("Mixtral-8x7B-like; expert-parallel all-to-all crosses nodes on every MoE layer."),
    ),
}

# The job a design and a quote assume until someone picks another: a large model, which is what
# a multi-node cluster is bought for (a 7B job barely touches the network and flatters any fabric).
DEFAULT_WORKLOAD = "llm_pretrain_70b"

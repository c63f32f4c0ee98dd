"""The TCO model against its published counterparts (docs/tco-model.md §2 and §4) and its rules.

Calibration, stated once: one achieved fraction per transport for training's gradient buckets
(IB 0.80, tuned RoCE 0.80, untuned RoCE 0.55, TCP 0.60 with a 5.6 GB/s ceiling per NIC) and one
for nccl-tests' 4 GiB busbw (IB and tuned RoCE 0.94, untuned RoCE 0.65, TCP 0.60), alpha 10 us
RDMA / 50 us TCP / 3.4 us NVLink, gradient buckets of 40M parameters. No test sets a per-cell
constant.
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.tco import TcoRequest, compute_tco
from quoting.engine.tco.model import (
    capital_recovery_factor,
    evaluate_options,
    predicted_busbw_gbytes,
)
from quoting.engine.tco.presets import (
    CNY_GPU_HOUR_VALUE,
    CNY_PER_USD,
    TRANSPORTS,
    WORKLOAD_PRESETS,
)

H100_TFLOPS = 989.0  # H100/H200 SXM dense BF16 (catalog, tco-model §2)
A100_TFLOPS = 312.0


def fabric(name: str, transport: str, nics: int, gbps: float, **extra) -> dict:
    return {"name": name, "transport": transport, "nics_per_node": nics, "nic_gbps": gbps} | extra


IB_8X400 = fabric("8x400G IB", "infiniband", 8, 400)
ROCE_8X400 = fabric("8x400G RoCE", "roce", 8, 400)


def request(*fabrics: dict, nodes: int = 4, tflops: float = H100_TFLOPS, costs=None, **workload):
    body = {
        "peak_tflops": tflops,
        "nodes": nodes,
        "gpus_per_node": 8,
        "workload": {"params_billion": 7, "tokens_per_node_per_step": 131_072, "mfu": 0.45}
        | workload,
        "fabrics": list(fabrics),
    }
    if costs is not None:
        body["costs"] = costs
    return TcoRequest.from_dict(body)


def efficiencies(req: TcoRequest) -> dict[str, float]:
    return {o.name: o.network_efficiency for o in evaluate_options(req)}


# --- §4 validation points ----------------------------------------------------------------------


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
def test_a_single_node_trains_at_full_speed_on_any_network(transport):
    """§4 point 1 (and the seed's "8 GPUs or fewer: NVLink plus 10 GbE is enough"): k = 1 => 1."""
    req = request(fabric("1x10G", transport, 1, 10), nodes=1, tokens_per_node_per_step=1024)
    assert efficiencies(req) == {"1x10G": 1.0}


def test_the_predicted_busbw_reproduces_377_gbs_on_4_nodes_of_8x400g_infiniband():
    """§4 point 2: 4 x 8 GPUs, 8 x 400G per node, 4 GiB AllReduce measured at 377 GB/s busbw.

    nccl-tests' ring makes busbw the per-node wire rate: InfiniBand's 0.94 of 400 GB/s, less
    the latency share, gives 374.5 GB/s (tolerance 2 %). The naive model that pushes the whole
    payload through one NIC at line rate (busbw = 50 GB/s x 2(n-1)/n = 96.9 GB/s) is about 4x
    too pessimistic (tolerance 3.5-4.5x). Entering the 377 GB/s as a measurement leaves the
    training efficiency where the defaults put it: the two agree.
    (Until issue 10 this test reached 377 with the hierarchical formula at eta = 0.73; that
    formula also predicted 597 GB/s, above the 400 GB/s wire, on 2 nodes.)
    """
    nodes, gpus = 4, 8
    req = request(IB_8X400, IB_8X400 | {"name": "measured", "measured_busbw_gbps": 377})
    busbw = predicted_busbw_gbytes(req.fabrics[0], nodes=nodes, gpus_per_node=gpus)
    naive_busbw = 400 / 8 * 2 * (nodes * gpus - 1) / (nodes * gpus)

    assert busbw == pytest.approx(377, rel=0.02)
    assert 3.5 <= busbw / naive_busbw <= 4.5
    predicted, measured = evaluate_options(
        request(IB_8X400, IB_8X400 | {"name": "measured", "measured_busbw_gbps": 377},
                tokens_per_node_per_step=16_384)
    )  # fmt: skip
    assert measured.network_efficiency == pytest.approx(predicted.network_efficiency, rel=0.01)


def test_tuned_roce_matches_infiniband_busbw_and_70b_iteration_time_on_64_gpus():
    """§4 point 3 (Tolly 225107): 8 nodes x 8, 8 x 400G; RoCE with path planning vs IB busbw
    within 0.5 %, iteration time "nearly identical" for a 70B model (we require < 0.5 %).

    Both ways: the default tuned-RoCE and IB fractions, and the published busbw (231.8 vs
    230.7 GB/s) entered as measured overrides, for a 70B FSDP job without overlap.
    """
    roce, ib = fabric("RoCE", "roce", 8, 400), fabric("IB", "infiniband", 8, 400)
    req = request(roce, ib, nodes=8)
    busbw = [predicted_busbw_gbytes(f, nodes=8, gpus_per_node=8) for f in req.fabrics]
    assert busbw[0] == pytest.approx(busbw[1], rel=0.005)

    measured = request(
        roce | {"measured_busbw_gbps": 231.8},
        ib | {"measured_busbw_gbps": 230.7},
        nodes=8,
        params_billion=70,
        sharding="fsdp",
        overlap=0.0,
        mfu=0.40,
    )
    step = [o.compute_time_s + o.exposed_comm_time_s for o in evaluate_options(measured)]
    assert step[0] == pytest.approx(step[1], rel=0.005)


def test_one_nic_per_node_loses_about_30_percent_of_bert_at_128_nodes():
    """§4 point 4 (NVIDIA Selene, MLPerf Training v0.7, DGX A100, pure data parallelism): at
    128 nodes 8 x HDR 200G per node gave +43 % BERT throughput over 1 x HDR 200G, a ~30 % loss
    for the starved fabric.

    Our BERT-like workload (the slide does not give the batch, so these are our choices):
    BERT-large 340M parameters, fp16 gradients, A100 312 TFLOP/s at MFU 0.45, 16 x 512-token
    sequences per GPU (64K tokens per node), all-reduce after backward (no overlap).
    Model: +46 % and a 31 % loss. Tolerance: gain 43 +/- 5 points, loss 30 +/- 3 points.
    """
    req = request(
        fabric("8x HDR", "infiniband", 8, 200),
        fabric("1x HDR", "infiniband", 1, 200),
        nodes=128,
        tflops=A100_TFLOPS,
        params_billion=0.34,
        tokens_per_node_per_step=65_536,
        overlap=0.0,
    )
    full, starved = (o.compute_time_s + o.exposed_comm_time_s for o in evaluate_options(req))

    assert starved / full - 1 == pytest.approx(0.43, abs=0.05)
    assert 1 - full / starved == pytest.approx(0.30, abs=0.03)


# --- §2 worked table -----------------------------------------------------------------------------

WORKED_FABRICS = {
    "8x400G IB": fabric("8x400G IB", "infiniband", 8, 400),
    "8x400G RoCE untuned": fabric("8x400G RoCE untuned", "roce_untuned", 8, 400),
    "8x100G RoCE": fabric("8x100G RoCE", "roce", 8, 100),
    "2x100G RoCE": fabric("2x100G RoCE", "roce", 2, 100),
    "1x100G RoCE": fabric("1x100G RoCE", "roce", 1, 100),
    "1x100G TCP": fabric("1x100G TCP", "tcp", 1, 100),
    "1x25G TCP": fabric("1x25G TCP", "tcp", 1, 25),
}
# fabric: (256K no overlap, 256K w=0.7, 64K no overlap, 64K w=0.7), in percent
WORKED_TABLE = {
    "8x400G IB": (98, 100, 92, 100),
    "8x400G RoCE untuned": (97, 100, 89, 100),
    "8x100G RoCE": (92, 100, 75, 100),
    "2x100G RoCE": (75, 100, 42, 53),
    "1x100G RoCE": (60, 83, 27, 31),
    "1x100G TCP": (45, 58, 17, 19),
    "1x25G TCP": (22, 24, 7, 7),
}
WORKED_COLUMNS = ((262_144, 0.0), (262_144, 0.7), (65_536, 0.0), (65_536, 0.7))


def test_llama3_405b_on_16k_h100_over_roce_is_consistent_with_its_mfu_and_weak_scaling():
    """§4 point 5 (Meta, "The Llama 3 Herd of Models", 2024): 405B on 16K H100 over 400G RoCE,
    38-43 % MFU and 93 % weak scaling from 8K to 16K GPUs. Llama 3 splits the model 8-way inside
    a node (tensor parallel) and 16-way across nodes (pipeline), so each node holds 405B / 16 =
    25.3B parameters and, with a 16M-token batch over 128 data-parallel replicas, processes 128K
    tokens per step; the data-parallel AllReduce spans 128 nodes at 16K GPUs, 64 at 8K.

    The model covers only that AllReduce, so it must not lose more than the measurement did:
    single-node MFU 0.45 x network efficiency lands inside 38-43 %, and going from 8K to 16K
    GPUs costs the network far less than the measured 7 %.
    """
    job = {"params_billion": 405 / 16, "tokens_per_node_per_step": 131_072, "overlap": 0.5}
    at_16k = efficiencies(request(ROCE_8X400, nodes=128, **job))["8x400G RoCE"]
    at_8k = efficiencies(request(ROCE_8X400, nodes=64, **job))["8x400G RoCE"]

    assert 0.38 <= 0.45 * at_16k <= 0.45
    assert at_16k / at_8k >= 0.93


def test_gpt3_175b_from_3584_to_10752_h100_on_infiniband_scales_at_least_as_measured():
    """§4 point 6 (NVIDIA, MLPerf Training v3.1 GPT-3 175B on Eos, Quantum-2 InfiniBand): 93 %
    scaling efficiency from 3,584 to 10,752 H100 (448 to 1,344 nodes). With 8-way pipeline
    stages each node holds 175B / 8 = 21.9B parameters and the data-parallel group grows from
    56 to 168 nodes; at the same tokens per node (weak scaling, 32K here, the hard end of
    MLPerf's batches) that AllReduce must cost less than the whole measured 7 %, and it does by a
    wide margin."""
    job = {"params_billion": 175 / 8, "tokens_per_node_per_step": 32_768, "overlap": 0.5}
    small = efficiencies(request(IB_8X400, nodes=448 // 8, **job))["8x400G IB"]
    large = efficiencies(request(IB_8X400, nodes=1344 // 8, **job))["8x400G IB"]

    assert large / small >= 0.93
    assert large >= 0.9


@pytest.mark.parametrize("column", range(4), ids=["256K", "256K-w0.7", "64K", "64K-w0.7"])
def test_worked_table_is_reproduced_within_two_points(column):
    """§2 worked figures: k = 4, MFU 0.45, z = 1, H100 989 TFLOP/s, 8 GPUs per node.

    P does not cancel exactly once the latency term is in: the bucket count grows with P, so
    the latency share is set by the bucket size, not by P. With 40M-parameter buckets
    (Megatron-Core's minimum) and P = 7B, all 28 cells are within +/- 2 points (worst: the fast
    fabrics at 64K without overlap, 1.5 points low, where the table leaves out alpha). The
    1x100G TCP row needs the per-NIC TCP ceiling: a single TCP fraction cannot give both 45 %
    at 100G and 22 % at 25G (it fits 0.45 at 100G but 0.6 at 25G).
    """
    tokens, overlap = WORKED_COLUMNS[column]
    req = request(*WORKED_FABRICS.values(), tokens_per_node_per_step=tokens, overlap=overlap)
    got = {name: round(100 * e, 1) for name, e in efficiencies(req).items()}
    published = {name: row[column] for name, row in WORKED_TABLE.items()}

    assert got == pytest.approx(published, abs=2.0)


def test_small_pytorch_buckets_make_the_fastest_fabrics_pay_latency():
    """Why the table needs large buckets: with PyTorch DDP's 25 MB buckets each AllReduce moves
    only ~0.1 ms of data on 8 x 400G but still pays ~0.09 ms of latency, so IB at 64K tokens
    drops from ~90 % to ~87 % while a 1 x 100G fabric, bandwidth-bound, barely moves."""
    fast, slow = WORKED_FABRICS["8x400G IB"], WORKED_FABRICS["1x100G RoCE"]
    large = efficiencies(request(fast, slow, tokens_per_node_per_step=65_536))
    small = efficiencies(request(fast, slow, tokens_per_node_per_step=65_536, bucket_mb=25))

    assert large[fast["name"]] - small[fast["name"]] > 0.02
    assert large[slow["name"]] - small[slow["name"]] < 0.01


def test_for_data_parallelism_parameter_count_cancels_out():
    """§2: "For pure data parallelism P cancels out": a 7B and a 70B job at the same tokens per
    node and bandwidth per node land within half a point (bucket rounding is the remainder)."""
    fabrics = (WORKED_FABRICS["2x100G RoCE"], WORKED_FABRICS["8x400G IB"])
    small = efficiencies(request(*fabrics, params_billion=7))
    large = efficiencies(request(*fabrics, params_billion=70))

    assert small == pytest.approx(large, abs=0.005)


# --- The seed's claim: true where it is true, not where it is not ------------------------------


def test_two_100g_roce_ports_per_server_lose_30_to_40_percent_of_a_7b_pretraining_cluster():
    """Seed claim ("30-40 % less efficient without InfiniBand"): a 256-GPU H100 cluster (32
    nodes) pre-training a 7B model (preset: 128K tokens/node/step, ZeRO-1, overlap 0.5) on two
    100G RoCE ports per 8-GPU server loses 36 % of the compute 8 x 400G InfiniBand delivers."""
    body = WORKLOAD_PRESETS["llm_pretrain_7b"].workload
    req = request(IB_8X400, fabric("2x100G RoCE", "roce", 2, 100), nodes=32, **body)
    e = efficiencies(req)

    assert 0.30 <= 1 - e["2x100G RoCE"] / e["8x400G IB"] <= 0.40


def test_tuned_400g_roce_stays_within_a_few_percent_of_infiniband():
    """Seed claim's limit (§4 point 3, §1 table): on the same 32-node 7B job and a harder one
    (fine-tuning, 32K tokens per node), 8 x 400G tuned RoCE is within 3 % of InfiniBand, and
    even untuned 400G RoCE stays within 10 % of it."""
    for preset in ("llm_pretrain_7b", "fine_tune_8b"):
        untuned = fabric("untuned", "roce_untuned", 8, 400)
        e = efficiencies(
            request(IB_8X400, ROCE_8X400, untuned, nodes=32, **WORKLOAD_PRESETS[preset].workload)
        )
        assert e["8x400G RoCE"] >= 0.97 * e["8x400G IB"], preset
        assert e["untuned"] >= 0.90 * e["8x400G IB"], preset


def test_expert_parallel_traffic_crossing_nodes_costs_efficiency():
    moe = WORKLOAD_PRESETS["moe_47b"].workload
    with_experts = efficiencies(request(IB_8X400, nodes=16, **moe))
    without = efficiencies(request(IB_8X400, nodes=16, **moe | {"cross_node_bytes_per_token": 0}))

    assert with_experts["8x400G IB"] < without["8x400G IB"]


@pytest.mark.parametrize("preset", sorted(WORKLOAD_PRESETS))
def test_every_workload_preset_is_a_valid_request_body(preset):
    result = compute_tco(request(IB_8X400, nodes=16, **WORKLOAD_PRESETS[preset].workload))
    assert 0 < result.options[0].network_efficiency <= 1


# --- Money ---------------------------------------------------------------------------------------


def test_capital_recovery_factor_is_straight_line_at_zero_rate_and_annuity_otherwise():
    assert capital_recovery_factor(Decimal(0), 5) == Decimal("0.2")
    assert capital_recovery_factor(Decimal("0.08"), 5) == pytest.approx(Decimal("0.2504564545"))


def test_annual_cost_adds_capital_support_energy_and_space():
    """tco-model §3 on one 10 kW node: capital 1,000,000 / 5 = 200,000; support 20 % of
    hardware = 200,000, all of it the servers' (no network capex); energy 10 kW x PUE 1.5 x
    8760 h x 1.00 = 131,400; space 5,000."""
    costs = {
        "server_capex": 1_000_000,
        "discount_rate": 0,
        "server_power_kw": 10,
        "pue": 1.5,
        "tariff_per_kwh": 1,
        "space_per_year": 5000,
        "availability": 1,
        "utilisation": 1,
    }
    (option,) = evaluate_options(request(IB_8X400, nodes=1, costs=costs))

    breakdown = option.annual_cost_breakdown
    assert (breakdown.capital, breakdown.server_support, breakdown.energy, breakdown.space) == (
        Decimal("200000.00"),
        Decimal("200000.00"),
        Decimal("131400.00"),
        Decimal("5000.00"),
    )
    assert breakdown.support == 0, "no network capex: no network support"
    assert option.annual_cost == Decimal("536400.00")
    assert option.effective_gpu_hours_per_year == Decimal(8 * 8760)
    assert option.cost_per_effective_gpu_hour == Decimal("7.6541")  # 536,400 / 70,080
    assert option.tco_n_years == Decimal(1_000_000 + 5 * 336_400)


def test_the_infiniband_premium_pays_back_from_the_compute_it_recovers():
    """§3: value lost = (1 - E/E_best) x value of the best option's effective hours; payback =
    capex premium / (annual value recovered - the premium's own yearly costs); NPV at r = 0 is
    the plain sum."""
    costs = {"server_capex": 8_000_000, "discount_rate": 0, "gpu_hour_value": 12}
    starved = fabric("1x100G RoCE", "roce", 1, 100, network_capex=200_000)
    ib = IB_8X400 | {"network_capex": 1_400_000}
    best, cheap = evaluate_options(request(ib, starved, costs=costs))

    recovered = (best.effective_gpu_hours_per_year - cheap.effective_gpu_hours_per_year) * 12
    assert cheap.value_lost_per_year == pytest.approx(recovered, abs=Decimal(10))
    assert best.value_lost_per_year == 0
    # Issue 26: the premium pays its own support too. 20 % a year of the 1.2 M dearer network is
    # 240,000 a year (no network power is given, so no extra energy): payback 0.98 years where
    # premium / gross value recovered said 0.82.
    extra = best.annual_cost_breakdown.operating - cheap.annual_cost_breakdown.operating
    assert extra == Decimal("240000.00")
    assert best.payback_years == pytest.approx(
        Decimal(1_200_000) / (recovered - extra), abs=Decimal("0.01")
    )
    assert not best.never_pays_back and not cheap.never_pays_back
    assert cheap.payback_years is None  # the cheapest build has no premium to pay back
    yearly_net = best.effective_gpu_hours_per_year * 12 - (
        best.annual_cost_breakdown.support
        + best.annual_cost_breakdown.server_support
        + best.annual_cost_breakdown.energy
    )
    assert best.npv == pytest.approx(5 * yearly_net - best.capex, abs=Decimal(50))


def test_a_currency_without_a_reference_rate_must_state_its_tariff_and_gpu_hour_value():
    with pytest.raises(InvalidInput) as caught:
        request(IB_8X400, costs={"currency": "EUR"})
    assert set(caught.value.errors) == {"costs.tariff_per_kwh", "costs.gpu_hour_value"}

    eur = request(IB_8X400, costs={"currency": "EUR", "tariff_per_kwh": 0.09, "gpu_hour_value": 2})
    assert compute_tco(eur).options[0].currency == "EUR"


def test_usd_takes_the_cny_defaults_at_the_catalogs_reference_rate_and_a_stated_one_stays():
    """Issue 26: a USD comparison failed for want of a dollar tariff. It takes 0.70 CNY/kWh and
    49.54 CNY a GPU-hour at 7.2 CNY to the dollar, exactly; what the request states it keeps."""
    usd = request(IB_8X400, costs={"currency": "USD"}).costs
    assert usd.tariff_per_kwh * CNY_PER_USD == pytest.approx(Decimal("0.7"), abs=Decimal("1e-20"))
    assert usd.gpu_hour_value == CNY_GPU_HOUR_VALUE / CNY_PER_USD
    assert (usd.converted_defaults, usd.converted_at) == (
        ("tariff_per_kwh", "gpu_hour_value"),
        CNY_PER_USD,
    )
    stated = request(IB_8X400, costs={"currency": "USD", "tariff_per_kwh": "0.09"}).costs
    assert stated.tariff_per_kwh == Decimal("0.09") and stated.converted_defaults == (
        "gpu_hour_value",
    )
    assert request(IB_8X400).costs.converted_at is None  # CNY: its own defaults


# --- Result shape and sensitivity -----------------------------------------------------------------


def test_result_as_dict_is_json_and_carries_every_promised_field():
    result = compute_tco(request(IB_8X400, fabric("2x100G", "roce", 2, 100), costs={}))
    data = json.loads(json.dumps(result.as_dict()))

    assert set(data) >= {"options", "assumptions", "sensitivity", "efficiency_curve", "currency"}
    assert set(data["options"][0]) >= {
        "name",
        "network_efficiency",
        "compute_time_s",
        "exposed_comm_time_s",
        "comm_time_s",
        "effective_gpu_hours_per_year",
        "annual_cost",
        "cost_per_effective_gpu_hour",
        "currency",
        "value_lost_per_year",
        "payback_years",
        "tco_n_years",
        "npv",
    }
    keys = {"key", "label", "value", "unit", "source", "basis", "messages"}
    assert all(set(a) == keys for a in data["assumptions"])
    assert [c["name"] for c in data["efficiency_curve"]] == ["8x400G IB", "2x100G"]


def test_efficiency_curve_includes_the_quoted_cluster_size():
    result = compute_tco(request(IB_8X400, nodes=100))
    nodes = [n for n, _ in result.efficiency_curve[0].points]
    assert 100 in nodes and nodes == sorted(nodes) and nodes[0] == 1


def test_a_starved_fabric_is_most_sensitive_to_its_bandwidth_and_a_fast_one_not_at_all():
    """Tornado: 1x100G RoCE at 64K tokens is network-bound, so NIC line rate moves its cost per
    effective GPU-hour more than the electricity tariff; 8x400G with overlap hides all of its
    traffic, so a faster NIC would change nothing."""
    costs = {"server_capex": 8_000_000}
    starved = fabric("1x100G", "roce", 1, 100)
    result = compute_tco(
        request(IB_8X400, starved, costs=costs, tokens_per_node_per_step=65_536, overlap=0.7)
    )
    bars = {t.option: {b.key: b for b in t.bars} for t in result.sensitivity}

    assert bars["1x100G"]["fabrics.nic_gbps"].swing > bars["1x100G"]["costs.tariff_per_kwh"].swing
    assert bars["8x400G IB"]["fabrics.nic_gbps"].swing == 0
    for tornado in result.sensitivity:
        swings = [bar.swing for bar in tornado.bars]
        assert swings == sorted(swings, reverse=True)

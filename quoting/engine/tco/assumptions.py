"""Every number the TCO stands on, with its unit and source, for the proposal to print beside it."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from decimal import Decimal

from quoting.engine.messages import Message, message
from quoting.engine.messages import gettext_noop as _
from quoting.engine.tco.inputs import TcoRequest
from quoting.engine.tco.model import (
    BACKWARD_SHARE,
    BUCKET_PARAMS,
    BUSBW_ALGORITHM,
    HOURS_PER_YEAR,
    bucket_count,
    busbw_command,
    cross_leaf_share,
    node_bandwidth,
    oversubscription_slowdown,
    plain,
    server_power,
)
from quoting.engine.tco.names import option_name_message
from quoting.engine.tco.presets import (
    DEFAULT_SERVERS_PER_LEAF,
    MICROSECONDS,
    NVLINK_LATENCY_US,
    TRANSPORTS,
    sharding_name,
)

QUOTE = message(_("the request"))
TEXTS = ("label", "unit", "source")  # what a reader reads, and a page translates

# What a customer reads beside an assumption: one of these few phrases (translated where they
# are printed). `source` is our own provenance note (the request, "verify", the docs' sections)
# and stays on the staff pages.
BASIS_CLUSTER = _("Your cluster")
BASIS_WORKLOAD = _("Chosen workload")
BASIS_CATALOG = _("Product specification")
BASIS_MEASURED = _("Published measurements")
BASIS_CUSTOMER_MEASURED = _("Measured on your cluster")
BASIS_DESIGN = _("Fabric design")
BASIS_TYPICAL = _("Typical value for such sites")
BASIS_MODEL = _("Model default")
BASIS_STATED = _("Stated for this comparison")
BASIS_PRICES = _("Prices of this comparison")
BASIS_NOT_INCLUDED = _("Not included")
CUSTOMER_BASES = frozenset(
    {
        BASIS_CLUSTER,
        BASIS_WORKLOAD,
        BASIS_CATALOG,
        BASIS_MEASURED,
        BASIS_CUSTOMER_MEASURED,
        BASIS_DESIGN,
        BASIS_TYPICAL,
        BASIS_MODEL,
        BASIS_STATED,
        BASIS_PRICES,
        BASIS_NOT_INCLUDED,
    }
)


@dataclass(frozen=True, slots=True)
class Assumption:
    key: str
    label: Message | str
    value: str | float | int | Decimal
    unit: Message | str
    source: Message | str  # internal provenance, for the staff pages
    basis: str = ""  # customer-facing: one of CUSTOMER_BASES

    def as_dict(self) -> dict:
        """English texts (the API's), and under "messages" the same texts as kept messages so a
        page or a proposal can print them in its language."""
        data = {f.name: plain(_text(getattr(self, f.name))) for f in fields(self)}
        data["messages"] = {
            name: getattr(self, name).as_json()
            for name in TEXTS
            if isinstance(getattr(self, name), Message)
        }
        return data


def _text(value):
    return str(value) if isinstance(value, Message) else value


def _unit(text: str) -> Message:
    return message(text)


def assumptions_for(request: TcoRequest) -> tuple[Assumption, ...]:
    workload, costs = request.workload, request.costs
    bucket = (
        QUOTE
        if workload.bucket_mb is not None
        else message(
            _("{millions:.0f}M parameters each, Megatron-Core's minimum bucket"),
            millions=BUCKET_PARAMS / 1e6,
        )
    )
    rows = [
        Assumption(
            "gpu.peak_tflops",
            message(_("Peak dense BF16 per GPU {gpu}"), gpu=request.gpu or ""),
            request.peak_tflops,
            "TFLOP/s",
            message(_("catalog")),
        ),
        Assumption("cluster.nodes", message(_("Nodes")), request.nodes, "", QUOTE),
        Assumption(
            "cluster.gpus_per_node", message(_("GPUs per node")), request.gpus_per_node, "", QUOTE
        ),
        Assumption(
            "workload.params_billion",
            message(_("Parameters (gradients reduced)")),
            workload.params_billion,
            _unit(_("billion")),
            QUOTE,
        ),
        Assumption(
            "workload.compute_params_billion",
            message(_("Parameters active per token")),
            workload.compute_params_billion,
            _unit(_("billion")),
            QUOTE,
        ),
        Assumption(
            "workload.tokens_per_node_per_step",
            message(_("Tokens per node per step")),
            workload.tokens_per_node_per_step,
            _unit(_("tokens")),
            QUOTE,
        ),
        Assumption(
            "workload.mfu",
            message(_("Single-node model-FLOPs utilisation")),
            workload.mfu,
            "",
            QUOTE,
        ),
        Assumption(
            "workload.sharding_factor",
            message(
                _("Gradient traffic factor ({sharding})"), sharding=sharding_name(workload.sharding)
            ),
            workload.sharding_factor,
            "x",
            message(_("DDP/ZeRO-1/2 = 1, ZeRO-3/FSDP ~ 1.5 (tco-model §2)")),
        ),
        Assumption(
            "workload.overlap",
            message(_("Gradient traffic hidden behind backward")),
            workload.overlap,
            "",
            QUOTE,
        ),
        Assumption(
            "model.backward_share",
            message(_("Backward share of step compute")),
            round(BACKWARD_SHARE, 4),
            "",
            message(_("backward ~ 2x forward FLOPs")),
        ),
        Assumption(
            "workload.bytes_per_grad",
            message(_("Bytes per gradient element")),
            workload.bytes_per_grad,
            "B",
            QUOTE,
        ),
        Assumption(
            "workload.cross_node_bytes_per_token",
            message(_("Tensor/expert-parallel bytes per token")),
            workload.cross_node_bytes_per_token,
            "B",
            QUOTE,
        ),
        Assumption(
            "workload.buckets",
            message(_("Gradient buckets per step (each pays the latency term)")),
            bucket_count(workload),
            "",
            bucket,
        ),
        Assumption(
            "model.nvlink_latency_us",
            message(_("NVLink hop latency")),
            NVLINK_LATENCY_US,
            MICROSECONDS,
            message(_("NCCL ring/simple tuning table")),
        ),
    ]
    if request.nodes > 1:
        rows.append(_busbw_row(request))
    for name in dict.fromkeys(f.transport for f in request.fabrics):
        transport = TRANSPORTS[name]
        label = message(transport.label)
        rows.append(
            Assumption(
                f"transport.{name}.efficiency",
                message(
                    _("{transport}: achieved share of line rate in training's gradient buckets"),
                    transport=label,
                ),
                transport.efficiency,
                "",
                message(transport.source),
            )
        )
        rows.append(
            Assumption(
                f"transport.{name}.latency_us",
                message(_("{transport}: latency per inter-node step"), transport=label),
                transport.latency_us,
                MICROSECONDS,
                message(transport.source),
            )
        )
        rows.append(
            Assumption(
                f"transport.{name}.busbw_efficiency",
                message(
                    _("{transport}: nccl-tests busbw share of line rate (4 GiB AllReduce)"),
                    transport=label,
                ),
                transport.busbw_efficiency,
                "",
                message(transport.busbw_source),
            )
        )
        if transport.nic_ceiling_gbytes is not None:
            rows.append(
                Assumption(
                    f"transport.{name}.nic_ceiling",
                    message(_("{transport}: ceiling per NIC"), transport=label),
                    transport.nic_ceiling_gbytes,
                    "GB/s",
                    message(transport.source),
                )
            )
    if any(f.transport == "infiniband" for f in request.fabrics):
        rows.append(_sharp_row())
    for f in request.fabrics:
        if f.measured_busbw_gbps is not None or f.efficiency is not None:
            source = (
                message(_("nccl-tests AllReduce busbw across the quoted cluster"))
                if f.measured_busbw_gbps is not None
                else message(_("stated efficiency"))
            )
            bandwidth = node_bandwidth(f, nodes=request.nodes, gpus_per_node=request.gpus_per_node)
            rows.append(
                Assumption(
                    f"fabric.{f.name}.node_bandwidth",
                    message(
                        _("{fabric}: achieved bandwidth per node"),
                        fabric=option_name_message(f.name),
                    ),
                    round(bandwidth / 1e9, 2),
                    "GB/s",
                    source,
                )
            )
    for f in request.fabrics:
        rows += _leaf_rows(f, nodes=request.nodes)
    money = costs.currency
    for f in request.fabrics:
        if f.network_opex_per_year:
            rows.append(
                Assumption(
                    f"fabric.{f.name}.network_opex_per_year",
                    message(
                        _("{fabric}: network licences and subscriptions per year"),
                        fabric=option_name_message(f.name),
                    ),
                    f.network_opex_per_year,
                    money,
                    message(
                        _(
                            "lines sold per year (UFM per-endpoint licence), paid every year of "
                            "the life"
                        )
                    ),
                )
            )
    for f in request.fabrics:
        if f.support_per_year is not None:
            rows.append(
                Assumption(
                    f"fabric.{f.name}.support_per_year",
                    message(
                        _("{fabric}: network support per year, as priced"),
                        fabric=option_name_message(f.name),
                    ),
                    f.support_per_year,
                    money,
                    message(
                        _(
                            "priced for this comparison: a quote's support lines, or their share "
                            "of the hardware (tco-model §6)"
                        )
                    ),
                )
            )
    rows += [
        Assumption(
            "costs.server_capex",
            message(_("Server capex")),
            costs.server_capex,
            money,
            QUOTE if costs.server_capex else message(_("not quoted: enter it for a full TCO")),
        ),
        Assumption(
            "costs.services_capex", message(_("Services capex")), costs.services_capex, money, QUOTE
        ),
        _server_power_row(request),
        Assumption(
            "costs.pue",
            "PUE",
            costs.pue,
            "",
            message(_("1.3 new large sites in China, 1.5 average")),
        ),
        Assumption(
            "costs.tariff_per_kwh",
            _converted_label(costs, "tariff_per_kwh", _("Electricity tariff")),
            costs.tariff_per_kwh,
            f"{money}/kWh",
            message(_("Shenzhen industrial 0.61-0.82 CNY/kWh: verify")),
        ),
        Assumption("costs.hours_per_year", message(_("Hours per year")), HOURS_PER_YEAR, "h", ""),
        Assumption(
            "costs.life_years",
            message(_("Depreciation life")),
            costs.life_years,
            _unit(_("years")),
            message(_("4-6 years; hyperscalers use 5-6")),
        ),
        Assumption(
            "costs.discount_rate",
            message(_("Discount rate")),
            costs.discount_rate,
            "",
            message(_("cost of capital for the capital recovery factor and NPV")),
        ),
        _support_row(request),
        Assumption(
            "costs.space_per_year",
            message(_("Space per year")),
            costs.space_per_year,
            money,
            QUOTE if costs.space_per_year else message(_("not given")),
        ),
        Assumption(
            "costs.availability",
            message(_("Availability")),
            costs.availability,
            "",
            message(_("share of the year the cluster is up")),
        ),
        Assumption(
            "costs.utilisation",
            message(_("Utilisation")),
            costs.utilisation,
            "",
            message(_("share of up time with jobs scheduled")),
        ),
        Assumption(
            "costs.gpu_hour_value",
            _converted_label(costs, "gpu_hour_value", _("Value of one effective GPU-hour")),
            costs.gpu_hour_value,
            money,
            message(
                _(
                    "H100 on demand in public cloud: AWS p5.48xlarge, USD 6.88 per GPU-hour "
                    "(2026-11-09), at 7.2 CNY to the dollar"
                )
            ),
        ),
    ]
    if costs.converted_at is not None:
        rows.append(
            Assumption(
                "costs.cny_per_unit",
                message(_("Exchange rate the CNY defaults are converted at")),
                costs.converted_at,
                f"CNY/{money}",
                message(
                    _(
                        "the catalog's reference rate, at which its USD and CNY list prices are "
                        "set (catalog/data/SOURCES.md)"
                    )
                ),
            )
        )
    return tuple(replace(row, basis=_basis(row)) for row in rows)


def _converted_label(costs, name: str, label: str) -> Message:
    """A default's label, saying when it is the CNY default converted into the request's
    currency (inputs.Costs): the reader must know a dollar tariff is a Shenzhen one."""
    if name not in costs.converted_defaults:
        return message(label)
    return message(
        _("{label}: the CNY default converted at {rate} CNY/{currency}"),
        label=message(label),
        rate=costs.converted_at,
        currency=costs.currency,
    )


def _sharp_row() -> Assumption:
    """In-network reduction is left out of the model, so an InfiniBand option's predicted
    busbw and efficiency are without it: a floor, never a promise SHARP has to keep.

    Sources: NVIDIA SHARP Rev 3.13.0, "General Information" (SHARP runs on NVIDIA Quantum,
    Quantum-2 and Quantum-3 InfiniBand switches with ConnectX-6 and later adapters; no Ethernet
    switch is listed, so a RoCE option gets no such row); Rev 3.10.3, "Changes and New
    Features" (XDR: ConnectX-8 and Quantum-3 switches); Rev 3.9.1 LTS, "Using NVIDIA SHARP with
    NVIDIA NCCL" (the NCCL-SHARP plugin); HPC-X 2.26, "NCCL-RDMA-SHARP Plugins"
    (NCCL_COLLNET_ENABLE=1 turns SHARP aggregation on)."""
    return Assumption(
        "transport.infiniband.sharp",
        message(
            _(
                "InfiniBand in-network reduction (NVIDIA SHARP) is not modelled: the predicted "
                "all-reduce bandwidth is without it; NCCL's SHARP plugin can raise it"
            )
        ),
        0,
        "%",
        message(
            _(
                "NVIDIA SHARP docs: Quantum, Quantum-2 and Quantum-3 switches; NCCL-RDMA-SHARP "
                "plugin with NCCL_COLLNET_ENABLE=1 (tco-model §1)"
            )
        ),
    )


def _busbw_row(request: TcoRequest) -> Assumption:
    """The nccl-tests run the predicted busbw is for: a ring. On two nodes NCCL's default
    algorithms (tree, NVLS) report a busbw above the network's rate, so an acceptance run
    compared with the prediction must force NCCL_ALGO=Ring (tco-model §4)."""
    return Assumption(
        "model.busbw_algorithm",
        message(
            _("Predicted nccl-tests busbw is for a ring: {command}"),
            command=busbw_command(request.gpus_per_node),
        ),
        BUSBW_ALGORITHM,
        "",
        message(
            _(
                "NCCL's default algorithms (tree, NVLS) report above the network rate on two "
                "nodes; a ring is what the network carries (NCCL environment variables: "
                "NCCL_ALGO)"
            )
        ),
    )


def _server_power_row(request: TcoRequest) -> Assumption:
    """One server's power at load, saying where it comes from: the request, the named catalog
    server's typical (else maximum) figure, or the assumption."""
    power, server = server_power(request), request.server
    if power.figure == "stated":
        label, source = message(_("Server power at load")), QUOTE
    elif power.figure == "power_typical_w":
        label = message(
            _("Server power at load: {server} typical, from the catalog"), server=server
        )
        source = message(_("catalog {server}: typical power"), server=server)
    elif power.figure == "power_max_w":
        label = message(
            _("Server power at load: {server} maximum, from the catalog"), server=server
        )
        source = message(_("catalog {server}: maximum power, no typical figure"), server=server)
    else:
        label = message(_("Server power at load, assumed"))
        source = message(_("8-GPU HGX/DGX: 6.5-8.5 kW typical, 10.2 kW max"))
        if server:
            source = message(
                _("{server} has no power figure in the catalog; 8-GPU HGX/DGX: 6.5-8.5 kW "
                  "typical, 10.2 kW max"),
                server=server,
            )  # fmt: skip
    return Assumption("costs.server_power_kw", label, power.kw, "kW", source)


def _support_row(request: TcoRequest) -> Assumption:
    """The support percentage, labelled as the assumption it is and by what it applies to: the
    servers always, and the network of each option that does not state its support as priced
    (tco-model §3)."""
    stated = [f for f in request.fabrics if f.support_per_year is not None]
    assumed = [f for f in request.fabrics if f.support_per_year is None and f.network_capex]
    # xgettext:no-python-format
    unit = _("% of hardware")
    if not stated:
        label = _("Support per year, assumed")
    elif assumed:
        label = _("Support per year where none is priced, assumed")
    else:
        # xgettext:no-python-format
        label, unit = _("Server support per year, assumed"), _("% of server capex")
    return Assumption(
        "costs.support_percent",
        message(label),
        request.costs.support_percent,
        _unit(unit),
        # xgettext:no-python-format
        message(_("~20 % for a DGX-class contract")),
    )


# Rows the caller states (QUOTE) say so by their key; the rest come from evidence or defaults.
_STATED_BASIS = (
    ("cluster.", BASIS_CLUSTER),
    ("workload.", BASIS_WORKLOAD),
    ("costs.server_capex", BASIS_PRICES),
    ("costs.services_capex", BASIS_PRICES),
    ("fabric.", BASIS_DESIGN),
    ("costs.", BASIS_STATED),
)
_DEFAULT_BASIS = (
    ("gpu.", BASIS_CATALOG),
    ("transport.", BASIS_MEASURED),
    ("model.nvlink", BASIS_MEASURED),
    ("workload.buckets", BASIS_MODEL),
    ("model.", BASIS_MODEL),
    ("costs.hours_per_year", BASIS_MODEL),
    ("costs.availability", BASIS_MODEL),
    ("costs.utilisation", BASIS_MODEL),
    ("costs.discount_rate", BASIS_STATED),
    ("fabric.", BASIS_MODEL),
    ("costs.", BASIS_TYPICAL),
)


def _basis(row: Assumption) -> str:
    """The customer-facing basis of a row: never an internal note."""
    source = str(row.source)  # the English text of a Message
    if row.key.endswith((".network_opex_per_year", ".support_per_year")):
        return BASIS_PRICES
    if row.key.endswith(".oversubscription"):
        return BASIS_DESIGN
    if row.key == "transport.infiniband.sharp":
        return BASIS_NOT_INCLUDED
    if row.key == "costs.cny_per_unit":
        return BASIS_MODEL
    if row.key == "costs.server_power_kw" and source.startswith("catalog"):
        return BASIS_CATALOG
    if row.key.endswith(".node_bandwidth"):
        return BASIS_CUSTOMER_MEASURED if source.startswith("nccl") else BASIS_STATED
    if row.key in ("costs.server_capex", "costs.services_capex", "costs.space_per_year") and (
        not row.value
    ):
        return BASIS_NOT_INCLUDED
    table = _STATED_BASIS if source == str(QUOTE) else _DEFAULT_BASIS
    return next((basis for prefix, basis in table if row.key.startswith(prefix)), BASIS_MODEL)


def _leaf_rows(f, *, nodes: int) -> list[Assumption]:
    """The option's leaf: its ratio, the servers under it, and what the spine layer costs a job
    of the quoted size (tco-model §4 point 8)."""
    leaf_source = (
        QUOTE
        if f.servers_per_leaf is not None
        else message(
            _("default: a 64-port rail-optimized leaf, {ports} down ports"),
            ports=DEFAULT_SERVERS_PER_LEAF,
        )
    )
    rows = [
        Assumption(
            f"fabric.{f.name}.oversubscription",
            message(
                _("{fabric}: leaf-to-spine oversubscription"), fabric=option_name_message(f.name)
            ),
            f.oversubscription,
            ":1",
            QUOTE if f.oversubscription != 1 else message(_("non-blocking unless stated")),
        ),
        Assumption(
            f"fabric.{f.name}.servers_per_leaf",
            message(
                _("{fabric}: servers under one leaf (rail group)"),
                fabric=option_name_message(f.name),
            ),
            f.leaf_servers,
            "",
            leaf_source,
        ),
    ]
    if f.oversubscription > 1:
        share = cross_leaf_share(nodes=nodes, servers_per_leaf=f.leaf_servers)
        rows.append(
            Assumption(
                f"fabric.{f.name}.oversubscription_slowdown",
                message(
                    _(
                        "{fabric}: network time across the spine layer at {nodes} nodes "
                        "({share:.0%} of the traffic leaves the leaf)"
                    ),
                    fabric=option_name_message(f.name),
                    nodes=nodes,
                    share=share,
                ),
                round(oversubscription_slowdown(f, nodes=nodes), 4),
                "x",
                message(
                    _(
                        "cross-leaf traffic gets 1/r of the leaf's downlink bandwidth: "
                        "1 - x + x*r (tco-model §4 point 8)"
                    )
                ),
            )
        )
    return rows

"""What the TCO model takes in: a cluster, a workload, the fabric options and the costs.

`TcoRequest.from_dict` is the one door for untrusted input (the REST body, the CLI file): it
checks every field and raises InvalidInput naming each bad one with a dotted path such as
"workload.overlap" or "fabrics[1].transport". Code that builds the dataclasses itself (the
quote services) is trusted to pass values in range.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from quoting.engine.catalog import ProductSpec
from quoting.engine.contract import default_of, spec, specs, value_error
from quoting.engine.errors import InvalidInput
from quoting.engine.messages import Message, message
from quoting.engine.messages import gettext_noop as _
from quoting.engine.money import MONEY_MAX
from quoting.engine.tco.presets import (
    CNY_GPU_HOUR_VALUE,
    CNY_PER_UNIT,
    CNY_TARIFF_PER_KWH,
    DEFAULT_CURRENCY,
    DEFAULT_SERVERS_PER_LEAF,
    MAX_OVERSUBSCRIPTION,
    MAX_SERVERS_PER_LEAF,
    SHARDING_FACTORS,
    SHARDING_NAMES,
    TRANSPORTS,
)

MAX_FABRICS = 8  # side-by-side comparison stays readable, and the chart palette has 8 colours
MAX_MONEY = MONEY_MAX  # the one money limit (quoting.engine.money): a typing slip above it
MONEY_STEP = "0.0001"  # the form's input step for amounts
SHARDING_CHOICES = tuple(SHARDING_NAMES.items())


def _money(label: str = "", high: Decimal = MAX_MONEY, **kwargs: Any) -> dict:
    return spec("decimal", label=label, low=Decimal(0), high=high, **kwargs)


# Each field's spec (quoting/engine/contract.py) is the one contract: the parser below checks it,
# and the TCO page's forms and the API's serializers are built from it.
@dataclass(frozen=True, slots=True)
class Workload:
    # parameters whose gradients are reduced across nodes
    params_billion: float = field(
        metadata=spec("float", label=_("Parameters (billion)"), low=0, low_open=True, high=100_000)
    )
    tokens_per_node_per_step: int = field(
        metadata=spec("int", label=_("Tokens per node per step"), low=1, high=10**9)
    )
    sharding: str = field(
        default="ddp", metadata=spec("choice", label=_("Sharding"), choices=SHARDING_CHOICES)
    )
    # share of gradient traffic hidden behind the backward pass
    overlap: float = field(
        default=0.0,
        metadata=spec(
            "float",
            label=_("Overlap"),
            low=0,
            high=0.9,
            help=_("Share of gradient traffic hidden behind the backward pass, 0–0.9."),
        ),
    )
    mfu: float = field(
        default=0.45,
        metadata=spec(
            "float",
            label=_("Single-node MFU"),
            low=0,
            low_open=True,
            high=1,
            help=_("Model-FLOPs utilisation on one node, 0–1."),
        ),
    )
    bytes_per_grad: int = field(
        default=2,
        metadata=spec(
            "choice", label="Bytes per gradient", choices=((1, "1"), (2, "2 (bf16)"), (4, "4"))
        ),
    )
    # mixture-of-experts: parameters used per token
    active_params_billion: float | None = field(
        default=None,
        metadata=spec(
            "float",
            label=_("Active parameters (billion)"),
            low=0,
            low_open=True,
            high=100_000,
            help=_("Mixture-of-experts: parameters used per token; empty: all."),
        ),
    )
    # tensor/expert-parallel traffic, experts on all nodes
    cross_node_bytes_per_token: float = field(
        default=0.0,
        metadata=spec(
            "float",
            label=_("Cross-node bytes per token"),
            low=0,
            high=1e9,
            help=_("Tensor- or expert-parallel traffic that leaves the node; empty: none."),
        ),
    )
    # gradient bucket; None follows Megatron-Core's default rule
    bucket_mb: float | None = field(
        default=None,
        metadata=spec("float", label="Gradient bucket (MB)", low=0, low_open=True, high=1e6),
    )

    @property
    def sharding_factor(self) -> float:
        return SHARDING_FACTORS[self.sharding]

    @property
    def compute_params_billion(self) -> float:
        return self.active_params_billion or self.params_billion


@dataclass(frozen=True, slots=True)
class FabricOption:
    name: str = field(metadata=spec("text", label=_("Name"), max_length=60, blank=False))
    transport: str = field(
        metadata=spec(
            "choice",
            label=_("Transport"),
            choices=tuple((key, transport.label) for key, transport in TRANSPORTS.items()),
        )
    )
    # Up to a rack-scale node's: a DGX GB200 NVL72 rack is one node of 72 GPUs with one 400G
    # ConnectX-7 each (DGX GB200 User Guide, "Hardware"), the GPUs-per-node bound below.
    nics_per_node: int = field(metadata=spec("int", label=_("NICs per node"), low=1, high=72))
    # line rate of one NIC port, gigabits per second
    nic_gbps: float = field(
        metadata=spec("float", label=_("NIC Gb/s"), low=0, low_open=True, high=3200)
    )
    # achieved fraction of line rate; None uses the transport's
    efficiency: float | None = field(
        default=None,
        metadata=spec(
            "float",
            label=_("Efficiency"),
            low=0,
            low_open=True,
            high=1,
            help=_("Achieved share of line rate; empty: the transport's default."),
        ),
    )
    # nccl-tests AllReduce busbw in GB/s, as it prints
    measured_busbw_gbps: float | None = field(
        default=None,
        metadata=spec(
            "float",
            label=_("Measured busbw (GB/s)"),
            low=0,
            low_open=True,
            high=10_000,
            help=_("nccl-tests AllReduce busbw across this cluster; overrides the estimate."),
        ),
    )
    # bought once: switches, NICs, optics, cables
    network_capex: Decimal = field(
        default=Decimal(0),
        metadata=_money(
            _("Network capex"), help=_("From the quote; empty: not priced."), step=MONEY_STEP
        ),
    )
    # switches, NICs and optics, from the fabric design
    network_power_w: Decimal = field(
        default=Decimal(0), metadata=_money("Network power (W)", high=Decimal(10**9))
    )
    # Sold per year (UFM per-endpoint licences, subscriptions): paid every year of the life.
    # Support contracts are support_per_year.
    network_opex_per_year: Decimal = field(
        default=Decimal(0),
        metadata=_money(
            _("Network licences per year"),
            step=MONEY_STEP,
            help=_("Sold per year, such as UFM per-endpoint licences: paid every year."),
        ),
    )
    # Support contracts priced for this option's network, per year (a quote's support lines);
    # None: the costs' support percentage of its network capex, an assumption (tco-model §3).
    support_per_year: Decimal | None = field(
        default=None,
        metadata=_money(
            _("Network support per year"),
            step=MONEY_STEP,
            help=_("As priced, such as a quote's support lines; empty: the support percentage."),
        ),
    )
    # r in r:1 between leaf and spine; 1 is non-blocking
    oversubscription: float = field(
        default=1.0,
        metadata=spec(
            "float",
            label=_("Oversubscription (r:1)"),
            low=1,
            high=MAX_OVERSUBSCRIPTION,
            help=_("Leaf to spine; slows jobs wider than one leaf. Empty: 1, non-blocking."),
        ),
    )
    # Servers a job can span without crossing the spine layer: one leaf, or one rail group of
    # rail-optimized leaves. None: a 64-port rail-optimized leaf (tco-model §4 point 8).
    servers_per_leaf: int | None = field(
        default=None,
        metadata=spec(
            "int",
            label=_("Servers per leaf"),
            low=1,
            high=MAX_SERVERS_PER_LEAF,
            help=_("Servers under one leaf, or one rail group when rail-optimized. Empty: 32."),
        ),
    )

    @property
    def leaf_servers(self) -> int:
        if self.servers_per_leaf is None:
            return DEFAULT_SERVERS_PER_LEAF
        return self.servers_per_leaf

    @property
    def network_priced(self) -> bool:
        """Whether this option's network has a price: an empty network capex reads 0, "not
        priced" (a reference build without a design); no network is free."""
        return self.network_capex > 0


@dataclass(frozen=True, slots=True)
class Costs:
    # a three-letter ISO 4217 code
    currency: str = field(
        default=DEFAULT_CURRENCY,
        metadata=spec(
            "text", label=_("Currency"), max_length=3, blank=False, pattern="[A-Za-z]{3}"
        ),
    )
    # all servers together, when quoted
    server_capex: Decimal = field(
        default=Decimal(0),
        metadata=_money(
            _("Server capex"), help=_("All servers; empty if not quoted."), step=MONEY_STEP
        ),
    )
    services_capex: Decimal = field(default=Decimal(0), metadata=_money("Services capex"))
    # One server at training load. None: the named catalog server's typical power, else
    # ASSUMED_SERVER_POWER_KW (model.server_power).
    server_power_kw: Decimal | None = field(
        default=None,
        metadata=_money(
            "Server power (kW)",
            high=Decimal(1000),
            help=_("Empty: the catalog server's typical power, else 8 kW assumed."),
        ),
    )
    pue: Decimal = field(
        default=Decimal("1.3"),
        metadata=spec("decimal", label=_("PUE"), low=Decimal(1), high=Decimal(3), step="0.01"),
    )
    # None: the CNY default (in USD, converted: CNY_PER_UNIT)
    tariff_per_kwh: Decimal | None = field(
        default=None,
        metadata=_money(
            _("Tariff per kWh"),
            high=Decimal(1000),
            help=_("Empty: 0.70 CNY (in USD at 7.2 CNY to the dollar)."),
            step=MONEY_STEP,
        ),
    )
    life_years: int = field(
        default=5, metadata=spec("int", label=_("Life (years)"), low=1, high=15)
    )
    discount_rate: Decimal = field(
        default=Decimal("0.08"),
        metadata=_money(
            _("Discount rate"), high=Decimal(1), help=_("0.08 = 8 % a year."), step="0.0001"
        ),
    )
    # per year, of the server capex and of each option's network capex unless it states its own
    support_percent: Decimal = field(
        default=Decimal("20"),
        metadata=_money(_("Support (% a year)"), high=Decimal(100), step="0.01"),
    )
    space_per_year: Decimal = field(default=Decimal(0), metadata=_money("Space per year"))
    availability: Decimal = field(
        default=Decimal("0.97"),
        metadata=spec(
            "decimal", label="Availability", low=Decimal(0), low_open=True, high=Decimal(1)
        ),
    )
    utilisation: Decimal = field(
        default=Decimal("0.85"),
        metadata=spec(
            "decimal", label="Utilisation", low=Decimal(0), low_open=True, high=Decimal(1)
        ),
    )
    # what one effective GPU-hour is worth; None: the CNY default (in USD, converted)
    gpu_hour_value: Decimal | None = field(
        default=None,
        metadata=_money(
            _("Value of a GPU-hour"),
            high=Decimal(10**6),
            help=_(
                "Empty: 49.54 CNY, an H100 on demand in public cloud (in USD at 7.2 CNY to "
                "the dollar)."
            ),
            step=MONEY_STEP,
        ),
    )
    # Not an input: the defaults converted from CNY (tariff_per_kwh, gpu_hour_value) and the
    # CNY per unit they were converted at, for the assumptions to say so.
    converted_defaults: tuple[str, ...] = field(default=(), init=False, compare=False)
    converted_at: Decimal | None = field(default=None, init=False, compare=False)

    def __post_init__(self) -> None:
        # A tariff or a rental price means nothing without its currency: CNY takes the defaults,
        # a currency with a reference rate takes them converted (a USD quote's TCO must not fail
        # for want of a dollar tariff), any other must state them.
        rate = None if self.currency == DEFAULT_CURRENCY else CNY_PER_UNIT.get(self.currency)
        missing, converted = {}, []
        for name, cny_default in (
            ("tariff_per_kwh", CNY_TARIFF_PER_KWH),
            ("gpu_hour_value", CNY_GPU_HOUR_VALUE),
        ):
            if getattr(self, name) is not None:
                continue
            if self.currency != DEFAULT_CURRENCY and rate is None:
                missing[f"costs.{name}"] = [
                    message(
                        _("required when the currency is not {currency}"), currency=DEFAULT_CURRENCY
                    )
                ]
            elif rate is not None:
                cny_default /= rate  # exactly: rounding would make the figures disagree
                converted.append(name)
            object.__setattr__(self, name, cny_default)
        if missing:
            raise InvalidInput(missing)
        object.__setattr__(self, "converted_defaults", tuple(converted))
        object.__setattr__(self, "converted_at", rate if converted else None)


@dataclass(frozen=True, slots=True)
class TcoRequest:
    # dense BF16 per GPU; a body gives it or a catalog GPU's name
    peak_tflops: float = field(
        metadata=spec(
            "float",
            label="Peak TFLOP/s",
            low=0,
            low_open=True,
            high=1e6,
            help="Instead of gpu: dense BF16 TFLOP/s of one GPU.",
        )
    )
    nodes: int = field(metadata=spec("int", label=_("Nodes"), low=1, high=100_000))
    gpus_per_node: int = field(metadata=spec("int", label=_("GPUs per node"), low=1, high=72))
    workload: Workload
    fabrics: tuple[FabricOption, ...]
    costs: Costs = field(default_factory=Costs)
    # model name, for the proposal
    gpu: str = field(default="", metadata=spec("part", label=_("GPU"), max_length=60))
    # a catalog server's part number: its power is the server power unless the costs state it
    server: str = field(
        default="",
        metadata=spec(
            "part",
            label=_("Server"),
            max_length=60,
            help=_("A catalog server's part number: its typical power is the server power."),
        ),
    )
    # `server` as the catalog gives it (from_dict looks it up); None: no server named
    server_spec: ProductSpec | None = None

    @property
    def gpu_count(self) -> int:
        return self.nodes * self.gpus_per_node

    @classmethod
    def from_dict(
        cls,
        data: Any,
        *,
        gpu_catalog: Mapping[str, float] | None = None,
        server_catalog: Mapping[str, ProductSpec] | None = None,
    ) -> TcoRequest:
        """Parse a JSON-ish body; `gpu_catalog` maps GPU model names to peak TFLOP/s,
        `server_catalog` part numbers to the catalog's servers (for a body's `server`)."""
        return _Parser(gpu_catalog or {}, server_catalog or {}).request(data)


class _Parser:
    """Reads one request, collecting every field error before raising them together.

    Each field is read against its spec (type, bounds, choices); the rules across fields (a GPU
    or its TFLOP/s, unique option names, a tariff outside CNY) are written out here.
    """

    def __init__(
        self, gpu_catalog: Mapping[str, float], server_catalog: Mapping[str, ProductSpec]
    ) -> None:
        self.gpu_catalog = gpu_catalog
        self.server_catalog = server_catalog
        self.errors: dict[str, list[str | Message]] = {}

    def fail(self, path: str, text: str | Message) -> None:
        self.errors.setdefault(path, []).append(text)

    def request(self, data: Any) -> TcoRequest:
        body = self.mapping(data, "", allowed=_REQUEST_KEYS)
        if body is None:
            raise InvalidInput(self.errors)
        gpu, peak_tflops = self.gpu(body)
        server, server_spec = self.server(body)
        nodes = self.read(body, TcoRequest, "nodes", "")
        gpus_per_node = self.read(body, TcoRequest, "gpus_per_node", "")
        workload = self.workload(body.get("workload"))
        fabrics = self.fabrics(body.get("fabrics"), nodes)
        costs = self.costs(body.get("costs", {}))
        if self.errors:
            raise InvalidInput(self.errors)
        return TcoRequest(
            peak_tflops,
            nodes,
            gpus_per_node,
            workload,
            fabrics,
            costs,
            gpu,
            server=server,
            server_spec=server_spec,
        )

    def gpu(self, body: dict) -> tuple[str, float | None]:
        if "peak_tflops" in body:
            name = self.read(body, TcoRequest, "gpu", "")
            return name or "", self.read(body, TcoRequest, "peak_tflops", "")
        name = body.get("gpu")
        if not isinstance(name, str) or not name:
            self.fail("gpu", message(_("give a GPU model name or peak_tflops")))
        elif name not in self.gpu_catalog:
            self.fail("gpu", message(_("{name!r} is not a GPU in the catalog"), name=name))
        else:
            return name, float(self.gpu_catalog[name])
        return "", None

    def server(self, body: dict) -> tuple[str, ProductSpec | None]:
        name = self.read(body, TcoRequest, "server", "")
        if not name:
            return "", None
        product = self.server_catalog.get(name)
        if product is None or product.category != "server":
            self.fail("server", message(_("{name!r} is not a server in the catalog"), name=name))
            return "", None
        if not product.gpu_count:
            self.fail("server", message(_("{name!r} has no GPUs: choose a GPU server"), name=name))
            return "", None
        return name, product

    def workload(self, data: Any) -> Workload | None:
        workload = self.mapping(data, "workload", allowed=_WORKLOAD_KEYS)
        if workload is None:
            return None
        return Workload(**self.read_all(workload, Workload, "workload."))

    def fabrics(self, data: Any, nodes: int | None) -> tuple[FabricOption, ...]:
        if not isinstance(data, list) or not data:
            self.fail("fabrics", message(_("give at least one fabric option")))
            return ()
        if len(data) > MAX_FABRICS:
            self.fail(
                "fabrics", message(_("compare at most {count} fabric options"), count=MAX_FABRICS)
            )
            return ()
        options, names = [], set()
        for index, item in enumerate(data):
            prefix = f"fabrics[{index}]."
            option = self.mapping(item, f"fabrics[{index}]", allowed=_FABRIC_KEYS)
            if option is None:
                continue
            values = self.read_all(option, FabricOption, prefix)
            name = values["name"]
            if name is not None and name in names:
                self.fail(
                    prefix + "name", message(_("{name!r} is used by another option"), name=name)
                )
            names.add(name)
            if values["measured_busbw_gbps"] is not None and nodes == 1:
                self.fail(
                    prefix + "measured_busbw_gbps",
                    message(_("a single node sends nothing over the network")),
                )
            options.append(FabricOption(**values))
        return tuple(options)

    def costs(self, data: Any) -> Costs | None:
        costs = self.mapping(data, "costs", allowed=_COSTS_KEYS)
        if costs is None:
            return None
        errors_before = len(self.errors)
        currency = costs.get("currency", DEFAULT_CURRENCY)
        if value_error(specs(Costs)["currency"], currency):
            self.fail(
                "costs.currency", message(_("give a three-letter ISO 4217 code such as CNY or USD"))
            )
        amounts = {key: value for key, value in costs.items() if key != "currency"}
        values = self.read_all(amounts, Costs, "costs.")
        if len(self.errors) > errors_before:
            return None
        try:
            return Costs(**(values | {"currency": currency.upper()}))
        except InvalidInput as missing:
            for path, messages in missing.messages.items():
                self.errors.setdefault(path, []).extend(messages)
            return None

    # Field readers: each returns the parsed value, or records an error and returns None.

    def mapping(self, data: Any, path: str, allowed: frozenset[str]) -> dict | None:
        if not isinstance(data, Mapping):
            self.fail(path or "body", "give an object")
            return None
        for key in sorted(set(data) - allowed):
            self.fail(f"{path}.{key}" if path else str(key), "unknown field")
        return dict(data)

    def read_all(self, data: dict, cls: type, prefix: str) -> dict[str, Any]:
        return {name: self.read(data, cls, name, prefix) for name in specs(cls)}

    def read(self, data: dict, cls: type, key: str, prefix: str) -> Any:
        """One field by its spec: absent takes the default (none: "required")."""
        if key not in data:
            default = default_of(cls, key)
            if default is MISSING:
                self.fail(prefix + key, "required")
                return None
            return default
        s, value = specs(cls)[key], data[key]
        if s.kind == "int" and isinstance(value, float) and value.is_integer():
            value = int(value)
        elif s.kind == "decimal":
            value = _decimal(value)
        message = value_error(s, value)
        if message:
            self.fail(prefix + key, message.rstrip("."))
            return None
        return float(value) if s.kind == "float" else value


def _decimal(value: Any) -> Any:
    """Amounts and cost factors as Decimal; JSON floats go through str() to stay exact.

    Anything that is not a number stays as it is, for the spec to refuse."""
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        return value
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return value


_REQUEST_KEYS = frozenset(
    {"gpu", "server", "peak_tflops", "nodes", "gpus_per_node", "workload", "fabrics", "costs"}
)
_WORKLOAD_KEYS = frozenset(Workload.__dataclass_fields__)
_FABRIC_KEYS = frozenset(FabricOption.__dataclass_fields__)
_COSTS_KEYS = frozenset(Costs.__dataclass_fields__)

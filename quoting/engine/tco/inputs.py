"""What the TCO model takes in: a cluster, a workload, the fabric options and the costs.

`TcoRequest.from_dict` is the one door for untrusted input (the REST body, the CLI file): it
checks every field and raises InvalidInput naming each bad one with a dotted path such as
"workload.overlap" or "fabrics[1].transport". Code that builds the dataclasses itself (the
quote services) is trusted to pass values in range.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from quoting.engine.errors import InvalidInput
from quoting.engine.tco.presets import (
    CNY_GPU_HOUR_VALUE,
    CNY_TARIFF_PER_KWH,
    DEFAULT_CURRENCY,
    DEFAULT_SERVERS_PER_LEAF,
    MAX_OVERSUBSCRIPTION,
    MAX_SERVERS_PER_LEAF,
    SHARDING_FACTORS,
    TRANSPORTS,
)

MAX_FABRICS = 8  # side-by-side comparison stays readable, and the chart palette has 8 colours


@dataclass(frozen=True, slots=True)
class Workload:
    params_billion: float  # parameters whose gradients are reduced across nodes
    tokens_per_node_per_step: int
    sharding: str = "ddp"  # ddp, zero1, zero2, zero3, fsdp
    overlap: float = 0.0  # share of gradient traffic hidden behind the backward pass, 0-0.9
    mfu: float = 0.45  # single-node model-FLOPs utilisation
    bytes_per_grad: int = 2  # bf16
    active_params_billion: float | None = None  # mixture-of-experts: parameters used per token
    cross_node_bytes_per_token: float = 0.0  # tensor/expert-parallel traffic, experts on all nodes
    bucket_mb: float | None = None  # gradient bucket; None follows Megatron-Core's default rule

    @property
    def sharding_factor(self) -> float:
        return SHARDING_FACTORS[self.sharding]

    @property
    def compute_params_billion(self) -> float:
        return self.active_params_billion or self.params_billion


@dataclass(frozen=True, slots=True)
class FabricOption:
    name: str
    transport: str  # infiniband, roce, roce_untuned, tcp
    nics_per_node: int
    nic_gbps: float  # line rate of one NIC port, gigabits per second
    efficiency: float | None = None  # achieved fraction of line rate; None uses the transport's
    measured_busbw_gbps: float | None = None  # nccl-tests AllReduce busbw in GB/s, as it prints
    network_capex: Decimal = Decimal(0)  # bought once: switches, NICs, optics, cables
    network_power_w: Decimal = Decimal(0)  # switches, NICs and optics, from the fabric design
    # Sold per year (UFM per-endpoint licences, support contracts): paid every year of the life.
    network_opex_per_year: Decimal = Decimal(0)
    oversubscription: float = 1.0  # r in r:1 between leaf and spine; 1 is non-blocking
    # Servers a job can span without crossing the spine layer: one leaf, or one rail group of
    # rail-optimized leaves. None: a 64-port rail-optimized leaf (tco-model §4 point 8).
    servers_per_leaf: int | None = None

    @property
    def leaf_servers(self) -> int:
        if self.servers_per_leaf is None:
            return DEFAULT_SERVERS_PER_LEAF
        return self.servers_per_leaf


@dataclass(frozen=True, slots=True)
class Costs:
    currency: str = DEFAULT_CURRENCY
    server_capex: Decimal = Decimal(0)  # all servers together, when quoted
    services_capex: Decimal = Decimal(0)
    server_power_kw: Decimal = Decimal("8.0")  # one 8-GPU server at training load
    pue: Decimal = Decimal("1.3")
    tariff_per_kwh: Decimal | None = None  # None: the CNY default
    life_years: int = 5
    discount_rate: Decimal = Decimal("0.08")
    support_percent: Decimal = Decimal("20")  # of hardware capex, per year
    space_per_year: Decimal = Decimal(0)
    availability: Decimal = Decimal("0.97")
    utilisation: Decimal = Decimal("0.85")
    gpu_hour_value: Decimal | None = None  # what one effective GPU-hour is worth; None: CNY default

    def __post_init__(self) -> None:
        # A tariff or a rental price means nothing without its currency: only fill CNY defaults.
        missing = {}
        for name, cny_default in (
            ("tariff_per_kwh", CNY_TARIFF_PER_KWH),
            ("gpu_hour_value", CNY_GPU_HOUR_VALUE),
        ):
            if getattr(self, name) is not None:
                continue
            if self.currency != DEFAULT_CURRENCY:
                missing[f"costs.{name}"] = [f"required when the currency is not {DEFAULT_CURRENCY}"]
            object.__setattr__(self, name, cny_default)
        if missing:
            raise InvalidInput(missing)


@dataclass(frozen=True, slots=True)
class TcoRequest:
    peak_tflops: float  # dense BF16 per GPU
    nodes: int
    gpus_per_node: int
    workload: Workload
    fabrics: tuple[FabricOption, ...]
    costs: Costs = field(default_factory=Costs)
    gpu: str = ""  # model name, for the proposal

    @property
    def gpu_count(self) -> int:
        return self.nodes * self.gpus_per_node

    @classmethod
    def from_dict(cls, data: Any, *, gpu_catalog: Mapping[str, float] | None = None) -> TcoRequest:
        """Parse a JSON-ish body; `gpu_catalog` maps GPU model names to peak TFLOP/s."""
        return _Parser(gpu_catalog or {}).request(data)


class _Parser:
    """Reads one request, collecting every field error before raising them together."""

    def __init__(self, gpu_catalog: Mapping[str, float]) -> None:
        self.gpu_catalog = gpu_catalog
        self.errors: dict[str, list[str]] = {}

    def fail(self, path: str, message: str) -> None:
        self.errors.setdefault(path, []).append(message)

    def request(self, data: Any) -> TcoRequest:
        body = self.mapping(data, "", allowed=_REQUEST_KEYS)
        if body is None:
            raise InvalidInput(self.errors)
        gpu, peak_tflops = self.gpu(body)
        nodes = self.integer(body, "nodes", "nodes", low=1, high=100_000)
        gpus_per_node = self.integer(body, "gpus_per_node", "gpus_per_node", low=1, high=72)
        workload = self.workload(body.get("workload"))
        fabrics = self.fabrics(body.get("fabrics"), nodes)
        costs = self.costs(body.get("costs", {}))
        if self.errors:
            raise InvalidInput(self.errors)
        return TcoRequest(peak_tflops, nodes, gpus_per_node, workload, fabrics, costs, gpu)

    def gpu(self, body: dict) -> tuple[str, float | None]:
        if "peak_tflops" in body:
            return str(body.get("gpu", "")), self.number(body, "peak_tflops", "peak_tflops", 1e6)
        name = body.get("gpu")
        if not isinstance(name, str) or not name:
            self.fail("gpu", "give a GPU model name or peak_tflops")
        elif name not in self.gpu_catalog:
            self.fail("gpu", f"{name!r} is not a GPU in the catalog")
        else:
            return name, float(self.gpu_catalog[name])
        return "", None

    def workload(self, data: Any) -> Workload | None:
        w = self.mapping(data, "workload", allowed=_WORKLOAD_KEYS)
        if not w:
            return None
        p = "workload."
        sharding = self.choice(w, "sharding", p + "sharding", SHARDING_FACTORS, default="ddp")
        return Workload(
            params_billion=self.number(w, "params_billion", p + "params_billion", 100_000),
            tokens_per_node_per_step=self.integer(
                w, "tokens_per_node_per_step", p + "tokens_per_node_per_step", 1, 10**9
            ),
            sharding=sharding,
            overlap=self.number(w, "overlap", p + "overlap", 0.9, inclusive=True, default=0.0),
            mfu=self.number(w, "mfu", p + "mfu", 1, default=0.45),
            bytes_per_grad=self.choice(w, "bytes_per_grad", p + "bytes_per_grad", (1, 2, 4), 2),
            active_params_billion=self.number(
                w, "active_params_billion", p + "active_params_billion", 100_000, default=None
            ),
            cross_node_bytes_per_token=self.number(
                w,
                "cross_node_bytes_per_token",
                p + "cross_node_bytes_per_token",
                1e9,
                inclusive=True,
                default=0.0,
            ),
            bucket_mb=self.number(w, "bucket_mb", p + "bucket_mb", 1e6, default=None),
        )

    def fabrics(self, data: Any, nodes: int | None) -> tuple[FabricOption, ...]:
        if not isinstance(data, list) or not data:
            self.fail("fabrics", "give at least one fabric option")
            return ()
        if len(data) > MAX_FABRICS:
            self.fail("fabrics", f"compare at most {MAX_FABRICS} fabric options")
            return ()
        options, names = [], set()
        for i, item in enumerate(data):
            p = f"fabrics[{i}]."
            f = self.mapping(item, f"fabrics[{i}]", allowed=_FABRIC_KEYS)
            if not f:
                continue
            name = f.get("name")
            if not isinstance(name, str) or not name.strip() or len(name) > 60:
                self.fail(p + "name", "give a name of 1-60 characters")
            elif name in names:
                self.fail(p + "name", f"{name!r} is used by another option")
            names.add(name)
            busbw = self.number(
                f, "measured_busbw_gbps", p + "measured_busbw_gbps", 10_000, default=None
            )
            if busbw is not None and nodes == 1:
                self.fail(p + "measured_busbw_gbps", "a single node sends nothing over the network")
            options.append(
                FabricOption(
                    name=name,
                    transport=self.choice(f, "transport", p + "transport", TRANSPORTS),
                    nics_per_node=self.integer(f, "nics_per_node", p + "nics_per_node", 1, 32),
                    nic_gbps=self.number(f, "nic_gbps", p + "nic_gbps", 3200),
                    efficiency=self.number(f, "efficiency", p + "efficiency", 1, default=None),
                    measured_busbw_gbps=busbw,
                    network_capex=self.money(f, "network_capex", p + "network_capex"),
                    network_power_w=self.money(f, "network_power_w", p + "network_power_w"),
                    network_opex_per_year=self.money(
                        f, "network_opex_per_year", p + "network_opex_per_year"
                    ),
                    oversubscription=self.number(
                        f,
                        "oversubscription",
                        p + "oversubscription",
                        MAX_OVERSUBSCRIPTION,
                        low=1.0,
                        inclusive=True,
                        default=1.0,
                    ),
                    servers_per_leaf=self.integer(
                        f,
                        "servers_per_leaf",
                        p + "servers_per_leaf",
                        1,
                        MAX_SERVERS_PER_LEAF,
                        default=None,
                    ),
                )
            )
        return tuple(options)

    def costs(self, data: Any) -> Costs | None:
        c = self.mapping(data, "costs", allowed=_COSTS_KEYS)
        if c is None:
            return None
        errors_before = len(self.errors)
        p = "costs."
        currency = c.get("currency", DEFAULT_CURRENCY)
        if not isinstance(currency, str) or not currency.isalpha() or len(currency) != 3:
            self.fail(p + "currency", "give a three-letter ISO 4217 code such as CNY or USD")
            currency = DEFAULT_CURRENCY
        defaults = Costs()
        values = {
            "server_capex": self.money(c, "server_capex", p + "server_capex"),
            "services_capex": self.money(c, "services_capex", p + "services_capex"),
            "server_power_kw": self.money(
                c, "server_power_kw", p + "server_power_kw", defaults.server_power_kw
            ),
            "pue": self.money(c, "pue", p + "pue", defaults.pue, low=Decimal(1), high=Decimal(3)),
            "tariff_per_kwh": self.money(c, "tariff_per_kwh", p + "tariff_per_kwh", None),
            "life_years": self.integer(c, "life_years", p + "life_years", 1, 15, default=5),
            "discount_rate": self.money(
                c, "discount_rate", p + "discount_rate", defaults.discount_rate, high=Decimal(1)
            ),
            "support_percent": self.money(
                c, "support_percent", p + "support_percent", defaults.support_percent, Decimal(100)
            ),
            "space_per_year": self.money(c, "space_per_year", p + "space_per_year"),
            "availability": self.fraction(c, "availability", p, defaults.availability),
            "utilisation": self.fraction(c, "utilisation", p, defaults.utilisation),
            "gpu_hour_value": self.money(c, "gpu_hour_value", p + "gpu_hour_value", None),
        }
        if len(self.errors) > errors_before:
            return None
        try:
            return Costs(currency=currency.upper(), **values)
        except InvalidInput as missing:
            for path, messages in missing.errors.items():
                self.errors.setdefault(path, []).extend(messages)
            return None

    # Field readers: each returns the parsed value, or records an error and returns None.

    def missing(self, path: str, default: Any) -> Any:
        if default is ...:  # no default: the field is required
            self.fail(path, "required")
            return None
        return default

    def mapping(self, data: Any, path: str, allowed: frozenset[str]) -> dict | None:
        if not isinstance(data, Mapping):
            self.fail(path or "body", "give an object")
            return None
        for key in sorted(set(data) - allowed):
            self.fail(f"{path}.{key}" if path else str(key), "unknown field")
        return dict(data)

    def number(self, data, key, path, high, *, low=0.0, inclusive=False, default=...):
        if key not in data:
            return self.missing(path, default)
        value = data[key]
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            self.fail(path, "give a number")
            return None
        if not (low <= value if inclusive else low < value) or value > high:
            self.fail(
                path, f"must be {'at least' if inclusive else 'above'} {low:g} and at most {high:g}"
            )
            return None
        return float(value)

    def integer(self, data, key, path, low, high, default=...):
        if key not in data:
            return self.missing(path, default)
        value = data[key]
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(path, "give a whole number")
            return None
        if not low <= value <= high:
            self.fail(path, f"must be between {low} and {high}")
            return None
        return value

    def choice(self, data, key, path, options, default=...):
        if key not in data:
            return self.missing(path, default)
        value = data[key]
        if isinstance(value, bool) or value not in options:
            self.fail(path, "must be one of " + ", ".join(str(o) for o in options))
            return None
        return value

    def money(self, data, key, path, default=Decimal(0), high=None, low=Decimal(0)):
        """Amounts and cost factors as Decimal; JSON floats go through str() to stay exact."""
        if key not in data:
            return default
        value = data.get(key)
        try:
            if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
                raise TypeError
            amount = Decimal(str(value))
        except (TypeError, InvalidOperation):
            self.fail(path, "give a number")
            return None
        if not amount.is_finite() or amount < low or (high is not None and amount > high):
            upper = f" and at most {high}" if high is not None else ""
            self.fail(path, f"must be at least {low}{upper}")
            return None
        return amount

    def fraction(self, data, key, prefix, default):
        value = self.money(data, key, prefix + key, default, high=Decimal(1))
        if value == 0:
            self.fail(prefix + key, "must be above 0")
            return None
        return value


_REQUEST_KEYS = frozenset(
    {"gpu", "peak_tflops", "nodes", "gpus_per_node", "workload", "fabrics", "costs"}
)
_WORKLOAD_KEYS = frozenset(Workload.__dataclass_fields__)
_FABRIC_KEYS = frozenset(FabricOption.__dataclass_fields__)
_COSTS_KEYS = frozenset(Costs.__dataclass_fields__)

"""Which inputs move cost per effective GPU-hour most: a tornado per fabric option.

Each input is moved down and up by the same share (20 % by default, kept inside its valid
range) with everything else held, and the bars are sorted widest first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from decimal import Decimal
from typing import Any

from quoting.engine.messages import gettext_noop as _
from quoting.engine.tco.inputs import TcoRequest
from quoting.engine.tco.model import plain


@dataclass(frozen=True, slots=True)
class Knob:
    key: str  # "<section>.<field>"; section is workload, costs or fabrics
    label: str
    low: float = 0.0
    high: float | None = None
    integer: bool = False


KNOBS = (
    Knob("workload.tokens_per_node_per_step", _("Tokens per node per step"), low=1, integer=True),
    Knob("workload.mfu", _("Single-node MFU"), high=1.0),
    Knob("workload.overlap", _("Communication overlap"), high=0.9),
    Knob("fabrics.nic_gbps", _("NIC line rate")),
    Knob("fabrics.network_capex", _("Network capex")),
    Knob("costs.server_capex", _("Server capex")),
    Knob("costs.tariff_per_kwh", _("Electricity tariff")),
    Knob("costs.pue", _("PUE"), low=1.0),
    Knob("costs.utilisation", _("Utilisation"), high=1.0),
    Knob("costs.support_percent", _("Support per year"), high=100.0),
    Knob("costs.discount_rate", _("Discount rate"), high=1.0),
    Knob("costs.life_years", _("Life"), low=1, integer=True),
)


@dataclass(frozen=True, slots=True)
class Bar:
    key: str
    label: str
    low_value: Any  # the input after moving it down
    high_value: Any
    cost_at_low: Decimal  # cost per effective GPU-hour with the input moved down
    cost_at_high: Decimal

    @property
    def swing(self) -> Decimal:
        return abs(self.cost_at_high - self.cost_at_low)


@dataclass(frozen=True, slots=True)
class Tornado:
    option: str
    base_cost: Decimal
    bars: tuple[Bar, ...]  # widest swing first

    def as_dict(self) -> dict:
        return {
            "option": self.option,
            "base_cost": str(self.base_cost),
            "bars": [
                {f.name: plain(getattr(bar, f.name)) for f in fields(bar)}
                | {"swing": str(bar.swing)}
                for bar in self.bars
            ],
        }


def tornado(
    request: TcoRequest,
    *,
    evaluate: Callable[[TcoRequest], Sequence[Any]],
    share: float = 0.2,
) -> tuple[Tornado, ...]:
    """`evaluate` returns one result per fabric with `cost_per_effective_gpu_hour` (the model)."""
    base = evaluate(request)
    moved = [
        (
            knob,
            evaluate(_moved(request, knob, 1 - share)),
            evaluate(_moved(request, knob, 1 + share)),
        )
        for knob in KNOBS
    ]
    tornados = []
    for i, fabric in enumerate(request.fabrics):
        bars = [
            Bar(
                key=knob.key,
                label=knob.label,
                low_value=_value(request, knob, 1 - share, i),
                high_value=_value(request, knob, 1 + share, i),
                cost_at_low=low[i].cost_per_effective_gpu_hour,
                cost_at_high=high[i].cost_per_effective_gpu_hour,
            )
            for knob, low, high in moved
        ]
        bars.sort(key=lambda bar: bar.swing, reverse=True)
        tornados.append(Tornado(fabric.name, base[i].cost_per_effective_gpu_hour, tuple(bars)))
    return tuple(tornados)


def _scale(value, knob: Knob, factor: float):
    if isinstance(value, Decimal):
        moved = value * Decimal(str(factor))
        moved = max(Decimal(str(knob.low)), moved)
        return min(Decimal(str(knob.high)), moved) if knob.high is not None else moved
    moved = max(knob.low, value * factor)
    if knob.high is not None:
        moved = min(knob.high, moved)
    return round(moved) if knob.integer else moved


def _moved(request: TcoRequest, knob: Knob, factor: float) -> TcoRequest:
    section, name = knob.key.split(".")
    if section == "fabrics":
        fabrics = tuple(
            replace(f, **{name: _scale(getattr(f, name), knob, factor)}) for f in request.fabrics
        )
        return replace(request, fabrics=fabrics)
    part = getattr(request, section)
    return replace(
        request, **{section: replace(part, **{name: _scale(getattr(part, name), knob, factor)})}
    )


def _value(request: TcoRequest, knob: Knob, factor: float, fabric_index: int):
    section, name = knob.key.split(".")
    part = request.fabrics[fabric_index] if section == "fabrics" else getattr(request, section)
    return _scale(getattr(part, name), knob, factor)

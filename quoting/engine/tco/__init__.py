"""Effective-compute TCO: what each fabric option's network is worth, side by side.

request = TcoRequest.from_dict(body, gpu_catalog={"H100": 989.0})
result = compute_tco(request)
result.as_dict()  # options, assumptions, efficiency_curve, sensitivity, warnings (+ messages)
"""

from __future__ import annotations

from dataclasses import dataclass

from quoting.engine.messages import Message, gettext_noop, message
from quoting.engine.tco.assumptions import Assumption, assumptions_for
from quoting.engine.tco.inputs import Costs, FabricOption, TcoRequest, Workload
from quoting.engine.tco.model import (
    EfficiencyCurve,
    OptionResult,
    efficiency_curves,
    evaluate_options,
    payback_baseline,
)
from quoting.engine.tco.sensitivity import Tornado, tornado

__all__ = [
    "Assumption",
    "Costs",
    "EfficiencyCurve",
    "FabricOption",
    "OptionResult",
    "TcoRequest",
    "TcoResult",
    "Tornado",
    "Workload",
    "compute_tco",
]


@dataclass(frozen=True, slots=True)
class TcoResult:
    options: tuple[OptionResult, ...]
    currency: str
    life_years: int
    assumptions: tuple[Assumption, ...]
    efficiency_curve: tuple[EfficiencyCurve, ...]
    sensitivity: tuple[Tornado, ...]
    warnings: tuple[Message, ...] = ()
    # The option every payback is measured against (the cheapest priced); None: none priced.
    payback_baseline: str | None = None

    def as_dict(self) -> dict:
        return {
            "currency": self.currency,
            "life_years": self.life_years,
            "options": [o.as_dict() for o in self.options],
            "payback_baseline": self.payback_baseline,
            "assumptions": [a.as_dict() for a in self.assumptions],
            "efficiency_curve": [c.as_dict() for c in self.efficiency_curve],
            "sensitivity": [t.as_dict() for t in self.sensitivity],
            "warnings": [str(w) for w in self.warnings],
            # The same warnings as kept messages, so a page or the API words them in its
            # reader's language (the plain list above is English).
            "warning_messages": [w.as_json() for w in self.warnings],
        }


# Kept in English by comparisons stored before their warnings were kept as messages: read back
# in the reader's language through quoting.kept_texts.
VALUE_BELOW_COST = gettext_noop(
    "The value of an effective GPU-hour ({value} {currency}) is below what one costs "
    "here ({cost} {currency} on the cheapest option), so every option's NPV is "
    "negative. The options still compare by cost per effective GPU-hour and payback; "
    "to read the NPV, set the value to what the compute earns (a rental price, or "
    "revenue per GPU-hour)."
)


def value_warnings(request: TcoRequest, options: tuple[OptionResult, ...]) -> tuple[Message, ...]:
    """A GPU-hour valued below what an effective GPU-hour costs makes every NPV negative: the
    reader must be told why, and what the value should be, before reading "NPV -172 M". The
    options still compare (cost per effective GPU-hour, payback): that is said too."""
    if not options:
        return ()
    value = request.costs.gpu_hour_value
    cheapest = min(o.cost_per_effective_gpu_hour for o in options)
    if value >= cheapest:
        return ()
    return (
        message(
            VALUE_BELOW_COST,
            value=f"{value:,.2f}",
            cost=f"{cheapest:,.2f}",
            currency=request.costs.currency,
        ),
    )


def compute_tco(request: TcoRequest) -> TcoResult:
    options = evaluate_options(request)
    baseline = payback_baseline(request)
    return TcoResult(
        options=options,
        currency=request.costs.currency,
        life_years=request.costs.life_years,
        assumptions=assumptions_for(request),
        efficiency_curve=efficiency_curves(request),
        sensitivity=tornado(request, evaluate=evaluate_options),
        warnings=value_warnings(request, options),
        payback_baseline=None if baseline is None else request.fabrics[baseline].name,
    )

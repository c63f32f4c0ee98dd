"""Effective-compute TCO: what each fabric option's network is worth, side by side.

request = TcoRequest.from_dict(body, gpu_catalog={"H100": 989.0})
result = compute_tco(request)
result.as_dict()  # options, assumptions, efficiency_curve, sensitivity
"""

from __future__ import annotations

from dataclasses import dataclass

from quoting.engine.tco.assumptions import Assumption, assumptions_for
from quoting.engine.tco.inputs import Costs, FabricOption, TcoRequest, Workload
from quoting.engine.tco.model import (
    EfficiencyCurve,
    OptionResult,
    efficiency_curves,
    evaluate_options,
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

    def as_dict(self) -> dict:
        return {
            "currency": self.currency,
            "life_years": self.life_years,
            "options": [o.as_dict() for o in self.options],
            "assumptions": [a.as_dict() for a in self.assumptions],
            "efficiency_curve": [c.as_dict() for c in self.efficiency_curve],
            "sensitivity": [t.as_dict() for t in self.sensitivity],
        }


def compute_tco(request: TcoRequest) -> TcoResult:
    return TcoResult(
        options=evaluate_options(request),
        currency=request.costs.currency,
        life_years=request.costs.life_years,
        assumptions=assumptions_for(request),
        efficiency_curve=efficiency_curves(request),
        sensitivity=tornado(request, evaluate=evaluate_options),
    )

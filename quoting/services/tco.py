"""TCO: the catalog's GPU figures fed to the pure-Python TCO engine."""

from __future__ import annotations

from typing import Any

from catalog.selectors import gpu_peak_tflops
from quoting.engine.errors import InvalidInput
from quoting.engine.tco import TcoRequest, TcoResult, compute_tco
from quoting.models import TcoScenario
from quoting.services.designs import (  # noqa: F401  tco_option_from_design: its old home
    design_bom_priced,
    design_compute,
    design_tco_body,
    tco_option_from_design,
)
from quoting.services.requirements import requirements_from_json


def tco_compute(*, data: Any) -> TcoResult:
    """Compute the TCO of a JSON-style body; raises InvalidInput with dotted field names.

    `gpu` is a model name looked up in the catalog's servers (or the body gives `peak_tflops`).
    """
    return compute_tco(TcoRequest.from_dict(data, gpu_catalog=gpu_peak_tflops()))


def tco_scenario_for_design(*, design, user, currency: str):
    """The design's "what the network is worth" comparison, kept as a TcoScenario so that a quote
    (and its proposal) carries the figures the customer was shown. None when the catalog can no
    longer build the design or price its GPUs: the quote then goes out without a TCO section."""
    try:
        fabric = design_compute(requirements=requirements_from_json(design.requirements))
        priced = design_bom_priced(design=fabric, currency=currency)
        body = design_tco_body(design=fabric, bom_total=priced.total, currency=currency,
                               yearly_total=priced.yearly_total)
        result = tco_compute(data=body)
    except InvalidInput:
        return None
    return TcoScenario.objects.create(project=design.project, name=f"{design.name} — TCO"[:200],
                                      request=body, result=result.as_dict(), created_by=user)

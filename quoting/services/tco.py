"""TCO: the catalog's GPU figures fed to the pure-Python TCO engine."""

from __future__ import annotations

from typing import Any

from catalog.selectors import gpu_peak_tflops
from quoting.engine.errors import InvalidInput
from quoting.engine.tco import TcoRequest, TcoResult, compute_tco
from quoting.engine.tco.presets import MAX_OVERSUBSCRIPTION, MAX_SERVERS_PER_LEAF
from quoting.models import TcoScenario
from quoting.services.customers import requirements_from_json
from quoting.services.designs import design_bom_priced, design_compute, design_tco_body


def tco_compute(*, data: Any) -> TcoResult:
    """Compute the TCO of a JSON-style body; raises InvalidInput with dotted field names.

    `gpu` is a model name looked up in the catalog's servers (or the body gives `peak_tflops`).
    """
    return compute_tco(TcoRequest.from_dict(data, gpu_catalog=gpu_peak_tflops()))


def tco_option_from_design(
    *, name: str, design_dict: dict, network_capex: Any, transport: str | None = None,
    network_opex_per_year: Any = 0, servers_per_leaf: int | None = None,
) -> dict:
    """A `fabrics` entry of the TCO body from a fabric design's `as_dict()` and its quoted price.

    Per-node bandwidth is what the model needs, so every endpoint port of a node (over all
    planes) counts as one NIC at the design's port speed. Only InfiniBand designs run a subnet
    manager, which tells the transport when the caller does not; Ethernet is taken as tuned RoCE,
    since that is what we design and quote. The leaf's achieved oversubscription comes with it
    (a leaf cabled with spare uplinks counts as non-blocking); `network_opex_per_year` is the
    part of the price sold per year, `servers_per_leaf` what one leaf or rail group serves.
    """
    ports_per_node = design_dict["endpoint_ports"] // design_dict["node_count"]
    option = {
        "name": name,
        "transport": transport or ("infiniband" if design_dict["subnet_manager"] else "roce"),
        "nics_per_node": ports_per_node,
        "nic_gbps": design_dict["injection_gbps"] / design_dict["endpoint_ports"],
        "network_capex": str(network_capex),
        "network_power_w": design_dict["power_w"]["typical"],
        "oversubscription": min(
            MAX_OVERSUBSCRIPTION, max(1.0, float(design_dict["oversubscription"]))
        ),
    }
    if network_opex_per_year:
        option["network_opex_per_year"] = str(network_opex_per_year)
    if servers_per_leaf is not None:
        option["servers_per_leaf"] = min(servers_per_leaf, MAX_SERVERS_PER_LEAF)
    return option


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

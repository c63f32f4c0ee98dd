"""TCO: the catalog's GPU figures fed to the pure-Python TCO engine, and a design's comparison."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.utils import translation

from catalog.models import Category, Lifecycle, Product
from catalog.selectors import gpu_peak_tflops, price_lookup
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricDesign
from quoting.engine.tco import TcoRequest, TcoResult, compute_tco
from quoting.engine.tco.names import COMMODITY, OTHER_FAMILY, THIS_DESIGN, UNTUNED
from quoting.engine.tco.presets import (
    MAX_OVERSUBSCRIPTION,
    MAX_SERVERS_PER_LEAF,
    WORKLOAD_PRESETS,
)
from quoting.selectors import bom_priced
from quoting.services.designs import design_tco_inputs
from quoting.svg.tco import cost_breakdown_chart, cost_per_hour_chart, efficiency_chart

TCO_PRESET = "llm_pretrain_7b"  # the job the design page assumes; the TCO page changes it
# The cheap build the seed's claim is about: two 100G ports per 8-GPU node, commodity Ethernet.
COMMODITY_OPTION = {"name": COMMODITY, "transport": "roce", "nics_per_node": 2, "nic_gbps": 100}


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


def tco_body_for_design(*, inputs: dict, currency: str,
                        this_price: tuple[Decimal, Decimal] | None = None) -> dict:
    """A TCO request comparing a design with the other fabric family and a commodity build.

    `inputs` is design_tco_inputs(): no engine runs here, only prices. Each designed option
    carries its own list-priced network capex (bom_priced, the one pricing rule) and power, so
    the payback of the premium is real; lines sold per year (UFM per-endpoint licences) are
    yearly opex. The commodity build has no design and no capex (the model says so).
    `this_price` (total, yearly part) replaces the first design's own pricing when given.
    """
    fabrics = []
    for i, facts in enumerate(inputs["designs"]):
        if i == 0 and this_price is not None:
            total, yearly = this_price
        else:
            priced = bom_priced(bom=facts["bom"], currency=currency)
            total, yearly = priced.total, priced.yearly_total
        if i == 0:
            name = THIS_DESIGN.format(family=facts["family"])
        else:
            label = "InfiniBand" if facts["subnet_manager"] else "RoCE"
            name = OTHER_FAMILY.format(transport=label, family=facts["family"])
        fabrics.append(tco_option_from_design(
            name=name, design_dict=facts, network_capex=total - yearly,
            network_opex_per_year=yearly, servers_per_leaf=facts["servers_per_leaf"]))
        if i > 0 and not facts["subnet_manager"]:
            fabrics.append({**fabrics[-1], "name": UNTUNED.format(name=name),
                            "transport": "roce_untuned"})
    fabrics.append(dict(COMMODITY_OPTION))
    nodes = inputs["designs"][0]["node_count"]
    costs = {"currency": currency}
    # The servers dominate the cost of compute: without them a cheap network looks cheap.
    server_price = _server_price(gpu=inputs["gpu"], gpus_per_server=inputs["gpus_per_server"],
                                 currency=currency, part_number=inputs["server_part_number"])
    if server_price is not None:
        costs["server_capex"] = str(server_price * nodes)
    return {"gpu": inputs["gpu"], "nodes": nodes, "gpus_per_node": inputs["gpus_per_server"],
            "workload": dict(WORKLOAD_PRESETS[TCO_PRESET].workload), "fabrics": fabrics,
            "costs": costs}


def design_tco_body(*, design: FabricDesign, bom_total: Decimal, currency: str,
                    gpu: str = "H100", yearly_total: Decimal = Decimal(0)) -> dict:
    """The comparison's request for a design computed just now (the design page's query);
    `yearly_total` is the part of `bom_total` sold per year."""
    return tco_body_for_design(inputs=design_tco_inputs(design, gpu=gpu), currency=currency,
                               this_price=(bom_total, yearly_total))


def _server_price(*, gpu: str, gpus_per_server: int, currency: str,
                  part_number: str | None = None) -> Decimal | None:
    """List price of the chosen server, else of the catalog's cheapest server with these GPUs,
    or None."""
    servers = Product.objects.filter(category=Category.SERVER)
    if part_number:
        servers = servers.filter(part_number=part_number)
    else:
        servers = servers.filter(gpu_model=gpu, gpu_count=gpus_per_server)
    part_numbers = servers.exclude(lifecycle=Lifecycle.EOL).values_list("part_number", flat=True)
    prices = price_lookup(part_numbers=list(part_numbers), currency=currency)
    return min((p.list_price for p in prices.values()), default=None)


def tco_charts(result: TcoResult) -> list[dict[str, str]]:
    """The comparison's charts as SVG, drawn once from the result in every language of the
    portal (a snapshot keeps them; a proposal prints them in its own language, see chart_in)."""
    charts = []
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            drawn = [cost_per_hour_chart(result, translation.gettext),
                     cost_breakdown_chart(result, translation.gettext)]
            if result.efficiency_curve:
                drawn.insert(0, efficiency_chart(result, translation.gettext))
        charts = charts or [{} for _ in drawn]
        for chart, svg in zip(charts, drawn, strict=True):
            chart[language] = svg
    return charts


def tco_comparison(*, inputs: dict, currency: str) -> dict:
    """The design's "what the network is worth" comparison as a snapshot keeps it: the request,
    the result and its charts, or the reason it could not be computed."""
    body = tco_body_for_design(inputs=inputs, currency=currency)
    try:
        result = tco_compute(data=body)
    except InvalidInput as error:  # e.g. no server in the catalog to take the TFLOPS from
        return {"currency": currency, "request": body, "result": None, "charts": [],
                "error": str(error)}
    return {"currency": currency, "request": body, "result": result.as_dict(),
            "charts": tco_charts(result), "error": ""}

"""TCO: the catalog's GPU figures fed to the pure-Python TCO engine, and a design's comparison."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from decimal import Decimal
from types import SimpleNamespace
from typing import Any, NamedTuple

from django.conf import settings
from django.utils import translation

from catalog.models import HARDWARE_CATEGORIES, Category, Lifecycle, Product
from catalog.selectors import gpu_peak_tflops, price_lookup, product_to_spec
from quoting.designs.selectors import bom_priced
from quoting.designs.services.designs import design_tco_inputs, messages_worded
from quoting.designs.svg.tco import cost_breakdown_chart, cost_per_hour_chart, efficiency_chart
from quoting.engine.catalog import ProductSpec
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricDesign
from quoting.engine.messages import Message
from quoting.engine.money import round_money
from quoting.engine.tco import Costs, TcoRequest, TcoResult, compute_tco
from quoting.engine.tco.assumptions import BASIS_DESIGN, BASIS_MODEL
from quoting.engine.tco.assumptions import TEXTS as ASSUMPTION_TEXTS
from quoting.engine.tco.names import COMMODITY, OTHER_FAMILY, THIS_DESIGN, UNTUNED
from quoting.engine.tco.presets import (
    DEFAULT_WORKLOAD,
    MAX_OVERSUBSCRIPTION,
    MAX_SERVERS_PER_LEAF,
    WORKLOAD_PRESETS,
)
from quoting.kept_texts import kept_text

# How an option's network is priced in a comparison, as the proposal labels it.
PRICED_QUOTED = "quoted"  # the quote's own lines, after line and quote discounts
PRICED_LIST_LESS_DISCOUNT = "list_less_discount"  # list price less the quote's overall discount
PRICED_LIST = "list"  # list price
NOT_PRICED = "not_priced"  # no design, so no price (the commodity build)
_DEFAULT_SUPPORT_PERCENT = Costs().support_percent
# The cheap build the seed's claim is about: two 100G ports per 8-GPU node, commodity Ethernet.
COMMODITY_OPTION = {"name": COMMODITY, "transport": "roce", "nics_per_node": 2, "nic_gbps": 100}


class QuotedPrice(NamedTuple):
    """What an offer charges for its design's fabric (tco_body_for_design's `this_price`)."""

    total: Decimal  # one-time, licences and support together: the quote's net
    yearly: Decimal  # the part of `total` paid every year: licences and support
    support: Decimal | None = None  # the part of `yearly` that is support; None: no support line
    hardware: Decimal = Decimal(0)  # what that support covers: the offer's hardware, net


def support_share_percent(price: QuotedPrice) -> Decimal | None:
    """The offer's support per year as a share of its hardware, in percent rounded to 0.01:
    the other designs' network support is priced at it (None: no support line, or no hardware
    to take a share of)."""
    if price.support is None or price.hardware <= 0:
        return None
    return round_money(price.support * 100 / price.hardware)


def server_specs(data: Any) -> dict[str, ProductSpec]:
    """The catalog server a TCO body names (its `server`) as the engine reads it, by part
    number; {} when it names none (no query)."""
    name = data.get("server") if isinstance(data, Mapping) else None
    if not name or not isinstance(name, str):
        return {}
    servers = Product.objects.filter(category=Category.SERVER, part_number=name)
    return {p.part_number: product_to_spec(p) for p in servers}


def tco_request(*, data: Any) -> TcoRequest:
    """A JSON-style body read against the catalog; raises InvalidInput with dotted field names.

    `gpu` is a model name looked up in the catalog's servers (or the body gives `peak_tflops`);
    `server` a catalog server's part number, whose power the TCO takes (not the assumed 8 kW).
    """
    return TcoRequest.from_dict(
        data, gpu_catalog=gpu_peak_tflops(), server_catalog=server_specs(data)
    )


def tco_compute(*, data: Any) -> TcoResult:
    """Compute the TCO of a JSON-style body; raises InvalidInput with dotted field names."""
    return compute_tco(tco_request(data=data))


def tco_option_from_design(
    *,
    name: str,
    design_dict: dict,
    network_capex: Any,
    transport: str | None = None,
    network_opex_per_year: Any = 0,
    servers_per_leaf: int | None = None,
    support_per_year: Any = None,
) -> dict:
    """A `fabrics` entry of the TCO body from a fabric design's `as_dict()` and its quoted price.

    Per-node bandwidth is what the model needs, so every endpoint port of a node (over all
    planes) counts as one NIC at the design's port speed. Only InfiniBand designs run a subnet
    manager, which tells the transport when the caller does not; Ethernet is taken as tuned RoCE,
    since that is what we design and quote. The leaf's achieved oversubscription comes with it
    (a leaf cabled with spare uplinks counts as non-blocking); `network_opex_per_year` is the
    part of the price sold per year (licences), `support_per_year` the network's support as
    priced (None: the TCO assumes its percentage), `servers_per_leaf` what one leaf or rail
    group serves.
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
    if support_per_year is not None:
        option["support_per_year"] = str(support_per_year)
    if servers_per_leaf is not None:
        option["servers_per_leaf"] = min(servers_per_leaf, MAX_SERVERS_PER_LEAF)
    return option


def workload_check(workload: str) -> str:
    """The workload preset's key; InvalidInput naming `workload` for anything else."""
    if not isinstance(workload, str) or workload not in WORKLOAD_PRESETS:
        raise InvalidInput.field("workload", "choose one of: " + ", ".join(WORKLOAD_PRESETS) + ".")
    return workload


def workload_described(workload: str) -> dict:
    """What the proposal prints about the workload: its key, name and note (English; the page
    translates them)."""
    preset = WORKLOAD_PRESETS[workload]
    return {"key": workload, "label": preset.label, "note": preset.note}


# The GPUs of the node the workload presets' tokens per node are written for (tco-model,
# "Workloads": "4M-token global batch over 32 nodes = 128K tokens per node" of 8 GPUs).
PRESET_GPUS_PER_NODE = 8


def workload_for_node(workload: str, gpus_per_node: int) -> dict:
    """The preset's workload for nodes of `gpus_per_node` GPUs: the same tokens per GPU, so a
    72-GPU NVL72 rack (one node) gets nine times an 8-GPU node's tokens per step and is not
    modelled as a node starved of work; 8-GPU nodes take the preset as written."""
    values = dict(WORKLOAD_PRESETS[workload].workload)
    tokens = values["tokens_per_node_per_step"] * gpus_per_node
    values["tokens_per_node_per_step"] = max(1, tokens // PRESET_GPUS_PER_NODE)
    return values


def tco_body_for_design(
    *,
    inputs: dict,
    currency: str,
    this_price: QuotedPrice | tuple | None = None,
    workload: str = DEFAULT_WORKLOAD,
    other_factor: Decimal | None = None,
) -> dict:
    """A TCO request comparing a design with the other fabric family and a commodity build.

    `inputs` is design_tco_inputs(): no engine runs here, only prices. Each designed option
    carries its own list-priced network capex (bom_priced, the one pricing rule) and power, so
    the payback of the premium is real; lines sold per year (UFM per-endpoint licences) are
    yearly opex. The commodity build has no design and no capex (the model says so).
    `this_price` (a QuotedPrice, or its first fields) replaces the first design's own pricing
    when given (a quote's prices after discount); `other_factor` then prices the other designs
    the same way, their list price times the quote's net over its list value, so the comparison
    stays fair. When the offer has support lines, the first design's network support is theirs
    and the other designs' is the same share of their hardware (support_share_percent); else
    the TCO assumes its support percentage for all of them.
    """
    fabrics = []
    factor = Decimal(1) if other_factor is None else other_factor
    quoted = None if this_price is None else QuotedPrice(*this_price)
    share = None if quoted is None else support_share_percent(quoted)
    for i, facts in enumerate(inputs["designs"]):
        if i == 0 and quoted is not None:
            total, yearly, support = quoted.total, quoted.yearly, quoted.support
            licences = yearly - (support or 0)  # the offer's yearly lines hold its support
        else:
            priced = bom_priced(bom=facts["bom"], currency=currency)
            total, yearly = (
                round_money(priced.total * factor),
                round_money(priced.yearly_total * factor),
            )
            licences, support = yearly, None  # a design's bill of materials sells no support
            if share is not None:
                support = round_money(_hardware(priced) * factor * share / 100)
        if i == 0:
            name = THIS_DESIGN.format(family=facts["family"])
        else:
            label = "InfiniBand" if facts["subnet_manager"] else "RoCE"
            name = OTHER_FAMILY.format(transport=label, family=facts["family"])
        fabrics.append(
            tco_option_from_design(
                name=name,
                design_dict=facts,
                network_capex=total - yearly,
                network_opex_per_year=licences,
                servers_per_leaf=facts["servers_per_leaf"],
                support_per_year=support,
            )
        )
        if i > 0 and not facts["subnet_manager"]:
            fabrics.append(
                {**fabrics[-1], "name": UNTUNED.format(name=name), "transport": "roce_untuned"}
            )
    fabrics.append(dict(COMMODITY_OPTION))
    nodes = inputs["designs"][0]["node_count"]
    costs = {"currency": currency}
    # The servers dominate the cost of compute: without them a cheap network looks cheap.
    server, server_price = _server_priced(
        gpu=inputs["gpu"],
        gpus_per_server=inputs["gpus_per_server"],
        currency=currency,
        part_number=inputs["server_part_number"],
    )
    if server_price is not None:
        costs["server_capex"] = str(server_price * nodes)
    body = {
        "gpu": inputs["gpu"],
        "nodes": nodes,
        "gpus_per_node": inputs["gpus_per_server"],
        "workload": workload_for_node(workload, inputs["gpus_per_server"]),
        "fabrics": fabrics,
        "costs": costs,
    }
    if server:
        body["server"] = server  # the server priced is the server powered (its catalog figure)
    return body


def tco_servers_described(body: Mapping | None) -> dict | None:
    """The servers a design's comparison stands on, as its panel names them: how many, the
    catalog server priced and powered (its name in the active language and part number; the
    design's own server, else the cheapest with its GPUs) or, with none in the catalog, the
    GPU model, and whether they are at list price. None for a body that is not a comparison."""
    if not isinstance(body, Mapping) or "nodes" not in body:
        return None
    part_number = body.get("server") or ""
    product = (
        Product.objects.filter(category=Category.SERVER, part_number=part_number).first()
        if part_number
        else None
    )
    return {
        "count": body["nodes"],
        "name": product.display_name if product else "",
        "part_number": part_number if product else "",
        "gpu": body.get("gpu") or "",
        "priced": (body.get("costs") or {}).get("server_capex") is not None,
    }


def _hardware(priced) -> Decimal:
    """The hardware of a priced bill of materials, at list: what support per year covers."""
    return sum(
        (
            ln.amount
            for ln in priced.lines
            if ln.amount is not None and ln.category in HARDWARE_CATEGORIES and not ln.paid_yearly
        ),
        Decimal("0.00"),
    )


def design_tco_body(
    *,
    design: FabricDesign,
    bom_total: Decimal,
    currency: str,
    gpu: str = "H100",
    yearly_total: Decimal = Decimal(0),
    workload: str = DEFAULT_WORKLOAD,
) -> dict:
    """The comparison's request for a design computed just now (the design page's query);
    `yearly_total` is the part of `bom_total` sold per year."""
    return tco_body_for_design(
        inputs=design_tco_inputs(design, gpu=gpu),
        currency=currency,
        this_price=(bom_total, yearly_total),
        workload=workload,
    )


def _server_priced(
    *, gpu: str, gpus_per_server: int, currency: str, part_number: str | None = None
) -> tuple[str | None, Decimal | None]:
    """The chosen server and its list price (None when it has none), else the catalog's cheapest
    priced server with these GPUs and its price, else (None, None)."""
    servers = Product.objects.filter(category=Category.SERVER)
    if part_number:
        servers = servers.filter(part_number=part_number)
    else:
        servers = servers.filter(gpu_model=gpu, gpu_count=gpus_per_server)
    part_numbers = servers.exclude(lifecycle=Lifecycle.EOL).values_list("part_number", flat=True)
    prices = price_lookup(part_numbers=list(part_numbers), currency=currency)
    if prices:
        cheapest = min(prices, key=lambda part: (prices[part].list_price, part))
        return cheapest, prices[cheapest].list_price
    return (part_number if part_number and servers.exists() else None), None


def tco_charts(result, unpriced: Collection[str] = ()) -> list[dict[str, str]]:
    """The comparison's charts as SVG, drawn once from the result in every language of the
    portal (a snapshot keeps them; a proposal prints them in its own language, see chart_in).
    `unpriced` names the options whose network is not priced: their labels say so."""
    charts = []
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            drawn = _charts_drawn(result, unpriced)
        charts = charts or [{} for _ in drawn]
        for chart, svg in zip(charts, drawn, strict=True):
            chart[language] = svg
    return charts


def _charts_drawn(result, unpriced: Collection[str]) -> list[str]:
    """The charts in the active language: the efficiency curve (when the result has one), the
    cost per effective GPU-hour and the annual cost by component."""
    drawn = [
        cost_per_hour_chart(result, translation.gettext, unpriced),
        cost_breakdown_chart(result, translation.gettext, unpriced),
    ]
    if result.efficiency_curve:
        drawn.insert(0, efficiency_chart(result, translation.gettext, unpriced))
    return drawn


def tco_charts_shown(snapshot: dict | None, shown: list[str], language: str) -> list[str] | None:
    """The charts of a stored comparison for the options shown, drawn now in `language` from
    the stored figures (the table's own numbers); None when the comparison was stored without
    the figures a chart needs (then its kept drawings are all there is)."""
    try:
        options = [
            SimpleNamespace(
                name=o["name"],
                network_efficiency=float(o["network_efficiency"]),
                annual_cost=Decimal(str(o["annual_cost"])),
                cost_per_effective_gpu_hour=Decimal(str(o["cost_per_effective_gpu_hour"])),
                annual_cost_breakdown=SimpleNamespace(
                    **{k: Decimal(str(v)) for k, v in o["annual_cost_breakdown"].items()}
                ),
            )
            for o in snapshot["options"]
            if o["name"] in shown
        ]
        curves = [
            SimpleNamespace(
                name=c["name"],
                points=tuple((p["nodes"], float(p["network_efficiency"])) for p in c["points"]),
            )
            for c in snapshot.get("efficiency_curve") or []
            if c["name"] in shown
        ]
    except (KeyError, TypeError, ValueError, ArithmeticError):
        return None
    if not options:
        return None
    result = SimpleNamespace(
        options=options, efficiency_curve=curves, currency=snapshot["currency"]
    )
    unpriced = {o["name"] for o in snapshot["options"] if o.get("pricing") == NOT_PRICED}
    with translation.override(language):
        return _charts_drawn(result, unpriced)


def tco_comparison(
    *,
    inputs: dict,
    currency: str,
    workload: str = DEFAULT_WORKLOAD,
    this_price: QuotedPrice | tuple | None = None,
    other_factor: Decimal | None = None,
) -> dict:
    """The design's "what the network is worth" comparison as a snapshot keeps it: the request,
    the result and its charts, or the reason it could not be computed.

    The result carries what the proposal prints beside it: the workload, and per option its
    server and network capex apart and how each was priced (`pricing`). Without `this_price`
    every design is at list price; with it (a quote) this design is at the quote's prices after
    discount and the others at list less the same overall discount."""
    body = tco_body_for_design(
        inputs=inputs,
        currency=currency,
        workload=workload,
        this_price=this_price,
        other_factor=other_factor,
    )
    try:
        result = tco_compute(data=body)
    except InvalidInput as error:  # e.g. no server in the catalog to take the TFLOPS from
        return {
            "currency": currency,
            "request": body,
            "result": None,
            "charts": [],
            "error": str(error),  # the engine's own words, for the API and the logs
            "error_reasons": [m.as_json() for m in tco_error_reasons(error)],
            "workload": workload,
        }
    return {
        "currency": currency,
        "request": body,
        "result": tco_result_described(
            result.as_dict(),
            body,
            workload=workload,
            quoted=this_price is not None,
            other_factor=other_factor,
            support_share=None
            if this_price is None
            else support_share_percent(QuotedPrice(*this_price)),
        ),
        "charts": tco_charts(
            result, unpriced={f["name"] for f in body["fabrics"] if "network_capex" not in f}
        ),
        "error": "",
        "workload": workload,
    }


def tco_error_reasons(error: InvalidInput) -> list[Message]:
    """The worded reasons of a TCO input error (its translatable messages), without the field
    paths ("fabrics[0].nics_per_node") that name inputs a design's page does not show; the
    spec's plain English bounds are left out, as they would only repeat those paths."""
    return [m for found in error.messages.values() for m in found if isinstance(m, Message)]


def tco_error_worded(reasons: list) -> str:
    """Why a design's comparison could not be computed, in the reader's language: a sentence
    of our own, then the engine's reasons translated (kept as tco_error_reasons made them)."""
    text = translation.gettext("What the network is worth cannot be computed for this design.")
    worded = [Message.from_json(r) if isinstance(r, dict) else r for r in reasons]
    worded = [m.render(translation.gettext) for m in worded if isinstance(m, Message)]
    if worded:
        text += " " + translation.gettext("Reason: %(reasons)s.") % {"reasons": "; ".join(worded)}
    return text + " " + translation.gettext("Compare it in the TCO page with figures of your own.")


def tco_result_described(
    result: dict,
    body: dict,
    *,
    workload: str,
    quoted: bool,
    other_factor: Decimal | None,
    support_share: Decimal | None = None,
) -> dict:
    """The engine's result with the labels a customer needs: server and network capex apart
    per option, how each network was priced, its network support as priced (None: the
    assumed percentage), the share of hardware the other designs' support was priced at, and
    the workload it was computed for."""
    server_capex = body["costs"].get("server_capex")
    pricing = []
    for i, (option, fabric) in enumerate(zip(result["options"], body["fabrics"], strict=True)):
        if "network_capex" not in fabric:
            how = NOT_PRICED
        elif i == 0 and quoted:
            how = PRICED_QUOTED
        elif quoted and other_factor is not None and other_factor != 1:
            how = PRICED_LIST_LESS_DISCOUNT
        else:
            how = PRICED_LIST
        option |= {
            "server_capex": server_capex,
            "network_capex": fabric.get("network_capex"),
            "network_opex_per_year": fabric.get("network_opex_per_year", "0"),
            "support_per_year": fabric.get("support_per_year"),
            "pricing": how,
        }
        pricing.append(option)
    # A reference build has no design: what the engine reads as the design's is its default.
    undesigned = tuple(f"fabric.{o['name']}." for o in pricing if o["pricing"] == NOT_PRICED)
    assumptions = (
        [
            a | {"basis": BASIS_MODEL}
            if a["key"].startswith(undesigned) and a.get("basis") == BASIS_DESIGN
            else a
            for a in result["assumptions"]
        ]
        if undesigned
        else result["assumptions"]
    )
    discount = None
    if other_factor is not None and other_factor != 1:
        discount = str(round_money((1 - other_factor) * 100, 1))
    return result | {
        "options": pricing,
        "assumptions": assumptions,
        "workload": workload_described(workload),
        "servers_priced": PRICED_LIST if server_capex is not None else NOT_PRICED,
        "overall_discount_percent": discount,
        "support_share_percent": None if support_share is None else str(support_share),
        "support_percent": str(body["costs"].get("support_percent", _DEFAULT_SUPPORT_PERCENT)),
    }


def _amount(value) -> Decimal | None:
    return None if value in (None, "") else Decimal(str(value))


def tco_option_names(snapshot: dict | None) -> list[str]:
    """Every option of a stored comparison, by name (its key), in the comparison's order."""
    return [o["name"] for o in (snapshot or {}).get("options") or []]


def tco_default_options(snapshot: dict | None) -> list[str]:
    """What a proposal shows until the sales engineer chooses: every option whose network is
    priced, which includes the quoted one; a comparison stored before options said how they
    were priced shows all of them."""
    options = (snapshot or {}).get("options") or []
    return [o["name"] for o in options if o.get("pricing", PRICED_LIST) != NOT_PRICED]


def tco_options_shown(snapshot: dict | None, chosen: list[str] | None) -> list[str]:
    """The options a proposal shows: the chosen ones that the comparison still has, in its
    order; the default when none is chosen (or none of the chosen is left)."""
    names = tco_option_names(snapshot)
    kept = [name for name in names if chosen and name in chosen]
    return kept or tco_default_options(snapshot) or names


def tco_options_check(snapshot: dict | None, chosen) -> list[str]:
    """A choice of options as given (API, form): a non-empty list of the comparison's option
    names; InvalidInput naming `tco_options` and every unknown name otherwise."""
    names = tco_option_names(snapshot)
    if not names:
        raise InvalidInput.field("tco_options", "this revision has no TCO comparison.")
    if not isinstance(chosen, list | tuple) or not chosen:
        raise InvalidInput.field("tco_options", "choose at least one option.")
    unknown = [str(name) for name in chosen if name not in names]
    if unknown:
        raise InvalidInput.field(
            "tco_options",
            "not an option of this comparison: "
            + ", ".join(unknown)
            + ". Choose from: "
            + "; ".join(names)
            + ".",
        )
    return [name for name in names if name in chosen]


def _lowest(options: list[dict], key: str) -> str | None:
    """The priced option with the lowest `key`: an option whose network is not priced leaves
    that cost out, so it can never be the cheapest (issue 27)."""
    priced = [o for o in options if o.get("pricing") not in (None, NOT_PRICED) and o.get(key)]
    if not priced:
        return None
    return min(priced, key=lambda o: Decimal(str(o[key])))["name"]


def tco_warnings_worded(result: Mapping | None) -> list[str]:
    """A comparison's warnings in the active language: from the messages it keeps, or, kept
    before it kept them, its English texts matched back (quoting.kept_texts; one it does not
    know reads as kept)."""
    if not result:
        return []
    if "warning_messages" in result:
        return messages_worded(result["warning_messages"])
    return [kept_text(text) for text in result.get("warnings") or []]


def tco_result_in_language(result: TcoResult, language: str) -> dict:
    """The comparison as the API's JSON with what a person reads worded in `language` (the
    `tco` command's --language): the warnings, each assumption's label, unit, source and basis,
    each sensitivity bar's label. Keys, figures, the options' names (the request's) and the
    kept messages beside the words stay as they are; in English it is the API's answer."""
    data = result.as_dict()
    with translation.override(language):
        tr = translation.gettext
        data["warnings"] = [w.render(tr) for w in result.warnings]
        for shown, assumption in zip(data["assumptions"], result.assumptions, strict=True):
            for part in ASSUMPTION_TEXTS:
                value = getattr(assumption, part)
                if isinstance(value, Message):
                    shown[part] = value.render(tr)
            if shown.get("basis"):
                shown["basis"] = tr(shown["basis"])
        for tornado in data["sensitivity"]:
            for bar in tornado["bars"]:
                bar["label"] = tr(bar["label"])
    return data


def tco_result_worded(result: dict | None) -> dict | None:
    """A comparison's result as the API gives it: as computed or kept, its warnings worded in
    the request's language."""
    if not isinstance(result, dict) or "warnings" not in result:
        return result
    return result | {"warnings": tco_warnings_worded(result)}


def tco_presented(snapshot: dict | None, chosen: list[str] | None = None) -> dict | None:
    """A stored comparison as the proposal and the quote page print it: per option its network
    capex apart from the servers, and which options were priced how, so every figure says what
    it holds. `described` is False for a comparison stored before options carried their pricing
    (its capex is servers and network together, at list price)."""
    if not snapshot or not snapshot.get("options"):
        return None
    options, groups = (
        [],
        {PRICED_QUOTED: [], PRICED_LIST_LESS_DISCOUNT: [], PRICED_LIST: [], NOT_PRICED: []},
    )
    described = all("pricing" in o for o in snapshot["options"])
    shown = tco_options_shown(snapshot, chosen)
    for option in snapshot["options"]:
        if option["name"] not in shown:
            continue
        row = dict(option)
        row["network_not_priced"] = option.get("pricing") == NOT_PRICED
        if described:
            row["network_capex"] = _amount(option.get("network_capex")) or Decimal(0)
            row["network_opex_per_year"] = _amount(option.get("network_opex_per_year"))
            row["support_per_year"] = _amount(option.get("support_per_year"))
            groups[option["pricing"]].append(row)
        options.append(row)
    quoted = groups[PRICED_QUOTED][0] if groups[PRICED_QUOTED] else None
    lowest_tco, lowest_per_hour = (
        (_lowest(options, "tco_n_years"), _lowest(options, "cost_per_effective_gpu_hour"))
        if described and len(options) > 1
        else (None, None)
    )
    server_capex = None
    if described:
        server_capex = _amount(snapshot["options"][0].get("server_capex"))
    return {
        "described": described,
        "currency": snapshot.get("currency"),
        "life_years": snapshot.get("life_years"),
        "workload": snapshot.get("workload"),
        "options": options,
        "shown": shown,
        "every_option": tco_option_names(snapshot),
        "lowest_tco": lowest_tco,
        "lowest_cost_per_hour": lowest_per_hour,
        "server_capex": server_capex,
        "quoted": quoted,
        "quoted_total": (
            quoted["network_capex"]
            + (quoted["network_opex_per_year"] or 0)
            + (quoted["support_per_year"] or 0)
        )
        if quoted
        else None,
        # Support: the offer's own lines per year (the other designs at the same share of their
        # hardware), or, with none on the offer, the assumed percentage of the hardware.
        "support_quoted": quoted["support_per_year"] if quoted else None,
        "support_share_percent": _amount(snapshot.get("support_share_percent")),
        "support_percent": _amount(snapshot.get("support_percent")),
        "list_less_discount": [o["name"] for o in groups[PRICED_LIST_LESS_DISCOUNT]],
        "listed": [o["name"] for o in groups[PRICED_LIST]],
        "not_priced": [o["name"] for o in groups[NOT_PRICED]],
        "discount_percent": snapshot.get("overall_discount_percent"),
        "assumptions": _assumptions_shown(snapshot, shown),
        "warnings": tco_warnings_worded(snapshot),
    }


def _assumptions_shown(snapshot: dict, shown: list[str]) -> list[dict]:
    """The assumptions of the options shown: an option left out takes its own rows (its leaf,
    its licences) with it, and a transport no option shown uses takes its rows too."""
    options = snapshot.get("options") or []
    hidden = tuple(f"fabric.{o['name']}." for o in options if o["name"] not in shown)
    used = {o.get("transport") for o in options if o["name"] in shown}
    unused = tuple(
        f"transport.{o['transport']}."
        for o in options
        if o.get("transport") and o["transport"] not in used
    )
    return [
        a
        for a in snapshot.get("assumptions", [])
        if not (hidden and a["key"].startswith(hidden))
        and not (unused and a["key"].startswith(unused))
    ]

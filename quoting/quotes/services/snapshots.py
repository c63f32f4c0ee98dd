"""The frozen copy a quote revision keeps of its design and TCO, and their renderings (drawing,
rack appendix, charts): made from the saved design when the revision is, priced again when its
prices change (revision_tco_refresh), frozen when it is sent.

Reads never write: a revision made under an older SNAPSHOT_VERSION is brought up to date in
memory by the read (revision_snapshot_current) and stored by revisions_snapshot_refresh
(`manage.py snapshots_refresh`, the hourly `quoting.snapshots_refresh`).
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import NamedTuple

from django.core.serializers.json import DjangoJSONEncoder

from catalog.models import Category, paid_yearly
from quoting.designs.models import SavedDesign, TcoScenario
from quoting.designs.selectors import PricedBom
from quoting.designs.services.designs import (
    RACK_SCALE_OTHER_BOM,
    design_compute,
    site_from_json,
)
from quoting.designs.services.snapshots import (
    DRAWING_MUST_MATCH,
    SNAPSHOT_VERSION,
    _racks_matching,
    design_snapshot_current,
    racks_appendix,
)
from quoting.designs.services.tco import (
    QuotedPrice,
    tco_body_for_design,
    tco_charts,
    tco_comparison,
    tco_compute,
    tco_options_shown,
    workload_check,
)
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric.requirements import requirements_from_json
from quoting.engine.money import round_money
from quoting.engine.tco.presets import DEFAULT_WORKLOAD
from quoting.quotes.models import FABRIC_SECTIONS, QuoteLine, QuoteRevision
from quoting.quotes.selectors import line_amount, revision_totals
from quoting.quotes.services.support import offer_hardware


def revision_racks_refresh(*, revision: QuoteRevision, site: dict | None = None) -> None:
    """Lay the draft revision's design out again on `site` for its appendix (the engine runs
    once, here); a frozen revision keeps its own. Raises InvalidInput on a site field."""
    if revision.is_frozen or revision.design_id is None:
        return
    site_from_json(site or {})  # unknown keys refused before any work
    design = design_snapshot_current(design=revision.design)
    if _racks_matching(design, revision.design_snapshot) is None:
        return  # the saved design no longer gives this revision's fabric
    fabric = design_compute(requirements=requirements_from_json(design.requirements, stored=True))
    revision.design_racks = racks_appendix(design=fabric, site=site)
    revision.save(update_fields=["design_racks"])


class OfferPrice(NamedTuple):
    """What a revision charges for its fabric, after every discount (revision_network_price)."""

    net: Decimal  # the quote's net total before tax: one-time, licences and support
    yearly: Decimal  # the part of `net` paid every year: licences and support
    listed: Decimal  # the same lines at list price
    support: Decimal | None = None  # the part of `yearly` that is support; None: no such line
    hardware: Decimal = Decimal("0.00")  # the hardware lines, net: what support is a share of

    def quoted(self) -> QuotedPrice:
        return QuotedPrice(self.net, self.yearly, self.support, self.hardware)


def _amount_of(line: QuoteLine) -> Decimal:
    return line_amount(
        quantity=line.quantity, unit_price=line.unit_price, discount_percent=line.discount_percent
    )


def revision_network_price(
    *, revision: QuoteRevision, lines: list[QuoteLine] | None = None
) -> OfferPrice:
    """What this revision charges for its fabric: its net, the part of it paid every year, the
    same lines at list price, the part paid every year for support (its support lines sold by
    the year; None without one, and the TCO assumes its percentage) and its hardware, all of
    the lines in FABRIC_SECTIONS. `net` is their net total (lines after their discounts, less
    the quote discount, before tax; the quote's own net total when it quotes the network
    alone), so the TCO's capex is exactly what the customer pays for it; the yearly parts and the
    hardware are their lines' amounts less the quote discount, each rounded to the cent."""
    if lines is None:
        lines = list(revision.lines.select_related("product"))
    # The fabric's lines: GPU servers, cluster management and backup lines are in the quote's
    # totals but not in the network the TCO compares (it prices the servers itself).
    totalled = [ln for ln in lines if ln.section in FABRIC_SECTIONS]
    net = revision_totals(revision=revision, lines=totalled).net
    yearly_lines = [
        ln
        for ln in totalled
        if ln.product is not None
        and paid_yearly(unit=ln.product.unit, category=ln.product.category)
    ]
    support_lines = [ln for ln in yearly_lines if ln.product.category == Category.SUPPORT]

    def net_of(amount: Decimal) -> Decimal:
        return round_money(amount * (100 - revision.discount_percent) / 100)

    yearly = net_of(sum((_amount_of(ln) for ln in yearly_lines), Decimal("0.00")))
    support = None
    if support_lines:
        support = net_of(sum((_amount_of(ln) for ln in support_lines), Decimal("0.00")))
    listed = sum(
        (
            round_money(
                ln.quantity * (ln.list_price if ln.list_price is not None else ln.unit_price)
            )
            for ln in totalled
        ),
        Decimal("0.00"),
    )
    return OfferPrice(net, yearly, listed, support, net_of(offer_hardware(totalled)))


def _tco_for_quote(
    design: SavedDesign, *, price: OfferPrice, currency: str, workload: str
) -> dict | None:
    """The comparison as the quote prices the design: this design at the quote's net, the
    other designs at list less the same overall discount; the network support the quote's own
    support lines (the other designs at the same share of their hardware), or the assumed
    percentage when it has none. The saved design's snapshot when it is the same comparison
    (same workload, prices and currency, no support line), else the TCO engine alone again (the
    fabric designs are in the snapshot)."""
    net, yearly, listed = price.net, price.yearly, price.listed
    factor = (net / listed) if listed else None
    tco = design.tco
    if (
        tco
        and tco.get("result")
        and tco["currency"] == currency
        and net == listed
        and price.support is None
        and tco.get("workload", DEFAULT_WORKLOAD) == workload
        and "pricing" in tco["result"]["options"][0]
        and "support_percent" in tco["result"]  # says how it counts support (tco-model §6)
    ):
        this = tco["request"]["fabrics"][0]
        if (
            Decimal(this["network_capex"]) + Decimal(this.get("network_opex_per_year", 0)) == net
            and Decimal(this.get("network_opex_per_year", 0)) == yearly
        ):
            return tco | {"result": _as_quoted(tco["result"])}
    if not design.tco_inputs:
        return None
    comparison = tco_comparison(
        inputs=design.tco_inputs,
        currency=currency,
        workload=workload,
        this_price=price.quoted(),
        other_factor=factor,
    )
    return comparison if comparison.get("result") else None


def _as_quoted(result: dict) -> dict:
    """A saved design's comparison read as a quote's: its first option is the quoted one (at list
    price, no discount given, the quote's prices are the list prices)."""
    options = [dict(o) for o in result["options"]]
    options[0]["pricing"] = "quoted"
    return result | {"options": options}


def revision_tco_options(*, revision: QuoteRevision) -> list[str]:
    """The TCO options the revision's proposal shows, by name: as the sales engineer chose them
    (those its comparison still has), else every priced option and the quoted one."""
    return tco_options_shown(revision.tco_snapshot, revision.tco_options)


def revision_tco_refresh(*, revision: QuoteRevision, user, workload: str | None = None) -> None:
    """Compute the draft revision's TCO again from its own prices (after every discount) and
    workload; a sent revision is frozen and keeps its own. A revision whose comparison is a TCO
    scenario chosen by hand (no workload) keeps it until a workload is chosen."""
    if revision.is_frozen:
        return
    if workload is not None:
        revision.workload = workload_check(workload)
    if not revision.workload or revision.design_id is None:
        return
    design = design_snapshot_current(design=revision.design)
    price = revision_network_price(revision=revision)
    if _comparison_unchanged(revision, design, price):
        return  # a write that left the prices as they were (the send, terms, a note)
    comparison = _tco_for_quote(
        design,
        price=price,
        currency=revision.quote.currency,
        workload=revision.workload,
    )
    if comparison is None:
        revision.tco, revision.tco_snapshot, revision.tco_charts = None, None, []
    else:
        revision.tco = _scenario_kept(revision, design, comparison, user)
        revision.tco_snapshot, revision.tco_charts = comparison["result"], comparison["charts"]
    revision.save(update_fields=["workload", "tco", "tco_snapshot", "tco_charts"])


def _comparison_unchanged(revision: QuoteRevision, design: SavedDesign, price: OfferPrice) -> bool:
    """Whether the revision's comparison was computed from exactly the request these prices
    make (same design inputs, currency, workload and prices): then the engine and the charts
    would give it again, and nothing is computed."""
    scenario = revision.tco
    if scenario is None or not scenario.result or not design.tco_inputs:
        return False
    if "support_percent" not in scenario.result:
        return False  # computed before the TCO said how it counts support (tco-model §6)
    described = scenario.result.get("workload")
    if (described.get("key") if isinstance(described, dict) else described) != revision.workload:
        return False  # the printed workload's label and note must be this workload's
    body = tco_body_for_design(
        inputs=design.tco_inputs,
        currency=revision.quote.currency,
        workload=revision.workload,
        this_price=price.quoted(),
        other_factor=(price.net / price.listed) if price.listed else None,
    )
    return json.loads(json.dumps(body, cls=DjangoJSONEncoder)) == scenario.request


def _scenario_kept(
    revision: QuoteRevision, design: SavedDesign, comparison: dict, user
) -> TcoScenario:
    """The TcoScenario row the revision's comparison is kept in: its own, updated, unless another
    revision (a frozen one) shares it."""
    scenario = revision.tco
    if (
        scenario is not None
        and not QuoteRevision.objects.filter(tco=scenario).exclude(pk=revision.pk).exists()
    ):
        scenario.request, scenario.result = comparison["request"], comparison["result"]
        scenario.save(update_fields=["request", "result"])
        return scenario
    return TcoScenario.objects.create(
        project=design.project,
        name=f"{design.name} — TCO"[:200],
        request=comparison["request"],
        result=comparison["result"],
        created_by=user or revision.created_by,
    )


def revision_snapshot_from_design(
    *,
    revision: QuoteRevision,
    design: SavedDesign,
    priced: PricedBom,
    user,
    tco: TcoScenario | None = None,
    workload: str | None = None,
) -> None:
    """Freeze copies of the design's snapshot on a new revision: its result, drawing and the
    TCO comparison priced as the quote is (a TcoScenario row too, as the TCO page keeps them),
    for `workload` (default: the design's). A given `tco` scenario is kept as it is, charted
    once from its request."""
    revision.design = design
    # The figures priced, without the other build's BOM rows a saved design keeps to price
    # that build on its own page: the proposal does not show it, and the fingerprint need not
    # carry it.
    result = design.result
    revision.design_snapshot = (
        {key: value for key, value in result.items() if key != RACK_SCALE_OTHER_BOM}
        if isinstance(result, dict)
        else result
    )
    revision.design_drawing = design.drawing or ""
    revision.design_drawings = design.drawings
    revision.design_racks = design.racks
    if tco is None:
        revision.workload = workload_check(workload or design.workload)
        price = OfferPrice(priced.total, priced.yearly_total, priced.total)
        comparison = _tco_for_quote(
            design, price=price, currency=priced.currency, workload=revision.workload
        )
        if comparison and comparison.get("result"):
            tco = TcoScenario.objects.create(
                project=design.project,
                name=f"{design.name} — TCO"[:200],
                request=comparison["request"],
                result=comparison["result"],
                created_by=user,
            )
            revision.tco_charts = comparison["charts"]
        revision.tco, revision.tco_snapshot = tco, (comparison["result"] if tco else None)
    else:
        revision.workload = ""  # the scenario says what job it is for
        revision.tco_charts = _scenario_charts(tco, tco.result)
        revision.tco, revision.tco_snapshot = tco, tco.result
    revision.snapshot_version = SNAPSHOT_VERSION
    revision.save(
        update_fields=[
            "design",
            "design_snapshot",
            "design_drawing",
            "design_drawings",
            "design_racks",
            "tco",
            "tco_snapshot",
            "tco_charts",
            "snapshot_version",
            "workload",
        ]
    )


# Keys tco_result_described() adds to an engine option: not part of the engine's figures.
_DESCRIBED_KEYS = (
    "server_capex",
    "network_capex",
    "network_opex_per_year",
    "support_per_year",
    "pricing",
)


def _scenario_charts(scenario: TcoScenario, figures: dict) -> list[str]:
    """The charts of a TCO scenario, drawn from its request computed again, only when that
    gives the figures kept (`figures`): a chart never shows other numbers than the table."""
    try:
        result = tco_compute(data=scenario.request)
    except (InvalidInput, TypeError, ValueError):
        return []
    kept = [
        {k: v for k, v in o.items() if k not in _DESCRIBED_KEYS}
        for o in figures.get("options") or []
    ]
    if result.as_dict()["options"] != kept:
        return []
    return tco_charts(result)


def _brought_up_to_date(revision: QuoteRevision) -> list[str] | None:
    """Fill in what a revision made under an older SNAPSHOT_VERSION lacks (its drawing and
    charts before snapshots, its racks before the rack appendix), on the instance; returns the
    fields filled in, or None when it is current.

    Only what matches the figures it was priced from: the saved design's drawing and racks when
    that design still gives the same figures, the charts when its TCO request still gives the
    same options. These are renderings of the frozen figures, so filling them in changes no
    offer.
    """
    if revision.snapshot_version is not None and revision.snapshot_version >= SNAPSHOT_VERSION:
        return None
    fields = ["design_racks", "snapshot_version"]
    saved, figures = revision.design, revision.design_snapshot
    if revision.snapshot_version is None:
        drawing, drawings, charts = "", None, []
        if saved is not None and figures:
            saved = design_snapshot_current(design=saved)
            if saved.drawing and all(
                saved.result.get(key) == figures.get(key) for key in DRAWING_MUST_MATCH
            ):
                drawing, drawings = saved.drawing, saved.drawings
        if revision.tco is not None and revision.tco_snapshot:
            charts = _scenario_charts(revision.tco, revision.tco_snapshot)
        revision.design_drawing, revision.tco_charts = drawing, charts
        revision.design_drawings = drawings
        fields += ["design_drawing", "design_drawings", "tco_charts"]
    # Racks kept are the revision's own, made from its figures: a later engine (a part added
    # to the catalog, runs quoted differently) makes today's design differ from them, which
    # would drop them, so only racks never made are filled in.
    if revision.design_racks is None and saved is not None and figures:
        saved = design_snapshot_current(design=saved)
        revision.design_racks = _racks_matching(saved, figures)
    revision.snapshot_version = SNAPSHOT_VERSION
    return fields


def revision_snapshot_current(*, revision: QuoteRevision) -> QuoteRevision:
    """The revision with its renderings up to date, for a read: computed in memory and not
    stored (revisions_snapshot_refresh stores them)."""
    _brought_up_to_date(revision)
    return revision


def revisions_snapshot_refresh(*, limit: int = 100) -> int:
    """Store the renderings of up to `limit` revisions made under an older SNAPSHOT_VERSION;
    returns how many (0: none left)."""
    stale = QuoteRevision.objects.filter(
        snapshot_version__isnull=True
    ) | QuoteRevision.objects.filter(snapshot_version__lt=SNAPSHOT_VERSION)
    count = 0
    for revision in stale.select_related("design", "tco").order_by("pk")[:limit]:
        fields = _brought_up_to_date(revision)
        if fields:
            revision.save(update_fields=fields)
            count += 1
    return count

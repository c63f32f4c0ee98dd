"""Compute once, read many: a saved design's snapshot and the frozen copy a quote revision keeps.

A saved design stores its engine result, drawing, messages, priced BOM and TCO comparison when
its inputs change (design_save); pages, the PDF, the share page and the API read them. The
engine runs again only when the requirements change or SNAPSHOT_VERSION is raised.

Rows saved before snapshots existed (or under an older SNAPSHOT_VERSION) are brought up to date
lazily, on their first read: design_snapshot_current() and revision_snapshot_current().
"""

from __future__ import annotations

import logging
from decimal import Decimal

from django.conf import settings
from django.utils import timezone, translation

from catalog.models import paid_yearly
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricDesign, FabricRequirements
from quoting.engine.money import round_money
from quoting.engine.tco.presets import DEFAULT_WORKLOAD
from quoting.models import TOTALLED_SECTIONS, QuoteLine, QuoteRevision, SavedDesign, TcoScenario
from quoting.selectors import PricedBom, bom_priced, line_amount, revision_totals
from quoting.services.designs import (
    design_compute,
    design_install_layout,
    design_messages_json,
    design_site_inputs,
    design_tco_inputs,
    requirements_from_json,
    site_from_json,
)
from quoting.services.tco import (
    tco_charts,
    tco_comparison,
    tco_compute,
    workload_check,
)
from quoting.svg.fabric import fabric_svg
from quoting.svg.racks import rack_appendix

logger = logging.getLogger(__name__)

# Raise it when the engine, the pricing rule or the snapshot's shape changes: every saved design
# is then designed again on its next read, deliberately, and old revisions get their drawing and
# charts filled once.
# 2: the TCO names its workload and pricing; 3: drawings in each language; 4: the BOM's cables
# measured on the design's site (the result keeps the site as "site"), and a revision's racks.
SNAPSHOT_VERSION = 4

SNAPSHOT_FIELDS = ("result", "drawing", "drawings", "engine_messages", "tco_inputs", "priced_bom",
                   "tco", "racks", "snapshot_version", "snapshot_at")

# The figures a revision's design snapshot and the saved design's must share before the saved
# design's drawing is printed beside the revision's figures.
DRAWING_MUST_MATCH = ("tiers", "gpu_count", "leaf_count", "spine_count", "core_count", "bom")


def design_snapshot_values(*, requirements: FabricRequirements, currency: str,
                           workload: str = DEFAULT_WORKLOAD, site: dict | None = None) -> dict:
    """Everything a saved design keeps, computed now: the fabric engine runs here (this design
    and the other family's, for the comparison) on `site` (site inputs; the defaults for what it
    leaves out, kept in the result as "site"), the TCO engine once, for `workload`.
    Raises InvalidInput."""
    design = design_compute(requirements=requirements, site=site_from_json(site or {}))
    summary = design.as_dict()
    inputs = design_tco_inputs(design, summary)
    drawings = {}
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            drawings[language] = fabric_svg(design, translation.gettext)
    return {
        "racks": racks_appendix(design=design, site=site),  # on the site it was measured on
        "result": summary,
        "drawing": drawings[settings.LANGUAGE_CODE],
        "drawings": drawings,
        "engine_messages": design_messages_json(design),
        "tco_inputs": inputs,
        "priced_bom": bom_priced(bom=summary["bom"], currency=currency).as_json(),
        "tco": tco_comparison(inputs=inputs, currency=currency, workload=workload),
        "snapshot_version": SNAPSHOT_VERSION,
        "snapshot_at": timezone.now(),
    }


def _currency(design: SavedDesign) -> str:
    return design.project.customer.default_currency


def design_snapshot_refresh(*, design: SavedDesign) -> SavedDesign:
    """Compute the snapshot again from the saved requirements and store it.

    A design the current engine refuses keeps its result; it is priced from that result's BOM
    and goes without drawing and TCO (nothing else can be drawn honestly).
    """
    currency = _currency(design)
    try:
        values = design_snapshot_values(
            requirements=requirements_from_json(design.requirements), currency=currency,
            workload=design.workload, site=design_site_inputs(design))
    except (InvalidInput, TypeError, ValueError):
        logger.info("saved design %s could not be designed again", design.pk, exc_info=True)
        values = {"drawing": "", "drawings": None, "engine_messages": None, "tco_inputs": None,
                  "tco": None, "racks": None,
                  "priced_bom": bom_priced(bom=design.bom, currency=currency).as_json(),
                  "snapshot_version": SNAPSHOT_VERSION, "snapshot_at": timezone.now()}
    for name, value in values.items():
        setattr(design, name, value)
    design.save(update_fields=list(values))
    return design


def design_snapshot_current(*, design: SavedDesign) -> SavedDesign:
    """The design with an up-to-date snapshot: computed now only if it is missing or older than
    SNAPSHOT_VERSION (the lazy migration of rows saved before)."""
    if design.snapshot_version != SNAPSHOT_VERSION:
        design_snapshot_refresh(design=design)
    return design


def design_priced(*, design: SavedDesign, currency: str) -> PricedBom:
    """The saved design's BOM in `currency`: the snapshot's when it is in that currency."""
    design = design_snapshot_current(design=design)
    if design.priced_bom and design.priced_bom["currency"] == currency:
        return PricedBom.from_json(design.priced_bom)
    return bom_priced(bom=design.bom, currency=currency)


# --- a quote revision's frozen copies ----------------------------------------------------------


def _gettext_in(language: str):
    def translate(text: str) -> str:
        with translation.override(language):
            return translation.gettext(text)
    return translate


def racks_appendix(*, design: FabricDesign, site: dict | None = None) -> dict | None:
    """The proposal's rack appendix (quoting.svg.racks.rack_appendix) of a designed fabric laid
    out on `site` (the site its cables were measured on; default: the default site), in every
    language; None when it cannot be laid out there."""
    try:
        layout = design_install_layout(design=design, site=site_from_json(site or {}))
    except (InvalidInput, TypeError, ValueError):
        logger.info("no rack appendix for this design and site", exc_info=True)
        return None
    return rack_appendix(layout, {language: _gettext_in(language)
                                  for language, _name in settings.LANGUAGES})


def _racks_matching(saved: SavedDesign, figures: dict | None) -> dict | None:
    """The saved design's racks when it still gives the revision's figures: a rendering never
    shows another design than the one priced."""
    if not figures or any(saved.result.get(key) != figures.get(key)
                          for key in DRAWING_MUST_MATCH):
        return None
    return saved.racks


def revision_racks_refresh(*, revision: QuoteRevision, site: dict | None = None) -> None:
    """Lay the draft revision's design out again on `site` for its appendix (the engine runs
    once, here); a frozen revision keeps its own. Raises InvalidInput on a site field."""
    if revision.is_frozen or revision.design_id is None:
        return
    site_from_json(site or {})  # unknown keys refused before any work
    design = design_snapshot_current(design=revision.design)
    if _racks_matching(design, revision.design_snapshot) is None:
        return  # the saved design no longer gives this revision's fabric
    fabric = design_compute(requirements=requirements_from_json(design.requirements))
    revision.design_racks = racks_appendix(design=fabric, site=site)
    revision.save(update_fields=["design_racks"])


def design_workload_set(*, design: SavedDesign, workload: str) -> SavedDesign:
    """Change the job a saved design's comparison assumes: the TCO engine alone runs again
    (the fabric designs are in the snapshot). InvalidInput naming `workload` if unknown."""
    workload = workload_check(workload)
    if workload == design.workload and design.tco is not None:
        return design
    design.workload = workload
    fields = ["workload"]
    if design.tco_inputs:
        design.tco = tco_comparison(inputs=design.tco_inputs, currency=_currency(design),
                                    workload=workload)
        fields.append("tco")
    design.save(update_fields=fields)
    return design


def revision_network_price(
    *, revision: QuoteRevision, lines: list[QuoteLine] | None = None
) -> tuple[Decimal, Decimal, Decimal]:
    """What this revision charges for its fabric: (net, the part of it paid every year, the same
    lines at list price). `net` is the quote's own net total (lines after their discounts, less
    the quote discount, before tax), so the TCO's capex is exactly what the customer pays."""
    if lines is None:
        lines = list(revision.lines.select_related("product"))
    totalled = [ln for ln in lines if ln.section in TOTALLED_SECTIONS]
    net = revision_totals(revision=revision, lines=totalled).net
    yearly = sum((line_amount(quantity=ln.quantity, unit_price=ln.unit_price,
                              discount_percent=ln.discount_percent)
                  for ln in totalled if ln.product is not None
                  and paid_yearly(unit=ln.product.unit, category=ln.product.category)),
                 Decimal("0.00"))
    yearly = round_money(yearly * (100 - revision.discount_percent) / 100)
    listed = sum((round_money(ln.quantity * (ln.list_price if ln.list_price is not None
                                             else ln.unit_price)) for ln in totalled),
                 Decimal("0.00"))
    return net, yearly, listed


def _tco_for_quote(design: SavedDesign, *, price: tuple[Decimal, Decimal, Decimal],
                   currency: str, workload: str) -> dict | None:
    """The comparison as the quote prices the design: this design at the quote's net, the
    other designs at list less the same overall discount. The saved design's snapshot when it
    is the same comparison (same workload, prices and currency), else the TCO engine alone
    again (the fabric designs are in the snapshot)."""
    net, yearly, listed = price
    factor = (net / listed) if listed else None
    tco = design.tco
    if (tco and tco.get("result") and tco["currency"] == currency and net == listed
            and tco.get("workload", DEFAULT_WORKLOAD) == workload
            and "pricing" in tco["result"]["options"][0]):
        this = tco["request"]["fabrics"][0]
        if Decimal(this["network_capex"]) + Decimal(this.get("network_opex_per_year", 0)) == \
                net and Decimal(this.get("network_opex_per_year", 0)) == yearly:
            return tco | {"result": _as_quoted(tco["result"])}
    if not design.tco_inputs:
        return None
    comparison = tco_comparison(inputs=design.tco_inputs, currency=currency, workload=workload,
                                this_price=(net, yearly), other_factor=factor)
    return comparison if comparison.get("result") else None


def _as_quoted(result: dict) -> dict:
    """A saved design's comparison read as a quote's: its first option is the quoted one (at list
    price, no discount given, the quote's prices are the list prices)."""
    options = [dict(o) for o in result["options"]]
    options[0]["pricing"] = "quoted"
    return result | {"options": options}


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
    comparison = _tco_for_quote(design, price=revision_network_price(revision=revision),
                                currency=revision.quote.currency, workload=revision.workload)
    if comparison is None:
        revision.tco, revision.tco_snapshot, revision.tco_charts = None, None, []
    else:
        revision.tco = _scenario_kept(revision, design, comparison, user)
        revision.tco_snapshot, revision.tco_charts = comparison["result"], comparison["charts"]
    revision.save(update_fields=["workload", "tco", "tco_snapshot", "tco_charts"])


def _scenario_kept(revision: QuoteRevision, design: SavedDesign, comparison: dict,
                   user) -> TcoScenario:
    """The TcoScenario row the revision's comparison is kept in: its own, updated, unless another
    revision (a frozen one) shares it."""
    scenario = revision.tco
    if scenario is not None and not QuoteRevision.objects.filter(tco=scenario).exclude(
            pk=revision.pk).exists():
        scenario.request, scenario.result = comparison["request"], comparison["result"]
        scenario.save(update_fields=["request", "result"])
        return scenario
    return TcoScenario.objects.create(
        project=design.project, name=f"{design.name} — TCO"[:200],
        request=comparison["request"], result=comparison["result"],
        created_by=user or revision.created_by)


def revision_snapshot_from_design(*, revision: QuoteRevision, design: SavedDesign,
                                  priced: PricedBom, user, tco: TcoScenario | None = None,
                                  workload: str | None = None) -> None:
    """Freeze copies of the design's snapshot on a new revision: its result, drawing and the
    TCO comparison priced as the quote is (a TcoScenario row too, as the TCO page keeps them),
    for `workload` (default: the design's). A given `tco` scenario is kept as it is, charted
    once from its request."""
    revision.design = design
    revision.design_snapshot = design.result
    revision.design_drawing = design.drawing or ""
    revision.design_drawings = design.drawings
    revision.design_racks = design.racks
    if tco is None:
        revision.workload = workload_check(workload or design.workload)
        price = (priced.total, priced.yearly_total, priced.total)
        comparison = _tco_for_quote(design, price=price, currency=priced.currency,
                                    workload=revision.workload)
        if comparison and comparison.get("result"):
            tco = TcoScenario.objects.create(
                project=design.project, name=f"{design.name} — TCO"[:200],
                request=comparison["request"], result=comparison["result"], created_by=user)
            revision.tco_charts = comparison["charts"]
        revision.tco, revision.tco_snapshot = tco, (comparison["result"] if tco else None)
    else:
        revision.workload = ""  # the scenario says what job it is for
        revision.tco_charts = _scenario_charts(tco, tco.result)
        revision.tco, revision.tco_snapshot = tco, tco.result
    revision.snapshot_version = SNAPSHOT_VERSION
    revision.save(update_fields=["design", "design_snapshot", "design_drawing", "design_drawings",
                                 "design_racks", "tco", "tco_snapshot", "tco_charts",
                                 "snapshot_version", "workload"])


# Keys tco_result_described() adds to an engine option: not part of the engine's figures.
_DESCRIBED_KEYS = ("server_capex", "network_capex", "network_opex_per_year", "pricing")


def _scenario_charts(scenario: TcoScenario, figures: dict) -> list[str]:
    """The charts of a TCO scenario, drawn from its request computed again, only when that
    gives the figures kept (`figures`): a chart never shows other numbers than the table."""
    try:
        result = tco_compute(data=scenario.request)
    except (InvalidInput, TypeError, ValueError):
        return []
    kept = [{k: v for k, v in o.items() if k not in _DESCRIBED_KEYS}
            for o in figures.get("options") or []]
    if result.as_dict()["options"] != kept:
        return []
    return tco_charts(result)


def revision_snapshot_current(*, revision: QuoteRevision) -> QuoteRevision:
    """A revision made before snapshots gets its drawing and charts once, on first read; one
    made before the rack appendix (version 3) its racks.

    Only what matches the figures it was priced from: the saved design's drawing and racks when
    that design still gives the same figures, the charts when its TCO request still gives the
    same options. These are renderings of the frozen figures, so filling them in changes no
    offer.
    """
    if revision.snapshot_version is not None and revision.snapshot_version >= SNAPSHOT_VERSION:
        return revision
    fields = ["design_racks", "snapshot_version"]
    saved, figures = revision.design, revision.design_snapshot
    if revision.snapshot_version is None:
        drawing, drawings, charts = "", None, []
        if saved is not None and figures:
            saved = design_snapshot_current(design=saved)
            if saved.drawing and all(
                    saved.result.get(key) == figures.get(key) for key in DRAWING_MUST_MATCH):
                drawing, drawings = saved.drawing, saved.drawings
        if revision.tco is not None and revision.tco_snapshot:
            charts = _scenario_charts(revision.tco, revision.tco_snapshot)
        revision.design_drawing, revision.tco_charts = drawing, charts
        revision.design_drawings = drawings
        fields += ["design_drawing", "design_drawings", "tco_charts"]
    if saved is not None and figures:
        saved = design_snapshot_current(design=saved)
        revision.design_racks = _racks_matching(saved, figures)
    revision.snapshot_version = SNAPSHOT_VERSION
    revision.save(update_fields=fields)
    return revision

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

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements
from quoting.models import QuoteRevision, SavedDesign, TcoScenario
from quoting.selectors import PricedBom, bom_priced
from quoting.services.designs import (
    design_compute,
    design_messages_json,
    design_tco_inputs,
    requirements_from_json,
)
from quoting.services.tco import tco_body_for_design, tco_charts, tco_comparison, tco_compute
from quoting.svg.fabric import fabric_svg

logger = logging.getLogger(__name__)

# Raise it when the engine, the pricing rule or the snapshot's shape changes: every saved design
# is then designed again on its next read, deliberately, and old revisions get their drawing and
# charts filled once.
SNAPSHOT_VERSION = 2  # 2: drawings and charts in each language, assumptions as messages

SNAPSHOT_FIELDS = ("result", "drawing", "drawings", "engine_messages", "tco_inputs", "priced_bom",
                   "tco", "snapshot_version", "snapshot_at")

# The figures a revision's design snapshot and the saved design's must share before the saved
# design's drawing is printed beside the revision's figures.
DRAWING_MUST_MATCH = ("tiers", "gpu_count", "leaf_count", "spine_count", "core_count", "bom")


def design_snapshot_values(*, requirements: FabricRequirements, currency: str) -> dict:
    """Everything a saved design keeps, computed now: the fabric engine runs here (this design
    and the other family's, for the comparison), the TCO engine once. Raises InvalidInput."""
    design = design_compute(requirements=requirements)
    summary = design.as_dict()
    inputs = design_tco_inputs(design, summary)
    drawings = {}
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            drawings[language] = fabric_svg(design, translation.gettext)
    return {
        "result": summary,
        "drawing": drawings[settings.LANGUAGE_CODE],
        "drawings": drawings,
        "engine_messages": design_messages_json(design),
        "tco_inputs": inputs,
        "priced_bom": bom_priced(bom=summary["bom"], currency=currency).as_json(),
        "tco": tco_comparison(inputs=inputs, currency=currency),
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
            requirements=requirements_from_json(design.requirements), currency=currency)
    except (InvalidInput, TypeError, ValueError):
        logger.info("saved design %s could not be designed again", design.pk, exc_info=True)
        values = {"drawing": "", "drawings": None, "engine_messages": None, "tco_inputs": None,
                  "tco": None,
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


def _tco_for_quote(design: SavedDesign, priced: PricedBom) -> dict | None:
    """The comparison as the quote prices the design: the snapshot's when it priced the BOM
    the same way, else the TCO engine alone again (the fabric designs are in the snapshot)."""
    tco = design.tco
    if tco and tco.get("result") and tco["currency"] == priced.currency:
        this = tco["request"]["fabrics"][0]
        if Decimal(this["network_capex"]) == priced.one_time_total and Decimal(
                this.get("network_opex_per_year", 0)) == priced.yearly_total:
            return tco
    if not design.tco_inputs:
        return None
    body = tco_body_for_design(inputs=design.tco_inputs, currency=priced.currency,
                               this_price=(priced.total, priced.yearly_total))
    try:
        result = tco_compute(data=body)
    except InvalidInput:
        return None
    return {"currency": priced.currency, "request": body, "result": result.as_dict(),
            "charts": tco_charts(result), "error": ""}


def revision_snapshot_from_design(*, revision: QuoteRevision, design: SavedDesign,
                                  priced: PricedBom, user, tco: TcoScenario | None = None) -> None:
    """Freeze copies of the design's snapshot on a new revision: its result, drawing and the
    TCO comparison priced as the quote is (a TcoScenario row too, as the TCO page keeps them).
    A given `tco` scenario is kept as it is, charted once from its request."""
    revision.design = design
    revision.design_snapshot = design.result
    revision.design_drawing = design.drawing or ""
    revision.design_drawings = design.drawings
    if tco is None:
        comparison = _tco_for_quote(design, priced)
        if comparison and comparison.get("result"):
            tco = TcoScenario.objects.create(
                project=design.project, name=f"{design.name} — TCO"[:200],
                request=comparison["request"], result=comparison["result"], created_by=user)
            revision.tco_charts = comparison["charts"]
    else:
        revision.tco_charts = _scenario_charts(tco, tco.result)
    revision.tco, revision.tco_snapshot = tco, (tco.result if tco else None)
    revision.snapshot_version = SNAPSHOT_VERSION
    revision.save(update_fields=["design", "design_snapshot", "design_drawing", "design_drawings",
                                 "tco",
                                 "tco_snapshot", "tco_charts", "snapshot_version"])


def _scenario_charts(scenario: TcoScenario, figures: dict) -> list[str]:
    """The charts of a TCO scenario, drawn from its request computed again, only when that
    gives the figures kept (`figures`): a chart never shows other numbers than the table."""
    try:
        result = tco_compute(data=scenario.request)
    except (InvalidInput, TypeError, ValueError):
        return []
    if result.as_dict()["options"] != figures.get("options"):
        return []
    return tco_charts(result)


def revision_snapshot_current(*, revision: QuoteRevision) -> QuoteRevision:
    """A revision made before snapshots gets its drawing and charts once, on first read.

    Only what matches the figures it was priced from: the saved design's drawing when that
    design still gives the same figures, the charts when its TCO request still gives the same
    options. These are renderings of the frozen figures, so filling them in changes no offer.
    """
    if revision.snapshot_version is not None:
        return revision
    drawing, drawings, charts = "", None, []
    saved, figures = revision.design, revision.design_snapshot
    if saved is not None and figures:
        saved = design_snapshot_current(design=saved)
        if saved.drawing and all(
                saved.result.get(key) == figures.get(key) for key in DRAWING_MUST_MATCH):
            drawing, drawings = saved.drawing, saved.drawings
    if revision.tco is not None and revision.tco_snapshot:
        charts = _scenario_charts(revision.tco, revision.tco_snapshot)
    revision.design_drawing, revision.tco_charts = drawing, charts
    revision.design_drawings = drawings
    revision.snapshot_version = SNAPSHOT_VERSION
    revision.save(update_fields=["design_drawing", "design_drawings", "tco_charts",
                                 "snapshot_version"])
    return revision

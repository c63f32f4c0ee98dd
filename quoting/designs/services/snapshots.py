"""Compute once, read many: a saved design's snapshot (the frozen copy a quote revision keeps
is made from it: quoting.quotes.services.snapshots).

A saved design stores its engine result, drawing, messages, priced BOM and TCO comparison when
its inputs change (design_save); pages, the PDF, the share page and the API read them. The
engine runs again only when the requirements change or SNAPSHOT_VERSION is raised.

Reads never write. A row saved under an older SNAPSHOT_VERSION (a deploy raised it) is brought
up to date in memory by the read that meets it (design_snapshot_current(),
revision_snapshot_current()), and stored by the refresh: `manage.py snapshots_refresh`, run by
the deploy after `migrate`, and the hourly job `quoting.snapshots_refresh` for any row it
missed.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.utils import timezone, translation

from quoting.designs.models import SavedDesign
from quoting.designs.selectors import PricedBom, bom_priced
from quoting.designs.services.designs import (
    RACK_SCALE_OTHER_BOM,
    design_compute,
    design_install_layout,
    design_messages_json,
    design_rack_scale_other_bom,
    design_site_inputs,
    design_tco_inputs,
    site_from_json,
)
from quoting.designs.services.tco import tco_comparison, workload_check
from quoting.designs.svg.fabric import fabric_svg
from quoting.designs.svg.racks import rack_appendix
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricDesign, FabricRequirements
from quoting.engine.fabric.requirements import requirements_from_json
from quoting.engine.tco.presets import DEFAULT_WORKLOAD

logger = logging.getLogger(__name__)

# Raise it when the engine, the pricing rule or the snapshot's shape changes: every saved design
# is then designed again on its next read, deliberately, and old revisions get their drawing and
# charts filled once.
# 2: the TCO names its workload and pricing; 3: drawings in each language; 4: the BOM's cables
# measured on the design's site (the result keeps the site as "site"), and a revision's racks;
# 5: the other build of NVL72 racks keeps its BOM rows (the result's "rack_scale_other_bom"), so
# a saved design prices it as the design page does.
SNAPSHOT_VERSION = 5

SNAPSHOT_FIELDS = (
    "result",
    "drawing",
    "drawings",
    "engine_messages",
    "tco_inputs",
    "priced_bom",
    "tco",
    "racks",
    "snapshot_version",
    "snapshot_at",
)

# The figures a revision's design snapshot and the saved design's must share before the saved
# design's drawing is printed beside the revision's figures.
DRAWING_MUST_MATCH = ("tiers", "gpu_count", "leaf_count", "spine_count", "core_count", "bom")


def design_snapshot_values(
    *,
    requirements: FabricRequirements,
    currency: str,
    workload: str = DEFAULT_WORKLOAD,
    site: dict | None = None,
) -> dict:
    """Everything a saved design keeps, computed now: the fabric engine runs here (this design
    and the other family's, for the comparison) on `site` (site inputs; the defaults for what it
    leaves out, kept in the result as "site"), the TCO engine once, for `workload`.
    Raises InvalidInput."""
    design = design_compute(requirements=requirements, site=site_from_json(site or {}))
    summary = design.as_dict()
    # Always there (None: nothing to price), so a result without it is one kept before.
    summary[RACK_SCALE_OTHER_BOM] = design_rack_scale_other_bom(design=design)
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


def _snapshot_values(design: SavedDesign) -> dict:
    """The snapshot computed again from the saved requirements.

    A design the current engine refuses keeps its result; it is priced from that result's BOM
    and goes without drawing and TCO (nothing else can be drawn honestly).
    """
    currency = _currency(design)
    try:
        values = design_snapshot_values(
            requirements=requirements_from_json(design.requirements, stored=True),
            currency=currency,
            workload=design.workload,
            site=design_site_inputs(design),
        )
    except (InvalidInput, TypeError, ValueError):
        logger.info("saved design %s could not be designed again", design.pk, exc_info=True)
        values = {
            "drawing": "",
            "drawings": None,
            "engine_messages": None,
            "tco_inputs": None,
            "tco": None,
            "racks": None,
            "priced_bom": bom_priced(bom=design.bom, currency=currency).as_json(),
            "snapshot_version": SNAPSHOT_VERSION,
            "snapshot_at": timezone.now(),
        }
    return values


def design_snapshot_refresh(*, design: SavedDesign) -> SavedDesign:
    """Compute the snapshot again from the saved requirements and store it."""
    values = _snapshot_values(design)
    for name, value in values.items():
        setattr(design, name, value)
    design.save(update_fields=list(values))
    return design


def design_snapshot_current(*, design: SavedDesign) -> SavedDesign:
    """The design with an up-to-date snapshot, for a read: one older than SNAPSHOT_VERSION is
    computed again in memory and not stored (the refresh stores it: designs_snapshot_refresh)."""
    if design.snapshot_version != SNAPSHOT_VERSION:
        for name, value in _snapshot_values(design).items():
            setattr(design, name, value)
    return design


def designs_snapshot_refresh(*, limit: int = 100) -> int:
    """Store a current snapshot on up to `limit` saved designs whose snapshot is older than
    SNAPSHOT_VERSION; returns how many (0: none left)."""
    stale = SavedDesign.objects.exclude(snapshot_version=SNAPSHOT_VERSION).order_by("pk")[:limit]
    count = 0
    for design in stale:
        design_snapshot_refresh(design=design)
        count += 1
    return count


def design_priced(*, design: SavedDesign, currency: str) -> PricedBom:
    """The saved design's BOM in `currency`: the snapshot's when it is in that currency."""
    design = design_snapshot_current(design=design)
    if design.priced_bom and design.priced_bom["currency"] == currency:
        return PricedBom.from_json(design.priced_bom)
    return bom_priced(bom=design.bom, currency=currency)


# --- a quote revision's frozen copies ----------------------------------------------------------


def gettext_in(language: str):
    """Django's gettext in `language`, whatever language is active when it is called (a
    streamed pack is written after its view returns); each word looked up once (a pack's
    labels ask for the same few words 100,000 times)."""
    looked_up: dict[str, str] = {}

    def translate(text: str) -> str:
        if text not in looked_up:
            with translation.override(language):
                looked_up[text] = translation.gettext(text)
        return looked_up[text]

    return translate


def racks_appendix(*, design: FabricDesign, site: dict | None = None) -> dict | None:
    """The proposal's rack appendix (quoting.designs.svg.racks.rack_appendix) of a designed fabric
    laid out on `site` (the site its cables were measured on; default: the default site), in every
    language; None when it cannot be laid out there."""
    try:
        layout = design_install_layout(design=design, site=site_from_json(site or {}))
    except (InvalidInput, TypeError, ValueError):
        logger.info("no rack appendix for this design and site", exc_info=True)
        return None
    return rack_appendix(
        layout, {language: gettext_in(language) for language, _name in settings.LANGUAGES}
    )


def _racks_matching(saved: SavedDesign, figures: dict | None) -> dict | None:
    """The saved design's racks when it still gives the revision's figures: a rendering never
    shows another design than the one priced."""
    if not figures or any(saved.result.get(key) != figures.get(key) for key in DRAWING_MUST_MATCH):
        return None
    return saved.racks


def design_workload_set(*, design: SavedDesign, workload: str) -> SavedDesign:
    """Change the job a saved design's comparison assumes: the TCO engine alone runs again
    (the fabric designs are in the snapshot). InvalidInput naming `workload` if unknown."""
    workload = workload_check(workload)
    if workload == design.workload and design.tco is not None:
        return design
    design.workload = workload
    fields = ["workload"]
    if design.tco_inputs:
        design.tco = tco_comparison(
            inputs=design.tco_inputs, currency=_currency(design), workload=workload
        )
        fields.append("tco")
    design.save(update_fields=fields)
    return design

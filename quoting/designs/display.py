"""Stored values as people read them: a project's cluster requirements as labelled, translated,
formatted rows ("GPUs: 1,024"), and the number, money and percent texts the audit trail's rows
(quoting.quotes.display) use too; never a raw field name or a Python dict.

Labels come from the engine's field specs where there is one (the same words as the forms).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from django.template.defaultfilters import floatformat
from django.utils.formats import number_format
from django.utils.text import capfirst
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from quoting.engine.contract import Spec, specs
from quoting.engine.fabric import FabricRequirements
from quoting.engine.fabric.bom import bom_role_label
from quoting.engine.fabric.requirements import DISTANCE_CLASSES

Row = tuple[str, str]  # (label, value), both ready to print

# --- values --------------------------------------------------------------------------------------

DISTANCE_LABELS = {
    "same-rack": _("same rack"),
    "adjacent-rack": _("adjacent rack"),
    "same-row": _("same row"),
    "across-hall": _("across the hall"),
}


def humanise(key: str) -> str:
    """A label for a key nobody labelled: "storage_ports" → "Storage ports"."""
    return capfirst(str(key).replace("_", " ").replace("-", " ").strip())


def number_text(value: int | float | Decimal, *, places: int | None = None) -> str:
    """Grouped, in the active language's format: 1,024; 7.1; with `places`, 10,000.00."""
    if isinstance(value, float):
        value = Decimal(repr(value))
    if places is None and isinstance(value, Decimal):
        whole = value == value.to_integral_value()
        value = value.quantize(Decimal(1)) if whole else value.normalize()
    return number_format(value, decimal_pos=places, force_grouping=True)


def _decimal(value: Any) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float | Decimal):
        return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    if isinstance(value, str):
        try:
            number = Decimal(value)
        except InvalidOperation:
            return None
        return number if number.is_finite() else None
    return None


def percent_text(value: Any) -> str:
    number = _decimal(value)
    return f"{number_text(number)} %" if number is not None else plain_text(value)


def money_text(value: Any) -> str:
    number = _decimal(value)
    return number_text(number, places=2) if number is not None else plain_text(value)


def plain_text(value: Any, *, label=None, detail=None) -> str:
    """Any stored value, readably: yes/no, grouped numbers, nested objects as "Label: value".

    `label(key)` and `detail(key, value)` name and format a nested object's entries (the audit
    trail passes its own); by default a key is humanised and a value shown plainly.
    """
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return gettext("Yes") if value else gettext("No")
    if isinstance(value, int | float | Decimal):
        return number_text(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, Mapping):
        label = label or humanise
        detail = detail or (lambda _key, v: plain_text(v))
        return "; ".join(f"{label(k)}: {detail(k, v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(plain_text(v, label=label, detail=detail) for v in value)
    return str(value)


# --- cluster requirements -------------------------------------------------------------------------

# Where the design form's label reads oddly out of its place beside "GPUs".
REQUIREMENT_LABELS = {
    "server_count": _("Servers"),
    "label": _("Drawing caption"),
}


def _requirement_value(spec: Spec, value: Any) -> str:
    if spec.kind == "choice":
        labels = dict(spec.choices)
        if value in labels:
            return gettext(labels[value])
    if spec.kind == "distance" and isinstance(value, str) and value in DISTANCE_CLASSES:
        metres = number_text(DISTANCE_CLASSES[value])
        return gettext("%(name)s (up to %(metres)s m)") % {
            "name": DISTANCE_LABELS[value],
            "metres": metres,
        }
    if spec.kind == "distance" and _decimal(value) is not None:
        return gettext("%(metres)s m") % {"metres": number_text(_decimal(value))}
    return plain_text(value)


def requirement_rows(requirements: Mapping[str, Any]) -> list[Row]:
    """A project's stored requirements, in the design form's order, empty ones left out."""
    if not isinstance(requirements, Mapping):
        return []
    known = specs(FabricRequirements)
    rows = []
    for name, spec in known.items():
        value = requirements.get(name)
        if value in (None, "", False):
            continue
        label = REQUIREMENT_LABELS.get(name) or gettext(spec.label) or humanise(name)
        if name == "oversubscription" or name == "storage_oversubscription":
            shown = f"{number_text(_decimal(value))}:1" if _decimal(value) else plain_text(value)
        elif name == "spares_percent":
            shown = percent_text(value)
        else:
            shown = _requirement_value(spec, value)
        rows.append((str(label), shown))
    for name, value in requirements.items():
        if name not in known and value not in (None, "", False):
            rows.append((humanise(name), plain_text(value)))
    return rows


# --- cable lengths --------------------------------------------------------------------------------

# The link tiers a design's media are kept for ("media" in FabricDesign.as_dict()), in the
# fabric's order.
LENGTH_TIERS = ("server-leaf", "leaf-spine", "spine-core", "ufm-leaf")


def cable_lengths(design: Mapping[str, Any] | None) -> dict | None:
    """Which of a design snapshot's cable lengths were measured on its site and which assumed.

    A tier left without a distance is measured on the site's rack layout, each cable bought at
    its own run's length class (its media's cable is the longest run's); a tier whose distance
    was typed takes that distance class for every cable, measured nowhere. Returns {"site": the
    site's inputs, "measured": [(tier, longest class m)], "assumed": [(tier, class m)]}; None
    without media (no design). A snapshot kept before media said "measured" reads as assumed.
    """
    media = (design or {}).get("media") if isinstance(design, Mapping) else None
    if not media:
        return None
    lengths: dict = {"site": design.get("site") or {}, "measured": [], "assumed": []}
    for tier in LENGTH_TIERS:
        kept = media.get(tier)
        if kept:
            kind = "measured" if kept.get("measured") else "assumed"
            lengths[kind].append((tier, kept.get("length_m")))
    return lengths


@dataclass(frozen=True)
class LengthsSaid:
    """`cable_lengths` in words, in the active language: the one wording the quote page, the
    proposal (PDF and share page) and the workbook print."""

    heading: str
    site: str  # how the measured lengths were measured; "" when none was
    rows: list[tuple[str, str, str]]  # ("measured" or "assumed", the tier, what its length is)
    note: str  # to confirm the assumed lengths on site; "" when none was assumed


def cable_lengths_said(lengths: Mapping[str, Any]) -> LengthsSaid:
    """Which cable lengths were measured on the design's site and which assumed, in words."""
    site = lengths.get("site") or {}
    measured, assumed = lengths.get("measured") or [], lengths.get("assumed") or []
    rows = [
        ("measured", _tier(tier), gettext("Measured, up to %(length)s m") % {"length": _m(m)})
        for tier, m in measured
    ] + [
        (
            "assumed",
            _tier(tier),
            gettext("Assumed: %(length)s m for every cable") % {"length": _m(m)},
        )
        for tier, m in assumed
    ]
    said_site = ""
    if measured:
        said_site = gettext(
            "Measured on site %(site)s: racks of %(units)s U and %(budget)s kW, each cable at "
            "the length class of its own run."
        ) % {
            "site": site.get("site_name", ""),
            "units": site.get("rack_units", ""),
            "budget": _m(site.get("rack_power_kw")),
        }
    note = (
        gettext(
            "Assumed lengths come from a distance class, not from the site: confirm them on "
            "site before ordering."
        )
        if assumed
        else ""
    )
    return LengthsSaid(gettext("Cable lengths"), said_site, rows, note)


def _tier(tier: str) -> str:
    return capfirst(bom_role_label(tier).render(gettext))


def _m(value) -> str:
    """A length or power as the pages print it: whole numbers bare, else to one decimal."""
    return str(floatformat(value, -1)) if value is not None else ""

"""Stored JSON as people read it: a project's cluster requirements and an audit event's details
as labelled, translated, formatted values ("GPUs: 1,024", "Discount: 5 % → 8 %"), never a raw
field name or a Python dict.

Labels come from the engine's field specs where there is one (the same words as the design
form); a key nobody labelled yet gets a humanised one ("storage_ports" → "Storage ports").
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from django.utils.formats import number_format
from django.utils.text import capfirst
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from quoting.engine.contract import Spec, specs
from quoting.engine.fabric import FabricRequirements
from quoting.engine.fabric.requirements import DISTANCE_CLASSES

from .models import LineKind, QuoteStatus, Section
from .models.audit import QuoteEventVerb

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


def plain_text(value: Any) -> str:
    """Any stored value, readably: yes/no, grouped numbers, nested objects as "Label: value"."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return gettext("Yes") if value else gettext("No")
    if isinstance(value, int | float | Decimal):
        return number_text(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, Mapping):
        return "; ".join(f"{_label(k)}: {detail_value(k, v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(plain_text(v) for v in value)
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
            "name": DISTANCE_LABELS[value], "metres": metres,
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


# --- audit details --------------------------------------------------------------------------------

DETAIL_LABELS = {
    "number": _("Number"),
    "currency": _("Currency"),
    "valid_until": _("Valid until"),
    "tax_percent": _("VAT"),
    "discount_percent": _("Discount"),
    "design": _("Design"),
    "lines": _("Lines"),
    "fx_rate": _("Exchange rate"),
    "fx_source_currency": _("Converted from"),
    "sku": _("SKU"),
    "quantity": _("Quantity"),
    "unit_price": _("Unit price"),
    "section": _("Section"),
    "kind": _("Kind"),
    "description": _("Description"),
    "line": _("Line"),
    "note": _("Note"),
    "reason": _("Reason"),
    "source": _("From"),
    "created": _("Revision"),
    "revision_label": _("Revision"),
    "label": _("Option"),
    "recipient": _("Recipient"),
    "days": _("Valid for"),
    "link": _("Share link"),
    "total": _("Total"),
    "name": _("Name"),
    "title": _("Title"),
    "via": _("Via"),
    "recorded_by": _("Recorded by"),
    "status": _("Status"),
    # A customer's accept through the share link: what they chose (#15 item 2)
    "chosen_alternative": _("Alternative chosen"),
    "chosen_optional": _("Optional items included"),
    "accepted_totals": _("Accepted totals"),
    "key": _("Key"),
    "subtotal": _("Subtotal"),
    "discount": _("Discount"),
    "net": _("Net"),
    "tax": _("VAT"),
}
PERCENT_KEYS = frozenset({"tax_percent", "discount_percent"})
MONEY_KEYS = frozenset({"unit_price", "total", "subtotal", "discount", "net", "tax"})

# What a before → after pair is about, per verb (line changes name each field instead).
CHANGE_LABELS = {
    QuoteEventVerb.DISCOUNT_CHANGED: ("discount_percent", _("Quote discount")),
    QuoteEventVerb.TAX_CHANGED: ("tax_percent", _("VAT")),
    QuoteEventVerb.VALIDITY_CHANGED: ("valid_until", _("Valid until")),
    QuoteEventVerb.STATUS_CHANGED: ("status", _("Status")),
}

# Texts the services store in English; shown in the reader's language.
SYSTEM_TEXTS = {
    "edited after it was sent": _("edited after it was sent"),
    "edited; the approval no longer applies": _("edited; the approval no longer applies"),
    "share link": _("the customer's share link"),
    "staff": _("staff, on the customer's word"),
}
CHOICE_LABELS = {
    "status": dict(QuoteStatus.choices),
    "section": dict(Section.choices),
    "kind": dict(LineKind.choices),
}


def detail_value(key: str, value: Any) -> str:
    """One stored detail, formatted for its key."""
    if key in PERCENT_KEYS:
        return percent_text(value)
    if key in MONEY_KEYS:
        return money_text(value)
    if key in CHOICE_LABELS and value in CHOICE_LABELS[key]:
        return str(CHOICE_LABELS[key][value])
    if key == "link" and isinstance(value, int):
        return f"#{value}"
    if key == "days" and isinstance(value, int):
        return gettext("%(days)s days") % {"days": value}
    if key == "fx_rate":
        number = _decimal(value)
        return number_text(number) if number is not None else plain_text(value)
    if isinstance(value, str) and value in SYSTEM_TEXTS:
        return str(SYSTEM_TEXTS[value])
    return plain_text(value)


def _label(key: str) -> str:
    label = DETAIL_LABELS.get(key)
    return str(label) if label is not None else humanise(key)


def _change(key: str, label: str, before: Any, after: Any) -> Row:
    return (label, f"{detail_value(key, before)} → {detail_value(key, after)}")


def event_detail_rows(verb: str, details: Any) -> list[Row]:
    """An audit event's details as (label, value) rows; empty values left out."""
    if not isinstance(details, Mapping):
        return [] if details in (None, "", {}) else [(gettext("Details"), plain_text(details))]
    rows: list[Row] = []
    details = dict(details)
    before, after = details.pop("before", None), details.pop("after", None)
    if details.get("line") not in (None, ""):  # which line, before what changed on it
        rows.append((_label("line"), detail_value("line", details.pop("line"))))
    if isinstance(before, Mapping) or isinstance(after, Mapping):
        before = before if isinstance(before, Mapping) else {}
        after = after if isinstance(after, Mapping) else {}
        for key in dict.fromkeys([*after, *before]):  # each changed field once, in order
            rows.append(_change(key, _label(key), before.get(key), after.get(key)))
    elif before is not None or after is not None:
        key, label = CHANGE_LABELS.get(verb, ("", _("Change")))
        rows.append(_change(key, str(label), before, after))
    rows.extend(
        (_label(key), detail_value(key, value))
        for key, value in details.items()
        if value not in (None, "")
    )
    return rows

"""An audit event's details as people read them: labelled, translated, formatted values
("Discount: 5 % → 8 %"), never a raw field name or a Python dict.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from quoting.designs.display import (
    Row,
    _decimal,
    humanise,
    money_text,
    number_text,
    percent_text,
    plain_text,
)
from quoting.engine.messages import listing
from quoting.kept_messages import kept_words
from quoting.kept_texts import kept_text
from quoting.quotes.models import LineKind, QuoteStatus, Section, schedule_text_shown
from quoting.quotes.models.audit import QuoteEventVerb

# --- audit details --------------------------------------------------------------------------------

DETAIL_LABELS = {
    "number": _("Number"),
    "currency": _("Currency"),
    "valid_until": _("Valid until"),
    "tax_percent": _("VAT"),
    "discount_percent": _("Discount"),
    "design": _("Design"),
    "lines": _("Lines"),
    "spares_kit_lines": _("Spares kit lines"),
    "spares_kit_unpriced": _("Spares kit parts without a price"),
    "spares_kit_left_out": _("Spares kit lines left out (over a quote's line limit)"),
    "service_lines": _("Service lines"),
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
    # Renewals (quoting.quotes.services.renewals): what a renewal quote renews, a term's start
    "renewal_of": _("Renews"),
    "starts_on": _("Term starts"),
}
PERCENT_KEYS = frozenset({"tax_percent", "discount_percent"})
MONEY_KEYS = frozenset({"unit_price", "total", "subtotal", "discount", "net", "tax"})

# What a before → after pair is about, per verb (line changes name each field instead).
CHANGE_LABELS = {
    QuoteEventVerb.DISCOUNT_CHANGED: ("discount_percent", _("Quote discount")),
    QuoteEventVerb.TAX_CHANGED: ("tax_percent", _("VAT")),
    QuoteEventVerb.VALIDITY_CHANGED: ("valid_until", _("Valid until")),
    QuoteEventVerb.STATUS_CHANGED: ("status", _("Status")),
    # The schedule (or the additional terms) as one line each; see detail_value.
    QuoteEventVerb.PAYMENT_TERMS_CHANGED: ("payment_schedule", _("Change")),
}

# Texts the services store in English; shown in the reader's language.
SYSTEM_TEXTS = {
    "edited after it was sent": _("edited after it was sent"),
    "edited; the approval no longer applies": _("edited; the approval no longer applies"),
    "share link": _("the customer's share link"),
    "staff": _("staff, on the customer's word"),
    "answered by the customer while the next revision was a draft": _(
        "answered by the customer while the next revision was a draft"
    ),
    "not the sent PDF": _("not the sent PDF"),
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
    if key == "payment_schedule" and isinstance(value, str) and value:
        return schedule_text_shown(value)  # its standard milestones in the reader's language
    if key == "spares_kit_unpriced" and isinstance(value, str) and value:
        # Kept as part numbers joined with ", " (a part number has none): listed again in the
        # reader's language ("a、b" in Chinese).
        return listing(value.split(", ")).render(gettext)
    if key == "fx_rate":
        number = _decimal(value)
        return number_text(number) if number is not None else _plain(value)
    if isinstance(value, str) and value in SYSTEM_TEXTS:
        return str(SYSTEM_TEXTS[value])
    if isinstance(value, str) and value:
        return kept_text(value)  # an event kept before messages: the support repricing's reasons
    return _plain(value)


def _plain(value: Any) -> str:
    """A stored detail shown plainly, a nested object's entries with the audit trail's labels."""
    return plain_text(value, label=_label, detail=detail_value)


def _label(key: str) -> str:
    label = DETAIL_LABELS.get(key)
    return str(label) if label is not None else humanise(key)


def _change(key: str, label: str, before: Any, after: Any) -> Row:
    return (label, f"{detail_value(key, before)} → {detail_value(key, after)}")


def event_detail_rows(verb: str, details: Any, *, reason_message: Any = None) -> list[Row]:
    """An audit event's details as (label, value) rows; empty values left out. Its reason worded
    from `reason_message` when the event kept one (QuoteEvent.reason_message)."""
    if not isinstance(details, Mapping):
        return [] if details in (None, "", {}) else [(gettext("Details"), _plain(details))]
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
        (
            _label(key),
            kept_words(value, reason_message)
            if key == "reason" and reason_message
            else detail_value(key, value),
        )
        for key, value in details.items()
        if value not in (None, "")
    )
    return rows

"""The common part of every event announced about a quote (quoting.quotes.signals.
quote_announced): what it is about, in the shape of the webhook catalogue (docs/webhooks.md,
integrations.catalogue). quoting builds it for its own events and proposals for the link's and the
documents', so every event names its quote, revision, customer, project and contact alike.

Everything here is plain JSON already: timestamps RFC 3339 UTC ("...Z"), dates YYYY-MM-DD, money
exact text with two places.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from django.conf import settings
from django.urls import reverse

from portal.models import User
from quoting.engine.money import Totals
from quoting.quotes.models import Approval, Quote, QuoteRevision

TOTAL_NAMES = ("subtotal", "discount", "net", "tax", "total")


def event_time(value: dt.datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def event_date(value: dt.date | None) -> str | None:
    return value.isoformat() if value is not None else None


def event_money(value: Decimal) -> str:
    return f"{value:.2f}"


def event_totals(totals: Totals, *, currency: str) -> dict:
    return {"currency": currency} | {
        name: event_money(getattr(totals, name)) for name in TOTAL_NAMES
    }


def event_user(user: User | None) -> dict | None:
    return {"id": user.pk, "username": user.get_username()} if user is not None else None


def event_subjects(quote: Quote, revision: QuoteRevision | None) -> dict:
    """quote, revision, customer, project and contact: the members every event starts with."""
    customer, project, contact = quote.customer, quote.project, quote.contact
    return {
        "quote": {
            "id": quote.pk,
            "number": quote.number,
            "external_id": quote.external_id,
            "status": quote.status,
            "currency": quote.currency,
            "url": settings.PORTAL_URL + reverse("quote-detail", args=[quote.pk]),
        },
        "revision": {"id": revision.pk, "label": revision.label} if revision else None,
        "customer": {
            "id": customer.pk,
            "external_id": customer.external_id,
            "company": customer.company,
        },
        "project": {"id": project.pk, "external_id": project.external_id, "name": project.name},
        "contact": (
            {"id": contact.pk, "external_id": contact.external_id, "name": contact.name}
            if contact is not None
            else None
        ),
    }


def approval_data(approval: Approval) -> dict:
    """`approval` of approval.requested and approval.decided."""
    return {
        "id": approval.pk,
        "decision": approval.decision,
        "discount_percent": event_money(approval.discount_percent),
        # No margin: the API shows it only to those who may see margins, and a CRM's endpoint
        # cannot be asked who reads it.
        "required_role": approval.required_role,
        "requested_by": event_user(approval.requested_by),
        "requested_at": event_time(approval.requested_at),
        "note": approval.request_note,
        "decided_by": event_user(approval.decided_by),
        "decided_at": event_time(approval.decided_at),
        "reason": approval.reason,
    }

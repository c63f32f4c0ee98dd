"""The hook for what proposals tells the outside: every moment a CRM may want to hear about
(quote.viewed, share_link.created, share_link.opened, proposal.ready, quote.signed_copy_ready,
quote.countersigned) goes through quote_event(), which logs it and announces it
(quoting.quotes.signals.quote_announced; integrations makes the webhooks), in the catalogue's
shape (quoting.quotes.events: quote, revision, customer, project and contact first).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.urls import reverse

from proposals.models import ShareLink
from quoting.engine.money import Totals
from quoting.quotes.events import event_subjects, event_time, event_totals
from quoting.quotes.models import Quote, QuoteRevision
from quoting.quotes.signals import quote_announced

logger = logging.getLogger(__name__)

# --- the hook ------------------------------------------------------------------------------------


# quote.accepted and quote.declined are emitted by quote_mark_accepted/declined themselves (for
# every path, the share link's included): emitting them here too would announce them twice.
WEBHOOKS_EMITTED_HERE = (
    "quote.viewed",
    "proposal.ready",
    "share_link.created",
    "share_link.opened",
    "quote.signed_copy_ready",
    "quote.countersigned",
)


def quote_event(
    quote: Quote,
    kind: str,
    *,
    revision: QuoteRevision | None = None,
    totals: Totals | None = None,
    **members,
) -> None:
    """quote.viewed, quote.accepted, quote.declined, proposal.ready...: the webhooks hook in
    here. `revision` is the one the event is about, `totals` where money is involved,
    `members` the event's own (integrations.catalogue).

    Call it inside the transaction of the change: the deliveries are written in it.
    """
    logger.info("%s on %s", kind, quote.number)  # `members` may name people: not logged
    if kind in WEBHOOKS_EMITTED_HERE:
        data = event_subjects(quote, revision)
        if totals is not None:
            data["totals"] = event_totals(totals, currency=quote.currency)
        quote_announced.send(
            sender=Quote, event_type=kind, customer_id=quote.customer_id, data=data | members
        )


def share_link_data(link: ShareLink) -> dict:
    """`share_link` of share_link.created, share_link.opened and quote.viewed."""
    return {
        "id": link.pk,
        "recipient_name": link.recipient_name,
        "recipient_email": link.recipient_email,
        "expires_at": event_time(link.expires_at),
    }


def proposal_pdf_url(document_id: int) -> str:
    return settings.PORTAL_URL + reverse("proposal-pdf", args=[document_id])

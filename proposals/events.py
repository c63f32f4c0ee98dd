"""The hook for what proposals tells the outside: every moment a CRM may want to hear about
(quote.viewed, proposal.ready, quote.signed_copy_ready) goes through quote_event(), which logs
it and announces it (quoting.quotes.signals.quote_announced; integrations makes the webhooks).
"""

from __future__ import annotations

import logging

from quoting.quotes.models import (
    Quote,
)
from quoting.quotes.signals import quote_announced

logger = logging.getLogger(__name__)

# --- the hook ------------------------------------------------------------------------------------


# quote.accepted and quote.declined are emitted by quote_mark_accepted/declined themselves (for
# every path, the share link's included): emitting them here too would announce them twice.
WEBHOOKS_EMITTED_HERE = ("quote.viewed", "proposal.ready")


def quote_event(quote: Quote, kind: str, **data) -> None:
    """quote.viewed, quote.accepted, quote.declined, proposal.ready: the webhooks hook in here.

    Call it inside the transaction of the change: the deliveries are written in it.
    """
    logger.info("%s on %s", kind, quote.number)  # `data` may name people: not logged
    if kind in WEBHOOKS_EMITTED_HERE:
        quote_announced.send(
            sender=Quote,
            event_type=kind,
            customer_id=quote.customer_id,
            data={"quote_id": quote.pk, "number": quote.number, **data},
        )

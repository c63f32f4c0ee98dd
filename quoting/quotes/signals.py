"""What quoting announces to the apps built on it (quoting imports none of them)."""

from django.dispatch import Signal

# A revision was frozen and sent (quote_send), inside the send's transaction; `revision` is the
# frozen revision, its content fingerprint stored. proposals retires the documents rendered
# before, when it was still a draft: none of them may pass for the sent offer.
revision_frozen = Signal()

# Something a CRM hears about happened to a quote ("quote.sent", "quote.accepted", ...; proposals
# sends "quote.viewed" and "quote.signed_copy_ready"), inside the transaction that did it:
# `event_type`, `data` (the payload) and `customer_id` (whose quote: only endpoints whose owner
# may see the customer hear of it). integrations turns it into webhook deliveries; neither quoting
# nor proposals imports integrations' webhooks.
quote_announced = Signal()

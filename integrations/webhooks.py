"""Webhooks in the Standard Webhooks style (https://www.standardwebhooks.com/).

Each event is written as one WebhookDelivery row per subscribed endpoint inside the caller's
transaction, and sent by a Celery task after commit: a rolled-back change never announces itself,
and a committed one is never lost (the row stays pending until delivered or given up).
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import json
import secrets
import uuid

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from integrations.models import WebhookDelivery, WebhookEndpoint
from portal.queueing import enqueue_or_leave_to_sweeper

SECRET_PREFIX = "whsec_"  # noqa: S105  (a marker, not a secret)


def webhook_secret_new() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def webhook_sign(*, secret: str, msg_id: str, timestamp: int, body: str) -> str:
    """The `webhook-signature` header value: "v1," + base64(HMAC-SHA256(key, id.ts.body))."""
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    mac = hmac.new(key, f"{msg_id}.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


def webhook_body(delivery: WebhookDelivery) -> str:
    # Compact and stable: the signature covers these exact bytes.
    return json.dumps(delivery.payload, separators=(",", ":"), cls=DjangoJSONEncoder)


def webhook_headers(delivery: WebhookDelivery, *, body: str, now: dt.datetime) -> dict[str, str]:
    timestamp = int(now.timestamp())
    return {
        "Content-Type": "application/json",
        "User-Agent": "FabricQuote-Webhooks/1",
        "webhook-id": delivery.event_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": webhook_sign(
            secret=delivery.endpoint.secret,
            msg_id=delivery.event_id,
            timestamp=timestamp,
            body=body,
        ),
    }


def webhook_retry_delay(attempt: int) -> int:
    """Seconds before the next try after `attempt` failures: 30 s, 1 min, 2 min... capped at 6 h."""
    base = getattr(settings, "WEBHOOK_RETRY_BASE_SECONDS", 30)
    return min(base * 2 ** (attempt - 1), 6 * 3600)


def _endpoints_for(event_type: str, customer_id: int | None) -> list[WebhookEndpoint]:
    from quoting.customers.selectors import customers_visible_to

    endpoints = [
        e
        for e in WebhookEndpoint.objects.filter(active=True).select_related("created_by")
        if event_type in e.events
    ]
    if customer_id is None:
        return endpoints
    # An endpoint only hears about customers its owner may see: the webhook is not a side door.
    return [
        e
        for e in endpoints
        if e.created_by.is_active
        and customers_visible_to(user=e.created_by).filter(pk=customer_id).exists()
    ]


def webhook_emit(*, event_type: str, data: dict, customer_id: int | None = None) -> int:
    """Queue `event_type` for every active endpoint subscribed to it; returns how many.

    Call it inside the transaction that made the change; sending starts after it commits.
    """
    endpoints = _endpoints_for(event_type, customer_id)
    if not endpoints:  # the usual case for quote.viewed: nobody listens, nothing to build
        return 0
    event_id = f"msg_{uuid.uuid4().hex}"
    payload = {"type": event_type, "timestamp": timezone.now().isoformat(), "data": data}
    payload = json.loads(json.dumps(payload, cls=DjangoJSONEncoder))  # Decimals, dates as text
    deliveries = WebhookDelivery.objects.bulk_create(
        WebhookDelivery(
            endpoint=e,
            event_id=event_id,
            event_type=event_type,
            payload=payload,
            next_attempt_at=timezone.now(),
        )
        for e in endpoints
    )
    for delivery in deliveries:
        # The broker down must not fail the committed change: the row waits for the sweeper.
        transaction.on_commit(
            lambda pk=delivery.pk: enqueue_or_leave_to_sweeper("integrations.webhook_deliver", pk)
        )
    return len(deliveries)

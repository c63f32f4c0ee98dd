"""Webhooks in the Standard Webhooks style (https://www.standardwebhooks.com/).

Each event is stored once in the feed (Event) and written as one WebhookDelivery row per
subscribed endpoint inside the caller's transaction, and sent by a Celery task after commit: a
rolled-back change never announces itself, and a committed one is never lost (the row stays
pending until delivered or given up). docs/webhooks.md is the receiver's guide.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import json
import logging
import secrets
import uuid

from django.conf import settings
from django.core.mail import send_mail
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from integrations.models import WEBHOOK_PING, Event, WebhookDelivery, WebhookEndpoint
from portal.queueing import enqueue_or_leave_to_sweeper

logger = logging.getLogger(__name__)

SECRET_PREFIX = "whsec_"  # noqa: S105  (a marker, not a secret)


def webhook_secret_new() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def webhook_sign(*, secret: str, msg_id: str, timestamp: int, body: str) -> str:
    """The `webhook-signature` header value: "v1," + base64(HMAC-SHA256(key, id.ts.body))."""
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    mac = hmac.new(key, f"{msg_id}.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


# Seconds to wait after each failed attempt, in order: the first try is immediate, then 5 s,
# 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 14 h, 24 h, 24 h - eleven tries over about 3.7 days
# (docs/webhooks.md). The one place the schedule is defined; tests read it.
WEBHOOK_RETRY_SCHEDULE: tuple[int, ...] = (
    5,
    5 * 60,
    30 * 60,
    2 * 3600,
    5 * 3600,
    10 * 3600,
    10 * 3600,
    14 * 3600,
    24 * 3600,
    24 * 3600,
)
MAX_ATTEMPTS = len(WEBHOOK_RETRY_SCHEDULE) + 1


def webhook_retry_delay(attempt: int) -> int | None:
    """Seconds before the next try after `attempt` failed tries; None when the schedule is over."""
    if attempt < 1 or attempt > len(WEBHOOK_RETRY_SCHEDULE):
        return None
    return WEBHOOK_RETRY_SCHEDULE[attempt - 1]


def rfc3339(moment: dt.datetime) -> str:
    """UTC, whole seconds, trailing Z: "2026-12-06T04:31:00Z"."""
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def event_envelope(*, event_type: str, event_id: str, timestamp: dt.datetime, data) -> dict:
    return {"type": event_type, "id": event_id, "timestamp": rfc3339(timestamp), "data": data}


def webhook_body(delivery: WebhookDelivery) -> str:
    # Compact and stable: the signature covers these exact bytes. The keys are put in the
    # envelope's order; `data` comes back from the database in its (deterministic) jsonb order,
    # so a redelivery (a copy of the payload) sends the same bytes.
    p = delivery.payload
    envelope = {
        "type": p.get("type", delivery.event_type),
        "id": p.get("id", delivery.event_id),  # rows queued before the envelope had no id
        "timestamp": p.get("timestamp"),
        "data": p.get("data"),
    }
    return json.dumps(envelope, separators=(",", ":"), cls=DjangoJSONEncoder)


def webhook_signatures(endpoint: WebhookEndpoint, *, msg_id: str, timestamp: int, body: str) -> str:
    """The new secret's signature, then during a rotation's overlap the old one's, space-separated
    (Standard Webhooks lets a receiver accept any one it can verify)."""
    signatures = [
        webhook_sign(secret=endpoint.secret, msg_id=msg_id, timestamp=timestamp, body=body)
    ]
    expires = endpoint.previous_secret_expires_at
    if endpoint.previous_secret and expires is not None and expires > timezone.now():
        signatures.append(
            webhook_sign(
                secret=endpoint.previous_secret, msg_id=msg_id, timestamp=timestamp, body=body
            )
        )
    return " ".join(signatures)


def webhook_headers(delivery: WebhookDelivery, *, body: str, now: dt.datetime) -> dict[str, str]:
    timestamp = int(now.timestamp())
    return {
        "Content-Type": "application/json",
        "User-Agent": "FabricQuote-Webhooks/1",
        "webhook-id": delivery.event_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": webhook_signatures(
            delivery.endpoint, msg_id=delivery.event_id, timestamp=timestamp, body=body
        ),
    }


def _endpoints_for(event_type: str, customer_id: int | None) -> list[WebhookEndpoint]:
    from quoting.customers.selectors import customers_visible_to

    endpoints = [
        e
        for e in WebhookEndpoint.objects.filter(
            active=True, deleted_at__isnull=True
        ).select_related("created_by")
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


def _deliveries_queue(deliveries: list[WebhookDelivery]) -> None:
    for delivery in deliveries:
        # The broker down must not fail the committed change: the row waits for the sweeper.
        transaction.on_commit(
            lambda pk=delivery.pk: enqueue_or_leave_to_sweeper("integrations.webhook_deliver", pk)
        )


def webhook_emit(*, event_type: str, data: dict, customer_id: int | None = None) -> int:
    """Store the event in the feed and queue it for every active endpoint subscribed to it;
    returns how many deliveries.

    Call it inside the transaction that made the change; sending starts after it commits.
    """
    now = timezone.now().replace(microsecond=0)
    data = json.loads(json.dumps(data, cls=DjangoJSONEncoder))  # Decimals, dates as text
    event = Event.objects.create(
        event_id=f"msg_{uuid.uuid4().hex}",
        type=event_type,
        timestamp=now,
        data=data,
        customer_id=customer_id,
    )
    endpoints = _endpoints_for(event_type, customer_id)
    if not endpoints:  # the usual case for quote.viewed: nobody listens, nothing to build
        return 0
    payload = event_envelope(
        event_type=event_type, event_id=event.event_id, timestamp=now, data=data
    )
    deliveries = WebhookDelivery.objects.bulk_create(
        WebhookDelivery(
            endpoint=e,
            event_id=event.event_id,
            event_type=event_type,
            payload=payload,
            next_attempt_at=timezone.now(),
        )
        for e in endpoints
    )
    _deliveries_queue(deliveries)
    return len(deliveries)


class EndpointNotReceiving(Exception):
    """A redelivery or ping to an endpoint that is disabled or deleted (the API answers 409)."""


def _receiving(endpoint: WebhookEndpoint) -> None:
    if endpoint.deleted_at is not None:
        raise EndpointNotReceiving("This endpoint was deleted.")
    if not endpoint.active:
        raise EndpointNotReceiving("This endpoint is disabled: re-enable it (active=true) first.")


def webhook_redeliver(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """A new delivery of the same message (same webhook-id, same body bytes), fresh schedule."""
    _receiving(delivery.endpoint)
    new = WebhookDelivery.objects.create(
        endpoint=delivery.endpoint,
        event_id=delivery.event_id,
        event_type=delivery.event_type,
        payload=delivery.payload,
        next_attempt_at=timezone.now(),
    )
    _deliveries_queue([new])
    return new


def webhook_redeliver_since(*, endpoint: WebhookEndpoint, since: dt.datetime) -> int:
    """Every message delivered (or tried) to `endpoint` since `since` is sent again, failed or
    not, once per webhook-id; returns how many."""
    _receiving(endpoint)
    latest: dict[str, WebhookDelivery] = {}
    for d in endpoint.deliveries.filter(created__gte=since).order_by("created", "pk"):
        latest.pop(d.event_id, None)
        latest[d.event_id] = d  # the message's last copy, in the order the messages were first sent
    now = timezone.now()
    deliveries = WebhookDelivery.objects.bulk_create(
        WebhookDelivery(
            endpoint=endpoint,
            event_id=d.event_id,
            event_type=d.event_type,
            payload=d.payload,
            next_attempt_at=now,
        )
        for d in latest.values()
    )
    _deliveries_queue(deliveries)
    return len(deliveries)


def webhook_ping(*, endpoint: WebhookEndpoint) -> WebhookDelivery:
    """A webhook.ping to this endpoint only (not in the event feed)."""
    _receiving(endpoint)
    now = timezone.now().replace(microsecond=0)
    event_id = f"msg_{uuid.uuid4().hex}"
    delivery = WebhookDelivery.objects.create(
        endpoint=endpoint,
        event_id=event_id,
        event_type=WEBHOOK_PING,
        payload=event_envelope(
            event_type=WEBHOOK_PING,
            event_id=event_id,
            timestamp=now,
            data={"endpoint": endpoint.pk},
        ),
        next_attempt_at=now,
    )
    _deliveries_queue([delivery])
    return delivery


def webhook_secret_rotate(*, endpoint: WebhookEndpoint, overlap_hours: int) -> str:
    """A new signing secret; the current one keeps signing too for `overlap_hours` (then only the
    new one). Returns the new secret, which is shown once."""
    new = webhook_secret_new()
    if overlap_hours > 0:
        endpoint.previous_secret = endpoint.secret
        endpoint.previous_secret_expires_at = timezone.now() + dt.timedelta(hours=overlap_hours)
    else:
        endpoint.previous_secret, endpoint.previous_secret_expires_at = "", None
    endpoint.secret = new
    endpoint.save(update_fields=["secret", "previous_secret", "previous_secret_expires_at"])
    return new


def webhook_endpoint_delete(*, endpoint: WebhookEndpoint) -> None:
    """Soft delete: gone from the API, hears nothing more, its deliveries stay readable."""
    endpoint.deleted_at, endpoint.active = timezone.now(), False
    endpoint.save(update_fields=["deleted_at", "active"])


def webhook_endpoint_enable(*, endpoint: WebhookEndpoint) -> None:
    endpoint.active, endpoint.disabled_at, endpoint.disabled_reason = True, None, ""


def webhooks_purge(*, now: dt.datetime | None = None) -> dict[str, int]:
    """Events, deliveries and deleted endpoints older than WEBHOOKS_RETENTION_DAYS go."""
    cutoff = (now or timezone.now()) - dt.timedelta(days=settings.WEBHOOKS_RETENTION_DAYS)
    return {
        "events": Event.objects.filter(timestamp__lt=cutoff).delete()[0],
        "deliveries": WebhookDelivery.objects.filter(created__lt=cutoff).delete()[0],
        "endpoints": WebhookEndpoint.objects.filter(deleted_at__lt=cutoff).delete()[0],
    }


def webhook_endpoint_disable_if_failing(*, delivery: WebhookDelivery) -> bool:
    """`delivery` used up its schedule: its endpoint is disabled, and its creator told by
    e-mail, unless another delivery to it succeeded since this one was created."""
    with transaction.atomic():
        endpoint = (
            WebhookEndpoint.objects.select_for_update().filter(pk=delivery.endpoint_id).first()
        )
        if endpoint is None or not endpoint.active or endpoint.deleted_at is not None:
            return False
        if endpoint.deliveries.filter(delivered_at__gte=delivery.created).exists():
            return False  # it answers again: one lost message is not a dead endpoint
        endpoint.active, endpoint.disabled_at = False, timezone.now()
        endpoint.disabled_reason = (
            f"{delivery.attempts} tries of {delivery.event_type} ({delivery.event_id}) failed "
            f"from {rfc3339(delivery.created)} on; last: "
            f"{delivery.response_code or delivery.response_body or 'no answer'}"
        )[:300]
        endpoint.save(update_fields=["active", "disabled_at", "disabled_reason"])
        transaction.on_commit(
            lambda: enqueue_or_leave_to_sweeper(
                "integrations.webhook_endpoint_disabled_mail", endpoint.pk
            )
        )
    logger.warning("webhook endpoint %s disabled: %s", endpoint.pk, endpoint.disabled_reason)
    return True


def webhook_endpoint_disabled_mail(*, endpoint_id: int) -> bool:
    """Tell the endpoint's creator it was disabled; True when the e-mail went out. (The portal's
    inbox holds quote notifications only, so this is e-mail and the log.)"""
    endpoint = (
        WebhookEndpoint.objects.select_related("created_by")
        .filter(pk=endpoint_id, active=False, disabled_at__isnull=False)
        .first()
    )
    if endpoint is None or not endpoint.created_by.email:
        return False
    subject = f"FabricQuote: webhook endpoint {endpoint.url} was disabled"
    body = (
        f"Deliveries to {endpoint.url} kept failing, so the endpoint was disabled at "
        f"{rfc3339(endpoint.disabled_at)}.\n\nWhy: {endpoint.disabled_reason}\n\n"
        "Fix the receiver, re-enable the endpoint (PATCH /api/v1/webhook-endpoints/"
        f"{endpoint.pk}/ with active=true), then redeliver what it missed (POST "
        f"/api/v1/webhook-endpoints/{endpoint.pk}/redeliver/?since=...) or read the event "
        f"feed (GET /api/v1/events/).\n\n{settings.PORTAL_URL}/api/docs/\n"
    )
    try:
        send_mail(subject, body, None, [endpoint.created_by.email])
    except Exception:
        logger.exception("webhook endpoint %s: the e-mail could not be sent", endpoint_id)
        return False
    return True

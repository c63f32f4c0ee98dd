"""Sending webhooks: one task per delivery row, retried with exponential backoff."""

from __future__ import annotations

import datetime as dt
import http.client
import time

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from integrations.models import DeliveryStatus, WebhookDelivery
from integrations.targets import WebhookTargetRefused, webhook_post, webhook_target_check
from integrations.webhooks import webhook_body, webhook_headers, webhook_retry_delay

MAX_ATTEMPTS = 8  # about two hours of backoff in all


def _post(url: str, body: str, headers: dict[str, str]) -> tuple[int | None, str, str, bool]:
    """(status code or None, response excerpt, error, worth retrying) for one POST; never raises.

    The URL is checked again here, not only at registration: its DNS may have changed since.
    """
    try:
        target = webhook_target_check(url)
    except WebhookTargetRefused as refused:
        return None, "", refused.message, refused.retry
    try:
        code, excerpt = webhook_post(
            target,
            body=body.encode(),
            headers=headers,
            timeout=settings.WEBHOOKS_TIMEOUT_SECONDS,
            excerpt_bytes=settings.WEBHOOKS_RESPONSE_EXCERPT_BYTES,
        )
    except (OSError, http.client.HTTPException, ValueError) as error:  # refused, timed out...
        return None, "", (str(error) or type(error).__name__)[:300], True
    text = excerpt.decode(errors="replace")
    if 300 <= code < 400:  # a redirect could point anywhere: it is not followed
        return code, text, "Redirects are not followed.", False
    return code, text, "", code >= 500 or code == 429


def webhook_attempt(*, delivery_id: int) -> int | None:
    """Try one delivery once and record it; returns seconds until the next try, or None."""
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update()
            .select_related("endpoint")
            .filter(pk=delivery_id, status=DeliveryStatus.PENDING)
            .first()
        )
        if delivery is None:
            return None  # delivered or given up already: a duplicate task does nothing
    body = webhook_body(delivery)
    started = time.monotonic()
    code, excerpt, error, retry = _post(
        delivery.endpoint.url, body, webhook_headers(delivery, body=body, now=timezone.now())
    )
    duration_ms = int((time.monotonic() - started) * 1000)
    now = timezone.now()
    delivery.attempts += 1
    delivery.response_code, delivery.response_body = code, excerpt or error
    delivery.duration_ms = duration_ms
    delivery.attempt_log = [
        *delivery.attempt_log,
        {"at": now.isoformat(), "code": code, "error": error, "duration_ms": duration_ms},
    ]
    retry_in = None
    if code is not None and 200 <= code < 300:
        delivery.status, delivery.delivered_at, delivery.next_attempt_at = (
            DeliveryStatus.DELIVERED,
            now,
            None,
        )
    elif retry and delivery.attempts < MAX_ATTEMPTS:
        retry_in = webhook_retry_delay(delivery.attempts)
        delivery.next_attempt_at = now + dt.timedelta(seconds=retry_in)
    else:  # a 3xx or another 4xx, or a refused target: retrying will not help
        delivery.status, delivery.next_attempt_at = DeliveryStatus.FAILED, None
    delivery.save()
    return retry_in


@shared_task(
    bind=True,
    name="integrations.webhook_deliver",
    acks_late=True,
    max_retries=MAX_ATTEMPTS,
    soft_time_limit=60,
    time_limit=90,
)
def webhook_deliver(self, delivery_id: int) -> None:
    retry_in = webhook_attempt(delivery_id=delivery_id)
    if retry_in is not None:
        if self.request.is_eager:
            # In-process mode (no broker): never sleep in a web request; the row stays pending
            # with its next_attempt_at for webhook_deliveries_requeue.
            return
        raise self.retry(countdown=retry_in)


@shared_task(name="integrations.webhook_deliveries_requeue", soft_time_limit=120, time_limit=180)
def webhook_deliveries_requeue() -> int:
    """Pending deliveries whose task was lost (broker restart) are queued again."""
    overdue = timezone.now() - dt.timedelta(minutes=10)
    ids = list(
        WebhookDelivery.objects.filter(
            status=DeliveryStatus.PENDING, next_attempt_at__lt=overdue
        ).values_list("pk", flat=True)[:1000]
    )
    for pk in ids:
        webhook_deliver.delay(pk)
    return len(ids)

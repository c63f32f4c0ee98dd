"""Sending webhooks: one task per delivery row, retried on the schedule in
integrations.webhooks.WEBHOOK_RETRY_SCHEDULE (about 3.7 days)."""

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
from integrations.webhooks import (
    MAX_ATTEMPTS,
    webhook_body,
    webhook_endpoint_disable_if_failing,
    webhook_endpoint_disabled_mail,
    webhook_headers,
    webhook_retry_delay,
    webhooks_purge,
)

# Longer waits are not left in the broker (Redis gives an unacknowledged delayed task to another
# worker after its visibility timeout): the row keeps next_attempt_at and the sweeper, every
# minute, queues it when it is due.
CELERY_RETRY_MAX_SECONDS = 300
# A task that starts an attempt moves next_attempt_at this far ahead: a duplicate task (the
# sweeper's, a broker redelivery) finds the row not due and does nothing.
CLAIM_SECONDS = 120
# The sweeper leaves a due row this long to the task Celery is about to run for it.
SWEEP_GRACE_SECONDS = 60


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
    now = timezone.now()
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update()
            .select_related("endpoint")
            .filter(pk=delivery_id, status=DeliveryStatus.PENDING)
            .first()
        )
        if delivery is None:
            return None  # delivered or given up already: a duplicate task does nothing
        due = delivery.next_attempt_at
        if due is not None and due > now + dt.timedelta(seconds=1):
            return None  # another task holds it, or its time has not come (the sweeper's job)
        endpoint = delivery.endpoint
        if endpoint.deleted_at is not None or not endpoint.active:
            # Deleted or disabled endpoints hear nothing more; redeliver once re-enabled.
            gone = "deleted" if endpoint.deleted_at is not None else "disabled"
            delivery.status, delivery.next_attempt_at = DeliveryStatus.FAILED, None
            delivery.response_body = f"Not sent: the endpoint is {gone}."
            delivery.save(update_fields=["status", "next_attempt_at", "response_body"])
            return None
        delivery.next_attempt_at = now + dt.timedelta(seconds=CLAIM_SECONDS)
        delivery.save(update_fields=["next_attempt_at"])
    body = webhook_body(delivery)
    started = time.monotonic()
    code, excerpt, error, retry = _post(
        endpoint.url, body, webhook_headers(delivery, body=body, now=timezone.now())
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
    retry_in, exhausted = None, False
    if code is not None and 200 <= code < 300:
        delivery.status, delivery.delivered_at, delivery.next_attempt_at = (
            DeliveryStatus.DELIVERED,
            now,
            None,
        )
    elif retry and (retry_in := webhook_retry_delay(delivery.attempts)) is not None:
        delivery.next_attempt_at = now + dt.timedelta(seconds=retry_in)
    else:  # a 3xx or another 4xx, a refused target, or the schedule is over
        exhausted = retry
        delivery.status, delivery.next_attempt_at = DeliveryStatus.FAILED, None
    delivery.save()
    if exhausted:
        webhook_endpoint_disable_if_failing(delivery=delivery)
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
        if self.request.is_eager or retry_in > CELERY_RETRY_MAX_SECONDS:
            # In-process mode (no broker): never sleep in a web request. Long waits: not in the
            # broker. Either way the row stays pending with its next_attempt_at for
            # webhook_deliveries_requeue.
            return
        raise self.retry(countdown=retry_in)


@shared_task(name="integrations.webhook_deliveries_requeue", soft_time_limit=120, time_limit=180)
def webhook_deliveries_requeue() -> int:
    """Every minute: pending deliveries that are due (a long wait over, or a lost task)."""
    due = timezone.now() - dt.timedelta(seconds=SWEEP_GRACE_SECONDS)
    ids = list(
        WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=due)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:1000]
    )
    for pk in ids:
        webhook_deliver.delay(pk)
    return len(ids)


@shared_task(
    name="integrations.webhook_endpoint_disabled_mail",
    acks_late=True,
    soft_time_limit=60,
    time_limit=90,
)
def webhook_endpoint_disabled_mail_task(endpoint_id: int) -> bool:
    return webhook_endpoint_disabled_mail(endpoint_id=endpoint_id)


@shared_task(name="integrations.webhooks_purge", soft_time_limit=600, time_limit=660)
def webhooks_purge_task() -> dict[str, int]:
    """Daily (CELERY_BEAT_SCHEDULE): events and deliveries past WEBHOOKS_RETENTION_DAYS."""
    return webhooks_purge()

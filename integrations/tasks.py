"""Sending webhooks: one task per delivery row, retried with exponential backoff."""

from __future__ import annotations

import datetime as dt
import time
import urllib.error
import urllib.request

from celery import shared_task
from django.db import transaction
from django.utils import timezone

from .models import DeliveryStatus, WebhookDelivery
from .webhooks import webhook_body, webhook_headers, webhook_retry_delay

TIMEOUT_SECONDS = 10
MAX_ATTEMPTS = 8  # about two hours of backoff in all
EXCERPT = 1000


def _post(url: str, body: str, headers: dict[str, str]) -> tuple[int | None, str, str]:
    """(status code or None, response excerpt, error) for one POST; never raises."""
    if not url.startswith(("https://", "http://")):  # urllib would also open file: and ftp:
        return None, "", "Only http(s) URLs are delivered to."
    request = urllib.request.Request(  # noqa: S310  (scheme checked above)
        url, data=body.encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:  # noqa: S310
            return response.status, response.read(EXCERPT).decode(errors="replace"), ""
    except urllib.error.HTTPError as error:
        return error.code, error.read(EXCERPT).decode(errors="replace"), ""
    except (OSError, ValueError) as error:  # refused, timed out, DNS, bad URL
        return None, "", str(error)[:300]


def webhook_attempt(*, delivery_id: int) -> int | None:
    """Try one delivery once and record it; returns seconds until the next try, or None."""
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update().select_related("endpoint")
            .filter(pk=delivery_id, status=DeliveryStatus.PENDING).first()
        )
        if delivery is None:
            return None  # delivered or given up already: a duplicate task does nothing
    body = webhook_body(delivery)
    started = time.monotonic()
    code, excerpt, error = _post(
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
            DeliveryStatus.DELIVERED, now, None,
        )
    elif (code is None or code >= 500 or code == 429) and delivery.attempts < MAX_ATTEMPTS:
        retry_in = webhook_retry_delay(delivery.attempts)
        delivery.next_attempt_at = now + dt.timedelta(seconds=retry_in)
    else:  # another 4xx: the receiver refuses it, retrying will not help
        delivery.status, delivery.next_attempt_at = DeliveryStatus.FAILED, None
    delivery.save()
    return retry_in


@shared_task(bind=True, name="integrations.webhook_deliver", acks_late=True,
             max_retries=MAX_ATTEMPTS, soft_time_limit=60, time_limit=90)
def webhook_deliver(self, delivery_id: int) -> None:
    retry_in = webhook_attempt(delivery_id=delivery_id)
    if retry_in is not None:
        if self.request.is_eager:
            # In-process mode (no broker): never sleep in a web request; the row stays pending
            # with its next_attempt_at for webhook_deliveries_requeue.
            return
        raise self.retry(countdown=retry_in)


@shared_task(name="integrations.webhook_deliveries_requeue", soft_time_limit=120,
             time_limit=180)
def webhook_deliveries_requeue() -> int:
    """Pending deliveries whose task was lost (broker restart) are queued again."""
    overdue = timezone.now() - dt.timedelta(minutes=10)
    ids = list(
        WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lt=overdue)
        .values_list("pk", flat=True)[:1000]
    )
    for pk in ids:
        webhook_deliver.delay(pk)
    return len(ids)

"""The notification e-mail job, apart from quoting.tasks so that the notification service can
queue it without importing the quote services (the layers in pyproject.toml)."""

from __future__ import annotations

from celery import shared_task

from quoting.services.notifications import notification_email_send, notification_emails_requeue


@shared_task(name="quoting.notification_email", acks_late=True, soft_time_limit=60,
             time_limit=90)
def notification_email_task(notification_id: int) -> bool:
    """Takes an id and re-fetches; idempotent through the row's emailed_at."""
    return notification_email_send(notification_id=notification_id)


@shared_task(name="quoting.notification_emails_requeue", acks_late=True, soft_time_limit=120,
             time_limit=150)
def notification_emails_requeue_task() -> int:
    """Every few minutes (CELERY_BEAT_SCHEDULE): e-mails whose task was never queued."""
    return notification_emails_requeue()

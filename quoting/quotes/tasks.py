"""Background jobs of the quoting app: each takes an id (or nothing) and calls one service.
Services queue them by name (portal.queueing.enqueue), never by importing this module."""

from __future__ import annotations

from celery import shared_task

from quoting.designs.services.snapshots import designs_snapshot_refresh
from quoting.quotes.services.install import install_pack_build
from quoting.quotes.services.notifications import (
    notification_email_send,
    notification_emails_requeue,
)
from quoting.quotes.services.quotes import quotes_expire_overdue
from quoting.quotes.services.renewals import renewals_remind
from quoting.quotes.services.snapshots import revisions_snapshot_refresh


@shared_task(
    name="quoting.quotes_expire_overdue", acks_late=True, soft_time_limit=300, time_limit=360
)
def quotes_expire_overdue_task() -> int:
    """Daily (CELERY_BEAT_SCHEDULE): sent quotes past validity become expired.

    No arguments and idempotent: a duplicate delivery or a second run expires nothing more.
    """
    return quotes_expire_overdue()


@shared_task(
    name="quoting.install_pack_build",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=120,
    time_limit=150,
)
def install_pack_build_task(pack_id: int) -> str | None:
    """Takes an id; the row says whether there is anything to do (a duplicate does nothing)."""
    return install_pack_build(pack_id=pack_id)


@shared_task(name="quoting.notification_email", acks_late=True, soft_time_limit=60, time_limit=90)
def notification_email_task(notification_id: int) -> bool:
    """Takes an id and re-fetches; idempotent through the row's emailed_at."""
    return notification_email_send(notification_id=notification_id)


@shared_task(
    name="quoting.notification_emails_requeue", acks_late=True, soft_time_limit=120, time_limit=150
)
def notification_emails_requeue_task() -> int:
    """Every few minutes (CELERY_BEAT_SCHEDULE): e-mails whose task was never queued."""
    return notification_emails_requeue()


@shared_task(name="quoting.snapshots_refresh", acks_late=True, soft_time_limit=240, time_limit=300)
def snapshots_refresh_task() -> int:
    """Hourly (CELERY_BEAT_SCHEDULE): store current snapshots on rows made under an older
    SNAPSHOT_VERSION that the deploy's `manage.py snapshots_refresh` did not reach (in batches;
    the next run goes on). Reads compute them in memory until then."""
    return designs_snapshot_refresh(limit=200) + revisions_snapshot_refresh(limit=200)


@shared_task(name="quoting.renewals_remind", acks_late=True, soft_time_limit=300, time_limit=360)
def renewals_remind_task() -> int:
    """Daily (CELERY_BEAT_SCHEDULE): announce renewal.due for the terms that reached 90, 60 or
    30 days before their end. Idempotent through each line's renewal_notified."""
    return renewals_remind()

"""Background jobs of the quoting app: each calls one service."""

from __future__ import annotations

from celery import shared_task

# Registered with the worker from here (Celery discovers `tasks` modules only).
from quoting.install_tasks import install_pack_build_task  # noqa: F401
from quoting.notification_tasks import notification_email_task  # noqa: F401
from quoting.services.quotes import quotes_expire_overdue


@shared_task(
    name="quoting.quotes_expire_overdue", acks_late=True, soft_time_limit=300, time_limit=360
)
def quotes_expire_overdue_task() -> int:
    """Daily (CELERY_BEAT_SCHEDULE): sent quotes past validity become expired.

    No arguments and idempotent: a duplicate delivery or a second run expires nothing more.
    """
    return quotes_expire_overdue()

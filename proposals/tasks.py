"""Background jobs of the proposals app: each takes an id (or nothing) and calls one service."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from .services import (
    RenderRetry,
    proposal_render,
    proposals_requeue_stuck,
    signed_copies_requeue_stuck,
    signed_copy_make,
)

# A 200-line proposal renders in a few seconds; the limits only stop a runaway render.
# CELERY_BROKER_TRANSPORT_OPTIONS' visibility timeout (1 h) is well above them.
SOFT_TIME_LIMIT, TIME_LIMIT = 90, 120


# Rendering a proposal and making a signed copy run alike. RenderRetry: the row is back to
# pending with attempts left; the others are a database blip before the claim. The attempt
# counter on the row, not max_retries, stops a poison job.
RENDER_OPTIONS = {
    "bind": True,
    "acks_late": True,
    "reject_on_worker_lost": True,
    "soft_time_limit": SOFT_TIME_LIMIT,
    "time_limit": TIME_LIMIT,
    "autoretry_for": (RenderRetry, OperationalError, InterfaceError),
    "max_retries": 5,
    "retry_backoff": 5,
    "retry_backoff_max": 300,
    "retry_jitter": True,
}


@shared_task(name="proposals.render", **RENDER_OPTIONS)
def proposal_render_task(self, document_id: int) -> str | None:
    return proposal_render(document_id=document_id)


@shared_task(name="proposals.signed_copy", **RENDER_OPTIONS)
def signed_copy_task(self, acceptance_id: int) -> str | None:
    return signed_copy_make(acceptance_id=acceptance_id)


@shared_task(name="proposals.requeue_stuck", acks_late=True, soft_time_limit=60, time_limit=90)
def proposals_requeue_stuck_task() -> int:
    """Every 5 minutes (CELERY_BEAT_SCHEDULE): idempotent, re-sends only what nobody renders
    (proposal documents and signed copies)."""
    return proposals_requeue_stuck() + signed_copies_requeue_stuck()

"""Background jobs of the proposals app: each takes an id (or nothing) and calls one service."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from proposals.acceptance.services import signed_copies_requeue_stuck, signed_copy_make
from proposals.documents.claims import RENDER_TIMEOUT
from proposals.documents.services import (
    RenderBusy,
    RenderRetry,
    proposal_render,
    proposals_requeue_stuck,
    proposals_sent_missing_request,
)
from proposals.share.mail import (
    share_link_email_send,
    share_link_reminders_send,
    signer_code_email_send,
)

# A 200-line proposal renders in a few seconds; the limits only stop a runaway render. The hard
# limit is the render timeout a claim is judged by (proposals.documents.claims): past it no
# render of a claim is still running. CELERY_BROKER_TRANSPORT_OPTIONS' visibility timeout (1 h)
# is well above.
TIME_LIMIT = int(RENDER_TIMEOUT.total_seconds())
SOFT_TIME_LIMIT = TIME_LIMIT - 30


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
    try:
        return proposal_render(document_id=document_id)
    except RenderBusy as busy:
        # Another process holds the claim and may be alive: look again when it would be
        # abandoned (its worker killed by the time limit at the latest), then take over.
        raise self.retry(countdown=busy.seconds, exc=busy) from busy


@shared_task(name="proposals.signed_copy", **RENDER_OPTIONS)
def signed_copy_task(self, acceptance_id: int) -> str | None:
    try:
        return signed_copy_make(acceptance_id=acceptance_id)
    except RenderBusy as busy:  # as proposal_render_task
        raise self.retry(countdown=busy.seconds, exc=busy) from busy


@shared_task(name="proposals.requeue_stuck", acks_late=True, soft_time_limit=60, time_limit=90)
def proposals_requeue_stuck_task() -> int:
    """Every 5 minutes (CELERY_BEAT_SCHEDULE): idempotent, re-sends only what nobody renders
    (proposal documents and signed copies), and requests the sent PDFs an open offer lacks."""
    return (
        proposals_requeue_stuck() + signed_copies_requeue_stuck() + proposals_sent_missing_request()
    )


@shared_task(name="proposals.share_link_email", acks_late=True, soft_time_limit=60, time_limit=90)
def share_link_email_task(link_id: int, token: str) -> bool:
    """The e-mail of a new link. The token is its only copy (queued with a redacted argsrepr);
    at most once through the link's emailed_at. Returns a bool: Celery logs the return value."""
    return share_link_email_send(link_id=link_id, token=token)


@shared_task(name="proposals.signer_code_email", acks_late=True, soft_time_limit=60, time_limit=90)
def signer_code_email_task(code_id: int, code: str) -> bool:
    """A signer's one-time code. The code travels only here (queued with a redacted argsrepr)
    and in the e-mail; the row keeps its hash. Returns a bool: Celery logs the return value."""
    return signer_code_email_send(code_id=code_id, code=code)


@shared_task(
    name="proposals.share_link_reminders", acks_late=True, soft_time_limit=300, time_limit=360
)
def share_link_reminders_task() -> int:
    """Daily (CELERY_BEAT_SCHEDULE): reminders before expiry and after an unanswered open,
    each once per link (proposals.share.mail)."""
    return share_link_reminders_send()

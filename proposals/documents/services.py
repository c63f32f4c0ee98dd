"""Writes of proposal documents: PDFs requested (at the send, in every language; a draft
preview on request), rendered by a worker under a claim, retired, and swept when stuck or
missing.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import logging
import operator
import time
import uuid

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from portal.models import User
from portal.queueing import enqueue, enqueue_or_leave_to_sweeper
from proposals.conf import proposals_setting
from proposals.documents.claims import claim_abandoned, claimant, seconds_until_abandoned
from proposals.documents.pdf import (
    FetchRefused,
    proposal_rendered,
)
from proposals.documents.selectors import document_for
from proposals.documents.signals import document_ready
from proposals.documents.signing import SigningUnavailable
from proposals.events import proposal_pdf_url, quote_event
from proposals.models import (
    DocumentStatus,
    ProposalDocument,
)
from quoting.engine.messages import Message, message
from quoting.errors import (
    InvalidValue,
)
from quoting.kept_messages import cleared_fields, kept_fields
from quoting.quotes.models import Quote, QuoteRevision, QuoteStatus
from quoting.quotes.services.quotes import (
    MAX_LINES_PER_REVISION,
)

logger = logging.getLogger(__name__)


class RenderRetry(Exception):
    """A render failed but has attempts left: the task retries it with backoff."""


# --- proposal documents --------------------------------------------------------------------------


def _enqueue(document_id: int) -> None:
    enqueue("proposals.render", document_id, queue=proposals_setting("PROPOSALS_QUEUE"))


def _language(language: str | None, revision: QuoteRevision) -> str:
    language = language or revision.quote.customer.language
    if language not in dict(settings.LANGUAGES):
        raise InvalidValue("Choose English or Simplified Chinese.", field="language")
    return language


def proposal_request(
    *, revision: QuoteRevision, user: User | None, language: str | None = None
) -> ProposalDocument:
    """A document row (pending) now, the render after commit.

    A frozen revision has one sent PDF per language for good: once one is ready (or on its way)
    it is returned, so the customer always gets the very bytes that were sent. A revision still
    being edited gets a draft preview on every request ("Draft — not an offer" on each page),
    which never passes for the sent PDF.
    """
    language = _language(language, revision)
    with transaction.atomic():
        # The lock makes two requests for the same revision wait for each other, not both render.
        locked = QuoteRevision.objects.select_for_update().get(pk=revision.pk)
        if locked.is_frozen:
            existing = document_for(revision=locked, language=language)
            if existing:
                return existing
        if locked.lines.count() > MAX_LINES_PER_REVISION:
            raise InvalidValue(
                f"A proposal holds at most {MAX_LINES_PER_REVISION} lines.", field="lines"
            )
        document = ProposalDocument.objects.create(
            revision=locked, language=language, requested_by=user, is_draft=not locked.is_frozen
        )
        # A broker outage (or an eager render failing) must not undo or break the request:
        # the row stays pending and the sweeper sends it again.
        transaction.on_commit(
            lambda: enqueue_or_leave_to_sweeper(
                "proposals.render", document.pk, queue=proposals_setting("PROPOSALS_QUEUE")
            )
        )
    return document


def proposals_sent_request(*, revision: QuoteRevision) -> list[ProposalDocument]:
    """The sent PDFs of a revision being sent, one per language, requested in the send's
    transaction and rendered after it commits: the customer's download is ready by the time the
    link is opened, and no page a customer or a CRM reads has to ask for one."""
    return [
        proposal_request(revision=revision, user=None, language=code)
        for code, _name in settings.LANGUAGES
    ]


def proposals_sent_missing_request(*, limit: int = 200) -> int:
    """The sent PDFs missing for an offer the customer can still answer (a revision sent before
    PDFs were made at the send, or a request the database lost): requested now. Run by the
    sweeper, so that reads never have to; returns how many were requested."""
    codes = [code for code, _name in settings.LANGUAGES]
    # Any sent document of the language counts, a failed one too: a failure is final (the staff
    # panel shows it and asks again), not something to retry every five minutes.
    made = {
        code: Exists(
            ProposalDocument.objects.filter(
                revision=OuterRef("pk"),
                language=code,
                is_draft=False,
                created_at__gte=OuterRef("frozen_at"),
            )
        )
        for code in codes
    }
    missing = (
        QuoteRevision.objects.filter(
            pk__in=Quote.objects.filter(status=QuoteStatus.SENT).values("current_revision"),
            frozen_at__isnull=False,
        )
        .exclude(content_sha256="")
        .annotate(**{f"made_{i}": made[code] for i, code in enumerate(codes)})
        .filter(
            functools.reduce(operator.or_, (Q(**{f"made_{i}": False}) for i in range(len(codes))))
        )
    )
    rows = list(
        missing.order_by("pk").values_list("pk", *(f"made_{i}" for i in range(len(codes))))[:limit]
    )
    revisions = QuoteRevision.objects.in_bulk([row[0] for row in rows])
    requested = 0
    for pk, *made_in in rows:
        for code, already in zip(codes, made_in, strict=True):
            if not already:
                proposal_request(revision=revisions[pk], user=None, language=code)
                requested += 1
    return requested


def proposals_retire_drafts(*, revision: QuoteRevision) -> int:
    """The revision was just sent: its draft previews are retired (kept, never served). Their
    renders still under way find their claim gone and store nothing."""
    return (
        ProposalDocument.objects.filter(revision_id=revision.pk, is_draft=True)
        .exclude(status__in=(DocumentStatus.FAILED, DocumentStatus.RETIRED))
        .update(
            status=DocumentStatus.RETIRED, finished_at=timezone.now(), updated_at=timezone.now()
        )
    )


# Why a render or a signed copy failed, kept as messages (quoting.kept_messages): the API gives
# their English, a page words them in its reader's language.
RENDERER_STOPPED = gettext_noop(
    "The renderer stopped {attempts} times on this document; it may be too large to render."
)
AFTER_ATTEMPTS = gettext_noop("{text} ({attempts} attempt(s).)")
ERROR_MAX = 500  # ProposalDocument.error's and Acceptance.signed_error's column


def _readable(exc: BaseException) -> Message:
    from celery.exceptions import SoftTimeLimitExceeded

    if isinstance(exc, SoftTimeLimitExceeded):
        return message(
            gettext_noop("Rendering took too long; the quote may be too large for one document.")
        )
    if isinstance(exc, FetchRefused):
        return message(
            gettext_noop("The document referred to a resource outside the proposal template.")
        )
    if isinstance(exc, SigningUnavailable):
        return message(
            gettext_noop("The signed copy could not be signed: {detail}"), detail=str(exc)
        )
    return message(
        gettext_noop(
            "The PDF could not be produced (an internal error; the team can see the details)."
        )
    )


def _error(reason: Message) -> dict:
    """A document's error fields for `reason`."""
    return kept_fields("error", reason, max_length=ERROR_MAX)


class RenderBusy(Exception):
    """Another process holds the claim and may still be at work: look again in `seconds`."""

    def __init__(self, seconds: int) -> None:
        super().__init__(f"claimed by a live renderer; look again in {seconds} s")
        self.seconds = seconds


def _document_claim(document_id: int) -> str | None:
    """Claim the document for this process (a fresh claim, counted as an attempt): a pending
    one, or one whose renderer is gone (proposals.documents.claims) — a job Celery re-sends after
    its worker was killed takes over at once. None: not ours (final, or another claim won);
    RenderBusy: its renderer may still be at work."""
    now = timezone.now()
    row = (
        ProposalDocument.objects.filter(pk=document_id)
        .values("status", "claim", "claimed_by", "started_at", "attempts")
        .first()
    )
    if row is None or row["status"] not in (DocumentStatus.PENDING, DocumentStatus.RENDERING):
        return None
    held = {"pk": document_id, "status": row["status"], "claim": row["claim"]}
    if row["status"] == DocumentStatus.RENDERING:
        if not claim_abandoned(claimed_by=row["claimed_by"], started_at=row["started_at"], now=now):
            raise RenderBusy(seconds_until_abandoned(started_at=row["started_at"], now=now))
        if row["attempts"] >= proposals_setting("PROPOSALS_MAX_ATTEMPTS"):
            ProposalDocument.objects.filter(**held).update(
                status=DocumentStatus.FAILED,
                finished_at=now,
                updated_at=now,
                **_error(message(RENDERER_STOPPED, attempts=row["attempts"])),
            )
            return None
        logger.warning(
            "proposal document %s: its renderer %s is gone; taking over",
            document_id,
            row["claimed_by"] or "(unknown)",
        )
    claim = uuid.uuid4().hex
    claimed = ProposalDocument.objects.filter(**held).update(
        status=DocumentStatus.RENDERING,
        claim=claim,
        claimed_by=claimant(),
        attempts=F("attempts") + 1,
        started_at=now,
        updated_at=now,
    )
    return claim if claimed else None


def proposal_render(*, document_id: int) -> str | None:
    """Render one document; returns its status, or None when it was not ours to render.

    Idempotent through the row: a duplicate delivery finds it claimed or final and does
    nothing. Every claim counts as an attempt, even one whose worker is killed mid-render, so a
    PDF that crashes its worker cannot loop for ever.

    A sent document must be rendered from the very content that was frozen: if the revision it
    read is not frozen, or its fingerprint differs from the one stored at the send, it fails
    (it is never served, bound or signed).
    """
    claim = _document_claim(document_id)
    if claim is None:
        return None
    document = ProposalDocument.objects.select_related("revision__quote").get(pk=document_id)
    mine = ProposalDocument.objects.filter(
        pk=document_id, status=DocumentStatus.RENDERING, claim=claim
    )
    started = time.monotonic()
    try:
        rendered = proposal_rendered(
            revision=document.revision, language=document.language, draft=document.is_draft
        )
    # FetchRefused is a BaseException, as WeasyPrint's fatal fetching error is, so that nothing
    # inside the render swallows it: caught here by name, it fails the job at once.
    except (Exception, FetchRefused) as exc:
        logger.exception("proposal document %s: render failed", document_id)
        reason = _readable(exc)
        if isinstance(exc, FetchRefused) or document.attempts >= proposals_setting(
            "PROPOSALS_MAX_ATTEMPTS"
        ):
            mine.update(
                status=DocumentStatus.FAILED,
                **_error(message(AFTER_ATTEMPTS, text=reason, attempts=document.attempts)),
                finished_at=timezone.now(),
                updated_at=timezone.now(),
            )
            return DocumentStatus.FAILED
        mine.update(status=DocumentStatus.PENDING, **_error(reason), updated_at=timezone.now())
        raise RenderRetry(str(reason)) from exc
    if not document.is_draft and not (
        rendered.frozen and rendered.content_sha256 == rendered.sent_sha256
    ):
        logger.error(
            "proposal document %s: rendered content %s is not the sent content %s",
            document_id,
            rendered.content_sha256,
            rendered.sent_sha256 or "(none)",
        )
        mine.update(
            status=DocumentStatus.FAILED,
            content_sha256=rendered.content_sha256,
            **_error(
                message(
                    gettext_noop(
                        "The revision's content is not what was sent; this PDF was not kept."
                    )
                )
            ),
            finished_at=timezone.now(),
            updated_at=timezone.now(),
        )
        return DocumentStatus.FAILED
    pdf = rendered.pdf
    sha256 = hashlib.sha256(pdf).hexdigest()
    with transaction.atomic():  # ready and its webhook deliveries commit together
        done = mine.update(
            status=DocumentStatus.READY,
            pdf=pdf,
            sha256=sha256,
            size=len(pdf),
            content_sha256=rendered.content_sha256,
            render_ms=round((time.monotonic() - started) * 1000),
            signature_block=rendered.signature_block,
            parties=rendered.parties,
            **cleared_fields("error"),
            finished_at=timezone.now(),
            updated_at=timezone.now(),
        )
        if not done:  # our claim was taken over, or the draft retired: nothing of ours stands
            return None
        if not document.is_draft:
            document_ready.send(sender=ProposalDocument, document=document)
        quote_event(
            document.revision.quote,
            "proposal.ready",
            revision=document.revision,
            proposal={
                "id": document_id,
                "language": document.language,
                "draft": document.is_draft,
                "sha256": sha256,
                "size": len(pdf),
                "pdf_url": proposal_pdf_url(document_id),
            },
        )
    return DocumentStatus.READY


def proposals_requeue_stuck(*, older_than: dt.timedelta | None = None) -> int:
    """Put back to work the documents nobody is rendering: returns how many were re-queued.

    `rendering` for longer than a render may last means its worker died (killed, machine lost):
    back to pending, or failed once it has used all its attempts. `pending` that long means its
    message was lost (the broker was down at enqueue time, or a killed worker held it): sent
    again. A duplicate message is harmless, since only a pending row can be claimed.
    """
    older_than = (
        older_than if older_than is not None else proposals_setting("PROPOSALS_STUCK_AFTER")
    )
    cutoff, now = timezone.now() - older_than, timezone.now()
    limit = proposals_setting("PROPOSALS_MAX_ATTEMPTS")
    stuck = ProposalDocument.objects.filter(status=DocumentStatus.RENDERING, started_at__lt=cutoff)
    for document in stuck:
        same_claim = ProposalDocument.objects.filter(
            pk=document.pk, status=DocumentStatus.RENDERING, claim=document.claim
        )
        if document.attempts >= limit:
            same_claim.update(
                status=DocumentStatus.FAILED,
                **_error(message(RENDERER_STOPPED, attempts=document.attempts)),
                finished_at=now,
                updated_at=now,
            )
        else:
            same_claim.update(status=DocumentStatus.PENDING, updated_at=cutoff)
    requeued = 0
    waiting = ProposalDocument.objects.filter(status=DocumentStatus.PENDING, updated_at__lte=cutoff)
    for pk in list(waiting.values_list("pk", flat=True)):
        # Touched so that the next sweep gives this message time to be picked up.
        ProposalDocument.objects.filter(pk=pk, status=DocumentStatus.PENDING).update(updated_at=now)
        _enqueue(pk)
        requeued += 1
    return requeued

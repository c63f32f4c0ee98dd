"""Writes of the proposals app: PDF documents (requested, rendered, swept) and share links.

Every moment a CRM may want to hear about (quote.viewed, quote.accepted, quote.declined,
proposal.ready) goes through quote_event(), the one place the webhook task will hook into.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import secrets
import time
import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import connections, router, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from integrations.webhooks import webhook_emit
from portal.header_counts import work_counts_changed
from portal.models import User
from portal.queueing import enqueue_or_leave_to_sweeper
from quoting.models import NotificationKind, Quote, QuoteEvent, QuoteRevision, QuoteStatus
from quoting.services.errors import (
    IllegalTransition,
    InvalidValue,
    QuoteError,
    QuoteExpired,
    StaleVersion,
)
from quoting.services.notifications import notify
from quoting.services.quotes import (
    ANSWERABLE_WHILE_DRAFTING,
    MAX_LINES_PER_REVISION,
    quote_mark_accepted,
    quote_mark_declined,
    quote_sent_revision_reinstate,
)

from .models import DocumentStatus, LinkView, ProposalDocument, ShareLink
from .pdf import FetchRefused, proposal_pdf
from .selectors import document_ready_for, revision_shared, share_lookup
from .share import shared_pdf_ready_remember

logger = logging.getLogger(__name__)

# Defaults of the PROPOSALS_* settings; a project setting of the same name replaces one.
PROPOSALS_DEFAULTS: dict[str, object] = {
    "PROPOSALS_MAX_ATTEMPTS": 3,  # renders of one document before it is failed (poison job)
    # Older than the render task's hard time limit: a row rendering this long lost its worker.
    "PROPOSALS_STUCK_AFTER": dt.timedelta(minutes=5),
    "PROPOSALS_QUEUE": None,  # None: Celery's default queue
    "PROPOSALS_LINK_DAYS": 30,
    "PROPOSALS_LINK_MAX_DAYS": 365,
}


def proposals_setting(name: str):
    return getattr(settings, name, PROPOSALS_DEFAULTS[name])


class RenderRetry(Exception):
    """A render failed but has attempts left: the task retries it with backoff."""


class OfferSuperseded(QuoteError):
    status_code = 409


# --- the hook ------------------------------------------------------------------------------------


# quote.accepted and quote.declined are emitted by quote_mark_accepted/declined themselves (for
# every path, the share link's included): emitting them here too would announce them twice.
WEBHOOKS_EMITTED_HERE = ("quote.viewed", "proposal.ready")


def quote_event(quote: Quote, kind: str, **data) -> None:
    """quote.viewed, quote.accepted, quote.declined, proposal.ready: the webhooks hook in here.

    Call it inside the transaction of the change: the deliveries are written in it.
    """
    logger.info("%s on %s", kind, quote.number)  # `data` may name people: not logged
    if kind in WEBHOOKS_EMITTED_HERE:
        webhook_emit(
            event_type=kind,
            customer_id=quote.customer_id,
            data={"quote_id": quote.pk, "number": quote.number, **data},
        )


# --- proposal documents --------------------------------------------------------------------------


def _enqueue(document_id: int) -> None:
    from .tasks import proposal_render_task  # tasks import this module

    proposal_render_task.apply_async((document_id,), queue=proposals_setting("PROPOSALS_QUEUE"))


def _language(language: str | None, revision: QuoteRevision) -> str:
    language = language or revision.quote.customer.language
    if language not in dict(settings.LANGUAGES):
        raise InvalidValue("Choose English or Simplified Chinese.", field="language")
    return language


def proposal_request(
    *, revision: QuoteRevision, user: User | None, language: str | None = None
) -> ProposalDocument:
    """A document row (pending) now, the render after commit.

    A frozen revision has one PDF per language for good: once one is ready (or on its way) it is
    returned, so the customer always gets the very bytes that were sent.
    """
    language = _language(language, revision)
    with transaction.atomic():
        # The lock makes two requests for the same revision wait for each other, not both render.
        locked = QuoteRevision.objects.select_for_update().get(pk=revision.pk)
        if locked.is_frozen:
            existing = document_ready_for(revision=locked, language=language) or (
                ProposalDocument.objects.filter(
                    revision=locked, language=language,
                    status__in=(DocumentStatus.PENDING, DocumentStatus.RENDERING),
                )
                .order_by("pk")
                .first()
            )
            if existing:
                return existing
        if locked.lines.count() > MAX_LINES_PER_REVISION:
            raise InvalidValue(
                f"A proposal holds at most {MAX_LINES_PER_REVISION} lines.", field="lines"
            )
        document = ProposalDocument.objects.create(
            revision=locked, language=language, requested_by=user
        )
        # A broker outage (or an eager render failing) must not undo or break the request:
        # the row stays pending and the sweeper sends it again.
        transaction.on_commit(lambda: enqueue_or_leave_to_sweeper(_enqueue, document.pk))
    return document


def _readable(exc: BaseException) -> str:
    from celery.exceptions import SoftTimeLimitExceeded

    if isinstance(exc, SoftTimeLimitExceeded):
        return "Rendering took too long; the quote may be too large for one document."
    if isinstance(exc, FetchRefused):
        return "The document referred to a resource outside the proposal template."
    return "The PDF could not be produced (an internal error; the team can see the details)."


def proposal_render(*, document_id: int) -> str | None:
    """Render one document; returns its status, or None when it was not ours to render.

    Idempotent through the row: only a pending row is claimed (pending → rendering, one UPDATE),
    so a duplicate delivery does nothing. Every claim counts as an attempt, even one whose
    worker is killed mid-render, so a PDF that crashes its worker cannot loop for ever.
    """
    claim = uuid.uuid4().hex
    claimed = ProposalDocument.objects.filter(pk=document_id, status=DocumentStatus.PENDING).update(
        status=DocumentStatus.RENDERING,
        claim=claim,
        attempts=F("attempts") + 1,
        started_at=timezone.now(),
        updated_at=timezone.now(),
    )
    if not claimed:
        return None
    document = ProposalDocument.objects.select_related("revision__quote").get(pk=document_id)
    mine = ProposalDocument.objects.filter(
        pk=document_id, status=DocumentStatus.RENDERING, claim=claim)
    started = time.monotonic()
    try:
        pdf = proposal_pdf(revision=document.revision, language=document.language)
    except Exception as exc:
        logger.exception("proposal document %s: render failed", document_id)
        reason = _readable(exc)
        if isinstance(exc, FetchRefused) or document.attempts >= proposals_setting(
            "PROPOSALS_MAX_ATTEMPTS"
        ):
            mine.update(
                status=DocumentStatus.FAILED,
                error=f"{reason} ({document.attempts} attempt(s).)"[:500],
                finished_at=timezone.now(),
                updated_at=timezone.now(),
            )
            return DocumentStatus.FAILED
        mine.update(status=DocumentStatus.PENDING, error=reason[:500], updated_at=timezone.now())
        raise RenderRetry(reason) from exc
    sha256 = hashlib.sha256(pdf).hexdigest()
    with transaction.atomic():  # ready and its webhook deliveries commit together
        done = mine.update(
            status=DocumentStatus.READY,
            pdf=pdf,
            sha256=sha256,
            size=len(pdf),
            render_ms=round((time.monotonic() - started) * 1000),
            error="",
            finished_at=timezone.now(),
            updated_at=timezone.now(),
        )
        if not done:  # the sweeper gave our claim to another render: its result stands
            return None
        revision, language = document.revision, document.language
        # The share page stops asking the database whether this PDF is ready.
        transaction.on_commit(
            lambda: shared_pdf_ready_remember(revision=revision, language=language))
        quote_event(
            document.revision.quote,
            "proposal.ready",
            revision=document.revision.label,
            document_id=document_id,
            language=document.language,
            sha256=sha256,
            size=len(pdf),
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
                error=f"The renderer stopped {document.attempts} times on this document; it "
                f"may be too large to render.",
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


# --- share links ---------------------------------------------------------------------------------


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def share_link_create(
    *,
    quote: Quote,
    user: User,
    recipient_name: str = "",
    recipient_email: str = "",
    days: int | None = None,
) -> tuple[ShareLink, str]:
    """A new link for one recipient; returns it with its token, which is never stored."""
    days = proposals_setting("PROPOSALS_LINK_DAYS") if days is None else days
    longest = proposals_setting("PROPOSALS_LINK_MAX_DAYS")
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= longest:
        raise InvalidValue(f"A link lasts from 1 to {longest} days.", field="days")
    recipient_name, recipient_email = recipient_name.strip(), recipient_email.strip()
    if len(recipient_name) > 100:
        raise InvalidValue("Use at most 100 characters for the name.", field="recipient_name")
    if recipient_email:
        try:
            validate_email(recipient_email)
        except ValidationError:
            raise InvalidValue("Enter a valid e-mail address.", field="recipient_email") from None
    if not QuoteRevision.objects.filter(quote=quote, sent_at__isnull=False).exists():
        raise IllegalTransition(
            "Send the quote before sharing it: a link only ever shows a sent revision.",
            field="status",
        )
    token = secrets.token_urlsafe(32)
    link = ShareLink.objects.create(
        quote=quote,
        recipient_name=recipient_name,
        recipient_email=recipient_email,
        token_hash=token_hash(token),
        created_by=user,
        expires_at=timezone.now() + dt.timedelta(days=days),
    )
    QuoteEvent.objects.create(
        quote=quote,
        actor=user,
        verb="share_link_created",
        details={"link": link.pk, "recipient": recipient_name, "days": days},
    )
    return link, token


def share_link_revoke(*, link: ShareLink, user: User) -> ShareLink:
    now = timezone.now()
    if ShareLink.objects.filter(pk=link.pk, revoked_at__isnull=True).update(revoked_at=now):
        QuoteEvent.objects.create(
            quote_id=link.quote_id, actor=user, verb="share_link_revoked", details={"link": link.pk}
        )
    link.refresh_from_db()
    return link


def share_link_resolve(token: str) -> ShareLink | None:
    """The live link of a token, read in one statement with what its page shows: the quote
    (customer, project) and its latest sent revision, as `link.revision_shown` (answers re-read
    it under the quote's lock). Unknown, expired and revoked are all simply None."""
    if not token or len(token) > 128:
        return None
    link = share_lookup(token_hash=token_hash(token))
    return link if link is not None and link.is_active else None


def client_from_user_agent(user_agent: str) -> tuple[str, str, bool]:
    """(browser, system, mobile): coarse on purpose, enough to tell a phone from a desk."""
    ua = user_agent[:512]
    browsers = (
        ("MicroMessenger", "WeChat"),
        ("Edg", "Edge"),
        ("OPR/", "Opera"),
        ("Firefox/", "Firefox"),
        ("FxiOS", "Firefox"),
        ("CriOS", "Chrome"),
        ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
    )
    systems = (
        ("Windows", "Windows"),
        ("Android", "Android"),
        ("iPhone", "iOS"),
        ("iPad", "iOS"),
        ("Mac OS X", "macOS"),
        ("CrOS", "ChromeOS"),
        ("Linux", "Linux"),
    )
    browser = next((name for marker, name in browsers if marker in ua), "Other")
    system = next((name for marker, name in systems if marker in ua), "Other")
    mobile = "Mobi" in ua or system in ("Android", "iOS")
    return browser, system, mobile


def link_view_record(*, link: ShareLink, user_agent: str, revision: QuoteRevision) -> None:
    """Record one open: the view row and the link's counter in one statement on PostgreSQL
    (its own transaction, no BEGIN/COMMIT round trips), two in a transaction elsewhere. Then
    quote.viewed, which writes its deliveries (one INSERT) only when an endpoint listens."""
    browser, system, mobile = client_from_user_agent(user_agent or "")
    at = timezone.now()
    # The first open since the revision was sent puts the quote in its owner's "opened, not
    # answered" queue (portal.work); later opens change no count.
    opened_since_sent = link.last_used_at is not None and (
        revision.sent_at is None or link.last_used_at >= revision.sent_at)
    view = {"link_id": link.pk, "at": at, "revision_label": revision.label,
            "browser": browser, "os": system, "is_mobile": mobile}
    connection = connections[router.db_for_write(LinkView)]
    if connection.vendor == "postgresql" and connection.get_autocommit():
        views, links = LinkView._meta.db_table, ShareLink._meta.db_table
        with connection.cursor() as cursor:
            # One round trip, one implicit transaction. An open is a record, not a promise:
            # it does not wait for the disk (a crash of the database may lose the last second
            # of opens, never a customer's answer, which commits as usual). The UPDATE's row
            # lock makes exactly one open see a count of 1, however many arrive at once.
            cursor.execute(
                "SET LOCAL synchronous_commit TO OFF; "  # noqa: S608 - names from the models
                f'WITH opened AS (INSERT INTO "{views}" ({", ".join(view)}) '
                f'VALUES ({", ".join(["%s"] * len(view))})) '
                f'UPDATE "{links}" SET use_count = use_count + 1, last_used_at = %s '
                f"WHERE id = %s RETURNING use_count",
                [*view.values(), at, link.pk],
            )
            cursor.nextset()  # past SET's empty result, to the UPDATE's
            row = cursor.fetchone()
        first_open = row is not None and row[0] == 1
    else:
        with transaction.atomic():
            LinkView.objects.create(**view)
            ShareLink.objects.filter(pk=link.pk).update(use_count=F("use_count") + 1,
                                                        last_used_at=at)
            # Read back under the row lock the UPDATE holds: exactly one open sees 1.
            first_open = ShareLink.objects.filter(pk=link.pk).values_list(
                "use_count", flat=True).get() == 1
    if not opened_since_sent:
        work_counts_changed()
    if first_open:  # once per link: its owner hears the customer opened it
        notify(kind=NotificationKind.LINK_OPENED, quote=link.quote,
               recipients=[link.quote.owner], who=link.recipient_name, revision=revision.label)
    if getattr(link, "webhooks_active", True):  # known from the lookup: mostly nobody listens
        quote_event(link.quote, "quote.viewed", revision=revision.label, link_id=link.pk,
                    viewed_at=at)
    else:
        logger.info("quote.viewed on %s", link.quote.number)


def _answerable(link: ShareLink, revision_number: int) -> tuple[Quote, QuoteRevision]:
    """The quote, locked until the answer is recorded, and the revision the customer read, if
    they can still answer it.

    The latest *sent* revision stays answerable until a newer one is sent: sales drafting the
    next revision does not take the offer away (the answer reinstates the sent revision). Call
    inside a transaction: the row lock holds off a re-send between this check and the answer,
    and the answer's version check refuses one that got in anyway. Messages are in the reader's
    language (the share routes run in it).
    """
    quote = Quote.objects.select_for_update().get(pk=link.quote_id)
    revision = revision_shared(link=link)
    if quote.status == QuoteStatus.ACCEPTED:
        raise IllegalTransition(_("This offer has already been accepted."), field="status")
    if quote.status == QuoteStatus.DECLINED:
        raise IllegalTransition(
            _("This offer was declined; ask us for a new one."), field="status")
    if quote.status == QuoteStatus.EXPIRED or quote.valid_until < timezone.localdate():
        raise QuoteExpired(
            _("This offer was valid until %(date)s and can no longer be accepted; ask us for a "
              "new revision.") % {"date": quote.valid_until.isoformat()},
            field="status",
        )
    if (
        revision is None
        or revision.number != revision_number
        or (quote.status == QuoteStatus.SENT and quote.current_revision_id != revision.pk)
        or quote.status not in (QuoteStatus.SENT, *ANSWERABLE_WHILE_DRAFTING)
    ):
        raise OfferSuperseded(
            _("This revision has been replaced by a newer one, so it can no longer be "
              "answered. Reload the page to read the current offer."),
            field="revision",
        )
    return quote_sent_revision_reinstate(quote=quote, revision=revision), revision


def _answer(service, quote: Quote, **details) -> Quote:
    """Record the answer on the very version of the quote that was checked."""
    try:
        return service(quote=quote, actor=None, expected_version=quote.version, **details)
    except (IllegalTransition, StaleVersion):
        # The quote changed since the customer's page was checked (a re-send, an edit, the
        # expiry job): the answer would land on an offer they never read.
        raise OfferSuperseded(
            _("This offer changed while you were answering, so your answer was not recorded. "
              "Reload the page to read the current offer."),
            field="revision",
        ) from None


def share_accept(
    *, link: ShareLink, revision_number: int, name: str, title: str, agreed: bool
) -> Quote:
    name, title = (name or "").strip(), (title or "").strip()
    if not name or len(name) > 100:
        raise InvalidValue(_("Enter your name (up to 100 characters)."), field="name")
    if len(title) > 100:
        raise InvalidValue(_("Use at most 100 characters for your title."), field="title")
    if not agreed:
        raise InvalidValue(_("Tick the box to accept the terms of this offer."), field="agreed")
    with transaction.atomic():
        quote, revision = _answerable(link, revision_number)
        quote = _answer(
            quote_mark_accepted,
            quote,
            name=name,
            title=title,
            revision_label=revision.label,
            via="share link",
            link=link.pk,
        )
        quote_event(quote, "quote.accepted", revision=revision.label, name=name, title=title)
    return quote


def share_decline(*, link: ShareLink, revision_number: int, reason: str) -> Quote:
    reason = (reason or "").strip()
    if len(reason) > 2000:
        raise InvalidValue(_("Use at most 2,000 characters."), field="reason")
    with transaction.atomic():
        quote, revision = _answerable(link, revision_number)
        quote = _answer(quote_mark_declined, quote, reason=reason)
        quote_event(quote, "quote.declined", revision=revision.label, reason=reason)
    return quote

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
from collections.abc import Sequence

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import connections, router, transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from integrations.webhooks import webhook_emit
from portal.header_counts import work_counts_changed
from portal.models import User
from portal.queueing import enqueue, enqueue_or_leave_to_sweeper
from quoting.errors import (
    IllegalTransition,
    InvalidValue,
    QuoteError,
    QuoteExpired,
    StaleVersion,
)
from quoting.models import (
    NotificationKind,
    Quote,
    QuoteEvent,
    QuoteEventVerb,
    QuoteRevision,
    QuoteStatus,
)
from quoting.selectors import OfferChoice, offer_choice
from quoting.services.notifications import notify
from quoting.services.quotes import (
    MAX_LINES_PER_REVISION,
    quote_mark_accepted,
    quote_mark_declined,
    quote_sent_revision_reinstate,
)

from .claims import claim_abandoned, claimant, seconds_until_abandoned
from .engagement import (
    OPEN_KEY_BYTES,
    REAL_AFTER_SECONDS,
    Beacon,
    seconds_merged,
    seconds_stored,
)
from .models import (
    OPEN_KINDS_PENDING,
    Acceptance,
    DocumentStatus,
    LinkView,
    OpenKind,
    ProposalDocument,
    ShareLink,
    SignatureKind,
)
from .pdf import FetchRefused, certificate_pdf, proposal_rendered, signed_copy_assemble
from .scanners import scanner_named
from .selectors import (
    acceptance_data,
    certificate_context,
    choice_printed,
    document_for,
    document_is_sent,
    document_ready_for,
    offer_state,
    revision_shared,
    share_lookup,
)
from .share import shared_pdf_ready_remember
from .signature import (
    TYPED_SIGNATURE_MAX,
    credit_code_checked,
    po_number_checked,
    signature_from_data_url,
    signature_typed_png,
)

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
        transaction.on_commit(lambda: enqueue_or_leave_to_sweeper(
            "proposals.render", document.pk, queue=proposals_setting("PROPOSALS_QUEUE")))
    return document


def proposals_retire_drafts(*, revision: QuoteRevision) -> int:
    """The revision was just sent: its draft previews are retired (kept, never served). Their
    renders still under way find their claim gone and store nothing."""
    return ProposalDocument.objects.filter(revision_id=revision.pk, is_draft=True).exclude(
        status__in=(DocumentStatus.FAILED, DocumentStatus.RETIRED)
    ).update(status=DocumentStatus.RETIRED, finished_at=timezone.now(), updated_at=timezone.now())


def _readable(exc: BaseException) -> str:
    from celery.exceptions import SoftTimeLimitExceeded

    if isinstance(exc, SoftTimeLimitExceeded):
        return "Rendering took too long; the quote may be too large for one document."
    if isinstance(exc, FetchRefused):
        return "The document referred to a resource outside the proposal template."
    return "The PDF could not be produced (an internal error; the team can see the details)."


class RenderBusy(Exception):
    """Another process holds the claim and may still be at work: look again in `seconds`."""

    def __init__(self, seconds: int) -> None:
        super().__init__(f"claimed by a live renderer; look again in {seconds} s")
        self.seconds = seconds


def _document_claim(document_id: int) -> str | None:
    """Claim the document for this process (a fresh claim, counted as an attempt): a pending
    one, or one whose renderer is gone (proposals.claims) — a job Celery re-sends after its
    worker was killed takes over at once. None: not ours (final, or another claim won);
    RenderBusy: its renderer may still be at work."""
    now = timezone.now()
    row = (ProposalDocument.objects.filter(pk=document_id)
           .values("status", "claim", "claimed_by", "started_at", "attempts").first())
    if row is None or row["status"] not in (DocumentStatus.PENDING, DocumentStatus.RENDERING):
        return None
    held = {"pk": document_id, "status": row["status"], "claim": row["claim"]}
    if row["status"] == DocumentStatus.RENDERING:
        if not claim_abandoned(claimed_by=row["claimed_by"], started_at=row["started_at"],
                               now=now):
            raise RenderBusy(seconds_until_abandoned(started_at=row["started_at"], now=now))
        if row["attempts"] >= proposals_setting("PROPOSALS_MAX_ATTEMPTS"):
            ProposalDocument.objects.filter(**held).update(
                status=DocumentStatus.FAILED, finished_at=now, updated_at=now,
                error=f"The renderer stopped {row['attempts']} times on this document; it may "
                f"be too large to render.")
            return None
        logger.warning("proposal document %s: its renderer %s is gone; taking over",
                       document_id, row["claimed_by"] or "(unknown)")
    claim = uuid.uuid4().hex
    claimed = ProposalDocument.objects.filter(**held).update(
        status=DocumentStatus.RENDERING, claim=claim, claimed_by=claimant(),
        attempts=F("attempts") + 1, started_at=now, updated_at=now,
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
        pk=document_id, status=DocumentStatus.RENDERING, claim=claim)
    started = time.monotonic()
    try:
        rendered = proposal_rendered(revision=document.revision, language=document.language,
                                draft=document.is_draft)
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
    if not document.is_draft and not (
            rendered.frozen and rendered.content_sha256 == rendered.sent_sha256):
        logger.error("proposal document %s: rendered content %s is not the sent content %s",
                     document_id, rendered.content_sha256, rendered.sent_sha256 or "(none)")
        mine.update(status=DocumentStatus.FAILED, content_sha256=rendered.content_sha256,
                    error="The revision's content is not what was sent; this PDF was not kept.",
                    finished_at=timezone.now(), updated_at=timezone.now())
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
            error="",
            finished_at=timezone.now(),
            updated_at=timezone.now(),
        )
        if not done:  # our claim was taken over, or the draft retired: nothing of ours stands
            return None
        revision, language = document.revision, document.language
        if not document.is_draft:
            # The share page stops asking the database whether this PDF is ready.
            transaction.on_commit(
                lambda: shared_pdf_ready_remember(revision=revision, language=language))
            signed_copies_waiting_for(document)
        quote_event(
            document.revision.quote,
            "proposal.ready",
            revision=document.revision.label,
            document_id=document_id,
            language=document.language,
            draft=document.is_draft,
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


# Stored in English as the product names are, translated where shown (the proposal panel).
UNKNOWN_CLIENT = gettext_noop("Other")


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
    browser = next((name for marker, name in browsers if marker in ua), UNKNOWN_CLIENT)
    system = next((name for marker, name in systems if marker in ua), UNKNOWN_CLIENT)
    mobile = "Mobi" in ua or system in ("Android", "iOS")
    return browser, system, mobile


def link_view_record(*, link: ShareLink, user_agent: str, revision: QuoteRevision,
                     method: str = "GET") -> str:
    """Record one open, as not yet read (proposals.engagement): one INSERT, on PostgreSQL
    without waiting for the disk. Returns the open id the page's beacons send back ("" for a
    HEAD request, which gets no page).

    Nobody is told here: a link scanner or a preview fetches the page like a reader. The owner
    hears, and quote.viewed fires, when a beacon shows the open is real (link_view_beacon)."""
    browser, system, mobile = client_from_user_agent(user_agent or "")
    scanner = scanner_named(user_agent or "")
    if method == "HEAD":
        kind, open_key = OpenKind.HEAD, None
    else:
        kind = OpenKind.SCANNER if scanner else OpenKind.NO_SCRIPT
        open_key = secrets.token_urlsafe(OPEN_KEY_BYTES)
    view = LinkView(link_id=link.pk, at=timezone.now(), revision_label=revision.label,
                    browser=browser, os=system, is_mobile=mobile, kind=kind,
                    scanner=scanner[:40], open_key=open_key)
    connection = connections[router.db_for_write(LinkView)]
    if connection.vendor == "postgresql" and connection.get_autocommit():
        fields = [f for f in LinkView._meta.concrete_fields if not f.primary_key]
        with connection.cursor() as cursor:
            # One statement, one round trip, one implicit transaction. An open is a record, not
            # a promise: it does not wait for the disk (a crash of the database may lose the last
            # second of opens, never a customer's answer, which commits as usual). The setting is
            # made local to this statement's transaction by the statement itself: a second
            # statement in the same string ("SET LOCAL ...; INSERT") cannot be prepared.
            cursor.execute(
                f'INSERT INTO "{LinkView._meta.db_table}" '  # noqa: S608 - names from the models
                f'({", ".join(connection.ops.quote_name(f.column) for f in fields)}) '
                f'VALUES ({", ".join(["%s"] * len(fields))}) '
                "RETURNING set_config('synchronous_commit', 'off', true)",
                [f.get_db_prep_save(getattr(view, f.attname), connection) for f in fields],
            )
    else:
        view.save(force_insert=True)
    return open_key or ""


def link_view_beacon(*, link: ShareLink, beacon: Beacon) -> LinkView | None:
    """Add a beacon's reading time to its open (None: no such open on this link; dropped).

    The first beacon showing REAL_AFTER_SECONDS of reading makes the open real, exactly once
    however many beacons race (a conditional UPDATE: one of them changes the row); the first
    real open of a link tells its owner, exactly once (the link's UPDATE holds its row lock
    until commit, so one open reads a count of 1). quote.viewed fires for every real open."""
    now = timezone.now()
    with transaction.atomic():
        view = (LinkView.objects.select_for_update()
                .filter(link_id=link.pk, open_key=beacon.open_key)
                .only("kind", "at", "sections", "seconds", "script_ran", "revision_label")
                .first())
        if view is None:
            return None
        sections = seconds_merged(view.sections or {}, beacon.sections,
                                  elapsed=(now - view.at).total_seconds())
        changes = {"script_ran": True, "sections": seconds_stored(sections),
                   "seconds": round(sum(sections.values()))}
        pending = view.kind in OPEN_KINDS_PENDING
        real = pending and sum(sections.values()) >= REAL_AFTER_SECONDS
        if pending:
            changes["kind"] = OpenKind.REAL if real else OpenKind.SHORT
        if all(getattr(view, name) == value for name, value in changes.items()):
            return view  # the same beacon again: nothing to write
        # Confirming is conditional: of beacons that all read the open as pending, one changes
        # it. (PostgreSQL's row lock above already queues them; a beacon that lost the race
        # elsewhere writes nothing, and the next one's running totals carry its seconds.)
        updated = LinkView.objects.filter(
            pk=view.pk, **({"kind__in": OPEN_KINDS_PENDING} if real else {})
        ).update(**changes)
        for name, value in changes.items():
            setattr(view, name, value)
        if real and updated:
            _link_read(link=link, view=view, at=now)
    return view


def _link_read(*, link: ShareLink, view: LinkView, at) -> None:
    """An open of `link` was just confirmed real: count it, tell the owner on the first one,
    announce quote.viewed."""
    ShareLink.objects.filter(pk=link.pk).update(use_count=F("use_count") + 1, last_used_at=at)
    # Read back under the row lock the UPDATE holds: exactly one real open sees 1.
    first = ShareLink.objects.filter(pk=link.pk).values_list("use_count", flat=True).get() == 1
    # A read link may enter its owner's "opened, not answered" queue (portal.work): a real open
    # is rare beside page views, so each one recounts the header (one generation bump).
    work_counts_changed()
    quote = link.quote
    if first:  # once per link: its owner hears the customer opened it
        notify(kind=NotificationKind.LINK_OPENED, quote=quote, recipients=[quote.owner],
               who=link.recipient_name, revision=view.revision_label)
    if getattr(link, "webhooks_active", True):  # known from the lookup: mostly nobody listens
        quote_event(quote, "quote.viewed", revision=view.revision_label, link_id=link.pk,
                    viewed_at=view.at)
    else:
        logger.info("quote.viewed on %s", quote.number)


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
    state = offer_state(quote=quote, revision=revision)
    if state == QuoteStatus.ACCEPTED:
        raise IllegalTransition(_("This offer has already been accepted."), field="status")
    if state == QuoteStatus.DECLINED:
        raise IllegalTransition(
            _("This offer was declined; ask us for a new one."), field="status")
    if state == QuoteStatus.EXPIRED:
        raise QuoteExpired(
            _("This offer was valid until %(date)s and can no longer be accepted; ask us for a "
              "new revision.") % {"date": quote.valid_until.isoformat()},
            field="status",
        )
    if state != "open" or revision.number != revision_number:
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
    *, link: ShareLink, revision_number: int, name: str, title: str, agreed: bool,
    user_agent: str = "", language: str = "",
    alternative: str = "", optional: Sequence[str] = (), company: str = "",
    signature_kind: str = SignatureKind.TYPED, signature_text: str = "",
    signature_data: str = "", signer_timezone: str = "", po_number: str = "",
    invoice_company: str = "", invoice_tax_id: str = "", invoice_address_phone: str = "",
    invoice_bank_account: str = "",
) -> Quote:
    """The customer's yes through a link: the quote is marked accepted and an Acceptance row
    records who signed, from what, for which revision and which exact PDF, what they chose, in
    the same transaction; the signed copy is made by a worker after the commit.

    Every input is checked before anything is written: a bad signature, PO number or credit
    code, or a choice the revision does not offer (`alternative`: an alternative's name,
    `optional`: optional lines' keys; offer_choice refuses anything else) records nothing. A
    typed signature left empty is the signer's name typed (as Odoo's "auto" signature); a drawn
    one must have ink.
    """
    name, title = (name or "").strip(), (title or "").strip()
    if not name or len(name) > 100:
        raise InvalidValue(_("Enter your name (up to 100 characters)."), field="name")
    if len(title) > 100:
        raise InvalidValue(_("Use at most 100 characters for your title."), field="title")
    if not agreed:
        raise InvalidValue(_("Tick the box to accept the terms of this offer."), field="agreed")
    signed = _signer_details(
        name=name, company=company, signature_kind=signature_kind,
        signature_text=signature_text, signature_data=signature_data,
        signer_timezone=signer_timezone)
    purchase = _purchase_details(
        po_number=po_number, invoice_company=invoice_company, invoice_tax_id=invoice_tax_id,
        invoice_address_phone=invoice_address_phone, invoice_bank_account=invoice_bank_account)
    with transaction.atomic():
        quote, revision = _answerable(link, revision_number)
        choice = offer_choice(revision=revision, alternative=alternative, optional_keys=optional)
        browser, system, mobile = client_from_user_agent(user_agent or "")
        language = language if language in dict(settings.LANGUAGES) else \
            quote.customer.language
        # The exact PDF they could download in the language they read. Not made yet (no one
        # opened the link since the send, or its render is under way): bound by the worker
        # that makes the signed copy, to the PDF of the same frozen revision, once it is ready.
        document = document_ready_for(revision=revision, language=language)
        acceptance = Acceptance(
            revision=revision, link=link, signer_name=name, signer_title=title,
            language=language, browser=browser, os=system, is_mobile=mobile,
            user_agent=(user_agent or "")[:400], document=document,
            document_sha256=document.sha256 if document else "",
            signed_updated_at=timezone.now(), **signed, **purchase,
            **_acceptance_choice(choice),
        )
        quote = _answer(
            quote_mark_accepted,
            quote,
            name=name,
            title=title,
            revision_label=revision.label,
            via="share link",
            link=link.pk,
            **choice_printed(choice),
            webhook_data=acceptance_data(acceptance, signed_pdf_url=None),
        )
        acceptance.save()
        if document is None:
            proposal_request(revision=revision, user=None, language=language)
        transaction.on_commit(
            lambda: enqueue_or_leave_to_sweeper(
                "proposals.signed_copy", acceptance.pk,
                queue=proposals_setting("PROPOSALS_QUEUE")))
        quote_event(quote, "quote.accepted", revision=revision.label, name=name, title=title)
    return quote


def _acceptance_choice(choice: OfferChoice) -> dict:
    """The Acceptance fields of the customer's choice and its totals."""
    totals = choice.totals
    return {
        "chosen_alternative": choice.alternative,
        "chosen_optional": choice.optional_keys,
        "subtotal": totals.subtotal, "discount_amount": totals.discount, "net": totals.net,
        "tax_amount": totals.tax, "total": totals.total,
    }


def _signer_details(*, name: str, company: str, signature_kind: str, signature_text: str,
                    signature_data: str, signer_timezone: str) -> dict:
    company = (company or "").strip()
    if len(company) > 200:
        raise InvalidValue(_("Use at most 200 characters for your company."), field="company")
    if signature_kind == SignatureKind.DRAWN:
        png, text = signature_from_data_url(signature_data), ""
    elif signature_kind in (SignatureKind.TYPED, "", None):
        text = " ".join((signature_text or "").split()) or name
        if len(text) > TYPED_SIGNATURE_MAX:
            raise InvalidValue(_("Use at most 100 characters for your typed signature."),
                               field="signature")
        png, signature_kind = signature_typed_png(text), SignatureKind.TYPED
    else:
        raise InvalidValue(_("Draw your signature in the box, or choose to type it."),
                           field="signature")
    return {
        "signer_company": company, "signature_kind": signature_kind, "signature_text": text,
        "signature_png": png, "signer_timezone": _timezone_name(signer_timezone),
    }


def _timezone_name(name: str) -> str:
    """The browser's IANA zone if it is one we know, else nothing (a hint, never refused)."""
    import zoneinfo

    name = (name or "").strip()
    if not name or len(name) > 64:
        return ""
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return ""
    return name


def _purchase_details(*, po_number: str, invoice_company: str, invoice_tax_id: str,
                      invoice_address_phone: str, invoice_bank_account: str) -> dict:
    details = {
        "po_number": po_number_checked(po_number),
        "invoice_tax_id": credit_code_checked(invoice_tax_id),
    }
    limits = {
        "invoice_company": (invoice_company, 200),
        "invoice_address_phone": (invoice_address_phone, 300),
        "invoice_bank_account": (invoice_bank_account, 300),
    }
    for field, (value, longest) in limits.items():
        value = " ".join((value or "").split())
        if len(value) > longest:
            raise InvalidValue(
                _("Use at most %(count)s characters here.") % {"count": longest}, field=field)
        details[field] = value
    return details


# --- the signed copy -----------------------------------------------------------------------------


def _enqueue_signed_copy(acceptance_id: int) -> None:
    enqueue("proposals.signed_copy", acceptance_id, queue=proposals_setting("PROPOSALS_QUEUE"))


def _bind_document(acceptance: Acceptance) -> ProposalDocument | None:
    """The accepted PDF: bound at acceptance, or now, once the frozen revision's is ready.

    Only the sent PDF is certified: a bound document that is not (a draft's preview, bound
    before releases that told them apart) is replaced by the sent one, and the change is kept
    in the quote's history."""
    revision = acceptance.revision
    if acceptance.document_id is not None:
        bound = ProposalDocument.objects.get(pk=acceptance.document_id)
        if document_is_sent(bound, revision=revision):
            return bound
        logger.error("acceptance %s: bound document %s is not the sent PDF; binding the sent one",
                     acceptance.pk, bound.pk)
        QuoteEvent.objects.create(
            quote_id=revision.quote_id, actor=None, verb=QuoteEventVerb.ACCEPTED_DOCUMENT_REPLACED,
            details={"revision": revision.label, "document": bound.pk,
                     "sha256": bound.sha256, "reason": "not the sent PDF"})
        Acceptance.objects.filter(pk=acceptance.pk).update(document=None, document_sha256="")
        acceptance.document, acceptance.document_sha256 = None, ""
    document = document_ready_for(revision=revision, language=acceptance.language)
    if document is None:
        documents = ProposalDocument.objects.filter(
            revision=acceptance.revision, language=acceptance.language).defer("pdf")
        failed = documents.filter(status=DocumentStatus.FAILED).order_by("-pk").first()
        if failed is not None and not documents.filter(
                status__in=(DocumentStatus.PENDING, DocumentStatus.RENDERING)).exists():
            # Not asked again by every sweep: a PDF that cannot be made would loop for ever.
            Acceptance.objects.filter(pk=acceptance.pk, signed_status=DocumentStatus.PENDING) \
                .update(signed_status=DocumentStatus.FAILED, signed_updated_at=timezone.now(),
                        signed_error=f"The accepted PDF could not be made: {failed.error}"[:500])
            return None
        # Its message may have been lost: asking again is idempotent.
        proposal_request(revision=acceptance.revision, user=None, language=acceptance.language)
        return None
    Acceptance.objects.filter(pk=acceptance.pk, document__isnull=True).update(
        document=document, document_sha256=document.sha256)
    acceptance.document, acceptance.document_sha256 = document, document.sha256
    return document


def signed_copy_make(*, acceptance_id: int) -> str | None:
    """Make the signed copy of one acceptance; returns its status, None when not ours to make,
    "waiting" when the accepted PDF is not ready yet (its render enqueues us again).

    Claimed like a proposal render (pending → rendering, one UPDATE, counted as an attempt;
    taken over at once from a maker whose process is gone, proposals.claims), retried with
    backoff, swept when its worker dies. On success quote.signed_copy_ready carries the
    acceptance's fields, signed_pdf_url and signed_sha256 filled.
    """
    acceptance = (
        Acceptance.objects.select_related("revision__quote__customer", "link")
        .defer("signed_pdf").filter(pk=acceptance_id, signed_status__in=(
            DocumentStatus.PENDING, DocumentStatus.RENDERING))
        .first()
    )
    if acceptance is None:
        return None
    now = timezone.now()
    held = {"pk": acceptance_id, "signed_status": acceptance.signed_status,
            "signed_claim": acceptance.signed_claim}
    if acceptance.signed_status == DocumentStatus.RENDERING:
        if not claim_abandoned(claimed_by=acceptance.signed_claimed_by,
                               started_at=acceptance.signed_started_at, now=now):
            raise RenderBusy(seconds_until_abandoned(started_at=acceptance.signed_started_at,
                                                     now=now))
        if acceptance.signed_attempts >= proposals_setting("PROPOSALS_MAX_ATTEMPTS"):
            Acceptance.objects.filter(**held).update(
                signed_status=DocumentStatus.FAILED, signed_updated_at=now,
                signed_error=f"The maker stopped {acceptance.signed_attempts} times on this "
                f"signed copy.")
            return None
        # Its maker is gone: back to pending, then on as any pending copy.
        if not Acceptance.objects.filter(**held).update(signed_status=DocumentStatus.PENDING):
            return None
        held.update(signed_status=DocumentStatus.PENDING)
    document = _bind_document(acceptance)
    if document is None:
        return "waiting"  # or failed with the PDF, see _bind_document
    claim = uuid.uuid4().hex
    claimed = Acceptance.objects.filter(**held).update(
        signed_status=DocumentStatus.RENDERING, signed_claim=claim, signed_claimed_by=claimant(),
        signed_attempts=F("signed_attempts") + 1, signed_started_at=now,
        signed_updated_at=now,
    )
    if not claimed:
        return None
    acceptance.refresh_from_db(fields=["signed_attempts"])
    mine = Acceptance.objects.filter(
        pk=acceptance_id, signed_status=DocumentStatus.RENDERING, signed_claim=claim)
    try:
        certificate = certificate_pdf(
            context=certificate_context(acceptance, document=document),
            language=acceptance.language or acceptance.revision.quote.customer.language)
        signed = signed_copy_assemble(original=bytes(document.pdf), certificate=certificate)
    except Exception as exc:
        logger.exception("acceptance %s: signed copy failed", acceptance_id)
        reason = _readable(exc)
        if isinstance(exc, FetchRefused) or acceptance.signed_attempts >= proposals_setting(
            "PROPOSALS_MAX_ATTEMPTS"
        ):
            mine.update(signed_status=DocumentStatus.FAILED,
                        signed_error=f"{reason} ({acceptance.signed_attempts} attempt(s).)"[:500],
                        signed_updated_at=timezone.now())
            return DocumentStatus.FAILED
        mine.update(signed_status=DocumentStatus.PENDING, signed_error=reason[:500],
                    signed_updated_at=timezone.now())
        raise RenderRetry(reason) from exc
    sha256 = hashlib.sha256(signed).hexdigest()
    with transaction.atomic():  # ready and its webhook deliveries commit together
        done = mine.update(
            signed_status=DocumentStatus.READY, signed_pdf=signed, signed_sha256=sha256,
            signed_error="", signed_ready_at=timezone.now(), signed_updated_at=timezone.now())
        if not done:  # the sweeper gave our claim to another maker: its copy stands
            return None
        acceptance.refresh_from_db()
        quote = acceptance.revision.quote
        webhook_emit(
            event_type="quote.signed_copy_ready",
            customer_id=quote.customer_id,
            data={"quote_id": quote.pk, "number": quote.number,
                  **acceptance_data(acceptance, signed_pdf_url=signed_pdf_url(quote))},
        )
    return DocumentStatus.READY


def signed_pdf_url(quote: Quote) -> str:
    """Where a CRM downloads the signed copy (the API, with its token)."""
    return settings.PORTAL_URL + reverse("quote-proposal-acceptance-signed-pdf", args=[quote.pk])


def signed_copies_waiting_for(document: ProposalDocument) -> None:
    """The accepted PDF is ready: the signed copies waiting for it are made now."""
    waiting = Acceptance.objects.filter(
        revision_id=document.revision_id, language=document.language, document__isnull=True,
        signed_status=DocumentStatus.PENDING).values_list("pk", flat=True)
    for pk in list(waiting):
        transaction.on_commit(lambda pk=pk: enqueue_or_leave_to_sweeper(
            "proposals.signed_copy", pk, queue=proposals_setting("PROPOSALS_QUEUE")))


def signed_copies_requeue_stuck(*, older_than: dt.timedelta | None = None) -> int:
    """As proposals_requeue_stuck, for signed copies: a copy `rendering` too long lost its
    worker (back to pending, or failed after its attempts); one `pending` too long lost its
    message (sent again)."""
    older_than = (
        older_than if older_than is not None else proposals_setting("PROPOSALS_STUCK_AFTER")
    )
    cutoff, now = timezone.now() - older_than, timezone.now()
    limit = proposals_setting("PROPOSALS_MAX_ATTEMPTS")
    stuck = Acceptance.objects.filter(
        signed_status=DocumentStatus.RENDERING, signed_started_at__lt=cutoff
    ).only("pk", "signed_claim", "signed_attempts")
    for acceptance in stuck:
        same_claim = Acceptance.objects.filter(
            pk=acceptance.pk, signed_status=DocumentStatus.RENDERING,
            signed_claim=acceptance.signed_claim)
        if acceptance.signed_attempts >= limit:
            same_claim.update(
                signed_status=DocumentStatus.FAILED, signed_updated_at=now,
                signed_error=f"The maker stopped {acceptance.signed_attempts} times on this "
                f"signed copy.")
        else:
            same_claim.update(signed_status=DocumentStatus.PENDING, signed_updated_at=cutoff)
    requeued = 0
    waiting = Acceptance.objects.filter(
        signed_status=DocumentStatus.PENDING, signed_updated_at__lte=cutoff)
    for pk in list(waiting.values_list("pk", flat=True)):
        Acceptance.objects.filter(pk=pk, signed_status=DocumentStatus.PENDING).update(
            signed_updated_at=now)
        _enqueue_signed_copy(pk)
        requeued += 1
    return requeued


def share_decline(*, link: ShareLink, revision_number: int, reason: str) -> Quote:
    reason = (reason or "").strip()
    if len(reason) > 2000:
        raise InvalidValue(_("Use at most 2,000 characters."), field="reason")
    with transaction.atomic():
        quote, revision = _answerable(link, revision_number)
        quote = _answer(quote_mark_declined, quote, reason=reason)
        quote_event(quote, "quote.declined", revision=revision.label, reason=reason)
    return quote

"""Writes of the customer's answer: accepting (the choice, the signature, the purchase details)
or declining on a share link, and the signed copy made from the accepted PDF.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import uuid
from collections.abc import Sequence

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from portal.clients import client_from_user_agent
from portal.models import CompanyProfile, User
from portal.queueing import enqueue, enqueue_or_leave_to_sweeper
from proposals.acceptance.selectors import (
    acceptance_data,
    certificate_context,
    choice_printed,
    chosen_configuration,
    offer_state,
    revision_shared,
    signature_block,
)
from proposals.acceptance.signature import (
    TYPED_SIGNATURE_MAX,
    credit_code_checked,
    po_number_checked,
    signature_from_data_url,
    signature_typed_png,
)
from proposals.acceptance.signer_codes import (
    CodeThrottled,
    code_hash,
    code_minutes,
    code_new,
    code_send_refusal,
    signer_code_required,
    signer_code_spend,
    signer_code_verified,
)
from proposals.conf import proposals_setting
from proposals.documents.claims import claim_abandoned, claimant, seconds_until_abandoned
from proposals.documents.pdf import (
    FetchRefused,
    certificate_pdf,
    signature_stamp,
    signed_copy_assemble,
)
from proposals.documents.selectors import document_is_sent, document_ready_for, parties_of
from proposals.documents.services import (
    AFTER_ATTEMPTS,
    ERROR_MAX,
    RenderBusy,
    RenderRetry,
    _readable,
    proposal_request,
)
from proposals.documents.signing import seller_certificate, signed_copy_signed
from proposals.events import quote_event
from proposals.models import (
    Acceptance,
    DocumentStatus,
    ProposalDocument,
    ShareLink,
    SignatureKind,
    SignerCode,
)
from quoting.engine.messages import Message, message
from quoting.engine.money import Totals
from quoting.errors import (
    IllegalTransition,
    InvalidValue,
    QuoteError,
    QuoteExpired,
    StaleVersion,
)
from quoting.kept_messages import cleared_fields, kept_fields
from quoting.quotes.events import event_time, event_totals
from quoting.quotes.models import (
    Quote,
    QuoteEvent,
    QuoteEventVerb,
    QuoteRevision,
    QuoteStatus,
)
from quoting.quotes.permissions import countersign_check
from quoting.quotes.selectors import OfferChoice, offer_choice
from quoting.quotes.services.quotes import (
    quote_mark_accepted,
    quote_mark_declined,
    quote_sent_revision_reinstate,
)

logger = logging.getLogger(__name__)

# Why a signed copy failed, kept as messages (quoting.kept_messages), as a document's error is.
MAKER_STOPPED = gettext_noop("The maker stopped {attempts} times on this signed copy.")
ACCEPTED_PDF_FAILED = gettext_noop("The accepted PDF could not be made: {text}")


def _signed_error(reason: Message) -> dict:
    """A signed copy's error fields for `reason`."""
    return kept_fields("signed_error", reason, max_length=ERROR_MAX)


def _accepted_pdf_failed(failed: ProposalDocument) -> dict:
    """The signed copy's error when its PDF failed: the document's own error inside it. A
    document failed before errors were kept as messages has only its English: so does the copy
    (the page words both through quoting.kept_texts, the text within too)."""
    if failed.error_message:
        return _signed_error(
            message(ACCEPTED_PDF_FAILED, text=Message.from_json(failed.error_message))
        )
    return {
        "signed_error": f"The accepted PDF could not be made: {failed.error}"[:ERROR_MAX],
        "signed_error_message": None,
    }


class OfferSuperseded(QuoteError):
    status_code = 409


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
    _open_checked(quote, revision, revision_number)
    return quote_sent_revision_reinstate(quote=quote, revision=revision), revision


def _open_checked(quote: Quote, revision: QuoteRevision | None, revision_number: int) -> None:
    """Raises why `revision` of `quote` cannot be answered now (nothing when it can)."""
    state = offer_state(quote=quote, revision=revision)
    if state == QuoteStatus.ACCEPTED:
        raise IllegalTransition(_("This offer has already been accepted."), field="status")
    if state == QuoteStatus.DECLINED:
        raise IllegalTransition(_("This offer was declined; ask us for a new one."), field="status")
    if state == QuoteStatus.EXPIRED:
        raise QuoteExpired(
            _(
                "This offer was valid until %(date)s and can no longer be accepted; ask us for a "
                "new revision."
            )
            % {"date": quote.valid_until.isoformat()},
            field="status",
        )
    if state != "open" or revision.number != revision_number:
        raise OfferSuperseded(
            _(
                "This revision has been replaced by a newer one, so it can no longer be "
                "answered. Reload the page to read the current offer."
            ),
            field="revision",
        )


def _answer(service, quote: Quote, **details) -> Quote:
    """Record the answer on the very version of the quote that was checked."""
    try:
        return service(quote=quote, actor=None, expected_version=quote.version, **details)
    except (IllegalTransition, StaleVersion):
        # The quote changed since the customer's page was checked (a re-send, an edit, the
        # expiry job): the answer would land on an offer they never read.
        raise OfferSuperseded(
            _(
                "This offer changed while you were answering, so your answer was not recorded. "
                "Reload the page to read the current offer."
            ),
            field="revision",
        ) from None


def share_accept(
    *,
    link: ShareLink,
    revision_number: int,
    name: str,
    title: str,
    agreed: bool,
    user_agent: str = "",
    language: str = "",
    alternative: str = "",
    optional: Sequence[str] = (),
    company: str = "",
    signature_kind: str = SignatureKind.TYPED,
    signature_text: str = "",
    signature_data: str = "",
    signer_timezone: str = "",
    po_number: str = "",
    invoice_company: str = "",
    invoice_tax_id: str = "",
    invoice_address_phone: str = "",
    invoice_bank_account: str = "",
    signer_code: str = "",
) -> Quote:
    """The customer's yes through a link: the quote is marked accepted and an Acceptance row
    records who signed, from what, for which revision and which exact PDF, what they chose, in
    the same transaction; the signed copy is made by a worker after the commit.

    Every input is checked before anything is written: a bad signature, PO number or credit
    code, or a choice the revision does not offer (`alternative`: an alternative's name,
    `optional`: optional lines' keys; offer_choice refuses anything else) records nothing. A
    typed signature left empty is the signer's name typed (as Odoo's "auto" signature); a drawn
    one must have ink.

    On a link with a recipient e-mail the signer gives the one-time code e-mailed there
    (`signer_code`, see signer_codes): checked after the other inputs, spent with the
    acceptance, which records the address and when it was verified.
    """
    name, title, signed, purchase = share_accept_checked(
        name=name,
        title=title,
        agreed=agreed,
        company=company,
        signature_kind=signature_kind,
        signature_text=signature_text,
        signature_data=signature_data,
        signer_timezone=signer_timezone,
        po_number=po_number,
        invoice_company=invoice_company,
        invoice_tax_id=invoice_tax_id,
        invoice_address_phone=invoice_address_phone,
        invoice_bank_account=invoice_bank_account,
    )
    verified = None
    if signer_code_required(link):
        verified = signer_code_verified(
            link=link, revision_number=revision_number, code=signer_code
        )
    with transaction.atomic():
        quote, revision = _answerable(link, revision_number)
        now = timezone.now()
        if verified is not None:
            signer_code_spend(verified, now=now)
        choice = offer_choice(revision=revision, alternative=alternative, optional_keys=optional)
        browser, system, mobile = client_from_user_agent(user_agent or "")
        language = language if language in dict(settings.LANGUAGES) else quote.customer.language
        # The exact PDF they could download in the language they read. Not made yet (no one
        # opened the link since the send, or its render is under way): bound by the worker
        # that makes the signed copy, to the PDF of the same frozen revision, once it is ready.
        document = document_ready_for(revision=revision, language=language)
        acceptance = Acceptance(
            revision=revision,
            link=link,
            signer_name=name,
            signer_title=title,
            language=language,
            browser=browser,
            os=system,
            is_mobile=mobile,
            user_agent=(user_agent or "")[:400],
            document=document,
            document_sha256=document.sha256 if document else "",
            signed_updated_at=now,
            signer_email=verified.email if verified else "",
            signer_email_verified_at=now if verified else None,
            **signed,
            **purchase,
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
            revision=revision,
            alternative=choice.alternative,
            optional=choice.optional_keys,
            **choice_printed(choice),
            webhook_data=acceptance_event_data(acceptance, signed_pdf_url=None),
        )
        acceptance.save()
        if document is None:
            proposal_request(revision=revision, user=None, language=language)
        transaction.on_commit(
            lambda: enqueue_or_leave_to_sweeper(
                "proposals.signed_copy", acceptance.pk, queue=proposals_setting("PROPOSALS_QUEUE")
            )
        )
        # Logged only: quote_mark_accepted announced it.
        quote_event(quote, "quote.accepted", revision=revision)
    return quote


def share_accept_checked(
    *,
    name: str,
    title: str,
    agreed: bool,
    company: str = "",
    signature_kind: str = SignatureKind.TYPED,
    signature_text: str = "",
    signature_data: str = "",
    signer_timezone: str = "",
    po_number: str = "",
    invoice_company: str = "",
    invoice_tax_id: str = "",
    invoice_address_phone: str = "",
    invoice_bank_account: str = "",
) -> tuple[str, str, dict, dict]:
    """The signer's inputs as share_accept records them, or the first fault (InvalidValue at its
    field): (name, title, signature fields, purchase fields). Writes nothing: asking for a
    signing code runs it too, so a code is never sent for a form that would be refused."""
    name, title = signer_checked(name, title)
    if not agreed:
        raise InvalidValue(_("Tick the box to accept the terms of this offer."), field="agreed")
    signed = _signer_details(
        name=name,
        company=company,
        signature_kind=signature_kind,
        signature_text=signature_text,
        signature_data=signature_data,
        signer_timezone=signer_timezone,
    )
    purchase = _purchase_details(
        po_number=po_number,
        invoice_company=invoice_company,
        invoice_tax_id=invoice_tax_id,
        invoice_address_phone=invoice_address_phone,
        invoice_bank_account=invoice_bank_account,
    )
    return name, title, signed, purchase


def signer_code_send(*, link: ShareLink, revision_number: int) -> SignerCode:
    """A new one-time code for the signer of `link`, e-mailed to its recipient after the commit
    by the task proposals.signer_code_email (the code is its argument, shown as '<code>' in
    Celery's logs). Earlier live codes of the link are replaced. Refused (CodeThrottled, at the
    code field) within PROPOSALS_SIGNER_CODE_RESEND_SECONDS of the last code or past
    PROPOSALS_SIGNER_CODES_PER_HOUR; refused as an answer would be when the revision cannot be
    answered. With the broker down the e-mail is lost (logged) and the signer asks again."""
    if not signer_code_required(link):
        raise InvalidValue(_("This link needs no code: accept the offer."), field="signer_code")
    with transaction.atomic():
        # One request at a time per link: the limits count rows this lock serialises.
        ShareLink.objects.select_for_update().filter(pk=link.pk).values("pk").first()
        quote = Quote.objects.get(pk=link.quote_id)
        revision = revision_shared(link=link)
        _open_checked(quote, revision, revision_number)
        now = timezone.now()
        refusal = code_send_refusal(link, now)
        if refusal:
            raise CodeThrottled(refusal, field="signer_code")
        SignerCode.objects.filter(link=link, used_at__isnull=True, replaced_at__isnull=True).update(
            replaced_at=now
        )
        code = code_new()
        row = SignerCode.objects.create(
            link=link,
            revision=revision,
            email=link.recipient_email,
            code_hash=code_hash(link_id=link.pk, revision_id=revision.pk, code=code),
            expires_at=now + dt.timedelta(minutes=code_minutes()),
        )
        transaction.on_commit(
            lambda: enqueue_or_leave_to_sweeper(
                "proposals.signer_code_email",
                row.pk,
                code,
                queue=proposals_setting("PROPOSALS_QUEUE"),
                argsrepr=f"({row.pk}, '<code>')",
            )
        )
    return row


def _acceptance_choice(choice: OfferChoice) -> dict:
    """The Acceptance fields of the customer's choice and its totals."""
    totals = choice.totals
    return {
        "chosen_alternative": choice.alternative,
        "chosen_optional": choice.optional_keys,
        "subtotal": totals.subtotal,
        "discount_amount": totals.discount,
        "net": totals.net,
        "tax_amount": totals.tax,
        "total": totals.total,
    }


def signer_checked(name: str, title: str) -> tuple[str, str]:
    """The signer's name and title as signed (trimmed), or why not, at the field."""
    name, title = (name or "").strip(), (title or "").strip()
    if not name or len(name) > 100:
        raise InvalidValue(_("Enter your name (up to 100 characters)."), field="name")
    if len(title) > 100:
        raise InvalidValue(_("Use at most 100 characters for your title."), field="title")
    return name, title


def _signer_details(
    *,
    name: str,
    company: str,
    signature_kind: str,
    signature_text: str,
    signature_data: str,
    signer_timezone: str,
) -> dict:
    company = (company or "").strip()
    if len(company) > 200:
        raise InvalidValue(_("Use at most 200 characters for your company."), field="company")
    if signature_kind == SignatureKind.DRAWN:
        png, text = signature_from_data_url(signature_data), ""
    elif signature_kind in (SignatureKind.TYPED, "", None):
        text = " ".join((signature_text or "").split()) or name
        if len(text) > TYPED_SIGNATURE_MAX:
            raise InvalidValue(
                _("Use at most 100 characters for your typed signature."), field="signature"
            )
        png, signature_kind = signature_typed_png(text), SignatureKind.TYPED
    else:
        raise InvalidValue(
            _("Draw your signature in the box, or choose to type it."), field="signature"
        )
    return {
        "signer_company": company,
        "signature_kind": signature_kind,
        "signature_text": text,
        "signature_png": png,
        "signer_timezone": _timezone_name(signer_timezone),
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


def _purchase_details(
    *,
    po_number: str,
    invoice_company: str,
    invoice_tax_id: str,
    invoice_address_phone: str,
    invoice_bank_account: str,
) -> dict:
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
                _("Use at most %(count)s characters here.") % {"count": longest}, field=field
            )
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
        logger.error(
            "acceptance %s: bound document %s is not the sent PDF; binding the sent one",
            acceptance.pk,
            bound.pk,
        )
        QuoteEvent.objects.create(
            quote_id=revision.quote_id,
            actor=None,
            verb=QuoteEventVerb.ACCEPTED_DOCUMENT_REPLACED,
            details={
                "revision": revision.label,
                "document": bound.pk,
                "sha256": bound.sha256,
                "reason": "not the sent PDF",
            },
        )
        Acceptance.objects.filter(pk=acceptance.pk).update(document=None, document_sha256="")
        acceptance.document, acceptance.document_sha256 = None, ""
    document = document_ready_for(revision=revision, language=acceptance.language)
    if document is None:
        documents = ProposalDocument.objects.filter(
            revision=acceptance.revision, language=acceptance.language
        ).defer("pdf")
        failed = documents.filter(status=DocumentStatus.FAILED).order_by("-pk").first()
        if (
            failed is not None
            and not documents.filter(
                status__in=(DocumentStatus.PENDING, DocumentStatus.RENDERING)
            ).exists()
        ):
            # Not asked again by every sweep: a PDF that cannot be made would loop for ever.
            Acceptance.objects.filter(
                pk=acceptance.pk, signed_status=DocumentStatus.PENDING
            ).update(
                signed_status=DocumentStatus.FAILED,
                signed_updated_at=timezone.now(),
                **_accepted_pdf_failed(failed),
            )
            return None
        # Its message may have been lost: asking again is idempotent.
        proposal_request(revision=acceptance.revision, user=None, language=acceptance.language)
        return None
    Acceptance.objects.filter(pk=acceptance.pk, document__isnull=True).update(
        document=document, document_sha256=document.sha256
    )
    acceptance.document, acceptance.document_sha256 = document, document.sha256
    return document


def signed_copy_make(*, acceptance_id: int) -> str | None:
    """Make the signed copy of one acceptance; returns its status, None when not ours to make,
    "waiting" when the accepted PDF is not ready yet (its render enqueues us again).

    Claimed like a proposal render (pending → rendering, one UPDATE, counted as an attempt;
    taken over at once from a maker whose process is gone, proposals.documents.claims), retried with
    backoff, swept when its worker dies. On success quote.signed_copy_ready carries the
    acceptance's fields, signed_pdf_url and signed_sha256 filled.
    """
    acceptance = (
        Acceptance.objects.select_related("revision__quote__customer", "link")
        .defer("signed_pdf")
        .filter(
            pk=acceptance_id, signed_status__in=(DocumentStatus.PENDING, DocumentStatus.RENDERING)
        )
        .first()
    )
    if acceptance is None:
        return None
    now = timezone.now()
    held = {
        "pk": acceptance_id,
        "signed_status": acceptance.signed_status,
        "signed_claim": acceptance.signed_claim,
    }
    if acceptance.signed_status == DocumentStatus.RENDERING:
        if not claim_abandoned(
            claimed_by=acceptance.signed_claimed_by,
            started_at=acceptance.signed_started_at,
            now=now,
        ):
            raise RenderBusy(
                seconds_until_abandoned(started_at=acceptance.signed_started_at, now=now)
            )
        if acceptance.signed_attempts >= proposals_setting("PROPOSALS_MAX_ATTEMPTS"):
            Acceptance.objects.filter(**held).update(
                signed_status=DocumentStatus.FAILED,
                signed_updated_at=now,
                **_signed_error(message(MAKER_STOPPED, attempts=acceptance.signed_attempts)),
            )
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
        signed_status=DocumentStatus.RENDERING,
        signed_claim=claim,
        signed_claimed_by=claimant(),
        signed_attempts=F("signed_attempts") + 1,
        signed_started_at=now,
        signed_updated_at=now,
    )
    if not claimed:
        return None
    acceptance.refresh_from_db(fields=["signed_attempts"])
    mine = Acceptance.objects.filter(
        pk=acceptance_id, signed_status=DocumentStatus.RENDERING, signed_claim=claim
    )
    try:
        seller = seller_certificate()  # the certificate page names the one that signs
        certificate = certificate_pdf(
            context={**certificate_context(acceptance, document=document), "seller": seller},
            language=acceptance.language or acceptance.revision.quote.customer.language,
        )
        stamp = signature_stamp(
            revision=acceptance.revision,
            language=document.language,
            signatures=_signature_block(acceptance),
            original=bytes(document.pdf),
            position=document.signature_block,
            # The names the accepted PDF printed, not today's (the chop, though, is the
            # countersigner's act: as it is now, _signature_block).
            parties=parties_of(document),
        )
        # Signed last: the PAdES signature covers every byte before it, and signed_sha256 is
        # the hash of these final bytes.
        signed = signed_copy_signed(
            signed_copy_assemble(
                original=bytes(document.pdf), certificate=certificate, stamp=stamp
            ),
            seller=seller,
        )
    # FetchRefused is a BaseException, as WeasyPrint's fatal fetching error is, so that nothing
    # inside the render swallows it: caught here by name, it fails the job at once.
    except (Exception, FetchRefused) as exc:
        logger.exception("acceptance %s: signed copy failed", acceptance_id)
        reason = _readable(exc)
        if isinstance(exc, FetchRefused) or acceptance.signed_attempts >= proposals_setting(
            "PROPOSALS_MAX_ATTEMPTS"
        ):
            mine.update(
                signed_status=DocumentStatus.FAILED,
                **_signed_error(
                    message(AFTER_ATTEMPTS, text=reason, attempts=acceptance.signed_attempts)
                ),
                signed_updated_at=timezone.now(),
            )
            return DocumentStatus.FAILED
        mine.update(
            signed_status=DocumentStatus.PENDING,
            **_signed_error(reason),
            signed_updated_at=timezone.now(),
        )
        raise RenderRetry(str(reason)) from exc
    sha256 = hashlib.sha256(signed).hexdigest()
    with transaction.atomic():  # ready and its webhook deliveries commit together
        done = mine.update(
            signed_status=DocumentStatus.READY,
            signed_pdf=signed,
            signed_sha256=sha256,
            **cleared_fields("signed_error"),
            signed_ready_at=timezone.now(),
            signed_updated_at=timezone.now(),
        )
        if not done:  # the sweeper gave our claim to another maker: its copy stands
            return None
        acceptance.refresh_from_db()
        quote = acceptance.revision.quote
        # quote.accepted's shape, the signed copy's fields filled.
        quote_event(
            quote,
            "quote.signed_copy_ready",
            revision=acceptance.revision,
            totals=_accepted_totals(acceptance),
            acceptance=acceptance_event_data(acceptance, signed_pdf_url=signed_pdf_url(quote)),
        )
    return DocumentStatus.READY


def _signature_block(acceptance: Acceptance) -> dict:
    """signature_block with what only a writer may make: the countersigner's name drawn as a
    signature (cached), and the company chop as it is now."""
    profile = (
        CompanyProfile.objects.filter(pk=CompanyProfile.SINGLETON_PK)
        .only("chop", "chop_type")
        .first()
    )
    name = acceptance.countersigner_name
    return signature_block(
        acceptance,
        seller_signature_png=signature_typed_png(name) if name else b"",
        chop=profile.chop if profile else None,
        chop_type=profile.chop_type if profile else "",
    )


def acceptance_countersign(*, quote: Quote, user: User) -> Acceptance:
    """The seller's approval of the customer's acceptance, by a named user allowed to
    (countersign_check): recorded once with the name and title printed, in the quote's history,
    and the signed copy made again (the same task) with the seller's column filled and the
    company chop; the new copy replaces the customer-only one (a new signed_sha256, and
    quote.signed_copy_ready again once it is ready). quote.countersigned tells a CRM at once,
    with the acceptance and its countersignature."""
    countersign_check(user=user)
    name = (user.get_full_name() or user.get_username()).strip()[:150]
    with transaction.atomic():
        acceptance = (
            Acceptance.objects.select_for_update()
            .filter(revision__quote=quote)
            .defer("signed_pdf", "signature_png")
            .order_by("-signed_at", "-pk")
            .first()
        )
        if acceptance is None:
            raise IllegalTransition(
                _("The customer has not accepted this offer: there is nothing to countersign."),
                field="acceptance",
            )
        if acceptance.countersigned_at is not None:
            raise IllegalTransition(
                _("%(name)s already countersigned this acceptance on %(date)s.")
                % {
                    "name": acceptance.countersigner_name,
                    "date": timezone.localtime(acceptance.countersigned_at).date().isoformat(),
                },
                field="acceptance",
            )
        now = timezone.now()
        replaced = acceptance.signed_sha256
        Acceptance.objects.filter(pk=acceptance.pk).update(
            countersigned_by=user,
            countersigned_at=now,
            countersigner_name=name,
            countersigner_title=user.job_title,
            # Made again from the start; a maker still at the customer-only copy loses its
            # claim, so its copy is not stored over this one.
            signed_status=DocumentStatus.PENDING,
            signed_claim="",
            signed_attempts=0,
            **cleared_fields("signed_error"),
            signed_updated_at=now,
        )
        QuoteEvent.objects.create(
            quote=quote,
            revision=acceptance.revision,
            actor=user,
            verb=QuoteEventVerb.COUNTERSIGNED,
            details={
                "revision_label": acceptance.revision.label,
                "name": name,
                "title": user.job_title,
                "replaced_sha256": replaced,
            },
        )
        acceptance.refresh_from_db()
        quote_event(
            quote,
            "quote.countersigned",
            revision=acceptance.revision,
            totals=_accepted_totals(acceptance),
            acceptance=acceptance_event_data(acceptance, signed_pdf_url=signed_pdf_url(quote)),
        )
        transaction.on_commit(
            lambda: enqueue_or_leave_to_sweeper(
                "proposals.signed_copy", acceptance.pk, queue=proposals_setting("PROPOSALS_QUEUE")
            )
        )
    return acceptance


def _accepted_totals(acceptance: Acceptance) -> Totals:
    return Totals(
        acceptance.subtotal,
        acceptance.discount_amount,
        acceptance.net,
        acceptance.tax_amount,
        acceptance.total,
    )


def acceptance_event_data(acceptance: Acceptance, *, signed_pdf_url: str | None) -> dict:
    """`acceptance` of quote.accepted, quote.signed_copy_ready and quote.countersigned: the API's
    acceptance fields (acceptance_data) less what the event carries once elsewhere (its revision
    and accepted totals), the link as one object, timestamps in UTC. An answer staff recorded
    has the same shape (quoting.quotes.services.quotes._staff_acceptance)."""
    data = acceptance_data(acceptance, signed_pdf_url=signed_pdf_url)
    link = acceptance.link if acceptance.link_id else None
    kept = (
        "signer", "title", "company", "signer_timezone", "signature_kind", "language",
        "browser", "system", "is_mobile", "document_sha256", "signed_status", "signed_pdf_url",
        "signed_sha256", "po_number", "invoice", "chosen_alternative", "chosen_optional",
    )  # fmt: skip
    return {
        "recorded_by": "share_link",
        "recorded_by_user": None,
        "note": "",
        **{name: data[name] for name in kept},
        "signed_at": event_time(acceptance.signed_at),
        "signer_email": acceptance.signer_email,
        "signer_email_verified_at": event_time(acceptance.signer_email_verified_at),
        "share_link": (
            {"id": link.pk, "recipient_name": link.recipient_name} if link is not None else None
        ),
        "as_sent_totals": event_totals(
            chosen_configuration(acceptance).as_sent, currency=acceptance.revision.quote.currency
        ),
        "countersignature": (
            data["countersignature"]
            and data["countersignature"]
            | {"countersigned_at": event_time(acceptance.countersigned_at)}
        ),
    }


def signed_pdf_url(quote: Quote) -> str:
    """Where a CRM downloads the signed copy (the API, with its token)."""
    return settings.PORTAL_URL + reverse("quote-proposal-acceptance-signed-pdf", args=[quote.pk])


def signed_copies_waiting_for(document: ProposalDocument) -> None:
    """The accepted PDF is ready: the signed copies waiting for it are made now."""
    waiting = Acceptance.objects.filter(
        revision_id=document.revision_id,
        language=document.language,
        document__isnull=True,
        signed_status=DocumentStatus.PENDING,
    ).values_list("pk", flat=True)
    for pk in list(waiting):
        transaction.on_commit(
            lambda pk=pk: enqueue_or_leave_to_sweeper(
                "proposals.signed_copy", pk, queue=proposals_setting("PROPOSALS_QUEUE")
            )
        )


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
            pk=acceptance.pk,
            signed_status=DocumentStatus.RENDERING,
            signed_claim=acceptance.signed_claim,
        )
        if acceptance.signed_attempts >= limit:
            same_claim.update(
                signed_status=DocumentStatus.FAILED,
                signed_updated_at=now,
                **_signed_error(message(MAKER_STOPPED, attempts=acceptance.signed_attempts)),
            )
        else:
            same_claim.update(signed_status=DocumentStatus.PENDING, signed_updated_at=cutoff)
    requeued = 0
    waiting = Acceptance.objects.filter(
        signed_status=DocumentStatus.PENDING, signed_updated_at__lte=cutoff
    )
    for pk in list(waiting.values_list("pk", flat=True)):
        Acceptance.objects.filter(pk=pk, signed_status=DocumentStatus.PENDING).update(
            signed_updated_at=now
        )
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
        quote_event(quote, "quote.declined", revision=revision)  # logged: as quote.accepted
    return quote

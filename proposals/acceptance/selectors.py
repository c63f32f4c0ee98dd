"""Reads of the customer's answer: whether the customer can still answer (offer_state, the one
rule), the revision a link shows, the chosen configuration and its totals, acceptances and
their signed-copy certificate.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import uuid
from dataclasses import dataclass

from django.db.models import (
    F,
    Q,
    QuerySet,
)
from django.utils import timezone

from portal.models import User
from proposals.acceptance.signer_codes import email_masked
from proposals.documents.signed_copy import SignedCopyCheck, signed_copy_verify
from proposals.models import (
    Acceptance,
    AsBuiltSignOff,
    DocumentStatus,
    ProposalDocument,
    ShareLink,
)
from quoting.quotes.models import (
    ANSWERABLE_WHILE_DRAFTING,
    Quote,
    QuoteLine,
    QuoteRevision,
    QuoteStatus,
)
from quoting.quotes.selectors import (
    OfferChoice,
    Totals,
    quotes_visible_to,
    revision_totals,
)


def acceptances_astray() -> QuerySet[Acceptance]:
    """Acceptances bound to a PDF that is not their revision as sent (see documents_astray)."""
    return (
        Acceptance.objects.filter(document__isnull=False)
        .filter(
            Q(document__is_draft=True)
            | ~Q(document__revision_id=F("revision_id"))
            | ~Q(document__content_sha256=F("revision__content_sha256"))
            | Q(document__started_at__lt=F("revision__frozen_at"))
        )
        .defer("signed_pdf", "signature_png")
    )


# --- share links ---------------------------------------------------------------------------------


SUPERSEDED = "superseded"


def offer_state(*, quote: Quote, revision: QuoteRevision | None) -> str:
    """Can the customer still answer `revision` (the quote's latest sent one)? "open" until a
    newer revision is sent, also while sales draft the next one (the answer reinstates it);
    else why not: the quote's status (accepted, declined, expired: also once past its validity)
    or "superseded". The one rule the share page and the answer both ask."""
    if quote.status in (QuoteStatus.ACCEPTED, QuoteStatus.DECLINED, QuoteStatus.EXPIRED):
        return quote.status
    if quote.valid_until < timezone.localdate():
        return QuoteStatus.EXPIRED
    if (
        revision is None
        or (quote.status == QuoteStatus.SENT and quote.current_revision_id != revision.pk)
        or quote.status not in (QuoteStatus.SENT, *ANSWERABLE_WHILE_DRAFTING)
    ):
        return SUPERSEDED
    return "open"


def revision_shared(*, link: ShareLink) -> QuoteRevision | None:
    """The quote's latest sent revision: a link never shows a draft."""
    revision = (
        QuoteRevision.objects.filter(quote_id=link.quote_id, sent_at__isnull=False)
        # What a share route reads; the snapshots (large) are read only when the proposal is
        # rendered, once per sent revision and language. What its options are priced on
        # (option_basis, small) is read by every price of a choice with an option.
        .only(
            "quote_id", "number", "total", "sent_at", "frozen_at", "content_sha256", "option_basis"
        )
        .order_by("-number")
        .first()
    )
    if revision is not None:
        # share_link_resolve() read the link with its quote, customer and project: joining them
        # again cost as much as the rest of the query.
        revision.quote = link.quote
    return revision


# --- the customer's chosen configuration (#15 item 2) ---------------------------------------------


def totals_text(totals: Totals | None) -> dict | None:
    """Totals as JSON carries money: exact text with two places."""
    if totals is None:
        return None
    return {
        name: f"{getattr(totals, name):.2f}"
        for name in ("subtotal", "discount", "net", "tax", "total")
    }


def choice_printed(choice: OfferChoice) -> dict:
    """A choice as the quote.accepted webhook and the audit trail carry it."""
    return {
        "chosen_alternative": choice.alternative,
        "chosen_optional": [
            {"key": str(line.key), "description": line.description} for line in choice.optional
        ],
        "accepted_totals": totals_text(choice.totals),
    }


def acceptance_totals(acceptance: Acceptance) -> Totals | None:
    if acceptance.total is None:
        return None
    return Totals(
        acceptance.subtotal,
        acceptance.discount_amount,
        acceptance.net,
        acceptance.tax_amount,
        acceptance.total,
    )


@dataclass(frozen=True)
class ChosenConfiguration:
    """What the customer accepted, beside the quote as sent: for the staff page, the API and
    anything else that shows an acceptance."""

    alternative: str  # "" = as quoted
    optional: list[QuoteLine]  # the included optional lines, in the quote's order
    missing_keys: list[str]  # recorded keys no longer found (never, for a frozen revision)
    totals: Totals | None  # accepted; None for an acceptance recorded before choices existed
    as_sent: Totals

    @property
    def is_as_quoted(self) -> bool:
        return not self.alternative and not self.optional and not self.missing_keys

    def as_json(self) -> dict:
        return {
            "chosen_alternative": self.alternative,
            "chosen_optional": [
                *(
                    {"key": str(line.key), "description": line.description}
                    for line in self.optional
                ),
                *({"key": key, "description": ""} for key in self.missing_keys),
            ],
            "accepted_totals": totals_text(self.totals),
            "as_sent_totals": totals_text(self.as_sent),
        }


def chosen_configuration(acceptance: Acceptance) -> ChosenConfiguration:
    revision = acceptance.revision
    keys = [str(key) for key in acceptance.chosen_optional or []]
    found = {
        str(line.key): line
        for line in revision.lines.select_related("product").filter(
            key__in=[key for key in keys if _is_uuid(key)]
        )
    }
    return ChosenConfiguration(
        alternative=acceptance.chosen_alternative,
        optional=sorted((found[key] for key in keys if key in found), key=lambda ln: ln.position),
        missing_keys=[key for key in keys if key not in found],
        totals=acceptance_totals(acceptance),
        as_sent=revision_totals(revision=revision),
    )


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


# --- acceptances ---------------------------------------------------------------------------------


def acceptance_of(*, revision: QuoteRevision) -> Acceptance | None:
    """The acceptance of this revision, if it was accepted through a link; without its
    signature image and signed copy (large, read only where they are served)."""
    acceptance = (
        Acceptance.objects.filter(revision=revision).defer("signature_png", "signed_pdf").first()
    )
    if acceptance is not None:
        acceptance.revision = revision
    return acceptance


def acceptance_for(*, quote) -> Acceptance | None:
    """The acceptance of the quote's accepted revision (one per revision; the latest one)."""
    return (
        Acceptance.objects.filter(revision__quote=quote)
        .select_related("revision", "link", "document")
        .defer("signed_pdf", "document__pdf")
        .order_by("-signed_at", "-pk")
        .first()
    )


def acceptances_visible_to(*, user: User) -> QuerySet[Acceptance]:
    return Acceptance.objects.filter(
        revision__quote__in=quotes_visible_to(user=user).values("pk")
    ).select_related("revision__quote")


def acceptance_data(acceptance: Acceptance, *, signed_pdf_url: str | None) -> dict:
    """What the API's acceptance resource and the quote.accepted / quote.signed_copy_ready
    webhooks carry: the same fields, the same names. Amounts are strings (exact decimals)."""
    invoice = {
        "company": acceptance.invoice_company,
        "tax_id": acceptance.invoice_tax_id,
        "address_phone": acceptance.invoice_address_phone,
        "bank_account": acceptance.invoice_bank_account,
    }
    ready = acceptance.signed_status == DocumentStatus.READY
    return {
        "signer": acceptance.signer_name,
        "title": acceptance.signer_title,
        "company": acceptance.signer_company,
        "signed_at": acceptance.signed_at.isoformat(),
        "signer_timezone": acceptance.signer_timezone,
        "signature_kind": acceptance.signature_kind,
        "revision": acceptance.revision.label,
        "revision_number": acceptance.revision.number,
        "language": acceptance.language,
        "link_id": acceptance.link_id,
        "link_recipient": acceptance.link.recipient_name if acceptance.link_id else "",
        "signer_email": acceptance.signer_email,
        "signer_email_verified_at": (
            acceptance.signer_email_verified_at.isoformat()
            if acceptance.signer_email_verified_at
            else None
        ),
        "browser": acceptance.browser,
        "system": acceptance.os,
        "is_mobile": acceptance.is_mobile,
        "document_sha256": acceptance.document_sha256 or None,
        "signed_status": acceptance.signed_status,
        "signed_pdf_url": signed_pdf_url if ready else None,
        "signed_sha256": acceptance.signed_sha256 if ready else None,
        "po_number": acceptance.po_number,
        "invoice": invoice if any(invoice.values()) else None,
        # chosen_alternative, chosen_optional (key and description), accepted_totals and
        # as_sent_totals: the same shape as the audit trail's and the staff panel's
        **chosen_configuration(acceptance).as_json(),
        "countersignature": (
            {
                "name": acceptance.countersigner_name,
                "title": acceptance.countersigner_title,
                "countersigned_at": acceptance.countersigned_at.isoformat(),
                "user_id": acceptance.countersigned_by_id,
            }
            if acceptance.countersigned_at is not None
            else None
        ),
    }


def _signed_time(at, zone_name: str) -> str:
    import zoneinfo

    try:
        zone = zoneinfo.ZoneInfo(zone_name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo("UTC")
    local = at.astimezone(zone)
    offset = local.strftime("%z")
    return f"{local:%Y-%m-%d %H:%M:%S} UTC{offset[:3]}:{offset[3:]} ({zone.key})"


def _signed_date(at, zone_name: str) -> str:
    import zoneinfo

    try:
        zone = zoneinfo.ZoneInfo(zone_name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo("UTC")
    return f"{at.astimezone(zone):%Y-%m-%d}"


def _data_uri(data, content_type: str) -> str:
    return f"data:{content_type};base64,{base64.b64encode(bytes(data)).decode()}" if data else ""


def signature_block(
    acceptance: Acceptance, *, seller_signature_png: bytes = b"", chop=None, chop_type: str = ""
) -> dict:
    """The proposal's signature block as the signed copy fills it: the customer's column from
    their acceptance (dated in their own time zone), the seller's from the countersignature
    (None until then: the block says it awaits it), with the company chop over its line.
    `seller_signature_png`: the countersigner's name drawn as a signature."""
    from django.conf import settings

    zone = acceptance.signer_timezone or settings.TIME_ZONE
    customer = {
        "name": acceptance.signer_name,
        "title": acceptance.signer_title,
        "company": acceptance.signer_company,
        "date": _signed_date(acceptance.signed_at, zone),
        "signature_uri": _data_uri(acceptance.signature_png, "image/png"),
    }
    seller = None
    if acceptance.countersigned_at is not None:
        seller = {
            "name": acceptance.countersigner_name,
            "title": acceptance.countersigner_title,
            "date": _signed_date(acceptance.countersigned_at, settings.TIME_ZONE),
            "signature_uri": _data_uri(seller_signature_png, "image/png"),
            "chop_uri": _data_uri(chop, chop_type),
        }
    return {"customer": customer, "seller": seller}


def certificate_context(acceptance: Acceptance, *, document: ProposalDocument) -> dict:
    """What the signed copy's certificate page prints (pdf.certificate_pdf renders it)."""
    from django.conf import settings

    quote = acceptance.revision.quote
    png = bytes(acceptance.signature_png or b"")
    totals = [
        (label, value)
        for label, value in (
            ("subtotal", acceptance.subtotal),
            ("discount", acceptance.discount_amount),
            ("net", acceptance.net),
            ("tax", acceptance.tax_amount),
            ("total", acceptance.total),
        )
        if value is not None
    ] or [("total", acceptance.revision.total)]  # as quoted: the revision's own total
    return {
        "a": acceptance,
        "quote": quote,
        "revision": acceptance.revision,
        "document": document,
        "link": acceptance.link,
        "signed_local": _signed_time(
            acceptance.signed_at, acceptance.signer_timezone or settings.TIME_ZONE
        ),
        "signed_utc": _signed_time(acceptance.signed_at, "UTC"),
        # The one-time code's proof (signer_codes), masked as on the page; none for a link
        # without an address, or an answer staff recorded.
        "signer_email": email_masked(acceptance.signer_email, "…"),
        "signer_email_verified": (
            _signed_time(
                acceptance.signer_email_verified_at,
                acceptance.signer_timezone or settings.TIME_ZONE,
            )
            if acceptance.signer_email_verified_at and acceptance.signer_email
            else ""
        ),
        "countersigned_local": acceptance.countersigned_at
        and _signed_time(acceptance.countersigned_at, settings.TIME_ZONE),
        "countersigned_utc": acceptance.countersigned_at
        and _signed_time(acceptance.countersigned_at, "UTC"),
        "signature_uri": "data:image/png;base64," + base64.b64encode(png).decode() if png else "",
        "totals": totals,
        "currency": quote.currency,
        "as_quoted": not (acceptance.chosen_alternative or acceptance.chosen_optional),
        "optional_lines": chosen_configuration(acceptance).optional,
        "has_invoice": any(
            (
                acceptance.invoice_company,
                acceptance.invoice_tax_id,
                acceptance.invoice_address_phone,
                acceptance.invoice_bank_account,
            )
        ),
    }


def signed_copy_checked(
    *, original: bytes, signed: bytes, sha256: str = "", signed_sha256: str = ""
) -> SignedCopyCheck:
    """signed_copy_verify against what the portal published: `sha256` (the accepted PDF's) and
    `signed_sha256` (the signed copy's) as given (from the API, a webhook, the Acceptance
    panel), else as this portal's acceptances recorded them for `original`.

    OK only when both are known and hold: the original's SHA-256 says it is the PDF that was
    accepted, and the copy's own binds everything the pages cannot, the certificate's claims
    (who signed, when, what they chose) and any page added after the original's."""
    sha = (sha256 or "").strip().lower() or hashlib.sha256(original).hexdigest()
    recorded = [
        value
        for value in Acceptance.objects.filter(
            document_sha256=sha, signed_status=DocumentStatus.READY
        ).values_list("signed_sha256", flat=True)
        if value
    ]
    own = hashlib.sha256(signed).hexdigest()
    given = (signed_sha256 or "").strip().lower()
    problems = []
    if given and recorded and given not in recorded:
        problems.append(
            f"The signed copy's SHA-256 given ({given}) is not the one this portal recorded for "
            f"this original ({', '.join(recorded)})."
        )
    binding = given or (own if own in recorded else (recorded[0] if recorded else ""))
    published = (sha256 or "").strip().lower() or (sha if recorded else "")
    check = signed_copy_verify(
        original=original, signed=signed, sha256=published, signed_sha256=binding
    )
    if not published:
        problems.append(
            f"No acceptance recorded here bound a PDF with SHA-256 {sha}, and none was given "
            f"(--sha256): nothing says ORIGINAL is the PDF that was accepted."
        )
    if not binding:
        problems.append(
            "Nothing binds the certificate (who signed, when, what they chose): no signed copy "
            "of this PDF is recorded here and none was given. Give the signed copy's SHA-256 "
            "the portal published (--signed-sha256: the acceptance's signed_sha256 in the API, "
            "the quote.signed_copy_ready webhook or the quote's Acceptance panel)."
        )
    return dataclasses.replace(check, problems=(*check.problems, *problems))


def as_built_sign_off_shown(*, quote: Quote) -> AsBuiltSignOff | None:
    """The accepted quote's latest as-built sign-off, asked for or signed: what its share page
    shows under the acceptance (the signature image is read only by the report)."""
    if quote.status != QuoteStatus.ACCEPTED:
        return None
    return (
        AsBuiltSignOff.objects.filter(as_built_check__revision__quote_id=quote.pk)
        .select_related("as_built_check__revision")
        .defer("signature_png")
        .order_by("-offered_at", "-pk")
        .first()
    )

"""Reads of the proposals app: what a proposal says (the PDF and the customer page share it),
which document a customer gets, and what the sales user sees on the panel."""

from __future__ import annotations

import base64
import functools
import uuid
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import (
    Case,
    Count,
    F,
    IntegerField,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, Coalesce
from django.utils import timezone

from integrations.models import WebhookEndpoint
from portal.models import CompanyProfile, User
from portal.statements import Statement, columns
from quoting import content_hash
from quoting.models import (
    ANSWERABLE_WHILE_DRAFTING,
    Customer,
    Project,
    Quote,
    QuoteLine,
    QuoteRevision,
    QuoteStatus,
    Section,
)
from quoting.selectors import (
    ROUNDING_RULE,
    AlternativeDelta,
    OfferChoice,
    Totals,
    line_amount,
    quotes_visible_to,
    revision_alternatives,
    revision_totals,
)
from quoting.services.snapshots import revision_snapshot_current
from quoting.services.tco import tco_presented
from quoting.svg.fabric import drawing_in
from quoting.svg.tco import chart_in

from .engagement import SECTIONS
from .models import (
    OPEN_KINDS_PENDING,
    Acceptance,
    DocumentStatus,
    LinkView,
    OpenKind,
    ProposalDocument,
    ShareLink,
)


@dataclass(frozen=True, slots=True)
class Row:
    line: QuoteLine
    amount: Decimal


@dataclass(frozen=True, slots=True)
class Seller:
    """Who makes the offer, in the reader's language: every field may be empty (no profile set),
    and the template prints only what there is."""

    legal_name: str = ""
    address: str = ""
    phone: str = ""
    email: str = ""
    website: str = ""
    tax_number: str = ""
    bank_name: str = ""
    bank_account: str = ""
    logo_uri: str = ""  # data: URI of the uploaded logo
    contact_name: str = ""  # the quote's owner, the sales engineer the customer talks to
    contact_email: str = ""
    contact_phone: str = ""

    @property
    def has_company(self) -> bool:
        return bool(self.legal_name)

    @property
    def has_contact(self) -> bool:
        return bool(self.contact_name or self.contact_email or self.contact_phone)


def seller_for(*, owner: User | None, language: str) -> Seller:
    profile = CompanyProfile.objects.filter(pk=CompanyProfile.SINGLETON_PK).first()
    contact = {}
    if owner is not None:
        contact = {
            "contact_name": owner.get_full_name() or owner.get_username(),
            "contact_email": owner.email,
            "contact_phone": owner.phone,
        }
    if profile is None:
        return Seller(**contact)
    logo_uri = ""
    if profile.logo and profile.logo_type:
        encoded = base64.b64encode(bytes(profile.logo)).decode()
        logo_uri = f"data:{profile.logo_type};base64,{encoded}"
    return Seller(
        legal_name=profile.legal_name_for(language),
        address=profile.address_for(language),
        phone=profile.phone,
        email=profile.email,
        website=profile.website,
        tax_number=profile.tax_number,
        bank_name=profile.bank_name,
        bank_account=profile.bank_account,
        logo_uri=logo_uri,
        **contact,
    )


SELLER_PRINTED = ("first_name", "last_name", "username", "email", "phone")


def seller_printed(*, owner_id: int | None) -> str:
    """What changes the seller block of a proposal: the profile's last edit and the owner's
    contact, read in one query."""
    profile_edited = CompanyProfile.objects.filter(pk=CompanyProfile.SINGLETON_PK).values(
        "updated_at")[:1]
    owner = (
        User.objects.filter(pk=owner_id)
        .annotate(profile_edited=Subquery(profile_edited))
        .values_list(*SELLER_PRINTED, "profile_edited")
        .first()
    )
    if owner is None:
        return str(CompanyProfile.objects.filter(pk=CompanyProfile.SINGLETON_PK).values_list(
            "updated_at", flat=True).first())
    return "|".join(str(part) for part in owner)


@dataclass(frozen=True)
class ProposalContent:
    revision: QuoteRevision
    issued: object  # date
    sections: list[tuple[str, str, list[Row]]]  # (key, label, rows), in the order of Section
    support_promises: list[tuple[str, str]]  # (support line, what it promises), customer's language
    totals: Totals
    alternatives: list[AlternativeDelta]
    design: dict | None
    drawing_uri: str | None
    tco: dict | None
    tco_charts: list[str] = field(default_factory=list)  # data: URIs
    seller: Seller = field(default_factory=Seller)
    rounding_rule: str = ROUNDING_RULE
    # The comparison as printed: network capex apart from servers, each option's pricing named.
    tco_view: dict | None = None
    # The appendix (PDF only): the design's racks and power table, and its elevations in the
    # reader's language, (data: URI, racks' names, how many racks); see quoting.svg.racks.
    racks: dict | None = None
    rack_figures: list[tuple[str, str, int]] = field(default_factory=list)
    # The fingerprint of the revision and lines read here (quoting.content_hash), in the version
    # of the one stored at the send: what a rendered PDF records it was made from.
    content_sha256: str = ""

    @property
    def quote(self):
        return self.revision.quote


def svg_data_uri(svg: str) -> str:
    """Drawings travel as data: images: the PDF fetcher allows them, and the customer page's CSP
    needs no inline styles for the drawing's own <style>."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def proposal_content(*, revision: QuoteRevision, language: str) -> ProposalContent:
    """What the proposal says, read from the revision's frozen snapshots: nothing is designed or
    computed again (a revision made before snapshots gets its drawing and charts once, here)."""
    revision = (
        QuoteRevision.objects.select_related(
            "quote__customer", "quote__project", "quote__owner", "design"
        )
        .prefetch_related(
            Prefetch(
                "lines", queryset=QuoteLine.objects.select_related("product").order_by("position")
            )
        )
        .get(pk=revision.pk)
    )
    revision = revision_snapshot_current(revision=revision)
    lines = list(revision.lines.all())
    sections: dict[str, list[Row]] = {s: [] for s in Section.values}
    # A line of nothing (a design's unused role, a line zeroed while editing) adds nothing to the
    # totals and means nothing to the customer: it is not printed.
    for line in (ln for ln in lines if ln.quantity):
        amount = line_amount(
            quantity=line.quantity,
            unit_price=line.unit_price,
            discount_percent=line.discount_percent,
        )
        sections[line.section].append(Row(line, amount))
    chinese = language.startswith("zh")
    promises = [
        (
            (ln.product.name_zh if chinese else "") or ln.description,
            (ln.product.description_zh if chinese else "") or ln.product.description_en,
        )
        for ln in lines
        if ln.section == Section.SUPPORT and ln.product is not None and ln.quantity
    ]
    drawing = drawing_in(revision.design_drawings, revision.design_drawing, language)
    return ProposalContent(
        revision=revision,
        issued=timezone.localdate(revision.sent_at) if revision.sent_at else timezone.localdate(),
        sections=[(s, Section(s).label, rows) for s, rows in sections.items() if rows],
        support_promises=[(name, promise) for name, promise in promises if promise],
        totals=revision_totals(revision=revision, lines=lines),
        alternatives=revision_alternatives(revision=revision, lines=lines),
        design=revision.design_snapshot or None,
        drawing_uri=svg_data_uri(drawing) if drawing else None,
        tco=revision.tco_snapshot or None,
        tco_charts=[
            svg_data_uri(chart_in(chart, language)) for chart in revision.tco_charts or []
        ],
        seller=seller_for(owner=revision.quote.owner, language=language),
        tco_view=tco_presented(revision.tco_snapshot),
        racks=revision.design_racks or None,
        rack_figures=_rack_figures(revision.design_racks, language),
        content_sha256=content_hash.content_sha256(
            revision, lines, quote_number=revision.quote.number,
            currency=revision.quote.currency,
            version=content_hash.content_version(revision.content_sha256)),
    )


def _rack_figures(racks: dict | None, language: str) -> list[tuple[str, str, int]]:
    """The elevations kept in the reader's language (else the first kept), with their racks."""
    kept = (racks or {}).get("elevations")
    if not kept:
        return []
    svgs = kept.get(language) or next(iter(kept.values()))
    return [(svg_data_uri(svg), figure["racks"], figure["count"])
            for svg, figure in zip(svgs, racks["figures"], strict=True)]


# --- documents -----------------------------------------------------------------------------------


def _sent_candidates(*, revision: QuoteRevision, language: str | None
                     ) -> QuerySet[ProposalDocument]:
    """Documents that may be the sent PDF of a frozen revision: requested after it was frozen,
    not draft previews (none at all for a revision still being edited)."""
    if revision.frozen_at is None or not revision.content_sha256:
        return ProposalDocument.objects.none()
    documents = ProposalDocument.objects.filter(
        revision=revision, is_draft=False, created_at__gte=revision.frozen_at)
    return documents if language is None else documents.filter(language=language)


def _sent_ready(revision: QuoteRevision) -> Q:
    """Ready, rendered after the freeze, from exactly the content that was frozen."""
    return Q(status=DocumentStatus.READY, started_at__gte=revision.frozen_at,
             content_sha256=revision.content_sha256)


def document_is_sent(document: ProposalDocument, *, revision: QuoteRevision) -> bool:
    """The same rule as document_ready_for, for one document in hand (an acceptance's)."""
    return (revision.frozen_at is not None and bool(revision.content_sha256)
            and document.revision_id == revision.pk and not document.is_draft
            and document.status == DocumentStatus.READY
            and document.started_at is not None and document.started_at >= revision.frozen_at
            and document.content_sha256 == revision.content_sha256)


def documents_sent(*, revision: QuoteRevision, language: str | None = None
                   ) -> QuerySet[ProposalDocument]:
    """The sent PDFs of a frozen revision, ready or on their way (pending or rendering); none
    for a draft. Without the bytes."""
    return _sent_candidates(revision=revision, language=language).filter(
        _sent_ready(revision)
        | Q(status__in=(DocumentStatus.PENDING, DocumentStatus.RENDERING))).defer("pdf")


def document_for(*, revision: QuoteRevision, language: str) -> ProposalDocument | None:
    """The sent document a view of a frozen revision shows: the first ready one, else the first
    on its way (pending or rendering), else None (then proposal_request() makes one)."""
    documents = documents_sent(revision=revision, language=language)
    ready_first = Case(When(status=DocumentStatus.READY, then=Value(0)), default=Value(1))
    # Not the PDF's bytes: the page asks only whether it is ready (the download reads them).
    return documents.order_by(ready_first, "pk").first()


def document_ready_for(*, revision: QuoteRevision, language: str) -> ProposalDocument | None:
    """The first sent PDF of a frozen revision: the very bytes the customer was sent. Never a
    draft's preview, never one rendered before the freeze or from other content."""
    return (
        _sent_candidates(revision=revision, language=language)
        .filter(_sent_ready(revision))
        .order_by("pk")
        .first()
    )


def documents_astray() -> QuerySet[ProposalDocument]:
    """Ready documents that pass for a sent PDF (no draft preview) but are not their revision as
    sent: of a revision never frozen, requested or rendered before its freeze, or of other
    content. The integrity check (manage.py check_sent_pdfs) expects none."""
    return ProposalDocument.objects.filter(status=DocumentStatus.READY, is_draft=False).filter(
        Q(revision__frozen_at__isnull=True)
        | ~Q(content_sha256=F("revision__content_sha256"))
        | Q(created_at__lt=F("revision__frozen_at"))
        | Q(started_at__lt=F("revision__frozen_at"))
    ).defer("pdf")


def acceptances_astray() -> QuerySet[Acceptance]:
    """Acceptances bound to a PDF that is not their revision as sent (see documents_astray)."""
    return Acceptance.objects.filter(document__isnull=False).filter(
        Q(document__is_draft=True)
        | ~Q(document__revision_id=F("revision_id"))
        | ~Q(document__content_sha256=F("revision__content_sha256"))
        | Q(document__started_at__lt=F("revision__frozen_at"))
    ).defer("signed_pdf", "signature_png")


def documents_visible_to(*, user: User) -> QuerySet[ProposalDocument]:
    return ProposalDocument.objects.filter(
        revision__quote__in=quotes_visible_to(user=user).values("pk")
    ).select_related("revision__quote")


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
    if revision is None or (
        quote.status == QuoteStatus.SENT and quote.current_revision_id != revision.pk
    ) or quote.status not in (QuoteStatus.SENT, *ANSWERABLE_WHILE_DRAFTING):
        return SUPERSEDED
    return "open"


def revision_shared(*, link: ShareLink) -> QuoteRevision | None:
    """The quote's latest sent revision: a link never shows a draft."""
    revision = (
        QuoteRevision.objects.filter(quote_id=link.quote_id, sent_at__isnull=False)
        # What a share route reads; the snapshots (large) are read only when the proposal is
        # rendered, once per sent revision and language.
        .only("quote_id", "number", "total", "sent_at", "frozen_at", "content_sha256")
        .order_by("-number")
        .first()
    )
    if revision is not None:
        # share_link_resolve() read the link with its quote, customer and project: joining them
        # again cost as much as the rest of the query.
        revision.quote = link.quote
    return revision


# --- the share page's one lookup ------------------------------------------------------------------
# A customer's view is this lookup and the recorded open, nothing else (issue 12: the share page
# within a small multiple of a bare Django page): one statement built once (portal.statements).
SHARE_LOOKUP_FIELDS = {
    ShareLink: ("id", "quote_id", "expires_at", "revoked_at", "last_used_at"),
    Quote: ("id", "number", "status", "valid_until", "currency", "current_revision_id",
            "customer_id", "project_id"),
    Customer: ("id", "company", "language", "vat_zone"),  # vat_zone: asks for fapiao details
    Project: ("id", "name"),
    QuoteRevision: ("id", "quote_id", "number", "total", "sent_at", "frozen_at",
                    "content_sha256"),
}


@functools.cache
def _share_lookup() -> Statement:
    alias = {ShareLink: "l", Quote: "q", Customer: "c", Project: "p", QuoteRevision: "r"}
    fields, listed = columns(SHARE_LOOKUP_FIELDS, alias)
    table = {model: model._meta.db_table
             for model in (*alias, WebhookEndpoint, User, CompanyProfile)}
    # What seller_printed() reads (the owner's contact, the profile's last edit), in the same
    # statement: the kept document's key changes when the seller block would.
    seller = ", ".join(f'o."{name}"' for name in SELLER_PRINTED)
    sql = (
        f"SELECT {listed}, "  # noqa: S608 - names from the models, the token a parameter
        f'EXISTS (SELECT 1 FROM "{table[WebhookEndpoint]}" w WHERE w."active"), {seller}, '
        f'(SELECT s."updated_at" FROM "{table[CompanyProfile]}" s '
        f'WHERE s."id" = {int(CompanyProfile.SINGLETON_PK)}) '
        f'FROM "{table[ShareLink]}" l '
        f'JOIN "{table[Quote]}" q ON q."id" = l."quote_id" '
        f'LEFT JOIN "{table[User]}" o ON o."id" = q."owner_id" '
        f'JOIN "{table[Customer]}" c ON c."id" = q."customer_id" '
        f'JOIN "{table[Project]}" p ON p."id" = q."project_id" '
        f'JOIN "{table[QuoteRevision]}" r ON r."quote_id" = q."id" AND r."sent_at" IS NOT NULL '
        f'WHERE l."token_hash" = %s ORDER BY r."number" DESC LIMIT 1'
    )
    return Statement(sql=sql, fields=fields, model=ShareLink)


def share_lookup(*, token_hash: str) -> ShareLink | None:
    """The link of a token hash with its quote, customer, project and the quote's latest sent
    revision (`link.revision_shown`), and whether any webhook endpoint is active
    (`link.webhooks_active`), in one statement; None when there is none. Live or not is the
    caller's question."""
    found = _share_lookup().row([token_hash])
    if found is None:
        return None
    instances, values = found
    link, quote, revision = instances[ShareLink], instances[Quote], instances[QuoteRevision]
    quote.customer, quote.project = instances[Customer], instances[Project]
    link.quote = revision.quote = quote
    link.revision_shown, link.webhooks_active = revision, bool(next(values))
    quote.seller_stamp = "|".join(str(value) for value in values)  # as seller_printed() says
    return link


def revision_has_drawing(*, revision: QuoteRevision) -> bool:
    return QuoteRevision.objects.filter(pk=revision.pk).exclude(design_drawing="").exists()


def revision_drawing(*, revision: QuoteRevision) -> str:
    """The fabric drawing (SVG) of a revision, read only when asked for."""
    return (
        QuoteRevision.objects.filter(pk=revision.pk)
        .values_list("design_drawing", flat=True)
        .first()
        or ""
    )


@dataclass(frozen=True)
class LinkSummary:
    """A link as its quote's owner sees it: opens by readers (link.use_count) and by scanners
    and previews apart, reading time in all and per section, last open, the latest views."""

    link: ShareLink
    recent_views: list[LinkView]
    glance_opens: int = 0  # served, not read: no script ran, under two seconds, or no beacon yet
    scanner_opens: int = 0  # scanners, previews and link checkers (HEAD)
    reading_seconds: int = 0
    section_seconds: list[tuple[str, object, int]] = field(default_factory=list)  # key, label, s


def share_links_for_panel(*, quote, views_per_link: int = 5) -> list[LinkSummary]:
    """Two queries whatever the number of links and views: the links with their sums, and
    their latest views."""
    real = Q(views__kind=OpenKind.REAL)
    per_section = {
        f"seconds_{name}": Coalesce(
            Sum(Cast(KeyTextTransform(name, "views__sections"), IntegerField()), filter=real),
            0)
        for name in SECTIONS
    }
    links = (
        quote.share_links.select_related("created_by")
        .annotate(
            glance_opens=Count("views", filter=Q(views__kind__in=OPEN_KINDS_PENDING)),
            scanner_opens=Count("views", filter=Q(
                views__kind__in=[OpenKind.SCANNER, OpenKind.HEAD])),
            reading_seconds=Coalesce(Sum("views__seconds", filter=real), 0),
            **per_section,
        )
        .prefetch_related(Prefetch(
            "views", queryset=LinkView.objects.order_by("-at", "-pk")[:views_per_link],
            to_attr="recent"))
    )
    return [
        LinkSummary(
            link=link,
            recent_views=link.recent,
            glance_opens=link.glance_opens,
            scanner_opens=link.scanner_opens,
            reading_seconds=link.reading_seconds,
            section_seconds=[(name, label, getattr(link, f"seconds_{name}"))
                             for name, label in SECTIONS.items()],
        )
        for link in links
    ]


# --- the customer's chosen configuration (#15 item 2) ---------------------------------------------


def totals_text(totals: Totals | None) -> dict | None:
    """Totals as JSON carries money: exact text with two places."""
    if totals is None:
        return None
    return {name: f"{getattr(totals, name):.2f}"
            for name in ("subtotal", "discount", "net", "tax", "total")}


def choice_printed(choice: OfferChoice) -> dict:
    """A choice as the quote.accepted webhook and the audit trail carry it."""
    return {
        "chosen_alternative": choice.alternative,
        "chosen_optional": [{"key": str(line.key), "description": line.description}
                            for line in choice.optional],
        "accepted_totals": totals_text(choice.totals),
    }


def acceptance_totals(acceptance: Acceptance) -> Totals | None:
    if acceptance.total is None:
        return None
    return Totals(acceptance.subtotal, acceptance.discount_amount, acceptance.net,
                  acceptance.tax_amount, acceptance.total)


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
                *({"key": str(line.key), "description": line.description}
                  for line in self.optional),
                *({"key": key, "description": ""} for key in self.missing_keys),
            ],
            "accepted_totals": totals_text(self.totals),
            "as_sent_totals": totals_text(self.as_sent),
        }


def chosen_configuration(acceptance: Acceptance) -> ChosenConfiguration:
    revision = acceptance.revision
    keys = [str(key) for key in acceptance.chosen_optional or []]
    found = {str(line.key): line for line in revision.lines.select_related("product").filter(
        key__in=[key for key in keys if _is_uuid(key)])}
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
    acceptance = (Acceptance.objects.filter(revision=revision)
                  .defer("signature_png", "signed_pdf").first())
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


def certificate_context(acceptance: Acceptance, *, document: ProposalDocument) -> dict:
    """What the signed copy's certificate page prints (pdf.certificate_pdf renders it)."""
    from django.conf import settings

    quote = acceptance.revision.quote
    png = bytes(acceptance.signature_png or b"")
    totals = [
        (label, value) for label, value in (
            ("subtotal", acceptance.subtotal), ("discount", acceptance.discount_amount),
            ("net", acceptance.net), ("tax", acceptance.tax_amount), ("total", acceptance.total))
        if value is not None
    ] or [("total", acceptance.revision.total)]  # as quoted: the revision's own total
    return {
        "a": acceptance,
        "quote": quote,
        "revision": acceptance.revision,
        "document": document,
        "link": acceptance.link,
        "signed_local": _signed_time(
            acceptance.signed_at, acceptance.signer_timezone or settings.TIME_ZONE),
        "signed_utc": _signed_time(acceptance.signed_at, "UTC"),
        "signature_uri": "data:image/png;base64," + base64.b64encode(png).decode() if png else "",
        "totals": totals,
        "currency": quote.currency,
        "as_quoted": not (acceptance.chosen_alternative or acceptance.chosen_optional),
        "optional_lines": chosen_configuration(acceptance).optional,
        "has_invoice": any((acceptance.invoice_company, acceptance.invoice_tax_id,
                            acceptance.invoice_address_phone, acceptance.invoice_bank_account)),
    }

"""Reads of proposal documents: what a proposal says (the PDF and the customer's page share it),
who prints it as the seller, and which document is a frozen revision's sent PDF.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import (
    Case,
    F,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.utils import timezone, translation
from django.utils.translation import gettext

from catalog.models import Category
from portal.models import CompanyProfile, User
from proposals.models import (
    DocumentStatus,
    ProposalDocument,
)
from quoting.designs.services.tco import tco_charts_shown, tco_options_shown, tco_presented
from quoting.designs.svg.fabric import drawing_in
from quoting.designs.svg.tco import chart_in
from quoting.engine.drawing import drawing_fonts_current
from quoting.engine.money import milestone_amounts
from quoting.engine.written import CHINESE, WrittenIn, written_either, written_in
from quoting.quotes import content_hash
from quoting.quotes.models import (
    SECTION_ORDER,
    QuoteLine,
    QuoteRevision,
    Section,
)
from quoting.quotes.selectors import (
    ROUNDING_RULE,
    AlternativeDelta,
    Totals,
    kit_of_configuration,
    kits_follow_the_option,
    line_amount,
    quotes_visible_to,
    revision_alternatives,
    revision_lead_time,
    revision_totals,
)
from quoting.quotes.services.snapshots import revision_snapshot_current


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


def seller_for(*, owner: User | None, language: str, profile: CompanyProfile | None) -> Seller:
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
        bank_name=profile.bank_name_for(language),
        bank_account=profile.bank_account,
        logo_uri=logo_uri,
        **contact,
    )


def parties_printed(content: ProposalContent) -> dict:
    """What a proposal prints in its signature block's party row, as ProposalDocument.parties
    records it with the PDF: the seller's legal name (with the language it is written in, which
    picks its font) and the customer's company."""
    seller = content.seller.legal_name
    return {
        "seller": str(seller),
        "seller_language": getattr(seller, "language", ""),
        "customer": content.quote.customer.company,
    }


def parties_of(document: ProposalDocument) -> dict | None:
    """The party row's names as `document` (an accepted PDF) printed them, for its signed copy's
    stamp: {"seller": the legal name (WrittenIn), "customer": the company}.

    None for a PDF rendered before they were recorded (`parties` null): the stamp then lays the
    row out with today's names (the company profile's legal name, the customer's company). The
    revision's frozen snapshots (design, TCO, drawings, racks) keep no party names, so there is
    nothing older to fall back to; the row is hidden on the stamp, and today's names move its
    filled values only when they wrap onto another number of lines."""
    parties = document.parties
    if parties is None:
        return None
    return {
        "seller": WrittenIn(parties.get("seller", ""), parties.get("seller_language", "")),
        "customer": parties.get("customer", ""),
    }


SELLER_PRINTED = ("first_name", "last_name", "username", "email", "phone")


def seller_printed(*, owner_id: int | None) -> str:
    """What changes the seller block of a proposal: the profile's last edit and the owner's
    contact, read in one query."""
    profile_edited = CompanyProfile.objects.filter(pk=CompanyProfile.SINGLETON_PK).values(
        "updated_at"
    )[:1]
    owner = (
        User.objects.filter(pk=owner_id)
        .annotate(profile_edited=Subquery(profile_edited))
        .values_list(*SELLER_PRINTED, "profile_edited")
        .first()
    )
    if owner is None:
        return str(
            CompanyProfile.objects.filter(pk=CompanyProfile.SINGLETON_PK)
            .values_list("updated_at", flat=True)
            .first()
        )
    return "|".join(str(part) for part in owner)


@dataclass(frozen=True, slots=True)
class Offered:
    """A support tier or a service the offer names under "Services and support": included (in
    the totals) or optional (offered beside them, at the price of its line)."""

    name: str
    promise: str  # what it is, when the catalog states no response terms
    terms: list[str]  # a support tier's response terms
    optional: bool = False
    position: int = 0  # its line in the bill of materials
    amount: Decimal = Decimal(0)


@dataclass(frozen=True, slots=True)
class Milestone:
    label: str
    percent: Decimal
    amount: Decimal  # the percent of the offer's total, to the cent (milestone_amounts)


@dataclass(frozen=True)
class ProposalContent:
    revision: QuoteRevision
    issued: object  # date
    sections: list[tuple[str, str, list[Row]]]  # (key, label, rows), in SECTION_ORDER
    # The support tiers and the services offered, included first, in the customer's language:
    # what "Services and support" says is what the bill of materials holds.
    support_offers: list[Offered]
    service_offers: list[Offered]
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
    # reader's language, (data: URI, racks' names, how many racks); see quoting.designs.svg.racks.
    racks: dict | None = None
    rack_figures: list[tuple[str, str, int]] = field(default_factory=list)
    # The fingerprint of the revision and lines read here (quoting.quotes.content_hash), in the
    # version of the one stored at the send: what a rendered PDF records it was made from.
    content_sha256: str = ""
    # The revision's payment schedule with each milestone's amount of the total.
    payment_schedule: list[Milestone] = field(default_factory=list)
    # The revision's additional terms in the reader's language (QuoteRevision.additional_terms_for).
    additional_terms: str = ""
    # "Delivery: about N weeks after order": only when every line in the totals has a lead time
    # (frozen with a sent revision); None prints nothing, never a guess.
    lead_time_weeks: int | None = None

    @property
    def quote(self):
        return self.revision.quote

    @property
    def offers_choices(self) -> bool:
        """Optional items or alternatives: the total ordered may differ from the one quoted."""
        return any(key in (Section.OPTIONAL, Section.ALTERNATIVES) for key, _l, _r in self.sections)


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
    sections: dict[str, list[Row]] = {s: [] for s in SECTION_ORDER}
    # A line of nothing (a design's unused role, a line zeroed while editing) adds nothing to the
    # totals and means nothing to the customer: it is not printed.
    for line in (ln for ln in lines if ln.quantity):
        amount = line_amount(
            quantity=line.quantity,
            unit_price=line.unit_price,
            discount_percent=line.discount_percent,
        )
        sections[line.section].append(Row(line, amount))
    if kits_follow_the_option(revision):
        _kits_under_their_options(sections)
    support, services = _offered(sections, language, profile=revision.company_profile)
    drawing = drawing_in(revision.design_drawings, revision.design_drawing, language)
    totals = revision_totals(revision=revision, lines=lines)
    return ProposalContent(
        revision=revision,
        issued=timezone.localdate(revision.sent_at) if revision.sent_at else timezone.localdate(),
        sections=[(s, Section(s).label, rows) for s, rows in sections.items() if rows],
        support_offers=support,
        service_offers=services,
        totals=totals,
        payment_schedule=payment_schedule_of(revision, total=totals.total),
        additional_terms=revision.additional_terms_for(language),
        lead_time_weeks=revision_lead_time(revision=revision, lines=lines).weeks,
        alternatives=revision_alternatives(revision=revision, lines=lines),
        design=revision.design_snapshot or None,
        drawing_uri=svg_data_uri(drawing) if drawing else None,
        tco=revision.tco_snapshot or None,
        tco_charts=_tco_charts(revision, language),
        seller=seller_for(
            owner=revision.quote.owner, language=language, profile=revision.company_profile
        ),
        tco_view=tco_presented(revision.tco_snapshot, revision.tco_options),
        racks=revision.design_racks or None,
        rack_figures=_rack_figures(revision.design_racks, language),
        content_sha256=content_hash.content_sha256(
            revision,
            lines,
            quote_number=revision.quote.number,
            currency=revision.quote.currency,
            version=content_hash.content_version(revision.content_sha256),
        ),
    )


def _kits_under_their_options(sections: dict[str, list[Row]]) -> None:
    """Each alternative's spares kit printed under that option's rows (a short list, marked
    optional), not among the optional items offered with any configuration."""
    kits: dict[str, list[Row]] = {}
    for row in sections[Section.OPTIONAL]:
        if kit_of_configuration(row.line):
            kits.setdefault(row.line.alternative_group, []).append(row)
    if not kits:
        return
    sections[Section.OPTIONAL] = [
        r for r in sections[Section.OPTIONAL] if not kit_of_configuration(r.line)
    ]
    rows: list[Row] = []
    for index, row in enumerate(sections[Section.ALTERNATIVES]):
        rows.append(row)
        following = sections[Section.ALTERNATIVES][index + 1 : index + 2]
        if not following or following[0].line.alternative_group != row.line.alternative_group:
            rows.extend(kits.pop(row.line.alternative_group, []))
    sections[Section.ALTERNATIVES] = rows


def _tco_charts(revision: QuoteRevision, language: str) -> list[str]:
    """The TCO charts as data: URIs, of the options the proposal shows, drawn from the frozen
    figures; a comparison kept without them prints its kept drawings."""
    shown = tco_options_shown(revision.tco_snapshot, revision.tco_options)
    drawn = tco_charts_shown(revision.tco_snapshot, shown, language) if shown else None
    if drawn is None:
        drawn = [chart_in(chart, language) for chart in revision.tco_charts or []]
    return [svg_data_uri(svg) for svg in drawn]


def payment_schedule_of(revision: QuoteRevision, *, total: Decimal) -> list[Milestone]:
    """The revision's milestones with their amounts; none for a revision without a schedule."""
    schedule = revision.payment_schedule or []
    percents = [Decimal(m["percent"]) for m in schedule]
    return [
        Milestone(m["label"], percent, amount)
        for m, percent, amount in zip(
            schedule, percents, milestone_amounts(total, percents), strict=True
        )
    ]


# The catalog's note to staff that a price is its reference price, to check before quoting
# ("Reference price: verify.", "参考价格，请核实。"): an offer prints no such thing, a sent one
# is binding.
CATALOG_NOTE = re.compile(r"\s*(Reference (price|figure): verify\.|参考(价格|数据)，请核实。)")


def _offered(
    sections: dict[str, list[Row]], language: str, *, profile: CompanyProfile | None
) -> tuple[list[Offered], list[Offered]]:
    """(support, services) the offer names: each support tier quoted once with its response
    terms when the catalog gives them (the on-site time within the seller's service area), else
    its description; each service line by its name (a service's catalog description is written
    for staff); then those offered as optional lines, with their price."""
    chinese = language.startswith("zh")
    area = profile.service_area_for(language) if profile else ""
    support, services, seen = [], [], set()
    included = [
        (row, False) for key in (Section.SUPPORT, Section.SERVICES) for row in sections[key]
    ]
    optional = [(row, True) for row in sections[Section.OPTIONAL]]
    for row, is_optional in included + optional:
        ln, product = row.line, row.line.product
        category = product.category if product is not None else None
        if ln.section == Section.SERVICES and product is None:  # a service typed by hand
            services.append(Offered(ln.description, "", [], position=ln.position))
            continue
        if category not in (Category.SUPPORT, Category.SERVICE):
            continue  # a network item among the optional ones: the bill of materials says it
        if category == Category.SUPPORT and (product.pk, is_optional) in seen:
            continue
        seen.add((product.pk, is_optional))
        with translation.override(language):
            terms = support_terms(product, area=area) if category == Category.SUPPORT else []
        promise = ""
        if category == Category.SUPPORT and not terms:
            described = written_either(
                (chinese and product.description_zh) or "", product.description_en, CHINESE
            )
            promise = written_in(CATALOG_NOTE.sub("", described).strip(), described.language)
        offered = Offered(
            written_either((chinese and product.name_zh) or "", ln.description, CHINESE),
            promise,
            terms,
            optional=is_optional,
            position=ln.position,
            amount=row.amount,
        )
        (support if category == Category.SUPPORT else services).append(offered)
    return support, services


def support_terms(product, *, area: str) -> list[str]:
    """A support tier's response terms (catalog: response_hours, onsite_hours, spares_days) in
    the active language; empty when it states none."""
    terms = []
    if product.response_hours:
        terms.append(
            gettext("Response within %(hours)s h, around the clock")
            % {"hours": product.response_hours}
        )
    if product.onsite_hours and area:
        terms.append(
            gettext("On site within %(hours)s h in %(area)s")
            % {"hours": product.onsite_hours, "area": area}
        )
    elif product.onsite_hours:
        terms.append(
            gettext("On site within %(hours)s h within our service area")
            % {"hours": product.onsite_hours}
        )
    if product.spares_days == 1:
        terms.append(gettext("Spare parts the next day"))
    elif product.spares_days:
        terms.append(gettext("Spare parts within %(days)s days") % {"days": product.spares_days})
    return terms


def _rack_figures(racks: dict | None, language: str) -> list[tuple[str, str, int]]:
    """The elevations kept in the reader's language (else the first kept), with their racks,
    set in today's fonts."""
    kept = (racks or {}).get("elevations")
    if not kept:
        return []
    svgs = kept.get(language) or next(iter(kept.values()))
    return [
        (svg_data_uri(drawing_fonts_current(svg)), figure["racks"], figure["count"])
        for svg, figure in zip(svgs, racks["figures"], strict=True)
    ]


# --- documents -----------------------------------------------------------------------------------


def _sent_candidates(
    *, revision: QuoteRevision, language: str | None
) -> QuerySet[ProposalDocument]:
    """Documents that may be the sent PDF of a frozen revision: requested after it was frozen,
    not draft previews (none at all for a revision still being edited)."""
    if revision.frozen_at is None or not revision.content_sha256:
        return ProposalDocument.objects.none()
    documents = ProposalDocument.objects.filter(
        revision=revision, is_draft=False, created_at__gte=revision.frozen_at
    )
    return documents if language is None else documents.filter(language=language)


def _sent_ready(revision: QuoteRevision) -> Q:
    """Ready, rendered after the freeze, from exactly the content that was frozen."""
    return Q(
        status=DocumentStatus.READY,
        started_at__gte=revision.frozen_at,
        content_sha256=revision.content_sha256,
    )


def document_is_sent(document: ProposalDocument, *, revision: QuoteRevision) -> bool:
    """The same rule as document_ready_for, for one document in hand (an acceptance's)."""
    return (
        revision.frozen_at is not None
        and bool(revision.content_sha256)
        and document.revision_id == revision.pk
        and not document.is_draft
        and document.status == DocumentStatus.READY
        and document.started_at is not None
        and document.started_at >= revision.frozen_at
        and document.content_sha256 == revision.content_sha256
    )


def documents_sent(
    *, revision: QuoteRevision, language: str | None = None
) -> QuerySet[ProposalDocument]:
    """The sent PDFs of a frozen revision, ready or on their way (pending or rendering); none
    for a draft. Without the bytes."""
    return (
        _sent_candidates(revision=revision, language=language)
        .filter(
            _sent_ready(revision) | Q(status__in=(DocumentStatus.PENDING, DocumentStatus.RENDERING))
        )
        .defer("pdf")
    )


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
    return (
        ProposalDocument.objects.filter(status=DocumentStatus.READY, is_draft=False)
        .filter(
            Q(revision__frozen_at__isnull=True)
            | ~Q(content_sha256=F("revision__content_sha256"))
            | Q(created_at__lt=F("revision__frozen_at"))
            | Q(started_at__lt=F("revision__frozen_at"))
        )
        .defer("pdf")
    )


def documents_visible_to(*, user: User) -> QuerySet[ProposalDocument]:
    return ProposalDocument.objects.filter(
        revision__quote__in=quotes_visible_to(user=user).values("pk")
    ).select_related("revision__quote")

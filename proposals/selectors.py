"""Reads of the proposals app: what a proposal says (the PDF and the customer page share it),
which document a customer gets, and what the sales user sees on the panel."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Case, Prefetch, QuerySet, Value, When
from django.utils import timezone

from portal.models import User
from quoting.models import QuoteLine, QuoteRevision, Section
from quoting.selectors import (
    ROUNDING_RULE,
    AlternativeDelta,
    Totals,
    line_amount,
    quotes_visible_to,
    revision_alternatives,
    revision_totals,
)
from quoting.services.snapshots import revision_snapshot_current

from .models import DocumentStatus, LinkView, ProposalDocument, ShareLink


@dataclass(frozen=True, slots=True)
class Row:
    line: QuoteLine
    amount: Decimal


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
    rounding_rule: str = ROUNDING_RULE

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
    for line in lines:
        amount = line_amount(
            quantity=line.quantity,
            unit_price=line.unit_price,
            discount_percent=line.discount_percent,
        )
        sections[line.section].append(Row(line, amount))
    chinese = language.startswith("zh")
    promises = [
        (
            ln.description,
            (ln.product.description_zh if chinese else "") or ln.product.description_en,
        )
        for ln in lines
        if ln.section == Section.SUPPORT and ln.product is not None
    ]
    return ProposalContent(
        revision=revision,
        issued=timezone.localdate(revision.sent_at) if revision.sent_at else timezone.localdate(),
        sections=[(s, Section(s).label, rows) for s, rows in sections.items() if rows],
        support_promises=[(name, promise) for name, promise in promises if promise],
        totals=revision_totals(revision=revision, lines=lines),
        alternatives=revision_alternatives(revision=revision, lines=lines),
        design=revision.design_snapshot or None,
        drawing_uri=svg_data_uri(revision.design_drawing) if revision.design_drawing else None,
        tco=revision.tco_snapshot or None,
        tco_charts=[svg_data_uri(chart) for chart in revision.tco_charts or []],
    )


# --- documents -----------------------------------------------------------------------------------


def document_for(*, revision: QuoteRevision, language: str) -> ProposalDocument | None:
    """The document a view of a frozen revision shows: the first ready one, else the first on its
    way (pending or rendering), else None (then proposal_request() makes one)."""
    documents = ProposalDocument.objects.filter(
        revision=revision, language=language,
        status__in=(DocumentStatus.READY, DocumentStatus.PENDING, DocumentStatus.RENDERING),
    )
    ready_first = Case(When(status=DocumentStatus.READY, then=Value(0)), default=Value(1))
    # Not the PDF's bytes: the page asks only whether it is ready (the download reads them).
    return documents.defer("pdf").order_by(ready_first, "pk").first()


def document_ready_for(*, revision: QuoteRevision, language: str) -> ProposalDocument | None:
    """The first PDF made of a frozen revision: the very bytes the customer was sent."""
    return (
        ProposalDocument.objects.filter(
            revision=revision, language=language, status=DocumentStatus.READY
        )
        .order_by("pk")
        .first()
    )


def documents_visible_to(*, user: User) -> QuerySet[ProposalDocument]:
    return ProposalDocument.objects.filter(
        revision__quote__in=quotes_visible_to(user=user).values("pk")
    ).select_related("revision__quote")


# --- share links ---------------------------------------------------------------------------------


def revision_shared(*, link: ShareLink) -> QuoteRevision | None:
    """The quote's latest sent revision: a link never shows a draft."""
    revision = (
        QuoteRevision.objects.filter(quote_id=link.quote_id, sent_at__isnull=False)
        # What a share route reads; the snapshots (large) are read only when the proposal is
        # rendered, once per sent revision and language.
        .only("quote_id", "number", "total", "sent_at", "frozen_at")
        .order_by("-number")
        .first()
    )
    if revision is not None:
        # share_link_resolve() read the link with its quote, customer and project: joining them
        # again cost as much as the rest of the query.
        revision.quote = link.quote
    return revision


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
    link: ShareLink
    recent_views: list[LinkView]


def share_links_for_panel(*, quote, views_per_link: int = 5) -> list[LinkSummary]:
    links = list(quote.share_links.select_related("created_by"))
    summaries = []
    for link in links:
        summaries.append(LinkSummary(link, list(link.views.all()[:views_per_link])))
    return summaries

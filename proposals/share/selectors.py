"""Reads of share links: the share page's one lookup (a single statement per view), the
drawings, and the links the sales user sees on the panel.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from django.db.models import (
    Count,
    IntegerField,
    Prefetch,
    Q,
    Sum,
)
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, Coalesce

from portal.models import CompanyProfile, User
from portal.statements import Statement, columns
from proposals.documents.selectors import SELLER_PRINTED
from proposals.models import (
    OPEN_KINDS_PENDING,
    LinkView,
    OpenKind,
    ShareLink,
)
from proposals.share.engagement import SECTIONS
from quoting.customers.models import Customer, Project
from quoting.designs.svg.fabric import drawing_in
from quoting.quotes.models import (
    Quote,
    QuoteRevision,
)

# --- the share page's one lookup ------------------------------------------------------------------
# A customer's view is this lookup and the recorded open, nothing else (issue 12: the share page
# within a small multiple of a bare Django page): one statement built once (portal.statements).
SHARE_LOOKUP_FIELDS = {
    # recipient_email: whether the accept form asks for a signing code (signer_codes).
    ShareLink: ("id", "quote_id", "expires_at", "revoked_at", "last_used_at", "recipient_email"),
    Quote: (
        "id",
        "number",
        "status",
        "valid_until",
        "currency",
        "current_revision_id",
        "customer_id",
        "project_id",
    ),
    Customer: ("id", "company", "language", "vat_zone"),  # vat_zone: asks for fapiao details
    Project: ("id", "name"),
    QuoteRevision: ("id", "quote_id", "number", "total", "sent_at", "frozen_at", "content_sha256"),
}


@functools.cache
def _share_lookup() -> Statement:
    alias = {ShareLink: "l", Quote: "q", Customer: "c", Project: "p", QuoteRevision: "r"}
    fields, listed = columns(SHARE_LOOKUP_FIELDS, alias)
    table = {model: model._meta.db_table for model in (*alias, User, CompanyProfile)}
    # What seller_printed() reads (the owner's contact, the profile's last edit), in the same
    # statement: the kept document's key changes when the seller block would.
    seller = ", ".join(f'o."{name}"' for name in SELLER_PRINTED)
    sql = (
        f"SELECT {listed}, "  # noqa: S608 - names from the models, the token a parameter
        f"{seller}, "
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
    revision (`link.revision_shown`), in one statement; None when there is none. Live or not is the
    caller's question."""
    found = _share_lookup().row([token_hash])
    if found is None:
        return None
    instances, values = found
    link, quote, revision = instances[ShareLink], instances[Quote], instances[QuoteRevision]
    quote.customer, quote.project = instances[Customer], instances[Project]
    link.quote = revision.quote = quote
    link.revision_shown = revision
    quote.seller_stamp = "|".join(str(value) for value in values)  # as seller_printed() says
    return link


def revision_has_drawing(*, revision: QuoteRevision) -> bool:
    return QuoteRevision.objects.filter(pk=revision.pk).exclude(design_drawing="").exists()


def revision_drawing(*, revision: QuoteRevision, language: str) -> str:
    """The fabric drawing (SVG) of a revision in `language`, read only when asked for: only
    that language's drawing is read, else the one drawing kept (revisions sent before
    drawings were kept per language), as the PDF draws it (drawing_in)."""
    row = (
        QuoteRevision.objects.filter(pk=revision.pk)
        .values_list("design_drawing", KeyTextTransform(language, "design_drawings"))
        .first()
    )
    if row is None:
        return ""
    drawing, in_language = row
    return drawing_in({language: in_language} if in_language else None, drawing, language)


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
            Sum(Cast(KeyTextTransform(name, "views__sections"), IntegerField()), filter=real), 0
        )
        for name in SECTIONS
    }
    links = (
        quote.share_links.select_related("created_by")
        .annotate(
            glance_opens=Count("views", filter=Q(views__kind__in=OPEN_KINDS_PENDING)),
            scanner_opens=Count(
                "views", filter=Q(views__kind__in=[OpenKind.SCANNER, OpenKind.HEAD])
            ),
            reading_seconds=Coalesce(Sum("views__seconds", filter=real), 0),
            **per_section,
        )
        .prefetch_related(
            Prefetch(
                "views",
                queryset=LinkView.objects.order_by("-at", "-pk")[:views_per_link],
                to_attr="recent",
            )
        )
    )
    return [
        LinkSummary(
            link=link,
            recent_views=link.recent,
            glance_opens=link.glance_opens,
            scanner_opens=link.scanner_opens,
            reading_seconds=link.reading_seconds,
            section_seconds=[
                (name, label, getattr(link, f"seconds_{name}")) for name, label in SECTIONS.items()
            ],
        )
        for link in links
    ]

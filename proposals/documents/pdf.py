"""The proposal PDF: our own template, rendered by WeasyPrint with a fetcher that reaches nothing
but `data:` URLs and our asset folder.

User text (customer names, line descriptions) reaches the template, autoescaped; should markup
ever slip through, the fetcher still refuses to read a local file or call a network address.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import logging
import re
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

import weasyprint
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext
from pypdf import PdfReader
from weasyprint.css.counters import CounterStyle
from weasyprint.html import UA as WEASYPRINT_UA
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import FatalURLFetchingError, URLFetcher

from proposals.documents.cid_fonts import cid_fonts_packed
from proposals.documents.selectors import proposal_content
from proposals.documents.signed_copy import (  # noqa: F401 - known by these names here too
    signed_copy_assemble,
    signed_copy_verify,
)
from quoting.quotes.models import QuoteRevision

logger = logging.getLogger(__name__)
# Its progress messages would fill a worker log at INFO.
logging.getLogger("weasyprint.progress").setLevel(logging.WARNING)

ASSET_DIR = (Path(settings.BASE_DIR) / "static" / "proposal").resolve()
TEMPLATE = "proposals/proposal.html"


class FetchRefused(FatalURLFetchingError):
    """A resource outside data: and our asset folder: the render stops (fails closed)."""


class ProposalURLFetcher(URLFetcher):
    def __init__(self, **kwargs) -> None:
        super().__init__(
            allowed_protocols=("data", "file"), allow_redirects=False, timeout=5, **kwargs
        )

    def fetch(self, url, headers=None):
        scheme = url.split(":", 1)[0].lower() if ":" in url else ""
        if scheme == "data":
            return super().fetch(url, headers)
        if scheme == "file" and _inside_assets(url):
            return super().fetch(url, headers)
        raise FetchRefused(f"Refused to fetch {url[:200]!r}: only data: and our own assets.")


def _inside_assets(url: str) -> bool:
    parts = urlsplit(url)
    if parts.netloc not in ("", "localhost"):
        return False
    # resolve() follows symlinks and "..", so a path can only pass by really being inside.
    path = Path(unquote(parts.path)).resolve()
    return path.is_file() and path.is_relative_to(ASSET_DIR)


def _proposal_html(
    *, revision: QuoteRevision, language: str, draft: bool, signatures: dict | None = None
):
    """`signatures`: the signed copy's filled signature block, drawn alone (signature_stamp)."""
    with translation.override(language):
        content = proposal_content(revision=revision, language=language)
        html = render_to_string(
            TEMPLATE,
            {
                "c": content,
                "language": language,
                "logo_src": "logo.svg",
                "for_print": True,
                "draft": draft,
                "signatures": signatures,
            },
        )
    return content, html


def proposal_html(*, revision: QuoteRevision, language: str, draft: bool = False) -> str:
    return _proposal_html(revision=revision, language=language, draft=draft)[1]


# WeasyPrint's default style sheet gives every element of the document a `::marker` and four
# footnote/note pseudo-elements (universal selectors), and computes a style for each: with a
# 200-line bill of materials that is ~10,000 styles nobody draws, a tenth of the render. The
# same sheet with markers on list items only (the only elements that show one) and without the
# footnote rules (a proposal has no footnotes) prints the same document.
_UNIVERSAL_PSEUDO = re.compile(r"^::(?:footnote|note)-[a-z-]+ \{[^}]*\}$", re.MULTILINE)


@functools.cache
def proposal_user_agent_sheet() -> weasyprint.CSS:
    text = _UNIVERSAL_PSEUDO.sub("", WEASYPRINT_UA.replace("\n::marker {", "\nli::marker {"))
    # Its @counter-style rules are WeasyPrint's own, already known to the renderer: parsed into
    # a throw-away registry, not added twice to the shared one.
    return weasyprint.CSS(string=text, counter_style=CounterStyle())


class ProposalHTML(weasyprint.HTML):
    def _ua_stylesheets(self, forms=False):
        return [proposal_user_agent_sheet()]


_fonts = threading.local()


def _font_config() -> FontConfiguration:
    """One font configuration per worker thread, kept across documents: building it (and the
    Pango font map behind it) costs ~20 ms a document. Per thread because Pango's font map is
    not meant to be shared between threads (the embedded mode renders in threads)."""
    if getattr(_fonts, "config", None) is None:
        _fonts.config = FontConfiguration()
    return _fonts.config


def _html(html: str) -> ProposalHTML:
    return ProposalHTML(
        string=html, base_url=ASSET_DIR.as_uri() + "/", url_fetcher=ProposalURLFetcher()
    )


def html_to_pdf(html: str) -> bytes:
    return _html(html).write_pdf(
        presentational_hints=False, font_config=_font_config(), finisher=cid_fonts_packed
    )


@dataclasses.dataclass(frozen=True)
class RenderedProposal:
    pdf: bytes
    content_sha256: str  # of the revision and lines this PDF was rendered from
    frozen: bool  # the revision read was frozen (sent)
    sent_sha256: str  # the fingerprint stored when it was frozen ("" for a draft)


def proposal_rendered(
    *, revision: QuoteRevision, language: str, draft: bool = False
) -> RenderedProposal:
    """The proposal PDF with what it was rendered from. `draft`: "Draft — not an offer" on
    every page (a preview of a revision still being edited)."""
    content, html = _proposal_html(revision=revision, language=language, draft=draft)
    return RenderedProposal(
        pdf=html_to_pdf(html),
        content_sha256=content.content_sha256,
        frozen=content.revision.is_frozen,
        sent_sha256=content.revision.content_sha256,
    )


def proposal_pdf(*, revision: QuoteRevision, language: str, draft: bool = False) -> bytes:
    return proposal_rendered(revision=revision, language=language, draft=draft).pdf


# --- the signed copy -----------------------------------------------------------------------------

# WeasyPrint lays out in CSS pixels; the PDF counts points (72 a inch, 96 pixels).
_POINTS_PER_PX = 0.75


@dataclasses.dataclass(frozen=True)
class SignatureStamp:
    """The proposal's signature block filled in, drawn alone: page `page` (from 0) of `pdf` is
    the proposal laid out again with everything hidden but the filled values, which land where
    the accepted PDF has its blank block; `bbox` is that block in the page's own space (PDF
    points, from the bottom left), outside which the stamp draws nothing."""

    page: int
    bbox: tuple[float, float, float, float]
    pdf: bytes


def signature_stamp(
    *, revision: QuoteRevision, language: str, signatures: dict, original: bytes
) -> SignatureStamp | None:
    """The filled signature block of the revision's proposal, to draw over `original` (the
    accepted PDF). Laid out from the same frozen revision and template, so its block falls on
    the same page at the same place; the values take no room (absolutely placed), so filling
    the block moves nothing. None when the proposal prints no block, or when the accepted
    PDF's page of the block does not show it (rendered by another layout: a misplaced stamp
    is worse than none; the certificate still records the signatures)."""
    _content, html = _proposal_html(
        revision=revision, language=language, draft=False, signatures=signatures
    )
    document = _html(html).render(presentational_hints=False, font_config=_font_config())
    found = next(
        (
            (number, page, box)
            for number, page in enumerate(document.pages)
            for box in page._page_box.descendants()
            if box.element_tag == "table"
            and "signature-block" in (box.element.get("class") or "").split()
        ),
        None,
    )
    if found is None:
        return None
    number, page, block = found
    with translation.override(language):
        label = "".join(gettext("Signature and company seal").split())
    pages = PdfReader(io.BytesIO(original)).pages
    if number >= len(pages) or label not in "".join((pages[number].extract_text()).split()):
        logger.warning("%s: the accepted PDF shows no signature block on page %s", revision, number)
        return None
    left, top = block.position_x, block.position_y
    right, bottom = left + block.margin_width(), top + block.margin_height()
    bbox = tuple(
        round(value * _POINTS_PER_PX, 2)
        for value in (left, page.height - bottom, right, page.height - top)
    )
    return SignatureStamp(page=number, bbox=bbox, pdf=document.write_pdf(finisher=cid_fonts_packed))


CERTIFICATE_TEMPLATE = "proposals/certificate.html"


def certificate_pdf(*, context: dict, language: str) -> bytes:
    """The certificate page: who signed what, when, from where, with which choices."""
    with translation.override(language):
        html = render_to_string(CERTIFICATE_TEMPLATE, {**context, "language": language})
    return html_to_pdf(html)

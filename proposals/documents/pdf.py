"""The proposal PDF: our own template, rendered by WeasyPrint (renderer.py, imported on the first
render) with a fetcher that reaches nothing but `data:` URLs and our asset folder (fetching.py).

User text (customer names, line descriptions) reaches the template, autoescaped; should markup
ever slip through, the fetcher still refuses to read a local file or call a network address.
"""

from __future__ import annotations

import dataclasses
import io
import logging
from typing import TYPE_CHECKING

from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext, pgettext
from pypdf import PdfReader

from proposals.documents.fetching import (  # noqa: F401 - known by these names here too
    ASSET_DIR,
    FetchRefused,
)
from proposals.documents.selectors import parties_printed, proposal_content, seller_for
from proposals.documents.signed_copy import (  # noqa: F401 - known by these names here too
    signed_copy_assemble,
    signed_copy_verify,
)
from quoting.quotes.models import QuoteRevision

if TYPE_CHECKING:
    import weasyprint

logger = logging.getLogger(__name__)

TEMPLATE = "proposals/proposal.html"


def _proposal_html(
    *,
    revision: QuoteRevision,
    language: str,
    draft: bool,
    signatures: dict | None = None,
    parties: dict | None = None,
):
    """`signatures`: the signed copy's filled signature block, drawn alone (the fallback of
    signature_stamp); `parties`: the names its party row printed (selectors.parties_of), None:
    today's."""
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
                "parties": parties,
            },
        )
    return content, html


def proposal_html(*, revision: QuoteRevision, language: str, draft: bool = False) -> str:
    return _proposal_html(revision=revision, language=language, draft=draft)[1]


def _laid_out(html: str) -> weasyprint.Document:
    # WeasyPrint is imported by the first render, not with the app (renderer.py says why).
    from proposals.documents import renderer

    return renderer.laid_out(html)


def _written(document: weasyprint.Document) -> bytes:
    from proposals.documents import renderer

    return renderer.written(document)


def html_to_pdf(html: str) -> bytes:
    return _written(_laid_out(html))


@dataclasses.dataclass(frozen=True)
class RenderedProposal:
    pdf: bytes
    content_sha256: str  # of the revision and lines this PDF was rendered from
    frozen: bool  # the revision read was frozen (sent)
    sent_sha256: str  # the fingerprint stored when it was frozen ("" for a draft)
    # Where this PDF prints its signature block (signature_block_position); {}: it prints none.
    signature_block: dict = dataclasses.field(default_factory=dict)
    # The names its party row prints (selectors.parties_printed).
    parties: dict = dataclasses.field(default_factory=dict)


def proposal_rendered(
    *, revision: QuoteRevision, language: str, draft: bool = False
) -> RenderedProposal:
    """The proposal PDF with what it was rendered from. `draft`: "Draft — not an offer" on
    every page (a preview of a revision still being edited)."""
    content, html = _proposal_html(revision=revision, language=language, draft=draft)
    document = _laid_out(html)
    return RenderedProposal(
        pdf=_written(document),
        content_sha256=content.content_sha256,
        frozen=content.revision.is_frozen,
        sent_sha256=content.revision.content_sha256,
        signature_block=signature_block_position(document),
        parties=parties_printed(content),
    )


def proposal_pdf(*, revision: QuoteRevision, language: str, draft: bool = False) -> bytes:
    return proposal_rendered(revision=revision, language=language, draft=draft).pdf


# --- the signed copy -----------------------------------------------------------------------------

# WeasyPrint lays out in CSS pixels; the PDF counts points (72 a inch, 96 pixels).
_POINTS_PER_PX = 0.75
STAMP_TEMPLATE = "proposals/signature_stamp.html"


@dataclasses.dataclass(frozen=True)
class SignatureStamp:
    """The proposal's signature block filled in, drawn alone, to go over page `page` (from 0)
    of the accepted PDF: `bbox` is the block there, in the page's own space (PDF points, from
    the bottom left), outside which the stamp draws nothing. The drawing is page `pdf_page` of
    `pdf`, moved by `offset` (points): the block rendered on a page of its own size is moved to
    the block's corner; the proposal laid out again (the fallback) only by as far as the accepted
    PDF prints its block up or down from where today's templates put it."""

    page: int
    bbox: tuple[float, float, float, float]
    pdf: bytes
    pdf_page: int = 0
    offset: tuple[float, float] = (0.0, 0.0)


def _signature_block_box(document: weasyprint.Document):
    """(page number from 0, page, the table's box) of the proposal's signature block, or None."""
    return next(
        (
            (number, page, box)
            for number, page in enumerate(document.pages)
            for box in page._page_box.descendants()
            if box.element_tag == "table"
            and "signature-block" in (box.element.get("class") or "").split()
        ),
        None,
    )


def _points(page, block) -> tuple[float, ...]:
    """The block's margin box in the page's PDF space: points, from the bottom left."""
    left, top = block.position_x, block.position_y
    right, bottom = left + block.margin_width(), top + block.margin_height()
    return tuple(
        round(value * _POINTS_PER_PX, 2)
        for value in (left, page.height - bottom, right, page.height - top)
    )


def signature_block_position(document: weasyprint.Document) -> dict:
    """Where the laid-out proposal prints its signature block, recorded with the PDF when it is
    rendered (ProposalDocument.signature_block): {"page": from 0, "bbox": [x0, y0, x1, y1] in
    PDF points from the bottom left, "page_size": [width, height] in points}; {} when it prints
    none. The stamp is drawn there later, whatever the templates have become by then."""
    found = _signature_block_box(document)
    if found is None:
        return {}
    number, page, block = found
    return {
        "page": number,
        "bbox": list(_points(page, block)),
        "page_size": [
            round(page.width * _POINTS_PER_PX, 2),
            round(page.height * _POINTS_PER_PX, 2),
        ],
    }


def signature_stamp(
    *,
    revision: QuoteRevision,
    language: str,
    signatures: dict,
    original: bytes,
    position: dict | None = None,
    parties: dict | None = None,
) -> SignatureStamp | None:
    """The filled signature block of the revision's proposal, to draw over `original` (the
    accepted PDF) at `position`, the block's place recorded when `original` was rendered
    (signature_block_position): only the block is rendered, on a page of its own size, so a
    later change of the templates cannot move the stamp off the printed block, and a stamp
    costs a small render, not the whole proposal's. None when the proposal prints no block
    ({}), or when `original` has no page of the recorded size there (a misplaced stamp is worse
    than none; the certificate still records the signatures).

    `position` None: a PDF rendered before positions were recorded; the proposal is laid out
    again and its block checked against `original` (_signature_stamp_relaid).

    `parties`: the names `original` printed in the block's party row (selectors.parties_of), so
    the stamp's rows sit where the accepted page's do whatever the company profile or the
    customer's name has become; None (not recorded): today's."""
    if position is None:
        return _signature_stamp_relaid(
            revision=revision,
            language=language,
            signatures=signatures,
            original=original,
            parties=parties,
        )
    if not position:
        return None
    number, bbox = position["page"], tuple(float(v) for v in position["bbox"])
    pages = PdfReader(io.BytesIO(original)).pages
    box = pages[number].mediabox if number < len(pages) else None
    recorded = [float(v) for v in position["page_size"]]
    if (
        box is None
        or max(abs(float(box.width) - recorded[0]), abs(float(box.height) - recorded[1])) > 0.5
    ):
        logger.warning("%s: the accepted PDF has no page %s of the recorded size", revision, number)
        return None
    width, height = bbox[2] - bbox[0], bbox[3] - bbox[1]
    quote = revision.quote
    with translation.override(language):
        html = render_to_string(
            STAMP_TEMPLATE,
            {
                "language": language,
                "page_size": f"{width:.2f}pt {height:.2f}pt",
                "signatures": signatures,
                "parties": parties,
                "s": seller_for(
                    owner=quote.owner, language=language, profile=revision.company_profile
                ),
                "q": quote,
            },
        )
    return SignatureStamp(
        page=number, bbox=bbox, pdf=html_to_pdf(html), pdf_page=0, offset=(bbox[0], bbox[1])
    )


def _signature_stamp_relaid(
    *,
    revision: QuoteRevision,
    language: str,
    signatures: dict,
    original: bytes,
    parties: dict | None = None,
) -> SignatureStamp | None:
    """The fallback for an accepted PDF without a recorded position (rendered before they were
    recorded, #27): the whole proposal laid out again from the same frozen revision with today's
    templates, everything hidden but the filled values (absolutely placed, they move nothing),
    and its block found. The block's own words under the filled values (its rows' labels: name,
    title, date, signature) are then looked for where the accepted PDF prints them, on the same
    page: a block moved straight up or down on its page (content added or removed above it
    since), all those words moved by one distance, gets the stamp moved by that distance;
    anything else (the block on another page, moved sideways, or its rows drawn differently
    since) gets no stamp rather than a misplaced one. Kept so that nothing accepted before
    places were recorded breaks."""
    _content, html = _proposal_html(
        revision=revision, language=language, draft=False, signatures=signatures, parties=parties
    )
    document = _laid_out(html)
    found = _signature_block_box(document)
    if found is None:
        return None
    number, page, block = found
    with translation.override(language):
        label = "".join(gettext("Signature and company seal").split())
        # The rows' own words, under the filled values (the headers are not read back as
        # printed: upper-cased, and run together on one line by the PDF's text extraction).
        rows = (pgettext("person", "Name"), pgettext("job title", "Title"), gettext("Date"))
        words = {label, *("".join(text.split()) for text in rows)}
    pages = PdfReader(io.BytesIO(original)).pages
    shift = (
        _block_shift(
            _laid_out_words(page, block, words), _printed_words(pages[number], words), label
        )
        if number < len(pages)
        else None
    )
    if shift is None:
        logger.warning(
            "%s: the accepted PDF does not print the signature block as laid out again on page %s",
            revision,
            number,
        )
        return None
    x0, y0, x1, y1 = _points(page, block)
    return SignatureStamp(
        page=number,
        bbox=(x0, round(y0 + shift, 2), x1, round(y1 + shift, 2)),
        pdf=_written(document),
        pdf_page=number,
        offset=(0.0, round(shift, 2)),
    )


# How far apart (points) the same word may be printed and still count as the same place: the
# PDF's own rounding, well under a line.
_SAME_PLACE = 1.0


def _laid_out_words(page, block, words: set[str]) -> list[tuple[str, float, float]]:
    """Where the laid-out block prints each of `words` (whitespace ignored): (word, x, y) of its
    baseline's start, in PDF points from the bottom left, as WeasyPrint draws it."""
    from weasyprint.formatting_structure.boxes import TextBox  # laid out: WeasyPrint is loaded

    return [
        (
            key,
            box.position_x * _POINTS_PER_PX,
            (page.height - box.position_y - box.baseline) * _POINTS_PER_PX,
        )
        for box in block.descendants()
        if isinstance(box, TextBox) and (key := "".join(box.text.split())) in words
    ]


def _printed_words(pdf_page, words: set[str]) -> list[tuple[str, float, float]]:
    """Where a PDF page prints each of `words` (whitespace ignored): (word, x, y) of its
    baseline's start, in PDF points from the bottom left."""
    printed = []

    def visit(text, cm, tm, _font, _size):
        if (key := "".join(text.split())) in words:
            x, y = tm[4], tm[5]
            printed.append((key, x * cm[0] + y * cm[2] + cm[4], x * cm[1] + y * cm[3] + cm[5]))

    pdf_page.extract_text(visitor_text=visit)
    return printed


def _block_shift(laid_out: list, printed: list, label: str) -> float | None:
    """How far up (points) the accepted page prints the block than the new layout does, or None
    when it does not print it so moved: its signature labels (`label`, once a column) each
    moved by one vertical distance, and every other word of the block printed moved by the same
    (the rows under the filled values kept their places within the block). Other words the
    page prints elsewhere are no matter."""

    def labels(found):  # paired column by column, left to right
        return sorted((x, y) for word, x, y in found if word == label)

    mine, theirs = labels(laid_out), labels(printed)
    if not mine or len(mine) != len(theirs):
        return None
    shifts = [y1 - y0 for (_x0, y0), (_x1, y1) in zip(mine, theirs, strict=True)]
    if max(shifts) - min(shifts) > _SAME_PLACE or any(
        abs(x1 - x0) > _SAME_PLACE for (x0, _y0), (x1, _y1) in zip(mine, theirs, strict=True)
    ):
        return None
    shift = sum(shifts) / len(shifts)
    for word, x, y in laid_out:
        if not any(
            other == word and abs(px - x) <= _SAME_PLACE and abs(py - y - shift) <= _SAME_PLACE
            for other, px, py in printed
        ):
            return None
    return 0.0 if abs(shift) <= _SAME_PLACE else shift


CERTIFICATE_TEMPLATE = "proposals/certificate.html"


def certificate_pdf(*, context: dict, language: str) -> bytes:
    """The certificate page: who signed what, when, from where, with which choices."""
    with translation.override(language):
        html = render_to_string(CERTIFICATE_TEMPLATE, {**context, "language": language})
    return html_to_pdf(html)

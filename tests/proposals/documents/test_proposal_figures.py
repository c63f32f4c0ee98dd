"""What a rich proposal prints, in both languages: every TCO column on the A4 page, the design's
figures grouped and scaled, and in Chinese the total in words.

Each language's proposal (a quote of a real design with a cluster's worth of TCO costs) is made
and rendered once for the module, on `module_world`: a render takes seconds, and these tests
only read it."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import weasyprint
from django.db import transaction
from django.template.defaultfilters import floatformat
from django.utils import translation

from proposals.documents.pdf import ASSET_DIR, proposal_html, proposal_pdf
from proposals.documents.renderer import ProposalURLFetcher
from proposals.documents.selectors import proposal_content
from quoting.quotes.models import QuoteRevision
from quoting.templatetags.quoting_numbers import rmb_in_words
from tests.proposals.conftest import pdf_text, quote_rich

# A cluster's worth of money: the widest figures a TCO table prints.
BIG_COSTS = {"server_capex": "239616000", "services_capex": "1250000"}


def flat(text: str) -> str:
    return " ".join(text.split())


def cells_past_the_right_margin(html: str) -> list[str]:
    """The text of every table cell that reaches beyond the page's printable width (WeasyPrint
    lays it out, and clips it when printed). Reads the layout tree, which WeasyPrint keeps
    on each page: the PDF itself only says where a line of text starts."""
    document = weasyprint.HTML(
        string=html, base_url=ASSET_DIR.as_uri() + "/", url_fetcher=ProposalURLFetcher()
    ).render()

    def descendants(box):
        for child in getattr(box, "children", ()):
            yield child
            yield from descendants(child)

    beyond = []
    for page in document.pages:
        page_box = page._page_box
        right = page_box.margin_width() - page_box.margin_right
        for box in descendants(page_box):
            cell = type(box).__name__ == "TableCellBox"
            if cell and box.position_x + box.margin_width() > right + 0.5:
                beyond.append("".join(getattr(b, "text", "") for b in descendants(box)))
    return beyond


@dataclass(frozen=True)
class RichProposal:
    language: str
    revision: QuoteRevision  # read again after the render, which keeps its TCO snapshot
    html: str
    text: str  # the PDF's text, whitespace as extracted


@pytest.fixture(scope="module", params=["en", "zh-hans"])
def rich_proposal(request, module_world, django_db_blocker):
    """The sent rich quote's proposal in one language, its HTML and its PDF's text; its rows are
    rolled back before the other language's are made."""
    language = request.param
    with django_db_blocker.unblock(), transaction.atomic():
        revision = quote_rich(module_world, language=language, costs=BIG_COSTS).current_revision
        html = proposal_html(revision=revision, language=language)
        text = pdf_text(proposal_pdf(revision=revision, language=language))
        revision.refresh_from_db()
        yield RichProposal(language=language, revision=revision, html=html, text=text)
        transaction.set_rollback(True)


# --- the TCO table -------------------------------------------------------------------------------


def test_every_tco_column_fits_the_a4_page_in_both_languages(db, rich_proposal):
    language = rich_proposal.language
    assert cells_past_the_right_margin(rich_proposal.html) == []

    text = flat(rich_proposal.text)
    options = rich_proposal.revision.tco_snapshot["options"]
    with translation.override(language):
        five_years = [floatformat(o["tco_n_years"], "0g") for o in options]
    if language == "en":
        # A hand-picked scenario (this quote's) prices servers and network together.
        headers = (
            "FABRIC OPTION",
            "NETWORK EFFICIENCY",
            "CAPEX, SERVERS AND NETWORK",
            "ANNUAL COST",
            "COST PER EFFECTIVE GPU-HOUR",
            "VALUE LOST PER YEAR",
            "TCO OVER 5 YEARS",
        )
    else:
        headers = (
            "组网方案",
            "网络效率",
            "资本支出（服务器与网络合计）",
            "年度成本",
            "每有效GPU小时成本",
            "每年损失价值",
            "5年总拥有成本",
        )
        text = "".join(text.split())  # Chinese headings wrap between any two characters
    for header in headers:
        assert header in text, header
    for figure in five_years:
        assert len(figure) >= 11 and figure in text, figure  # 240,866,... in full, not clipped


# --- figures -------------------------------------------------------------------------------------


def test_design_figures_are_grouped_and_scaled_in_the_pdf(db, rich_proposal):
    text = flat(rich_proposal.text)

    # 128 x 400G: 51.2 Tb/s in, half across the spine layer; 8,022 / 13,912 W (4 leaves of two
    # rails and 2 spines)
    assert "51.2 Tb/s / 25.6 Tb/s" in text
    assert "8 kW / 13.9 kW" in text
    assert "1:1" in text and "1.0:1" not in text and "1.0 :1" not in text
    assert "131,072" in text and "131072" not in text  # tokens per step, an assumption
    assert "239,616,000" in text and "239616000" not in text  # server capex, an assumption


# --- amounts in words ----------------------------------------------------------------------------


@pytest.mark.parametrize("rich_proposal", ["zh-hans"], indirect=True)
def test_a_chinese_pdf_prints_the_cny_total_in_words(db, rich_proposal):
    text = "".join(rich_proposal.text.split())

    total = proposal_content(revision=rich_proposal.revision, language="zh-hans").totals.total
    assert "金额大写" in text and rmb_in_words(total) in text
    assert rmb_in_words(total).endswith(("分", "角", "元整"))

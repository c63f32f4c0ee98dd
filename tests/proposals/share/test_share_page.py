"""The customer's share page (issue 14): the sent revision stays answerable while sales draft the
next one, the reader chooses the language, declining is confirmed, the drawing opens full size,
and (issue 12) a view reads a body rendered once per revision and language."""

from __future__ import annotations

import re

import pytest

from proposals.documents.pdf import proposal_html
from proposals.models import ProposalDocument
from proposals.share import pages
from proposals.share.pages import screen_ready
from proposals.share.services import share_link_create
from quoting.designs.services.snapshots import SNAPSHOT_VERSION
from quoting.quotes.models import Quote, QuoteRevision, QuoteStatus, Section
from quoting.quotes.services.quotes import (
    quote_add_free_text,
    quote_approve,
    quote_request_approval,
    quote_revise,
    quote_send,
)
from tests.proposals.choice_world import quote_with_choices
from tests.proposals.conftest import quote_sent, quote_with_lines
from tests.quoting.factories import quote_reload

ACCEPT = {"revision": 1, "name": "Li Wei", "title": "CTO", "agreed": "on"}


@pytest.fixture
def shared(world, sent_quote):
    """(quote, token) of a sent quote shared with its customer."""
    return sent_quote, share_link_create(quote=sent_quote, user=world.sales)[1]


def _draft_next_revision(quote, user):
    """Sales open R2 and change it, without sending it."""
    quote = quote_reload(quote)
    quote_revise(quote=quote, user=user, expected_version=quote.version)
    quote_add_free_text(
        quote=quote,
        description="Second thoughts",
        quantity=1,
        unit_price="10.00",
        user=user,
        expected_version=quote.version,
    )
    return quote_reload(quote)


# --- answerable until a newer revision is sent ---------------------------------------------------


def test_the_sent_revision_stays_answerable_while_the_next_one_is_drafted(client, world, shared):
    quote, token = shared
    drafted = _draft_next_revision(quote, world.sales)
    assert drafted.status == QuoteStatus.DRAFT and drafted.current_revision.label == "R2"

    page = client.get(f"/p/{token}?lang=en").content.decode()
    assert 'action="/p/' in page and "Accept this offer" in page  # the forms, not a refusal
    response = client.post(f"/p/{token}/accept", ACCEPT)

    assert response.status_code == 302
    accepted = quote_reload(quote)
    assert accepted.status == QuoteStatus.ACCEPTED
    assert accepted.current_revision.label == "R1"  # the offer they read is the one accepted
    draft = QuoteRevision.objects.get(quote=quote, number=2)
    assert draft.sent_at is None  # set aside, kept as a record of the work


def test_a_decline_while_drafting_keeps_the_draft_for_the_next_edit(client, world, shared):
    quote, token = shared
    _draft_next_revision(quote, world.sales)
    client.post(f"/p/{token}/decline", {"revision": 1, "reason": "Too dear", "confirmed": "True"})
    declined = quote_reload(quote)
    assert declined.status == QuoteStatus.DECLINED and declined.current_revision.label == "R1"

    # Sales go on with their draft: the next edit resumes R2 (no R3 copied from R1).
    quote_add_free_text(
        quote=declined,
        description="Better price",
        quantity=1,
        unit_price="5.00",
        user=world.sales,
        expected_version=declined.version,
    )
    resumed = quote_reload(quote)
    assert resumed.status == QuoteStatus.DRAFT and resumed.current_revision.label == "R2"
    assert {"Second thoughts", "Better price"} <= set(
        resumed.current_revision.lines.values_list("description", flat=True)
    )
    assert not QuoteRevision.objects.filter(quote=quote, number=3).exists()

    quote_send(quote=resumed, user=world.sales, expected_version=resumed.version)
    page = client.get(f"/p/{token}?lang=en").content.decode()
    assert "R2" in page and 'name="revision" value="2"' in page  # the new offer, answerable


def test_once_a_newer_revision_is_sent_the_old_one_is_refused_in_the_readers_language(
    client, world, shared
):
    quote, token = shared
    drafted = _draft_next_revision(quote, world.sales)
    quote_send(quote=drafted, user=world.sales, expected_version=drafted.version)

    english = client.post(f"/p/{token}/accept?lang=en", ACCEPT)
    chinese = client.post(f"/p/{token}/accept?lang=zh-hans", ACCEPT)

    assert english.status_code == chinese.status_code == 409
    assert "replaced by a newer one" in english.content.decode()
    refusal = chinese.content.decode()
    assert "replaced by a newer one" not in refusal and "已被更新的版本取代" in refusal
    assert quote_reload(quote).status == QuoteStatus.SENT


def test_an_answer_to_an_accepted_offer_is_refused_in_chinese(client, shared):
    quote, token = shared
    Quote.objects.filter(pk=quote.pk).update(status=QuoteStatus.ACCEPTED)
    refusal = client.post(f"/p/{token}/accept?lang=zh-hans", ACCEPT).content.decode()
    assert "已被接受" in refusal and "already been accepted" not in refusal


# --- the reader's language -----------------------------------------------------------------------


def test_the_page_defaults_to_the_customers_language_and_the_reader_may_switch(
    client, world, shared
):
    quote, token = shared
    world.customer.language = "zh-hans"
    world.customer.save()

    default = client.get(f"/p/{token}")
    english = client.get(f"/p/{token}?lang=en")
    unknown = client.get(f"/p/{token}?lang=xx")

    assert default["Content-Language"] == "zh-hans"
    assert '<html lang="zh-hans">' in default.content.decode()
    assert english["Content-Language"] == "en" and "Executive summary" in english.content.decode()
    assert unknown["Content-Language"] == "zh-hans"  # an unknown choice falls back, no error
    switch = english.content.decode()
    assert f'href="/p/{token}?lang=zh-hans"' in switch and f'href="/p/{token}?lang=en"' in switch
    assert f"/p/{token}/pdf?lang=en" in switch or "being prepared" in switch


def test_the_send_renders_the_pdf_in_each_language_and_the_link_downloads_them(
    client, world, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):  # eager Celery renders on commit
        quote = quote_sent(world)
    languages = set(
        ProposalDocument.objects.filter(
            revision=quote.current_revision, status="ready"
        ).values_list("language", flat=True)
    )
    assert languages == {"en", "zh-hans"}
    _, token = share_link_create(quote=quote, user=world.sales)
    rows = list(ProposalDocument.objects.order_by("pk").values_list("pk", "status"))
    english, chinese = (client.get(f"/p/{token}/pdf?lang={lang}") for lang in ("en", "zh-hans"))
    assert english.status_code == chinese.status_code == 200
    assert english.content != chinese.content
    assert "-en.pdf" in english["Content-Disposition"]
    assert "-zh-hans.pdf" in chinese["Content-Disposition"]
    for response, language in ((english, "en"), (chinese, "zh-hans")):
        assert response.content == bytes(
            ProposalDocument.objects.get(revision=quote.current_revision, language=language).pdf
        )
    # Downloading only reads: no document made, none changed.
    assert list(ProposalDocument.objects.order_by("pk").values_list("pk", "status")) == rows


# --- declining is confirmed ----------------------------------------------------------------------


def test_declining_asks_for_confirmation_before_anything_is_recorded(client, shared):
    quote, token = shared
    asked = client.post(f"/p/{token}/decline?lang=en", {"revision": 1, "reason": "Over budget"})
    assert asked.status_code == 200
    page = asked.content.decode()
    assert "Decline this offer?" in page and 'name="confirmed" value="True"' in page
    assert "Over budget" in page  # the reason is carried to the confirmation
    assert quote_reload(quote).status == QuoteStatus.SENT

    client.post(
        f"/p/{token}/decline?lang=en", {"revision": 1, "reason": "Over budget", "confirmed": "True"}
    )
    assert quote_reload(quote).status == QuoteStatus.DECLINED


def test_a_bad_decline_is_a_clear_400_not_a_confirmation(client, shared):
    quote, token = shared
    response = client.post(f"/p/{token}/decline?lang=en", {"revision": "x", "reason": "no"})
    assert response.status_code == 400
    assert quote_reload(quote).status == QuoteStatus.SENT


# --- the drawing ---------------------------------------------------------------------------------


SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="1600" height="900"><text>leaf-01</text></svg>'


def test_the_drawing_opens_full_size_on_its_own_page(client, shared):
    quote, token = shared
    QuoteRevision.objects.filter(pk=quote.current_revision_id).update(
        design_drawing=SVG,
        design_snapshot={"gpu_count": 128, "node_count": 16, "tiers": 2},
        snapshot_version=SNAPSHOT_VERSION,
    )
    page = client.get(f"/p/{token}?lang=en").content.decode()
    assert f'href="/p/{token}/drawing?lang=en"' in page  # the link, with this link's own path
    assert "data:image/svg+xml" not in page  # the drawing is not inlined in the page any more

    full = client.get(f"/p/{token}/drawing?lang=en")
    svg = client.get(f"/p/{token}/drawing.svg")
    assert full.status_code == 200 and f'src="/p/{token}/drawing.svg' in full.content.decode()
    assert svg.status_code == 200 and svg["Content-Type"].startswith("image/svg+xml")
    assert b"leaf-01" in svg.content
    assert "default-src 'none'" in svg["Content-Security-Policy"]


SVG_ZH = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="1600" height="900"><text>叶交换机</text></svg>'
)


def test_the_drawing_on_the_share_page_is_drawn_in_the_readers_language(client, shared):
    quote, token = shared
    QuoteRevision.objects.filter(pk=quote.current_revision_id).update(
        design_drawing=SVG,
        design_drawings={"en": SVG, "zh-hans": SVG_ZH},
        design_snapshot={"gpu_count": 128, "node_count": 16, "tiers": 2},
        snapshot_version=SNAPSHOT_VERSION,
    )
    page = client.get(f"/p/{token}?lang=zh-hans").content.decode()
    assert f'src="/p/{token}/drawing.svg?lang=zh-hans"' in page

    chinese = client.get(f"/p/{token}/drawing.svg?lang=zh-hans").content.decode()
    english = client.get(f"/p/{token}/drawing.svg?lang=en").content.decode()
    assert "叶交换机" in chinese and "leaf-01" not in chinese
    assert "leaf-01" in english


def test_a_drawing_kept_in_one_language_only_is_shown_in_every_language(client, shared):
    quote, token = shared
    QuoteRevision.objects.filter(pk=quote.current_revision_id).update(
        design_drawing=SVG,
        design_drawings=None,
        design_snapshot={"gpu_count": 128, "node_count": 16, "tiers": 2},
        snapshot_version=SNAPSHOT_VERSION,
    )
    assert b"leaf-01" in client.get(f"/p/{token}/drawing.svg?lang=zh-hans").content


def test_a_quote_without_a_drawing_has_no_drawing_page(client, shared):
    _, token = shared
    assert client.get(f"/p/{token}/drawing").status_code == 404
    assert client.get(f"/p/{token}/drawing.svg").status_code == 404


# --- made for screens once -----------------------------------------------------------------------


def test_every_cell_under_a_table_header_names_its_column():
    html = (
        '<table class="lines"><thead><tr><th>#</th><th class="num">Unit &amp; price</th></tr>'
        '</thead><tbody><tr><td>1</td><td class="num">1,234.50</td></tr></tbody></table>'
        '<table class="figures"><tbody><tr><th>GPUs</th><td>128</td></tr></tbody></table>'
        '<p>a &lt;b&gt; &#169; text</p><figure class="drawing"><img src="x.svg" alt="d"></figure>'
    )
    ready = screen_ready(html, drawing_href="/p/t/drawing", drawing_caption="Full size")
    assert '<td data-label="#">1</td>' in ready
    assert '<td class="num" data-label="Unit &amp; price">1,234.50</td>' in ready
    assert "<th>GPUs</th><td>128</td>" in ready  # no header row: left alone
    assert "<p>a &lt;b&gt; &#169; text</p>" in ready  # text passes through unchanged
    assert '<a class="drawing-link" href="/p/t/drawing"><img src="x.svg" alt="d"></a>' in ready
    assert '<figcaption><a href="/p/t/drawing">Full size</a></figcaption></figure>' in ready


def test_text_that_looks_like_the_marker_cannot_reach_the_link_path(client, world):
    quote = quote_sent(world, descriptions=("share-deadbeef", "<b>bold</b>"))
    _, token = share_link_create(quote=quote, user=world.sales)
    page = client.get(f"/p/{token}?lang=en").content.decode()
    assert "share-deadbeef" in page and "&lt;b&gt;bold&lt;/b&gt;" in page


# --- a view costs the lookup and the recorded open (issue 12) ------------------------------------


def _second_view_queries(
    client, world, lines, django_assert_max_num_queries, monkeypatch, captured
):
    quote = quote_with_lines(world, lines, send=True)
    _, token = share_link_create(quote=quote, user=world.sales)
    with captured(execute=True):
        assert client.get(f"/p/{token}").status_code == 200  # renders once, keeps it
    monkeypatch.setattr(pages, "render_to_string", _no_rendering)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/p/{token}")
    assert response.status_code == 200 and quote.number in response.content.decode()
    monkeypatch.undo()
    return [q["sql"] for q in queries.captured_queries]


def _no_rendering(*args, **kwargs):
    raise AssertionError("the document body was rendered again")


def test_a_second_view_reads_the_kept_body_in_a_few_queries_whatever_the_lines(
    client, world, monkeypatch, django_assert_max_num_queries, django_capture_on_commit_callbacks
):
    small = _second_view_queries(
        client,
        world,
        3,
        django_assert_max_num_queries,
        monkeypatch,
        django_capture_on_commit_callbacks,
    )
    large = _second_view_queries(
        client,
        world,
        200,
        django_assert_max_num_queries,
        monkeypatch,
        django_capture_on_commit_callbacks,
    )
    statements = [s for s in large if not s.startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]
    # The link (hashed token) with its revision; the open (one statement on PostgreSQL, an
    # insert and a count elsewhere); whether a webhook listens.
    assert len(statements) <= 4, statements
    assert len(small) == len(large)
    assert not any("quoting_quoteline" in s or "proposals_proposaldocument" in s for s in large)


# --- a long offer on a phone (#27 item 5) --------------------------------------------------------


def test_the_page_folds_each_section_with_its_count_and_subtotal_and_the_pdf_prints_tables(
    client, world
):
    quote = quote_with_choices(world)
    _, token = share_link_create(quote=quote, user=world.sales)
    page = client.get(f"/p/{token}?lang=en").content.decode()

    folds = r'<details class="fold bom-group" data-group="(\w+)"><summary>(.*?)</summary>'
    summaries = dict(re.findall(folds, page, re.S))
    assert list(summaries) == ["network", "services", "optional", "alternatives"]
    text = {key: " ".join(re.sub(r"<[^>]+>", " ", html).split()) for key, html in summaries.items()}
    assert text["network"] == f"Network 1 line 200,000.00 {quote.currency}"  # 2 x 100,000.00
    assert text["services"] == f"Services 1 line 12,345.67 {quote.currency}"
    # 3 x 999.99 less 7.5 % (2,774.97), and 8,000.00: offered, outside the totals
    assert text["optional"] == f"Optional items 2 lines 10,774.97 {quote.currency}"
    # Each alternative's own subtotal: the section's sum would add up options one cannot combine.
    currency = quote.currency
    assert text["alternatives"] == (
        f"Alternatives 3 lines Better: 234,321.09 {currency} Best: 460,000.00 {currency}"
    )
    assert '<details class="fold bom-group" data-group="network" open' not in page
    # Two optional items to tick: a short list, shown open.
    assert '<details class="fold choice-fold" open>' in page

    printed = proposal_html(revision=quote.current_revision, language="en")
    assert "<details" not in printed and "<h3>Network</h3>" in printed


def test_a_long_list_of_optional_items_to_tick_folds(client, world):
    quote = quote_with_choices(world, send=False)
    for n in range(4):
        quote_add_free_text(
            quote=quote,
            description=f"Spare transceiver {n}",
            quantity=1,
            unit_price="500.00",
            section=Section.OPTIONAL,
            user=world.sales,
            expected_version=quote.version,
        )
    quote_request_approval(quote=quote, user=world.sales, expected_version=quote.version)
    quote_approve(quote=quote, user=world.manager)
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    _, token = share_link_create(quote=quote, user=world.sales)
    page = client.get(f"/p/{token}?lang=zh-hans").content.decode()
    assert '<details class="fold choice-fold">' in page
    assert "可选 6 项" in page
    assert page.count('name="optional"') == 6  # folded, every one still ticks into the form

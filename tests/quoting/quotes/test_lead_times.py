"""A revision's expected lead time (issue 26): the longest of the catalog's lead times among the
lines in the totals. The staff's quote page shows it, or names the lines whose lead time is
unknown; the proposal, the share page and the workbook's Terms print "Delivery: about N weeks
after order" only when every one is known, never a guess, and the quote.sent webhook says it
(`sent.lead_time_weeks`, null when none prints). Frozen with the revision when it is sent
(fingerprint version 6): a later catalog change alters no sent offer."""

from __future__ import annotations

import pytest

from catalog.models import Category, Product
from proposals.documents.selectors import proposal_content
from proposals.share.services import share_link_create
from quoting.quotes import content_hash
from quoting.quotes.models import QuoteRevision, Section
from quoting.quotes.selectors import revision_content_fingerprint, revision_lead_time
from quoting.quotes.services.quotes import (
    quote_add_free_text,
    quote_add_product,
    quote_create,
    quote_send,
)
from tests.proposals.conftest import pdf_text, sent_pdf
from tests.quoting.api_world import token_client
from tests.quoting.factories import ProductFactory, price_set

DELIVERY = "Delivery: about 8 weeks after order."


def _product(sku, *, weeks, category=Category.SWITCH):
    product = ProductFactory(part_number=sku, name=f"Product {sku}", category=category)
    Product.objects.filter(pk=product.pk).update(lead_time_weeks=weeks)
    price_set(product, "CNY", "1000.00")
    return product


def _add(quote, world, sku, section=None):
    quote_add_product(
        quote=quote,
        sku=sku,
        quantity=2,
        user=world.sales,
        expected_version=quote.version,
        section=section,
    )
    quote.refresh_from_db()


def _quote(world, *, cable_weeks):
    """A switch of 8 weeks, a cable of `cable_weeks`, a service and a free-text line (neither is
    delivered: left out of the lead time)."""
    _product("SW-8", weeks=8)
    _product("CB-X", weeks=cable_weeks, category=Category.CABLE)
    _product("SVC-1", weeks=None, category=Category.SERVICE)
    quote = quote_create(project=world.project, user=world.sales)
    for sku in ("SW-8", "CB-X", "SVC-1"):
        _add(quote, world, sku)
    quote_add_free_text(
        quote=quote,
        description="NCCL tuning",
        quantity=1,
        unit_price="900.00",
        user=world.sales,
        expected_version=quote.version,
    )
    quote.refresh_from_db()
    return quote


def _send(quote, world):
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    quote.refresh_from_db()
    return QuoteRevision.objects.get(pk=quote.current_revision_id)


def _page(client, world, quote, language="en"):
    client.force_login(world.sales)
    client.cookies["django_language"] = language
    return client.get(f"/quotes/{quote.pk}/").content.decode()


# --- the staff's quote page ---------------------------------------------------------------------


def test_the_longest_lead_time_in_the_totals_is_shown_in_english_and_chinese(client, world):
    quote = _quote(world, cable_weeks=3)
    page = _page(client, world, quote)
    assert "About 8 weeks after order: the longest lead time among the lines in the totals." in page
    assert "lead-time-unknown" not in page and "lead-time-not-printed" not in page
    page = _page(client, world, quote, "zh-hans")
    assert "下单后约 8 周：总计中各行最长的交货期。" in page


def test_unknown_lead_times_are_named_with_why_the_proposal_prints_none(client, world):
    quote = _quote(world, cable_weeks=None)
    _product("CB-Y", weeks=None, category=Category.CABLE)
    _add(quote, world, "CB-Y")
    page = _page(client, world, quote)
    assert "Lead time unknown for: CB-X, CB-Y." in page
    assert "The longest lead time known is 8 weeks." in page
    assert "The proposal prints no delivery time" in page
    assert "SVC-1" not in page.split('id="quote-lead-time"')[1].split("</section>")[0]
    page = _page(client, world, quote, "zh-hans")
    assert "交货期未知：CB-X、CB-Y。" in page
    assert "已知最长交货期为 8 周。" in page
    assert "提案不打印交货时间" in page


def test_optional_items_show_their_own_lead_time_when_it_differs(client, world):
    quote = _quote(world, cable_weeks=3)
    _product("OPT-12", weeks=12)
    _add(quote, world, "OPT-12", section=Section.OPTIONAL)
    page = _page(client, world, quote)
    assert "About 8 weeks after order" in page  # an option is not in the totals
    assert "Optional items and alternatives: about 12 weeks after order." in page
    page = _page(client, world, quote, "zh-hans")
    assert "可选项和替代方案：下单后约 12 周。" in page


# --- the proposal and the share page --------------------------------------------------------------


def test_the_share_page_prints_the_delivery_time_only_when_every_line_has_one(client, world):
    known = _quote(world, cable_weeks=3)
    _send(known, world)
    _link, token = share_link_create(quote=known, user=world.sales)
    assert DELIVERY in client.get(f"/p/{token}?lang=en").content.decode()
    assert "交货：下单后约 8 周。" in client.get(f"/p/{token}?lang=zh-hans").content.decode()

    Product.objects.filter(part_number="CB-X").update(lead_time_weeks=None)
    unknown = _quote(world, cable_weeks=None)
    _send(unknown, world)
    _link, token = share_link_create(quote=unknown, user=world.sales)
    for language in ("en", "zh-hans"):
        page = client.get(f"/p/{token}?lang={language}").content.decode()
        assert "data-lead-time" not in page and "weeks after order" not in page
        assert "交货：" not in page


@pytest.mark.parametrize("cable_weeks", [3, None])
def test_the_pdf_prints_the_delivery_time_only_when_every_line_has_one(world, cable_weeks):
    revision = _send(_quote(world, cable_weeks=cable_weeks), world)
    text = " ".join(pdf_text(bytes(sent_pdf(revision).pdf)).split())
    assert (DELIVERY in text) is (cable_weeks is not None)


# --- frozen with the revision ---------------------------------------------------------------------


def test_a_sent_revision_keeps_its_lead_time_whatever_the_catalog_says_later(client, world):
    quote = _quote(world, cable_weeks=3)
    sent = _send(quote, world)
    assert (sent.lead_time_weeks, sent.lead_time_unknown) == (8, [])
    fingerprint = sent.content_sha256
    Product.objects.filter(part_number="SW-8").update(lead_time_weeks=20)
    Product.objects.filter(part_number="CB-X").update(lead_time_weeks=None)
    assert revision_lead_time(revision=sent).weeks == 8
    assert proposal_content(revision=sent, language="en").lead_time_weeks == 8
    assert "About 8 weeks after order" in _page(client, world, quote)
    assert revision_content_fingerprint(revision=sent) == fingerprint
    # The next draft reads the catalog as it is now.
    _add(quote, world, "SW-8")
    draft = QuoteRevision.objects.get(pk=quote.current_revision_id)
    assert draft.number == 2 and draft.lead_time_weeks is None
    lead_time = revision_lead_time(revision=draft)
    assert (lead_time.weeks, lead_time.totals.unknown) == (None, ("CB-X",))


def test_the_printed_lead_time_is_fingerprinted_from_version_6_and_older_revisions_keep_theirs(
    world,
):
    sent = _send(_quote(world, cable_weeks=3), world)
    assert content_hash.content_version(sent.content_sha256) >= 6  # sent now: the current one
    version_5 = revision_content_fingerprint(revision=sent, version=5)
    QuoteRevision.objects.filter(pk=sent.pk).update(lead_time_weeks=9)
    assert revision_content_fingerprint(revision=sent) != sent.content_sha256
    assert revision_content_fingerprint(revision=sent, version=5) == version_5
    assert "lead_time_weeks" not in content_hash.FIELDS[5][0]


def test_a_revision_sent_before_lead_times_prints_none_and_says_why(client, world):
    quote = _quote(world, cable_weeks=3)
    sent = _send(quote, world)
    QuoteRevision.objects.filter(pk=sent.pk).update(lead_time_weeks=None, lead_time_unknown=None)
    sent.refresh_from_db()
    assert proposal_content(revision=sent, language="en").lead_time_weeks is None
    assert "Sent before lead times were kept" in _page(client, world, quote)


# --- the API --------------------------------------------------------------------------------------


def test_the_revision_json_carries_the_lead_time_and_the_lines_without_one(world):
    api = token_client(world.sales)
    quote = _quote(world, cable_weeks=None)
    url = f"/api/v1/quotes/{quote.pk}/revisions/"
    draft = api.get(f"{url}1/").json()
    assert (draft["lead_time_weeks"], draft["lead_time_unknown"]) == (None, ["CB-X"])
    Product.objects.filter(part_number="CB-X").update(lead_time_weeks=3)
    _send(quote, world)
    Product.objects.filter(part_number="SW-8").update(lead_time_weeks=30)
    listed = api.get(url).json()
    assert (listed[0]["lead_time_weeks"], listed[0]["lead_time_unknown"]) == (8, [])
    assert api.get(f"{url}1/").json()["lead_time_weeks"] == 8


# --- the workbook and the webhook -----------------------------------------------------------------


def _terms_sheet(world, quote, language):
    from tests.quoting.quotes.workbook_reading import workbook

    response = token_client(world.sales, scope="read").get(
        f"/api/v1/quotes/{quote.pk}/xlsx/", {"lang": language}
    )
    book = workbook(response.content)
    name = "条款" if language == "zh-hans" else "Terms"
    return book[name] if name in book.sheetnames else None


def _said(sheet) -> list[str]:
    return [str(cell.value) for row in sheet.iter_rows() for cell in row if cell.value]


@pytest.mark.parametrize(
    ("language", "delivery"), [("en", DELIVERY), ("zh-hans", "交货：下单后约 8 周。")]
)
def test_the_workbook_s_terms_print_the_delivery_time_the_proposal_prints(
    world, language, delivery
):
    quote = _quote(world, cable_weeks=3)
    _send(quote, world)
    QuoteRevision.objects.filter(pk=quote.current_revision_id).update(payment_schedule=None)
    Product.objects.filter(part_number="SW-8").update(lead_time_weeks=20)  # frozen at the send
    assert delivery in _said(_terms_sheet(world, quote, language))


def test_the_workbook_prints_no_delivery_time_when_the_proposal_prints_none(world):
    quote = _quote(world, cable_weeks=None)
    _send(quote, world)
    for language in ("en", "zh-hans"):
        sheet = _terms_sheet(world, quote, language)
        said = " ".join(_said(sheet)) if sheet is not None else ""
        assert "weeks after order" not in said and "交货：" not in said


def test_the_quote_sent_webhook_carries_the_frozen_lead_time(world):
    from unittest import mock

    from integrations.models import WebhookDelivery, WebhookEndpoint
    from integrations.webhooks import webhook_secret_new

    with mock.patch("integrations.webhooks.enqueue_or_leave_to_sweeper"):
        WebhookEndpoint.objects.create(
            url="https://crm.example/hook",
            secret=webhook_secret_new(),
            events=["quote.sent"],
            created_by=world.sales,
        )
        _send(_quote(world, cable_weeks=3), world)
        _send(_quote(world, cable_weeks=None), world)
    sent = [
        d.payload["data"]["sent"]["lead_time_weeks"]
        for d in WebhookDelivery.objects.filter(event_type="quote.sent").order_by("pk")
    ]
    assert sent == [8, None]

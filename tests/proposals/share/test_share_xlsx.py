"""/p/<token>/xlsx: the customer downloads the offer as an Excel workbook, behind the share
link's own guard, in the page's language, and only ever the customer's variant of what the link
shows: the sent revision (never a newer draft), or the booked configuration once accepted."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import timezone

from proposals.models import ShareLink
from proposals.share.services import share_link_create, share_link_revoke
from quoting.quotes.models import QuoteLine
from quoting.quotes.services.quotes import quote_add_free_text, quote_mark_accepted, quote_revise
from quoting.quotes.workbook import XLSX_CONTENT_TYPE
from tests.quoting.quotes.workbook_reading import rows_with, texts, totals, workbook
from tests.quoting.quotes.xlsx_world import optional_line, quote_offering_choices

pytestmark = pytest.mark.django_db


@pytest.fixture
def quote(world):
    return quote_offering_choices(world, language="zh-hans")


@pytest.fixture
def link_and_token(world, quote):
    return share_link_create(quote=quote, user=world.sales, recipient_name="Dr Li")


def _download(client, token, **query):
    return client.get(f"/p/{token}/xlsx", query)


def test_a_live_link_downloads_the_workbook_in_the_customers_language(
    client, quote, link_and_token
):
    _, token = link_and_token
    response = _download(client, token)
    assert response.status_code == 200
    assert response["Content-Type"] == XLSX_CONTENT_TYPE
    assert response["Content-Disposition"] == f'attachment; filename="{quote.number}-R1.xlsx"'
    assert response["Cache-Control"] == "no-store"  # the guard's privacy headers
    assert response["X-Robots-Tag"] == "noindex, nofollow"
    sheet = workbook(response.content)["报价单"]  # its tabs named in Chinese too
    assert rows_with(sheet, "小计")
    revision = quote.current_revision
    assert totals(sheet) == {
        "subtotal": revision.subtotal,
        "discount": revision.discount_amount,
        "net": revision.net,
        "tax": revision.tax_amount,
        "total": revision.total,
    }


def test_the_page_language_chosen_with_lang_is_the_workbooks(client, link_and_token):
    _, token = link_and_token
    sheet = workbook(_download(client, token, lang="en").content)["Quote"]
    assert rows_with(sheet, "Subtotal") and not rows_with(sheet, "小计")


def test_the_customer_never_gets_cost_or_margin_even_when_asking(client, quote, link_and_token):
    _, token = link_and_token
    costs = set()
    for n, line in enumerate(quote.current_revision.lines.all()):
        cost = Decimal("6000.00") + Decimal(n) + Decimal("0.41")
        QuoteLine.objects.filter(pk=line.pk).update(unit_cost=cost)
        costs.add(cost)
    for language in ("en", "zh-hans"):
        book = workbook(_download(client, token, lang=language, variant="internal").content)
        words = texts(book).lower()
        assert not [w for w in ("cost", "margin", "成本", "毛利") if w in words]
        numbers = {
            Decimal(repr(cell.value))
            for sheet in book
            for row in sheet.iter_rows()
            for cell in row
            if isinstance(cell.value, int | float)
        }
        assert not numbers & costs


def test_unknown_expired_and_revoked_links_get_the_same_404(client, world, quote, link_and_token):
    link, token = link_and_token
    expired, expired_token = share_link_create(quote=quote, user=world.sales)
    ShareLink.objects.filter(pk=expired.pk).update(expires_at=timezone.now())
    share_link_revoke(link=link, user=world.sales)
    for bad in (token, expired_token, "a-guessed-token-value-that-is-long-enough"):
        response = _download(client, bad)
        assert response.status_code == 404
        assert response["Content-Type"].startswith("text/html")


def test_the_link_serves_the_sent_revision_never_a_newer_draft(
    client, world, quote, link_and_token
):
    _, token = link_and_token
    quote_revise(quote=quote, user=world.sales, expected_version=quote.version)
    quote.refresh_from_db()
    quote_add_free_text(
        quote=quote,
        description="Draft-only line",
        quantity=1,
        unit_price="1.00",
        user=world.sales,
        expected_version=quote.version,
    )
    response = _download(client, token)
    assert response["Content-Disposition"].endswith(f'{quote.number}-R1.xlsx"')
    assert "Draft-only line" not in texts(workbook(response.content))


def test_an_accepted_offer_downloads_its_booked_configuration(client, quote, link_and_token):
    _, token = link_and_token
    optics = optional_line(quote, "Spare optics kit")
    quote_mark_accepted(quote=quote, alternative="Better", optional=[str(optics.key)], name="Li")
    quote.refresh_from_db()
    sheet = workbook(_download(client, token, lang="en").content)["Quote"]
    assert totals(sheet) == {
        "subtotal": quote.booked_subtotal,
        "discount": quote.booked_discount,
        "net": quote.booked_net,
        "tax": quote.booked_tax,
        "total": quote.booked_total,
    }
    assert rows_with(sheet, "UFM licence") and not rows_with(sheet, "QM9790 switch")


def test_the_share_page_offers_the_download_in_its_language(client, link_and_token):
    _, token = link_and_token
    page = client.get(f"/p/{token}", {"lang": "en"}).content.decode()
    assert f'href="/p/{token}/xlsx?lang=en"' in page

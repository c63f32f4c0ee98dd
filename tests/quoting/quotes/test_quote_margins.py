"""Cost and margin: the reseller's own figures (issue 22, item 3).

Each line records its unit cost when priced (the price list's cost, converted at the revision's
locked rate); revisions and the booked configuration show cost, margin amount and margin % per
line, per section and in total, to users holding `quoting.view_margin` (managers and directors by
default, anyone an admin grants it) and to no one else: never on the share page, a PDF, a
webhook, or an API answer to a token whose user may not see them.
"""

from __future__ import annotations

import datetime as dt
import io
import json
from decimal import Decimal
from unittest import mock

import pytest
from django.contrib.auth.models import Permission
from pypdf import PdfReader

from catalog.models import PriceListItem
from integrations.models import WebhookDelivery, WebhookEndpoint
from integrations.webhooks import webhook_secret_new
from proposals.share.services import share_link_create
from quoting.designs.models import FxRate
from quoting.errors import NotAllowed
from quoting.quotes.margins import lines_margin
from quoting.quotes.models import QuoteLine
from quoting.quotes.services.quotes import (
    quote_add_free_text,
    quote_add_product,
    quote_create,
    quote_send,
    quote_update_line,
    quote_update_terms,
)
from tests.api_schema import assert_matches_schema
from tests.proposals.conftest import sent_pdf
from tests.quoting.api_world import token_client
from tests.quoting.factories import ProductFactory, price_set, quote_reload

pytestmark = pytest.mark.django_db

COST = "7654.32"  # a cost no other figure on these quotes can spell


@pytest.fixture
def quote(world):
    item = price_set(ProductFactory(part_number="SW-1", name="Leaf switch"), "CNY", "10000.00")
    PriceListItem.objects.filter(pk=item.pk).update(cost=Decimal(COST))
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=quote, sku="SW-1", quantity=2, user=world.sales, expected_version=quote.version
    )
    quote_add_free_text(
        quote=quote,
        description="Installation",
        quantity=1,
        unit_price="5000.00",
        user=world.sales,
        expected_version=quote.version,
    )
    quote_update_terms(
        quote=quote, discount_percent="5", user=world.sales, expected_version=quote.version
    )
    return quote_reload(quote)


def _switch(quote) -> QuoteLine:
    return QuoteLine.objects.get(revision=quote_reload(quote).current_revision, sku="SW-1")


def test_a_priced_line_records_the_price_lists_cost(quote):
    assert _switch(quote).unit_cost == Decimal(COST)
    free_text = QuoteLine.objects.get(revision=quote.current_revision, description="Installation")
    assert free_text.unit_cost is None


def test_a_cost_in_another_currency_is_converted_at_the_revisions_locked_rate(world):
    item = price_set(ProductFactory(part_number="NIC-1"), "USD", "1000.00")
    PriceListItem.objects.filter(pk=item.pk).update(cost=Decimal("801.23"))
    FxRate.objects.create(
        source="USD", target="CNY", rate=Decimal("7.123456"), as_of=dt.date(2026, 1, 1)
    )
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=quote, sku="NIC-1", quantity=1, user=world.sales, expected_version=quote.version
    )
    line = QuoteLine.objects.get(revision=quote_reload(quote).current_revision, sku="NIC-1")
    assert line.unit_price == Decimal("7123.46")
    assert line.unit_cost == Decimal("5707.53")  # 801.23 x 7.123456 = 5,707.5267, to the cent
    assert quote_reload(quote).current_revision.fx_rate == Decimal("7.123456")


def test_margin_is_per_line_per_section_and_in_total_after_every_discount(quote):
    lines = list(quote.current_revision.lines.all())
    margin = lines_margin(lines, discount_percent=Decimal("5"))
    # Revenue of the costed line: 20,000.00 less 5 % = 19,000.00; cost 2 x 7,654.32.
    assert margin.cost_total == Decimal("15308.64")
    assert margin.margin_amount == Decimal("3691.36")
    assert margin.margin_percent == Decimal("19.43")
    assert margin.uncosted == 1  # the free-text installation, left out and counted


def test_a_manager_sees_cost_and_margin_on_the_quote_page_and_sales_do_not(client, quote, world):
    client.force_login(world.manager)
    page = client.get(f"/quotes/{quote.pk}/").content.decode()
    assert 'id="quote-margin"' in page and "7,654.32" in page and "19.43" in page
    assert "Section margin (internal)" in page and "1 line without a cost" in page

    client.force_login(world.sales)
    page = client.get(f"/quotes/{quote.pk}/").content.decode()
    assert "quote-margin" not in page and "7,654.32" not in page and "Unit cost" not in page


def test_sales_see_margins_once_an_admin_grants_the_permission(client, quote, world):
    world.sales.user_permissions.add(
        Permission.objects.get(content_type__app_label="quoting", codename="view_margin")
    )
    client.force_login(world.sales)
    page = client.get(f"/quotes/{quote.pk}/").content.decode()
    assert 'id="quote-margin"' in page and "7,654.32" in page


def test_a_sent_quotes_cached_line_table_never_shows_one_users_margins_to_another(
    client, quote, world
):
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    client.force_login(world.manager)
    assert "7,654.32" in client.get(f"/quotes/{quote.pk}/").content.decode()
    client.force_login(world.sales)
    assert "7,654.32" not in client.get(f"/quotes/{quote.pk}/").content.decode()


def test_the_api_gives_margins_to_a_token_whose_user_may_see_them_only(quote, world):
    url = f"/api/v1/quotes/{quote.pk}/revisions/1/"
    assert token_client(world.sales, scope="read").get(url).json()["margin"] is None
    body = token_client(world.manager, scope="read").get(url).json()
    assert body["margin"]["total"] == {
        "cost_total": "15308.64",
        "margin_amount": "3691.36",
        "margin_percent": "19.43",
        "lines_without_cost": 1,
    }
    switch = _switch(quote)
    (line,) = [ln for ln in body["margin"]["lines"] if ln["key"] == str(switch.key)]
    assert line["unit_cost"] == COST
    assert body["margin"]["sections"]["network"]["cost_total"] == "15308.64"
    assert_matches_schema(body, "/api/v1/quotes/{id}/revisions/{number}/")
    assert "unit_cost" not in json.dumps(token_client(world.sales, scope="read").get(url).json())


def test_only_managers_correct_a_unit_cost(quote, world):
    with pytest.raises(NotAllowed):
        quote_update_line(
            quote=quote,
            line=_switch(quote),
            user=world.sales,
            expected_version=quote.version,
            unit_cost="1.00",
        )
    quote_update_line(
        quote=quote_reload(quote),
        line=_switch(quote),
        user=world.manager,
        expected_version=quote_reload(quote).version,
        unit_cost="8000.00",
    )
    assert _switch(quote).unit_cost == Decimal("8000.00")
    api = token_client(world.sales)
    etag = api.get(f"/api/v1/quotes/{quote.pk}/")["ETag"]
    refused = api.patch(
        f"/api/v1/quotes/{quote.pk}/lines/{_switch(quote).pk}/",
        {"unit_cost": "1.00"},
        format="json",
        HTTP_IF_MATCH=etag,
    )
    assert refused.status_code == 403, refused.content


def test_no_cost_reaches_the_customer_share_page_pdf_or_webhooks(client, quote, world):
    with mock.patch("integrations.webhooks.enqueue_or_leave_to_sweeper"):
        WebhookEndpoint.objects.create(
            url="https://crm.example/hook",
            secret=webhook_secret_new(),
            events=["quote.sent", "quote.accepted"],
            created_by=world.sales,
        )
        quote_send(quote=quote, user=world.sales, expected_version=quote.version)
        _link, token = share_link_create(quote=quote_reload(quote), user=world.sales)
        page = _share_page(client, token)
        client.post(
            f"/p/{token}/accept?lang=en",
            {"revision": 1, "name": "Li Wei", "title": "CTO", "agreed": "on"},
        )
    spellings = ("7654.32", "7,654.32", "15308.64", "15,308.64", "3691.36", "3,691.36")
    assert not any(cost in page for cost in spellings)
    assert "margin" not in page.lower()
    pdf = sent_pdf(quote_reload(quote).current_revision, "en")
    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(bytes(pdf.pdf))).pages)
    assert not any(cost in text for cost in spellings)
    bodies = json.dumps([d.payload for d in WebhookDelivery.objects.all()])
    assert WebhookDelivery.objects.filter(event_type="quote.accepted").exists()
    assert not any(cost in bodies for cost in spellings)
    assert "cost" not in bodies and "margin" not in bodies


def _share_page(client, token) -> str:
    response = client.get(f"/p/{token}?lang=en")
    assert response.status_code == 200, response.status_code
    return response.content.decode()

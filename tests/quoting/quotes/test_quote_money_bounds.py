"""Money bounds (issue 13, finding 8): a quantity and a price each within its limits can multiply
past what a quote's columns hold (NUMERIC(18, 2)). Such a line or total is refused where it is
entered, naming the field, and nothing ever answers 500 on reading or sending a quote."""

from __future__ import annotations

from decimal import Decimal

import pytest

from quoting.customers.models import VatRate
from quoting.engine.money import MONEY_MAX, TOTAL_MAX, money_max
from quoting.errors import InvalidValue
from quoting.quotes.models import LineKind, QuoteLine, QuoteRevision, QuoteStatus, Section
from quoting.quotes.services.quotes import quote_add_free_text, quote_set_terms
from tests.api_errors import field_errors
from tests.quoting.factories import ProductFactory, price_set, quote_reload

PRICE_MAX = str(MONEY_MAX)  # the largest unit price


def _url(quote, tail=""):
    return f"/api/v1/quotes/{quote.pk}/{tail}"


def _write(api, method, quote, tail, body=None):
    etag = api.get(_url(quote))["ETag"]
    return getattr(api, method)(_url(quote, tail), body or {}, format="json", HTTP_IF_MATCH=etag)


def _reads_and_sends(api, quote):
    for tail in ("", "lines/", "revisions/", "revisions/1/"):
        assert api.get(_url(quote, tail)).status_code == 200, tail
    response = _write(api, "post", quote, "send/")
    assert response.status_code == 200, response.json()


def test_the_limits_are_the_columns_that_store_a_price_and_a_total():
    price = QuoteLine._meta.get_field("unit_price")
    total = QuoteRevision._meta.get_field("total")
    assert money_max(price.max_digits, price.decimal_places) == MONEY_MAX
    assert money_max(total.max_digits, total.decimal_places) == TOTAL_MAX
    assert str(TOTAL_MAX) == "9999999999999999.99"


def test_a_chinese_api_client_reads_the_refusal_in_chinese_at_the_same_field(api, qw):
    etag = api.get(_url(qw.quote))["ETag"]
    response = api.post(
        _url(qw.quote, "lines/"),
        {"description": "Everything", "quantity": 10_000, "unit_price": PRICE_MAX},
        format="json",
        HTTP_IF_MATCH=etag,
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert response.status_code == 400
    message = field_errors(response)["unit_price"][0]
    assert "超出报价可容纳的上限（9,999,999,999,999,999.99）" in message
    assert "more than a quote can hold" not in message


def test_10000_times_the_largest_price_is_refused_at_the_line_not_a_500_later(api, qw):
    lines_before = QuoteLine.objects.count()
    response = _write(
        api,
        "post",
        qw.quote,
        "lines/",
        {"description": "Everything", "quantity": 10_000, "unit_price": PRICE_MAX},
    )
    assert response.status_code == 400
    assert (
        "more than a quote can hold (9,999,999,999,999,999.99)"
        in field_errors(response)["unit_price"][0]
    )
    assert QuoteLine.objects.count() == lines_before
    _reads_and_sends(api, qw.quote)


def test_a_catalog_line_too_large_is_refused_naming_the_quantity(api, qw):
    price_set(ProductFactory(part_number="BIG-1"), "CNY", PRICE_MAX)
    response = _write(api, "post", qw.quote, "lines/", {"sku": "BIG-1", "quantity": 10_000})
    assert response.status_code == 400
    assert "quantity" in field_errors(response)
    _reads_and_sends(api, qw.quote)


def test_raising_a_lines_quantity_or_price_past_the_limit_is_refused_and_changes_nothing(api, qw):
    line = qw.quote.current_revision.lines.get(sku="CB-1")
    response = _write(api, "patch", qw.quote, f"lines/{line.pk}/", {"unit_price": PRICE_MAX})
    assert response.status_code == 200  # 8 x the largest price fits
    response = _write(api, "patch", qw.quote, f"lines/{line.pk}/", {"quantity": 1_000_000})
    assert response.status_code == 400 and "quantity" in field_errors(response)
    line.refresh_from_db()
    assert line.quantity == 8


def test_lines_that_each_fit_but_together_do_not_are_refused_on_the_total(api, qw):
    body = {"description": "Half of it", "quantity": 6_000, "unit_price": PRICE_MAX}
    quote_set_terms(
        quote=qw.quote, tax_percent=0, user=qw.world.sales, expected_version=qw.quote.version
    )
    assert _write(api, "post", qw.quote, "lines/", body).status_code == 201
    response = _write(api, "post", qw.quote, "lines/", body)
    assert response.status_code == 400
    assert "The quote would total" in field_errors(response)["unit_price"][0]


def test_vat_pushing_the_total_past_the_limit_is_refused_naming_the_vat(api, qw):
    # No rate table: every line takes the revision's VAT %, the one changed below.
    VatRate.objects.all().delete()
    quote_set_terms(
        quote=qw.quote, tax_percent=0, user=qw.world.sales, expected_version=qw.quote.version
    )
    _write(
        api,
        "post",
        qw.quote,
        "lines/",
        {"description": "Most of it", "quantity": 9_000, "unit_price": PRICE_MAX},
    )
    response = _write(api, "patch", qw.quote, "", {"tax_percent": "13"})
    assert response.status_code == 400 and "tax_percent" in field_errors(response)
    assert quote_reload(qw.quote).current_revision.tax_percent == Decimal("0.00")


def test_the_service_refuses_it_whoever_calls_it(qw):
    with pytest.raises(InvalidValue) as caught:
        quote_add_free_text(
            quote=qw.quote,
            description="x",
            quantity=10_000,
            unit_price=PRICE_MAX,
            user=qw.world.sales,
            expected_version=qw.quote.version,
        )
    assert caught.value.field == "unit_price"


def test_the_page_shows_the_error_beside_the_price(client, qw):
    client.force_login(qw.world.sales)
    response = client.post(
        f"/quotes/{qw.quote.pk}/lines/free-text/",
        {
            "expected_version": qw.quote.version,
            "description": "Everything",
            "quantity": 10_000,
            "unit_price": PRICE_MAX,
            "section": "services",
        },
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 400
    body = response.content.decode()
    assert 'id="err-ft-unit_price"' in body and "more than a quote can hold" in body


def test_a_quote_stored_too_large_before_the_check_still_reads_and_is_refused_at_send(
    api, client, qw
):
    QuoteLine.objects.create(
        revision=qw.quote.current_revision,
        position=99,
        section=Section.SERVICES,
        kind=LineKind.FREE_TEXT,
        description="Written before the check",
        quantity=1_000_000,
        unit_price=Decimal(PRICE_MAX),
    )
    for tail in ("", "lines/", "revisions/", "revisions/1/"):
        assert api.get(_url(qw.quote, tail)).status_code == 200, tail
    client.force_login(qw.world.sales)
    assert client.get(f"/quotes/{qw.quote.pk}/").status_code == 200
    assert client.get("/quotes/").status_code == 200

    response = _write(api, "post", qw.quote, "send/")
    assert response.status_code == 400
    assert "more than a quote can hold" in field_errors(response)["lines"][0]
    assert quote_reload(qw.quote).status == QuoteStatus.DRAFT

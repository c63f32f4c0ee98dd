"""Quote terms in a real browser, in Chinese: the date picker keeps the offer's validity."""

from __future__ import annotations

from decimal import Decimal

import pytest

from quoting.quotes.models import Quote
from quoting.quotes.services.quotes import quote_add_product, quote_create
from tests.quoting.factories import ProductFactory, price_set, world_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_chinese_sales_engineer_changes_the_discount_and_the_terms_are_saved(
    live_server, page, sign_in, make_user
):
    world = world_make(make_user)
    world.sales.language = "zh-hans"
    world.sales.save()
    price_set(ProductFactory(part_number="SW-1"), "CNY", "10000.00")
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=quote, sku="SW-1", quantity=2, user=world.sales, expected_version=quote.version
    )
    valid_until = Quote.objects.get(pk=quote.pk).valid_until

    sign_in("wang")
    page.goto(f"{live_server.url}/quotes/{quote.pk}/")
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    # The picker shows the date it was given (a value it cannot read, it shows empty).
    assert page.input_value("#id_valid_until") == valid_until.isoformat()

    page.fill("#id_discount_percent", "5")
    with page.expect_response(lambda r: r.url.endswith(f"/quotes/{quote.pk}/terms/")) as answer:
        page.click("form[action$='/terms/'] button[type=submit]")
    assert answer.value.ok, answer.value.text()
    page.wait_for_function("() => !document.querySelector('#err-valid_until').textContent.trim()")
    assert page.locator("#err-valid_until").inner_text().strip() == ""

    revision = Quote.objects.get(pk=quote.pk).current_revision
    assert revision.discount_percent == Decimal("5")
    assert Quote.objects.get(pk=quote.pk).valid_until == valid_until

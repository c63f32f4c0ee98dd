"""A manager's day starts from the header's count: in Chromium, the badge leads to the queue,
the queue to the quote; the site's icon loads without a 404."""

import re

import pytest

from quoting.quotes.services.quotes import (
    quote_add_product,
    quote_create,
    quote_request_approval,
    quote_set_discount,
)
from tests.browser.conftest import sign_in_as
from tests.quoting.factories import ProductFactory, price_set, quote_reload, world_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [1440, 390])
def test_a_manager_follows_the_approvals_badge_to_the_quote_waiting_for_them(
    live_server, page, make_user, width
):
    world = world_make(make_user)
    price_set(ProductFactory(part_number="SW-1"), "CNY", "10000.00")
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=quote, sku="SW-1", quantity=1, user=world.sales, expected_version=quote.version
    )
    quote_set_discount(
        quote=quote,
        discount_percent=15,
        user=world.sales,
        expected_version=quote_reload(quote).version,
    )
    quote_request_approval(
        quote=quote, user=world.sales, expected_version=quote_reload(quote).version
    )
    page.set_viewport_size({"width": width, "height": 900})
    icon_answers = []
    page.on("response", lambda r: icon_answers.append(r.status) if "favicon" in r.url else None)

    sign_in_as(page, live_server.url, "zhao")
    badge = page.locator("nav a.work-count", has_text="Approvals")
    assert re.fullmatch(r"Approvals\s*1", badge.inner_text().strip())
    badge.click()
    page.wait_for_url(re.compile(r".*/#approvals$"))
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.locator("#approvals a", has_text=quote.number).click()
    page.wait_for_url(re.compile(rf".*/quotes/{quote.pk}/$"))
    assert page.locator("#quote-revision-shown").inner_text() == "R1"
    assert icon_answers and all(status == 200 for status in icon_answers)

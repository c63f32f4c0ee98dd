"""The quote page names one "version" to users: the revision (R1, R2...). The optimistic-locking
counter is plumbing: it travels in hidden form fields and ETags, never as a shown "version"."""

from __future__ import annotations

import re

import pytest

from quoting.quotes.services.quotes import quote_add_product, quote_create
from tests.quoting.factories import ProductFactory, price_set, quote_reload, world_make


@pytest.fixture
def edited(make_user):
    world = world_make(make_user)
    price_set(ProductFactory(part_number="SW-1", name="Leaf switch"), "CNY", "10000.00")
    quote = quote_create(project=world.project, user=world.sales)
    for quantity in (1, 2, 3):
        quote_add_product(
            quote=quote,
            sku="SW-1",
            quantity=quantity,
            user=world.sales,
            expected_version=quote_reload(quote).version,
        )
    return world, quote_reload(quote)


def _shown_text(page: str) -> str:
    """What a reader sees: the page without its hidden inputs, tags and attributes."""
    page = re.sub(r'<input[^>]*type="hidden"[^>]*>', "", page)
    return re.sub(r"<[^>]+>", " ", page)


def test_the_quote_page_shows_the_revision_and_not_the_data_version(client, edited):
    world, quote = edited
    assert quote.version >= 4  # distinct from the revision number, so a leak would show
    client.force_login(world.sales)
    page = client.get(f"/quotes/{quote.pk}/").content.decode()
    start = page.index('id="quote-header"')
    header = page[start : page.index("</section>", start)]
    assert "Revision" in header and 'id="quote-revision-shown">R1<' in header
    assert "Version" not in _shown_text(page)
    assert f'value="{quote.version}" class="quote-version"' in page  # kept for the next edit


def test_after_an_edit_the_swapped_header_still_shows_the_revision_only(client, edited):
    world, quote = edited
    client.force_login(world.sales)
    line = quote.current_revision.lines.first()
    body = client.post(
        f"/quotes/{quote.pk}/lines/{line.pk}/",
        {"expected_version": quote.version, "quantity": 7},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert 'id="quote-revision-shown">R1<' in body
    assert "Version" not in _shown_text(body)


def test_in_chinese_the_revision_is_labelled_in_chinese(client, edited):
    world, quote = edited
    world.sales.language = "zh-hans"
    world.sales.save()
    client.force_login(world.sales)
    page = client.get(f"/quotes/{quote.pk}/").content.decode()
    assert '<dt>版本</dt><dd id="quote-revision-shown">R1</dd>' in page

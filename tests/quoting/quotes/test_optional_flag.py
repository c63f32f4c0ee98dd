"""The line's optional flag (#15 item 2): it is the optional section, one source of truth,
readable and writable as `optional` on the line API and the line form."""

from __future__ import annotations

import json

import pytest

from quoting.errors import InvalidValue
from quoting.quotes.models import QuoteLine, Section
from quoting.quotes.selectors import revision_totals
from quoting.quotes.services.quotes import quote_add_product, quote_create, quote_update_line
from tests.quoting.api_world import token_client
from tests.quoting.factories import ProductFactory, price_set, quote_reload

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def draft(world):
    price_set(ProductFactory(part_number="SW-1", name="Leaf switch"), "CNY", "10000.00")
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=quote, sku="SW-1", quantity=2, user=world.sales, expected_version=quote.version
    )
    return quote_reload(quote)


def _line(quote) -> QuoteLine:
    return QuoteLine.objects.get(revision=quote_reload(quote).current_revision, sku="SW-1")


def test_optional_is_off_by_default_and_moves_the_line_out_of_the_totals_and_back(world, draft):
    line = _line(draft)
    assert line.section == Section.NETWORK
    before = revision_totals(revision=draft.current_revision)
    quote_update_line(
        quote=draft, line=line, user=world.sales, expected_version=draft.version, optional=True
    )
    draft = quote_reload(draft)
    assert _line(draft).section == Section.OPTIONAL
    assert revision_totals(revision=draft.current_revision).total == 0
    quote_update_line(
        quote=draft,
        line=_line(draft),
        user=world.sales,
        expected_version=draft.version,
        optional=False,
    )
    draft = quote_reload(draft)
    assert _line(draft).section == Section.NETWORK  # back where its product belongs
    assert revision_totals(revision=draft.current_revision) == before


def test_a_line_of_an_alternative_cannot_be_optional(world, draft):
    line = _line(draft)
    QuoteLine.objects.filter(pk=line.pk).update(
        section=Section.ALTERNATIVES, alternative_group="Better"
    )
    with pytest.raises(InvalidValue):
        quote_update_line(
            quote=draft, line=line, user=world.sales, expected_version=draft.version, optional=True
        )


def test_the_api_reads_and_writes_optional(world, draft):
    api = token_client(world.sales)
    url = f"/api/v1/quotes/{draft.pk}/lines/"
    listed = api.get(url)
    assert [row["optional"] for row in listed.json()] == [False]
    added = api.post(
        url,
        {"description": "Training", "quantity": 1, "unit_price": "800.00", "optional": True},
        format="json",
        HTTP_IF_MATCH=listed["ETag"],
    )
    assert added.status_code == 201, added.json()
    assert (added.json()["optional"], added.json()["section"]) == (True, "optional")
    changed = api.patch(
        f"{url}{added.json()['id']}/",
        {"optional": False},
        format="json",
        HTTP_IF_MATCH=added["ETag"],
    )
    assert changed.status_code == 200, changed.json()
    assert (changed.json()["optional"], changed.json()["section"]) == (False, "services")
    contradiction = api.post(
        url,
        {
            "description": "X",
            "quantity": 1,
            "unit_price": "1",
            "optional": True,
            "section": "support",
        },
        format="json",
        HTTP_IF_MATCH=changed["ETag"],
    )
    assert contradiction.status_code == 400 and "optional" in json.dumps(contradiction.json())


def test_the_line_form_ticks_a_line_optional(client, world, draft):
    client.force_login(world.sales)
    line = _line(draft)
    page = client.get(f"/quotes/{draft.pk}/").content.decode()
    assert f'data-line-optional="{line.pk}"' in page
    response = client.post(
        f"/quotes/{draft.pk}/lines/{line.pk}/",
        {"expected_version": draft.version, "quantity": 2, "optional": "on", "optional_shown": "1"},
        **HTMX,
    )
    assert response.status_code == 200
    assert _line(draft).section == Section.OPTIONAL
    # A form without the box (an older page, a script) leaves the flag alone.
    draft = quote_reload(draft)
    client.post(
        f"/quotes/{draft.pk}/lines/{line.pk}/",
        {"expected_version": draft.version, "quantity": 3},
        **HTMX,
    )
    assert (_line(draft).section, _line(draft).quantity) == (Section.OPTIONAL, 3)

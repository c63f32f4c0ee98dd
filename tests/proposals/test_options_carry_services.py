"""What the customer reads of an option that carries its services per node and its
share-of-hardware support (content version 7): the proposal's "Total if chosen", the share page
and its price, the same figure; a revision sent before prints and prices its options as it
did. The figures: tests/quoting/option_services_world.py."""

from __future__ import annotations

import pytest

from proposals.documents.pdf import proposal_html
from proposals.share.services import share_link_create
from tests.quoting.option_services_world import (
    LARGER_AS_QUOTED_SERVICES_TOTAL,
    LARGER_TOTAL,
    quote_with_option_services,
    sent,
    sent_under_version_6,
)

pytestmark = pytest.mark.django_db


def _read(client, quote, world, revision) -> tuple[str, str, dict]:
    """The proposal's HTML, the share page and the price of "Larger" on it."""
    token = share_link_create(quote=quote, user=world.sales)[1]
    page = client.get(f"/p/{token}?lang=en").content.decode()
    price = client.get(f"/p/{token}/price", {"alternative": "Larger", "lang": "en"}).json()
    return proposal_html(revision=revision, language="en"), page, price


def test_the_proposal_and_the_share_page_print_the_option_with_its_services_and_support(
    client, world
):
    quote = quote_with_option_services(world)
    revision = sent(quote, world)
    html, page, price = _read(client, quote, world, revision)
    assert f"{LARGER_TOTAL:,.2f}" in html
    assert "services priced per compute node, follow the option" in html
    assert f"total if chosen {LARGER_TOTAL:,.2f} CNY" in page
    assert price["amounts"]["total"] == f"{LARGER_TOTAL:.2f}"


def test_a_revision_sent_before_prints_and_prices_its_option_as_it_did(client, world):
    quote = quote_with_option_services(world)
    revision = sent_under_version_6(quote, world)
    html, page, price = _read(client, quote, world, revision)
    assert f"{LARGER_AS_QUOTED_SERVICES_TOTAL:,.2f}" in html
    assert f"{LARGER_TOTAL:,.2f}" not in html
    assert "share of the hardware stays as quoted" in html
    assert f"total if chosen {LARGER_AS_QUOTED_SERVICES_TOTAL:,.2f} CNY" in page
    assert price["amounts"]["total"] == f"{LARGER_AS_QUOTED_SERVICES_TOTAL:.2f}"


def test_an_optional_service_per_node_shows_its_quantity_and_amount_in_each_configuration(
    client, world
):
    """Offered, not sold: as quoted 2 x 1,800.00 shows, "Larger"'s 3 x 1,800.00 is there for
    the page's script to show when the customer picks it."""
    quote = quote_with_option_services(world, sold=False)
    sent(quote, world)
    token = share_link_create(quote=quote, user=world.sales)[1]
    page = client.get(f"/p/{token}?lang=en").content.decode()
    assert '<span data-priced-with=""> × 2</span>' in page
    assert '<span data-priced-with="Larger" hidden> × 3</span>' in page
    assert '<span data-priced-with="">3,600.00</span>' in page
    assert '<span data-priced-with="Larger" hidden>5,400.00</span>' in page

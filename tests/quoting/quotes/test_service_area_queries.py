"""The company profile's service area is read once per page or document, whatever the number
of support lines that print it: a quote of five support tiers costs no query more than one."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from portal.models import CompanyProfile
from proposals.documents.pdf import proposal_html
from quoting.quotes.models import QuoteRevision
from quoting.quotes.services.quotes import quote_add_product, quote_create

PREMIUM = "SUP-PREM-1Y"
IN_GUANGZHOU = {"en": "(service area: Guangzhou)", "zh-hans": "（服务区域：广州）"}


@pytest.fixture(name="world")
def world_selling_premium_support(seeded, world):
    CompanyProfile.objects.create(
        legal_name_en="Seller Ltd.", service_area_en="Guangzhou", service_area_zh="广州"
    )
    return world


def _quote_with_support_lines(world, count: int):
    quote = quote_create(project=world.project, user=world.sales)
    for _ in range(count):
        quote_add_product(
            quote=quote, sku=PREMIUM, quantity=1, user=world.sales, expected_version=quote.version
        )
    quote.refresh_from_db()
    return quote


def _queries(render, lang: str) -> tuple[int, int]:
    """(queries, of them reading the company profile) to render the page or document once."""
    with CaptureQueriesContext(connection) as captured:
        text = render()
    assert IN_GUANGZHOU[lang] in text
    profile = sum('"portal_companyprofile"' in q["sql"] for q in captured.captured_queries)
    return len(captured), profile


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_the_quote_page_reads_the_profile_once_for_any_number_of_support_lines(world, lang):
    staff = Client()
    staff.force_login(world.sales)
    one, five = _quote_with_support_lines(world, 1), _quote_with_support_lines(world, 5)

    def page(quote):
        return lambda: staff.get(f"/quotes/{quote.pk}/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()

    page(one)()  # the session and the caches warmed
    (with_one, _), (with_five, profile_reads) = (
        _queries(page(one), lang),
        _queries(page(five), lang),
    )
    assert with_five == with_one
    assert profile_reads == 1


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_the_proposal_reads_the_profile_once_for_any_number_of_support_lines(world, lang):
    one, five = _quote_with_support_lines(world, 1), _quote_with_support_lines(world, 5)

    def proposal(quote):
        # A revision as the worker reads it: nothing cached on it by an earlier rendering.
        return lambda: proposal_html(
            revision=QuoteRevision.objects.get(pk=quote.current_revision_id), language=lang
        )

    proposal(one)()
    (with_one, _), (with_five, profile_reads) = (
        _queries(proposal(one), lang),
        _queries(proposal(five), lang),
    )
    assert with_five == with_one
    assert profile_reads == 1  # the seller block, the support terms and the lines share it

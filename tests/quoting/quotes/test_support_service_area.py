"""The premium support tier names the seller's service area, not the catalog's (issue 26).

The catalog's SUP-PREM-1Y promised "4-hour on-site in Shenzhen" to every seller. Its name names
no place now; wherever a quote prints the tier (quote page, proposal PDF, share page, workbook)
the name says the company profile's service area in the reader's language, and no place when the
profile has none.
"""

from __future__ import annotations

import pytest
from django.test import Client

from catalog.models import Product
from portal.models import CompanyProfile
from proposals.documents.pdf import proposal_html
from proposals.share.services import share_link_create
from quoting.quotes.services.quotes import quote_add_product, quote_create, quote_send
from tests.quoting.api_world import token_client
from tests.quoting.quotes.workbook_reading import workbook

PREMIUM = "SUP-PREM-1Y"
NAME_EN = "Premium support, 1 year: 2-hour response, 4-hour on-site, next-day spares"
NAME_ZH = "高级支持服务，1 年：2 小时响应，4 小时上门，次日备件到达"
IN_GUANGZHOU_EN = f"{NAME_EN} (service area: Guangzhou)"
IN_GUANGZHOU_ZH = f"{NAME_ZH}（服务区域：广州）"


@pytest.fixture(name="world")
def world_selling_premium_support(seeded, world):
    CompanyProfile.objects.create(
        legal_name_en="Seller Ltd.", service_area_en="Guangzhou", service_area_zh="广州"
    )
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(quote=quote, sku=PREMIUM, quantity=1, user=world.sales, expected_version=1)
    quote.refresh_from_db()
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    quote.refresh_from_db()
    world.quote = quote
    return world


def _pages(world) -> dict[str, str]:
    """The quote page, proposal, share page and workbook, in English and Chinese, as text."""
    quote = world.quote
    staff = Client()
    staff.force_login(world.sales)
    _link, token = share_link_create(quote=quote, user=world.sales)
    api = token_client(world.sales, scope="read")
    pages = {}
    for lang in ("en", "zh-hans"):
        pages[f"quote page {lang}"] = staff.get(
            f"/quotes/{quote.pk}/", HTTP_ACCEPT_LANGUAGE=lang
        ).content.decode()
        pages[f"proposal {lang}"] = proposal_html(revision=quote.current_revision, language=lang)
        pages[f"share page {lang}"] = Client().get(f"/p/{token}?lang={lang}").content.decode()
        book = workbook(api.get(f"/api/v1/quotes/{quote.pk}/xlsx/", {"lang": lang}).content)
        pages[f"workbook {lang}"] = "\n".join(
            str(cell.value) for row in book.worksheets[0] for cell in row if cell.value is not None
        )
    return pages


def test_the_seeded_premium_tier_names_no_city(seeded):
    premium = Product.objects.get(part_number=PREMIUM)
    texts = (premium.name, premium.name_zh, premium.description_en, premium.description_zh)
    assert (premium.name, premium.name_zh) == (NAME_EN, NAME_ZH)
    assert not any("Shenzhen" in text or "深圳" in text for text in texts)


def test_every_printed_premium_tier_names_the_profiles_service_area(world):
    for where, text in _pages(world).items():
        expected = IN_GUANGZHOU_ZH if where.endswith("zh-hans") else IN_GUANGZHOU_EN
        assert expected in text, where
        assert "Shenzhen" not in text and "深圳" not in text, where


def test_without_a_service_area_the_tier_names_no_place(world):
    CompanyProfile.objects.update(service_area_en="", service_area_zh="")
    for where, text in _pages(world).items():
        assert "service area:" not in text and "服务区域：" not in text, where
        assert (NAME_ZH if where.endswith("zh-hans") else NAME_EN) in text, where


def test_a_revision_sent_before_the_service_area_prints_its_tier_as_it_was_sent(world):
    # Sent under content version 5, its lines kept the catalog's name of then (with its city,
    # quoting migration 0029 renames only drafts'): it prints no area after it, which would
    # contradict the name and change what the customer was sent.
    from quoting.quotes.models import QuoteRevision

    revision = world.quote.current_revision
    digest = revision.content_sha256.partition(":")[2]
    QuoteRevision.objects.filter(pk=revision.pk).update(content_sha256=f"5:{digest}")
    world.quote.refresh_from_db()
    for where, text in _pages(world).items():
        assert "service area:" not in text and "服务区域：" not in text, where

"""A support tier's response terms in the proposal (issue 26 item 8).

The seed brief promises "2 小时响应、深圳范围内 4 小时内到达现场、1 天内提供备品" (2 h response,
on site within 4 h in Shenzhen, spares within a day): the catalog's premium tier carries them as
columns (response_hours, onsite_hours, spares_days), the service area is the company profile's,
and the proposal prints them under the tier, in English and Chinese, for the tiers quoted only.
"""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import ValidationError

from catalog.models import Product
from portal.models import CompanyProfile
from proposals.documents.pdf import proposal_html
from quoting.quotes.services.quotes import quote_add_product, quote_create

PREMIUM, STANDARD = "SUP-PREM-1Y", "SUP-STD-1Y"
PREMIUM_EN = [
    "Response within 2 h, around the clock",
    "On site within 4 h in Shenzhen",
    "Spare parts the next day",
]
PREMIUM_ZH = ["7×24 小时，2 小时内响应", "深圳范围内 4 小时内到达现场", "次日提供备件"]


@pytest.fixture(name="world")
def world_on_the_catalog(seeded, world):
    CompanyProfile.objects.create(
        legal_name_en="Seller Ltd.", service_area_en="Shenzhen", service_area_zh="深圳"
    )
    return world


def _quote_selling(world, *skus):
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=quote, sku="MQM9700-NS2F", quantity=2, user=world.sales, expected_version=1
    )
    for sku in skus:
        quote.refresh_from_db()
        quote_add_product(
            quote=quote, sku=sku, quantity=1, user=world.sales, expected_version=quote.version
        )
    return quote.current_revision


def _terms(html: str) -> list[str]:
    return re.findall(r"<li data-support-term>([^<]*)</li>", html)


def test_the_premium_tier_carries_the_briefs_terms_in_the_catalog(seeded):
    premium = Product.objects.get(part_number=PREMIUM)
    assert (premium.response_hours, premium.onsite_hours, premium.spares_days) == (2, 4, 1)


def test_the_proposal_prints_the_quoted_tiers_terms_in_english_and_chinese(world):
    revision = _quote_selling(world, PREMIUM)

    assert _terms(proposal_html(revision=revision, language="en")) == PREMIUM_EN
    assert _terms(proposal_html(revision=revision, language="zh-hans")) == PREMIUM_ZH


def test_the_on_site_time_names_the_company_profiles_service_area(world):
    CompanyProfile.objects.update(service_area_en="Guangzhou", service_area_zh="广州")
    revision = _quote_selling(world, PREMIUM)

    assert "On site within 4 h in Guangzhou" in _terms(
        proposal_html(revision=revision, language="en")
    )
    assert "广州范围内 4 小时内到达现场" in _terms(
        proposal_html(revision=revision, language="zh-hans")
    )


def test_without_a_service_area_the_on_site_time_says_within_our_service_area(world):
    CompanyProfile.objects.update(service_area_en="", service_area_zh="")
    revision = _quote_selling(world, PREMIUM)

    assert "On site within 4 h within our service area" in _terms(
        proposal_html(revision=revision, language="en")
    )


def test_a_tier_not_quoted_prints_no_terms_and_one_without_terms_its_description(world):
    revision = _quote_selling(world, STANDARD)
    html = proposal_html(revision=revision, language="en")
    standard = Product.objects.get(part_number=STANDARD)

    assert _terms(html) == []
    assert standard.description_en in html
    assert _terms(proposal_html(revision=_quote_selling(world), language="en")) == []


def test_only_a_support_tier_takes_response_terms(seeded):
    switch = Product.objects.get(part_number="MQM9700-NS2F")
    switch.onsite_hours = 4
    with pytest.raises(ValidationError) as error:
        switch.full_clean()
    assert "onsite_hours" in error.value.message_dict

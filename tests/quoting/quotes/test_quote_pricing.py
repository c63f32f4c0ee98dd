"""Pricing: lines from a design's BOM, prices in the quote currency, a locked FX rate, discounts,
VAT and the rounding rule (per line, then totals)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog.models import Category, PriceListItem
from quoting.designs.models import FxRate
from quoting.designs.services.saved import design_save
from quoting.errors import InvalidValue, MissingPrices
from quoting.quotes.models import LineKind, Quote, QuoteCounter, Section
from quoting.quotes.selectors import (
    ROUNDING_RULE,
    line_amount,
    revision_alternatives,
    revision_totals,
    totals_compute,
)
from quoting.quotes.services.quotes import (
    quote_add_alternative,
    quote_add_free_text,
    quote_add_product,
    quote_create,
    quote_create_from_design,
    quote_set_discount,
    quote_update_line,
)
from tests.quoting.factories import ProductFactory, price_set, quote_reload

UNIVERSITY = {"gpu_count": 256, "switch_part_number": "MQM9790-NS2F", "subnet_manager": "on-switch"}


@pytest.fixture
def university_design(world, seeded):
    return design_save(
        project=world.project, name="256 GPUs", requirements=UNIVERSITY, user=world.sales
    )


# --- lines from a design -------------------------------------------------------------------------


def test_a_design_becomes_priced_lines_with_their_bom_roles(world, university_design):
    quote = quote_create_from_design(
        project=world.project, design=university_design, user=world.sales, currency="CNY"
    )
    revision = quote.current_revision
    # The optional spares kit follows the BOM (test_spares_kit.py).
    lines = list(revision.lines.exclude(section=Section.OPTIONAL).order_by("position"))
    assert [(ln.sku, ln.quantity, ln.role) for ln in lines] == [
        (row["sku"], row["quantity"], row["role"]) for row in university_design.bom
    ]
    spines = {ln.sku: ln for ln in lines if ln.role == "spine"}
    assert spines["MQM9700-NS2F"].unit_price == Decimal("230400.00")
    assert spines["MQM9700-NS2F"].product.part_number == "MQM9700-NS2F"
    assert "reference" in spines["MQM9700-NS2F"].price_source
    assert all(ln.section == Section.NETWORK and ln.kind == LineKind.PRODUCT for ln in lines)
    # The design's figures, frozen; the other build's BOM rows a saved design keeps for its own
    # page stay with it.
    kept_for_the_design_page = {"rack_scale_other_bom"}
    assert revision.design_snapshot == {
        key: value
        for key, value in university_design.result.items()
        if key not in kept_for_the_design_page
    }
    assert revision.tax_percent == Decimal("13")  # a mainland China customer
    assert revision.fx_rate is None


def test_a_price_missing_in_the_quote_currency_is_converted_at_a_locked_rate_noted_on_the_line(
    world, university_design
):
    switch = PriceListItem.objects.get(
        product__part_number="MQM9700-NS2F", price_list__currency="CNY"
    )
    switch.delete()
    FxRate.objects.create(
        source="USD", target="CNY", rate=Decimal("7.123456"), as_of=dt.date(2026, 1, 5)
    )
    FxRate.objects.create(
        source="USD", target="CNY", rate=Decimal("9.9"), as_of=dt.date(2099, 1, 1)
    )  # not yet valid
    quote = quote_create_from_design(
        project=world.project, design=university_design, user=world.sales, currency="CNY"
    )
    revision = quote.current_revision
    assert (revision.fx_source_currency, revision.fx_rate, revision.fx_rate_date) == (
        "USD",
        Decimal("7.123456"),
        dt.date(2026, 1, 5),
    )
    spine = revision.lines.get(sku="MQM9700-NS2F")
    assert spine.unit_price == Decimal("227950.59")  # 32000.00 x 7.123456 = 227950.592
    assert "USD 32000.00 x 7.123456 (2026-01-05)" in spine.price_source
    # Products priced in CNY keep their CNY list price.
    leaf = revision.lines.filter(sku="MQM9790-NS2F").first()
    assert leaf.unit_price == Decimal("201600.00")
    assert "USD" not in leaf.price_source


def test_a_product_without_any_usable_price_is_refused_naming_every_sku_and_nothing_is_created(
    world, university_design
):
    PriceListItem.objects.filter(
        product__part_number__in=["MQM9700-NS2F", "MMA4Z00-NS"], price_list__currency="CNY"
    ).delete()
    # A USD price exists, but no USD to CNY rate: still missing.
    with pytest.raises(MissingPrices) as caught:
        quote_create_from_design(
            project=world.project, design=university_design, user=world.sales, currency="CNY"
        )
    assert caught.value.skus == ["MMA4Z00-NS", "MQM9700-NS2F"]
    assert "MMA4Z00-NS, MQM9700-NS2F" in caught.value.message
    assert caught.value.field == "lines"
    assert not Quote.objects.exists()
    assert not QuoteCounter.objects.filter(last__gt=0).exists()  # the number was not used up


def test_a_chinese_reader_is_told_in_chinese_which_products_have_no_price(world, university_design):
    from django.utils import translation

    PriceListItem.objects.filter(
        product__part_number="MQM9700-NS2F", price_list__currency="CNY"
    ).delete()
    with translation.override("zh-hans"), pytest.raises(MissingPrices) as caught:
        quote_create_from_design(
            project=world.project, design=university_design, user=world.sales, currency="CNY"
        )
    assert caught.value.message.startswith("以下产品没有 CNY 价格")
    assert "MQM9700-NS2F" in caught.value.message
    assert "No price" not in caught.value.message


def test_a_design_of_another_project_cannot_be_quoted(world, university_design):
    from tests.quoting.factories import ProjectFactory

    other = ProjectFactory(customer=world.customer, name="Another")
    with pytest.raises(InvalidValue) as caught:
        quote_create_from_design(project=other, design=university_design, user=world.sales)
    assert caught.value.field == "design"


# --- adding lines --------------------------------------------------------------------------------


def test_services_and_support_land_in_their_own_sections(world, seeded):
    quote = quote_create(project=world.project, user=world.sales)
    install = quote_add_product(
        quote=quote,
        sku="SVC-INSTALL-RACK",
        quantity=4,
        user=world.sales,
        expected_version=quote.version,
    )
    support = quote_add_product(
        quote=quote, sku="SUP-PREM-1Y", quantity=3, user=world.sales, expected_version=quote.version
    )
    survey = quote_add_free_text(
        quote=quote,
        description="Site survey, Shenzhen",
        quantity=1,
        unit_price="5000.00",
        user=world.sales,
        expected_version=quote.version,
    )
    assert (install.section, install.kind, install.unit_price) == (
        Section.SERVICES,
        LineKind.SERVICE,
        Decimal("10800.00"),
    )
    assert (support.section, support.kind) == (Section.SUPPORT, LineKind.PRODUCT)
    assert (survey.kind, survey.product, survey.sku) == (LineKind.FREE_TEXT, None, "")
    assert [ln.position for ln in quote.current_revision.lines.order_by("position")] == [1, 2, 3]


@pytest.mark.parametrize(
    ("field", "kwargs"),
    [
        ("quantity", {"quantity": -1}),
        ("quantity", {"quantity": 2.5}),
        ("discount_percent", {"discount_percent": "100.01"}),
        ("discount_percent", {"discount_percent": "-1"}),
        ("discount_percent", {"discount_percent": "NaN"}),
        ("discount_percent", {"discount_percent": "5.555"}),
        ("sku", {"sku": "NOT-IN-CATALOG"}),
        ("section", {"section": "alternatives"}),
    ],
)
def test_bad_line_input_is_refused_naming_the_field(world, seeded, field, kwargs):
    quote = quote_create(project=world.project, user=world.sales)
    values = {"sku": "SVC-INSTALL-RACK", "quantity": 1, **kwargs}
    with pytest.raises(InvalidValue) as caught:
        quote_add_product(quote=quote, user=world.sales, expected_version=quote.version, **values)
    assert caught.value.field == field
    assert not quote.current_revision.lines.exists()


# --- the rounding rule and totals ---------------------------------------------------------------


def test_the_rounding_rule_is_stated_once_and_rounds_each_line_half_up_after_its_discount(db):
    assert ROUNDING_RULE.startswith("Each line is rounded to 0.01 (half up) after its discount")
    # 3 x 0.35 less 50 % = 0.525 -> 0.53 (half up; banker's rounding would give 0.52)
    assert line_amount(
        quantity=3, unit_price=Decimal("0.35"), discount_percent=Decimal(50)
    ) == Decimal("0.53")
    totals = totals_compute(
        line_amounts=[Decimal("0.53"), Decimal("0.53")],
        discount_percent=Decimal("12.5"),
        tax_percent=Decimal(13),
    )
    # 1.06 - 0.1325 -> 0.13 = 0.93; VAT 0.1209 -> 0.12; total 1.05
    assert totals.subtotal == Decimal("1.06")
    assert (totals.discount, totals.net, totals.tax, totals.total) == (
        Decimal("0.13"),
        Decimal("0.93"),
        Decimal("0.12"),
        Decimal("1.05"),
    )


def test_a_quote_total_follows_line_and_quote_discounts_and_vat(world):
    product = ProductFactory(part_number="SW-1")
    price_set(product, "CNY", "1000.00")
    quote = quote_create(project=world.project, user=world.sales)
    line = quote_add_product(
        quote=quote, sku="SW-1", quantity=3, user=world.sales, expected_version=quote.version
    )
    quote_update_line(
        quote=quote,
        line=line,
        discount_percent="7.5",
        user=world.sales,
        expected_version=quote.version,
    )
    quote_set_discount(
        quote=quote, discount_percent=5, user=world.sales, expected_version=quote.version
    )
    totals = revision_totals(revision=quote_reload(quote).current_revision)
    # 3000 less 7.5 % = 2775.00; less 5 % = 2636.25; VAT 13 % = 342.7125 -> 342.71
    assert (totals.subtotal, totals.discount, totals.net, totals.tax, totals.total) == (
        Decimal("2775.00"),
        Decimal("138.75"),
        Decimal("2636.25"),
        Decimal("342.71"),
        Decimal("2978.96"),
    )
    assert all(isinstance(v, Decimal) for v in (totals.subtotal, totals.tax, totals.total))


def test_optional_items_and_alternatives_stay_out_of_the_totals(world):
    price_set(ProductFactory(part_number="SW-1"), "CNY", "100.00")
    price_set(ProductFactory(part_number="SW-OPT"), "CNY", "999.00")
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=quote, sku="SW-1", quantity=1, user=world.sales, expected_version=quote.version
    )
    quote_add_product(
        quote=quote,
        sku="SW-OPT",
        quantity=1,
        section=Section.OPTIONAL,
        user=world.sales,
        expected_version=quote.version,
    )
    assert revision_totals(revision=quote.current_revision).subtotal == Decimal("100.00")


percent = st.decimals(min_value=0, max_value=100, places=2)
price = st.decimals(min_value=0, max_value=Decimal("99999999.99"), places=2)
lines_strategy = st.lists(st.tuples(st.integers(0, 10_000), price, percent), max_size=30)


@settings(max_examples=300, deadline=None)
@given(lines=lines_strategy, quote_discount=percent, tax=percent)
def test_the_total_is_the_sum_of_rounded_lines_less_the_rounded_discount_plus_rounded_tax(
    lines, quote_discount, tax
):
    amounts = [line_amount(quantity=q, unit_price=p, discount_percent=d) for q, p, d in lines]
    totals = totals_compute(line_amounts=amounts, discount_percent=quote_discount, tax_percent=tax)
    cent = Decimal("0.01")
    assert all(a == a.quantize(cent) for a in amounts)
    assert totals.subtotal == sum(amounts, Decimal(0))
    assert totals.discount == totals.discount.quantize(cent)
    assert totals.tax == totals.tax.quantize(cent)
    assert totals.total == totals.subtotal - totals.discount + totals.tax
    assert totals.net == totals.subtotal - totals.discount
    assert min(totals.subtotal, totals.discount, totals.net, totals.tax, totals.total) >= 0
    assert totals.discount <= totals.subtotal


# --- good / better / best ------------------------------------------------------------------------


def test_an_alternative_fabric_is_priced_as_a_delta_against_the_chosen_design(
    world, university_design
):
    managed = design_save(
        project=world.project,
        name="256 GPUs, managed QM9700",
        requirements={**UNIVERSITY, "switch_part_number": "MQM9700-NS2F"},
        user=world.sales,
    )
    quote = quote_create_from_design(
        project=world.project, design=university_design, user=world.sales, currency="CNY"
    )
    chosen = revision_totals(revision=quote.current_revision)
    lines = quote_add_alternative(
        quote=quote,
        design=managed,
        label="Better: all managed",
        user=world.sales,
        expected_version=quote.version,
    )
    # The option's BOM, and its spares kit as optional lines of its group: neither totalled.
    assert {ln.section for ln in lines} <= {Section.ALTERNATIVES, Section.OPTIONAL}
    assert any(ln.section == Section.ALTERNATIVES for ln in lines)
    assert all(ln.alternative_group == "Better: all managed" for ln in lines)
    assert revision_totals(revision=quote.current_revision) == chosen  # not in the total
    [better] = revision_alternatives(revision=quote.current_revision)
    # The delta is exactly the difference of the two BOMs' subtotals, each line rounded.
    alt_subtotal = sum(
        line_amount(
            quantity=ln.quantity, unit_price=ln.unit_price, discount_percent=ln.discount_percent
        )
        for ln in lines
        if ln.section == Section.ALTERNATIVES
    )
    assert better.group == "Better: all managed"
    assert better.subtotal == alt_subtotal
    assert better.delta_subtotal == alt_subtotal - chosen.subtotal
    assert better.delta_total == better.total_if_chosen - chosen.total
    assert better.delta_subtotal > 0  # managed switches cost more
    with pytest.raises(InvalidValue):
        quote_add_alternative(
            quote=quote,
            design=managed,
            label="Better: all managed",
            user=world.sales,
            expected_version=quote.version,
        )


def test_catalog_category_decides_the_section_of_bom_lines(db):
    from quoting.quotes.services.quotes import SECTION_OF_CATEGORY

    assert SECTION_OF_CATEGORY[Category.SERVICE] == Section.SERVICES
    assert SECTION_OF_CATEGORY[Category.SUPPORT] == Section.SUPPORT

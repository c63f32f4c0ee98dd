"""A sent quote that offers choices, for the workbook's tests: a catalog line and a service,
two optional items (one with its own discount), the alternatives Better and Best (Best with a
catalog part), a quote discount and VAT, every configuration within a salesperson's rule."""

from __future__ import annotations

from decimal import Decimal

from quoting.quotes.models import LineKind, QuoteLine, Section
from quoting.quotes.services.quotes import (
    quote_add_free_text,
    quote_add_product,
    quote_create,
    quote_send,
    quote_update_terms,
)
from tests.quoting.factories import ProductFactory, price_set


def _alternative(revision, group, position, description, quantity, unit_price, **product):
    return QuoteLine.objects.create(
        revision=revision,
        position=position,
        section=Section.ALTERNATIVES,
        alternative_group=group,
        kind=LineKind.PRODUCT if product else LineKind.FREE_TEXT,
        description=description,
        quantity=quantity,
        unit_price=Decimal(unit_price),
        **product,
    )


def quote_offering_choices(world, *, send: bool = True, language: str = "en"):
    world.customer.language = language
    world.customer.save()
    price_set(ProductFactory(part_number="SW-1", name="QM9790 switch"), "CNY", "100000.00")
    quote = quote_create(project=world.project, user=world.sales)
    sales = world.sales
    quote_add_product(
        quote=quote, sku="SW-1", quantity=2, user=sales, expected_version=quote.version
    )
    for description, quantity, price, extra in (
        ("Installation", 1, "12345.67", {}),
        ("Spare optics kit", 3, "999.99", {"section": Section.OPTIONAL, "discount_percent": "5"}),
        ("On-site training day", 1, "8000.00", {"section": Section.OPTIONAL}),
    ):
        quote_add_free_text(
            quote=quote,
            description=description,
            quantity=quantity,
            unit_price=price,
            expected_version=quote.version,
            user=sales,
            **extra,
        )
    quote_update_terms(
        quote=quote,
        discount_percent="3.33",
        tax_percent="13",
        expected_version=quote.version,
        user=sales,
    )
    revision = quote.current_revision
    _alternative(revision, "Better", 100, "QM9700 managed switch", 2, "115000.00")
    _alternative(revision, "Better", 101, "UFM licence", 1, "4321.09")
    _alternative(revision, "Best", 102, "Spine switch", 4, "115000.00", sku="SW-BEST", role="spine")
    if send:
        quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    quote.refresh_from_db()
    return quote


def optional_line(quote, description: str) -> QuoteLine:
    return quote.current_revision.lines.get(section=Section.OPTIONAL, description=description)

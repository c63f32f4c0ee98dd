"""A sent quote that offers choices: a network section, services, two alternatives (Better,
Best) and two optional lines (one with its own discount), with a quote discount and VAT."""

from __future__ import annotations

from decimal import Decimal

from quoting.quotes.models import QuoteLine, Section
from quoting.quotes.services.quotes import (
    quote_add_free_text,
    quote_add_product,
    quote_approve,
    quote_create,
    quote_request_approval,
    quote_send,
    quote_update_terms,
)
from tests.quoting.factories import ProductFactory, price_set


def _alternative(
    revision, group: str, position: int, description: str, quantity: int, unit_price: str
) -> QuoteLine:
    # As quote_add_alternative() writes them from a saved design: the alternatives section,
    # under the option's name, outside the totals.
    return QuoteLine.objects.create(
        revision=revision,
        position=position,
        section=Section.ALTERNATIVES,
        alternative_group=group,
        kind="free-text",
        description=description,
        quantity=quantity,
        unit_price=Decimal(unit_price),
    )


def quote_with_choices(world, *, currency_language: str = "en", send: bool = True):
    world.customer.language = currency_language
    world.customer.save()
    price_set(ProductFactory(part_number="SW-1", name="QM9790 switch"), "CNY", "100000.00")
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=quote, sku="SW-1", quantity=2, user=world.sales, expected_version=quote.version
    )
    quote_add_free_text(
        quote=quote,
        description="Installation",
        quantity=1,
        unit_price="12345.67",
        user=world.sales,
        expected_version=quote.version,
    )
    quote_add_free_text(
        quote=quote,
        description="Spare optics kit",
        quantity=3,
        unit_price="999.99",
        section=Section.OPTIONAL,
        discount_percent="7.5",
        user=world.sales,
        expected_version=quote.version,
    )
    quote_add_free_text(
        quote=quote,
        description="On-site training day",
        quantity=1,
        unit_price="8000.00",
        section=Section.OPTIONAL,
        user=world.sales,
        expected_version=quote.version,
    )
    quote_update_terms(
        quote=quote,
        discount_percent="3.33",
        tax_percent="13",
        user=world.sales,
        expected_version=quote.version,
    )
    revision = quote.current_revision
    _alternative(revision, "Better", 100, "QM9700 managed switch", 2, "115000.00")
    _alternative(revision, "Better", 101, "UFM licence", 1, "4321.09")
    _alternative(revision, "Best", 102, "QM9700 managed switch, 4 spines", 4, "115000.00")
    if send:
        # The optional kit's 7.5 % and the quote's 3.33 % compound to 10.58 % below list, past
        # the sales rule's 10 %: the gate measures every choice the link offers, so a manager
        # approves it first.
        quote_request_approval(quote=quote, user=world.sales, expected_version=quote.version)
        quote_approve(quote=quote, user=world.manager)
        quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    quote.refresh_from_db()
    return quote


def optional_line(quote, description: str) -> QuoteLine:
    return quote.current_revision.lines.get(section=Section.OPTIONAL, description=description)

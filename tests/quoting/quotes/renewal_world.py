"""What renewal tests start from: a switch sold once and a support contract sold by the year, a
quote of both accepted, and time travel (its terms moved to end on a given day)."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from catalog.models import Category, Unit
from quoting.quotes.models import Quote, QuoteLine, Section
from quoting.quotes.renewals import months_added
from quoting.quotes.services.quotes import (
    quote_add_free_text,
    quote_add_product,
    quote_create,
    quote_mark_accepted,
    quote_send,
)
from tests.quoting.factories import ProductFactory, price_set, quote_reload

SUPPORT_NAME = "Enterprise support, 1 year"


def support_priced() -> None:
    """SW-1, a switch sold once (10,000.00 CNY), and SUP-1, a support contract sold by the year
    (12,000.00 CNY a year)."""
    price_set(ProductFactory(part_number="SW-1"), "CNY", "10000.00")
    support = ProductFactory(part_number="SUP-1", name=SUPPORT_NAME, category=Category.SUPPORT)
    support.unit = Unit.YEAR
    support.save(update_fields=["unit"])
    price_set(support, "CNY", "12000.00")


def accepted(world, *, user=None, project=None, free_text_term=False) -> Quote:
    """A quote of a switch and two units of a year's support (and, with `free_text_term`, a
    yearly free-text service at 3,000.00 less 10 %), sent and accepted today."""
    user = user or world.sales
    quote = quote_create(project=project or world.project, user=user)
    quote_add_product(
        quote=quote, sku="SW-1", quantity=1, user=user, expected_version=quote.version
    )
    quote_add_product(
        quote=quote, sku="SUP-1", quantity=2, user=user, expected_version=quote.version
    )
    if free_text_term:
        line = quote_add_free_text(
            quote=quote,
            description="On-site spares service, yearly",
            quantity=1,
            unit_price="3000.00",
            discount_percent="10",
            section=Section.SUPPORT,
            user=user,
            expected_version=quote.version,
        )
        QuoteLine.objects.filter(pk=line.pk).update(term_months=12)
    quote_send(quote=quote, user=user, expected_version=quote.version)
    quote_mark_accepted(quote=quote, actor=user, expected_version=quote.version)
    return quote_reload(quote)


def ending_on(quote: Quote, ends_on: dt.date) -> None:
    """Time travel: the quote's booked terms started a year before `ends_on`."""
    QuoteLine.objects.filter(revision__quote=quote, starts_on__isnull=False).update(
        starts_on=months_added(ends_on, -12)
    )


def end_in(days: int) -> dt.date:
    """A date `days` from today that a year's term can end on (never 29 February)."""
    end = timezone.localdate() + dt.timedelta(days=days)
    return end + dt.timedelta(days=1) if (end.month, end.day) == (2, 29) else end


def support_line(quote: Quote) -> QuoteLine:
    return QuoteLine.objects.get(revision=quote.booked_revision, sku="SUP-1")

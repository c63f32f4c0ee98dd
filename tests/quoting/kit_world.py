"""A quote made from a design with one alternative, each with its own spares kit (issue 26 item
8), and an optional item entered on the quote.

Prices (CNY; the customer's VAT table: 13 % on goods, 6 % on services; no discount). Only spare
switches are offered, at 25 % of each switch of a design, rounded up:

- the proposed design "4 leaves": 4 x SW-A at 10,000.00 = 40,000.00; its kit 1 x SW-A,
  10,000.00 (optional);
- the alternative "Better": 6 x SW-B at 20,000.00 = 120,000.00; its kit 2 x SW-B, 40,000.00
  (optional, offered with "Better" only);
- entered on the quote: installation 5,000.00 (services), and an optional on-site spares
  locker 3,000.00, offered with any configuration.
"""

from __future__ import annotations

from decimal import Decimal

from catalog.models import Category, SparesRatio
from quoting.designs.models import SavedDesign
from quoting.quotes.models import Section
from quoting.quotes.services.quotes import (
    quote_add_alternative,
    quote_add_free_text,
    quote_create_from_design,
)
from tests.quoting.factories import ProductFactory, price_set

# As quoted: 40,000.00 of goods at 13 % (5,200.00) + 5,000.00 of services at 6 % (300.00).
AS_QUOTED_TOTAL = Decimal("50500.00")
# With "Better": 120,000.00 at 13 % (15,600.00) + 5,000.00 at 6 % (300.00).
BETTER_TOTAL = Decimal("140900.00")
# As quoted with its kit and the locker: 53,000.00 at 13 % (6,890.00) + 300.00 of VAT on services.
AS_QUOTED_WITH_KIT_TOTAL = Decimal("65190.00")
# "Better" with its kit and the locker: 163,000.00 at 13 % (21,190.00) + 5,000.00 + 300.00.
BETTER_WITH_KIT_TOTAL = Decimal("189490.00")


def _design(project, name: str, sku: str, switches: int) -> SavedDesign:
    bom = [{"sku": sku, "category": "switch", "quantity": switches, "role": "leaf", "name": name}]
    return SavedDesign.objects.create(
        project=project,
        name=name,
        requirements={"gpu_count": switches * 8},
        result={"bom": bom},
        created_by=project.owner,
    )


def quote_with_kits(world):
    for sku, price in (("SW-A", "10000.00"), ("SW-B", "20000.00")):
        price_set(ProductFactory(part_number=sku, category=Category.SWITCH), "CNY", price)
    SparesRatio.objects.update(percent=0)
    SparesRatio.objects.update_or_create(spare_class="switches", defaults={"percent": 25})
    chosen = _design(world.project, "4 leaves", "SW-A", 4)
    better = _design(world.project, "6 leaves", "SW-B", 6)
    quote = quote_create_from_design(
        project=world.project, design=chosen, user=world.sales, currency="CNY"
    )
    for description, price, section in (
        ("Installation", "5000.00", Section.SERVICES),
        ("On-site spares locker", "3000.00", Section.OPTIONAL),
    ):
        quote_add_free_text(
            quote=quote,
            description=description,
            quantity=1,
            unit_price=price,
            section=section,
            user=world.sales,
            expected_version=quote.version,
        )
    quote_add_alternative(
        quote=quote, design=better, label="Better", user=world.sales, expected_version=quote.version
    )
    quote.refresh_from_db()
    return quote

"""servers_world's quote (2 servers, 2 compute nodes; "Larger": 3 servers, 3 nodes) with a
service priced per node and support priced as a share of the hardware, for the rule that an
option carries both for itself (content version 7):

- NCCL tuning per node at 1,800.00, sold (moved out of the optional section) unless `sold` is
  False: 2 x 1,800.00 = 3,600.00 as quoted, 3 x 1,800.00 = 5,400.00 with "Larger";
- support at 10 % of the hardware (least 100.00): 204,000.00 of 2,040,000.00 as quoted,
  306,000.00 of "Larger"'s 3,060,000.00.

Services and support are taxed at 6 %, goods and software at 13 %; no discount.
"""

from __future__ import annotations

from decimal import Decimal

from catalog.models import Category, PricingBasis, Unit
from quoting.quotes.models import LineOrigin, QuoteRevision
from quoting.quotes.selectors import revision_content_fingerprint
from quoting.quotes.services.quotes import quote_add_product, quote_send, quote_update_line
from tests.quoting.factories import ProductFactory, price_set
from tests.quoting.servers_world import quote_with_a_larger_alternative

TUNING = "SVC-TUNE-1N"
SHARE = "SUP-PCT"
# 2,050,600.00 of goods at 13 % (266,578.00); 5,000.00 + 3,600.00 + 204,000.00 of services
# and support at 6 % (12,756.00).
AS_QUOTED_TOTAL = Decimal("2542534.00")
# "Larger" with the services and support as quoted (content version 6 and before):
# 3,075,400.00 of goods at 13 % (399,802.00); 212,600.00 at 6 % (12,756.00).
LARGER_AS_QUOTED_SERVICES_TOTAL = Decimal("3700558.00")
# "Larger" carrying its own: 3,075,400.00 at 13 % (399,802.00); 5,000.00 + 5,400.00 +
# 306,000.00 = 316,400.00 at 6 % (18,984.00).
LARGER_TOTAL = Decimal("3810586.00")


def quote_with_option_services(world, *, sold: bool = True):
    tuning = ProductFactory(part_number=TUNING, category=Category.SERVICE, unit=Unit.NODE)
    price_set(tuning, "CNY", "1800.00")
    share = ProductFactory(
        part_number=SHARE,
        category=Category.SUPPORT,
        unit=Unit.YEAR,
        pricing_basis=PricingBasis.PERCENT_OF_HARDWARE,
        hardware_percent=Decimal("10.00"),
    )
    price_set(share, "CNY", "100.00")
    quote = quote_with_a_larger_alternative(world, nodes=True)
    quote_add_product(
        quote=quote, sku=SHARE, quantity=1, user=world.sales, expected_version=quote.version
    )
    quote.refresh_from_db()
    line = quote.current_revision.lines.get(sku=TUNING)
    assert (line.origin, line.quantity) == (LineOrigin.NODE_SERVICES, 2)
    if sold:
        quote_update_line(
            quote=quote, line=line, user=world.sales, expected_version=quote.version, optional=False
        )
        quote.refresh_from_db()
    return quote


def sent(quote, world) -> QuoteRevision:
    quote.refresh_from_db()
    return quote_send(quote=quote, user=world.sales, expected_version=quote.version)


def sent_under_version_6(quote, world) -> QuoteRevision:
    """The quote sent as it was before the rule: fingerprinted under version 6, with nothing of
    what options are priced on kept."""
    revision = sent(quote, world)
    QuoteRevision.objects.filter(pk=revision.pk).update(option_basis=None)
    revision.refresh_from_db()
    QuoteRevision.objects.filter(pk=revision.pk).update(
        content_sha256=revision_content_fingerprint(revision=revision, version=6)
    )
    return QuoteRevision.objects.get(pk=revision.pk)

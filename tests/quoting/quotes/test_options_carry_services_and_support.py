"""An option carries the services priced per node for its compute nodes and the support priced as
a share of the hardware for its hardware (content version 7), as support per switch already
followed it: choosing the larger alternative books its extra nodes' services and its extra
hardware's support. A revision sent before keeps both as quoted with every option, and its
totals.

servers_world's quote (2 servers, 2 compute nodes; "Larger": 3 servers, 3 nodes), with:

- NCCL tuning per node at 1,800.00, sold (moved out of the optional section): 2 x 1,800.00 =
  3,600.00 as quoted, 3 x 1,800.00 = 5,400.00 with "Larger";
- support at 10 % of the hardware (least 100.00): 204,000.00 of 2,040,000.00 as quoted,
  306,000.00 of "Larger"'s 3,060,000.00.

Services and support are taxed at 6 %, goods and software at 13 %; no discount.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from catalog.models import Category, PricingBasis, Product, Unit
from quoting.quotes.models import LineOrigin, QuoteRevision
from quoting.quotes.selectors import (
    alternatives_rule,
    booked_choice,
    offer_choice,
    revision_alternatives,
    revision_content_fingerprint,
    revision_totals,
    services_follow_the_option,
)
from quoting.quotes.services.quotes import (
    quote_add_product,
    quote_mark_accepted,
    quote_send,
    quote_update_line,
)
from tests.quoting.factories import ProductFactory, price_set
from tests.quoting.servers_world import quote_with_a_larger_alternative

pytestmark = pytest.mark.django_db

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


def _quote(world, *, sold: bool = True):
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


def _followed(choice) -> dict[str, tuple[int, Decimal]]:
    return {
        ln.sku: (ln.quantity, ln.unit_price) for ln in choice.lines if ln.sku in (TUNING, SHARE)
    }


def _sent(quote, world) -> QuoteRevision:
    quote.refresh_from_db()
    return quote_send(quote=quote, user=world.sales, expected_version=quote.version)


def test_choosing_the_larger_option_adds_its_extra_nodes_services_and_hardware_s_support(world):
    revision = _quote(world).current_revision
    assert revision_totals(revision=revision).total == AS_QUOTED_TOTAL
    assert "services priced per compute node, follow the option" in alternatives_rule(revision)

    choice = offer_choice(revision=revision, alternative="Larger")
    assert _followed(choice) == {
        TUNING: (3, Decimal("1800.00")),
        SHARE: (1, Decimal("306000.00")),
    }
    assert choice.totals.subtotal == Decimal("3391800.00")
    assert choice.totals.total == LARGER_TOTAL
    # 1,800.00 of tuning and 102,000.00 of support more than the option carried before, with
    # their 6 % VAT.
    assert choice.totals.total - LARGER_AS_QUOTED_SERVICES_TOTAL == Decimal("110028.00")

    [larger] = revision_alternatives(revision=revision)
    assert (larger.total_if_chosen, larger.delta_total) == (
        LARGER_TOTAL,
        LARGER_TOTAL - AS_QUOTED_TOTAL,
    )
    # Reading a choice writes nothing: the offer as quoted keeps its own lines.
    assert {ln.sku: ln.quantity for ln in revision.lines.filter(sku__in=(TUNING, SHARE))} == {
        TUNING: 2,
        SHARE: 1,
    }


def test_services_per_node_offered_as_optional_are_sized_for_the_option_chosen(world):
    revision = _quote(world, sold=False).current_revision
    key = str(revision.lines.get(sku=TUNING).key)
    as_quoted = offer_choice(revision=revision, optional_keys=[key])
    assert _followed(as_quoted)[TUNING] == (2, Decimal("1800.00"))
    larger = offer_choice(revision=revision, alternative="Larger", optional_keys=[key])
    assert _followed(larger)[TUNING] == (3, Decimal("1800.00"))
    # Included, as much as sold; left out, 5,400.00 and its 324.00 of VAT less.
    assert larger.totals.total == LARGER_TOTAL
    without = offer_choice(revision=revision, alternative="Larger")
    assert without.totals.total == LARGER_TOTAL - Decimal("5724.00")


def test_a_quantity_changed_by_hand_is_kept_with_the_option(world):
    quote = _quote(world)
    line = quote.current_revision.lines.get(sku=TUNING)
    quote_update_line(
        quote=quote, line=line, user=world.sales, expected_version=quote.version, quantity=1
    )
    choice = offer_choice(revision=quote.current_revision, alternative="Larger")
    assert _followed(choice)[TUNING] == (1, Decimal("1800.00"))


def test_the_sent_revision_keeps_what_its_options_were_priced_on(world):
    quote = _quote(world)
    revision = _sent(quote, world)
    assert revision.content_sha256.startswith("7:") and services_follow_the_option(revision)
    assert revision.option_basis == {
        "nodes": {"": 2, "Larger": 3},
        "support": {SHARE: {"percent": "10.00", "least": "100.00"}},
    }
    assert offer_choice(revision=revision, alternative="Larger").totals.total == LARGER_TOTAL
    # The alternative's design stored again with more nodes, the catalog's percent changed:
    # the option sent is priced as its PDF printed it.
    larger = revision.lines.filter(alternative_group="Larger").exclude(design=None).first()
    larger.design.result = {**larger.design.result, "node_count": 30}
    larger.design.save()
    Product.objects.filter(part_number=SHARE).update(hardware_percent=Decimal("20.00"))
    revision = QuoteRevision.objects.get(pk=revision.pk)
    assert offer_choice(revision=revision, alternative="Larger").totals.total == LARGER_TOTAL
    assert revision_content_fingerprint(revision=revision) == revision.content_sha256


def test_the_customer_who_chooses_the_larger_option_is_booked_at_its_total(world):
    quote = _sent(_quote(world), world).quote
    quote.refresh_from_db()
    quote_mark_accepted(
        quote=quote, actor=world.sales, expected_version=quote.version, alternative="Larger"
    )
    quote.refresh_from_db()
    assert quote.booked_total == LARGER_TOTAL
    assert _followed(booked_choice(quote=quote))[TUNING] == (3, Decimal("1800.00"))


def _sent_under_version_6(quote, world) -> QuoteRevision:
    """The quote sent as it was before this rule: fingerprinted under version 6, with nothing
    of what options are priced on kept."""
    revision = _sent(quote, world)
    QuoteRevision.objects.filter(pk=revision.pk).update(option_basis=None)
    revision.refresh_from_db()
    QuoteRevision.objects.filter(pk=revision.pk).update(
        content_sha256=revision_content_fingerprint(revision=revision, version=6)
    )
    return QuoteRevision.objects.get(pk=revision.pk)


def test_a_revision_sent_under_version_6_keeps_its_options_services_and_support_as_quoted(world):
    quote = _quote(world)
    revision = _sent_under_version_6(quote, world)
    assert not services_follow_the_option(revision)
    assert revision_totals(revision=revision).total == AS_QUOTED_TOTAL
    choice = offer_choice(revision=revision, alternative="Larger")
    assert _followed(choice) == {
        TUNING: (2, Decimal("1800.00")),
        SHARE: (1, Decimal("204000.00")),
    }
    assert choice.totals.total == LARGER_AS_QUOTED_SERVICES_TOTAL
    [larger] = revision_alternatives(revision=revision)
    assert larger.total_if_chosen == LARGER_AS_QUOTED_SERVICES_TOTAL
    # Its fingerprint is still the one it was sent with, and its note the rule it printed.
    assert revision_content_fingerprint(revision=revision, version=6) == revision.content_sha256
    assert "stays as quoted" in alternatives_rule(revision)

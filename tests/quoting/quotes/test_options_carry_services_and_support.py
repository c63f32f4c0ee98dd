"""An option carries the services priced per node for its compute nodes and the support priced as
a share of the hardware for its hardware (content version 7), as support per switch already
followed it: choosing the larger alternative books its extra nodes' services and its extra
hardware's support. A revision sent before keeps both as quoted with every option, and its
totals. The figures: tests/quoting/option_services_world.py."""

from __future__ import annotations

from decimal import Decimal

import pytest

from catalog.models import Product
from quoting.quotes.models import QuoteRevision
from quoting.quotes.selectors import (
    alternatives_rule,
    booked_choice,
    offer_choice,
    revision_alternatives,
    revision_content_fingerprint,
    revision_totals,
    services_follow_the_option,
)
from quoting.quotes.services.quotes import quote_mark_accepted, quote_update_line
from tests.quoting.option_services_world import (
    AS_QUOTED_TOTAL,
    LARGER_AS_QUOTED_SERVICES_TOTAL,
    LARGER_TOTAL,
    SHARE,
    TUNING,
    quote_with_option_services,
    sent,
    sent_under_version_6,
)

pytestmark = pytest.mark.django_db


def _followed(choice) -> dict[str, tuple[int, Decimal]]:
    return {
        ln.sku: (ln.quantity, ln.unit_price) for ln in choice.lines if ln.sku in (TUNING, SHARE)
    }


def test_choosing_the_larger_option_adds_its_extra_nodes_services_and_hardware_s_support(world):
    revision = quote_with_option_services(world).current_revision
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
    revision = quote_with_option_services(world, sold=False).current_revision
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
    quote = quote_with_option_services(world)
    line = quote.current_revision.lines.get(sku=TUNING)
    quote_update_line(
        quote=quote, line=line, user=world.sales, expected_version=quote.version, quantity=1
    )
    choice = offer_choice(revision=quote.current_revision, alternative="Larger")
    assert _followed(choice)[TUNING] == (1, Decimal("1800.00"))


def test_the_sent_revision_keeps_what_its_options_were_priced_on(world):
    quote = quote_with_option_services(world)
    revision = sent(quote, world)
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
    quote = sent(quote_with_option_services(world), world).quote
    quote.refresh_from_db()
    quote_mark_accepted(
        quote=quote, actor=world.sales, expected_version=quote.version, alternative="Larger"
    )
    quote.refresh_from_db()
    assert quote.booked_total == LARGER_TOTAL
    assert _followed(booked_choice(quote=quote))[TUNING] == (3, Decimal("1800.00"))


def test_a_revision_sent_under_version_6_keeps_its_options_services_and_support_as_quoted(world):
    quote = quote_with_option_services(world)
    revision = sent_under_version_6(quote, world)
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


def test_the_api_shows_each_option_s_total_as_sent_and_as_sent_before(world):
    from tests.quoting.api_world import token_client

    quote = quote_with_option_services(world)
    api = token_client(world.sales, scope="read")
    url = f"/api/v1/quotes/{quote.pk}/revisions/1/"
    assert api.get(url).json()["alternatives"] == [
        {
            "label": "Larger",
            "subtotal": "3074400.00",
            "total_if_chosen": "3810586.00",
            "delta_total": "1268052.00",  # 3,810,586.00 - 2,542,534.00
        }
    ]
    sent_under_version_6(quote, world)
    [larger] = api.get(url).json()["alternatives"]
    assert larger["total_if_chosen"] == "3700558.00"

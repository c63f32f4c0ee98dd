"""offer_choice(): the one pricing of what a customer chooses on the link (an alternative and
optional items), and its refusal of anything the revision does not offer."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest

from quoting.engine.money import round_money
from quoting.errors import InvalidValue
from quoting.quotes.models import Section
from quoting.quotes.selectors import (
    line_amount,
    offer_choice,
    offer_options,
    revision_alternatives,
    revision_totals,
    totals_compute,
)
from quoting.quotes.services.quotes import quote_revise
from tests.proposals.choice_world import optional_line, quote_with_choices

pytestmark = pytest.mark.django_db


@pytest.fixture
def quote(world):
    return quote_with_choices(world)


def _amount(line) -> Decimal:
    return line_amount(
        quantity=line.quantity, unit_price=line.unit_price, discount_percent=line.discount_percent
    )


def test_as_quoted_the_totals_are_the_quotes_own(quote):
    revision = quote.current_revision
    choice = offer_choice(revision=revision)
    assert choice.is_as_quoted and choice.alternative == "" and choice.optional_keys == []
    assert choice.totals == revision_totals(revision=revision)
    assert choice.totals.total == revision.total  # the stored figure of the sent revision
    assert {ln.section for ln in choice.lines} == {Section.NETWORK, Section.SERVICES}


@pytest.mark.parametrize("group", ["Better", "Best"])
def test_an_alternative_replaces_the_network_section_as_the_delta_says(quote, group):
    revision = quote.current_revision
    choice = offer_choice(revision=revision, alternative=group)
    delta = next(a for a in revision_alternatives(revision=revision) if a.group == group)
    assert choice.totals.total == delta.total_if_chosen
    assert choice.totals.total - revision.total == delta.delta_total
    assert Section.NETWORK not in {ln.section for ln in choice.lines}
    assert {ln.alternative_group for ln in choice.lines if ln.section == Section.ALTERNATIVES} == {
        group
    }


def test_optional_lines_add_with_their_own_discount_then_the_quote_discount_and_vat(quote):
    revision = quote.current_revision
    optics = optional_line(quote, "Spare optics kit")
    training = optional_line(quote, "On-site training day")
    choice = offer_choice(revision=revision, optional_keys=[str(training.key), str(optics.key)])
    assert choice.optional == (optics, training)  # in the quote's order, not the asked one
    totalled = [
        ln for ln in revision.lines.all() if ln.section in (Section.NETWORK, Section.SERVICES)
    ]
    chosen = [*totalled, optics, training]
    expected = totals_compute(
        line_amounts=[_amount(ln) for ln in chosen],
        line_rates=[ln.vat_percent for ln in chosen],
        discount_percent=revision.discount_percent,
        tax_percent=revision.tax_percent,
    )
    assert choice.totals == expected
    # Worked through by hand: the optics line is rounded after its 7.5 % discount...
    assert _amount(optics) == round_money(Decimal(3) * Decimal("999.99") * Decimal("0.925"))
    assert _amount(optics) == Decimal("2774.97")
    # ...then per VAT rate (goods 13 %: the switches, the kit, the training day typed as an
    # optional line; services 6 %: the installation), the quote discount and VAT are each
    # rounded to 0.01, half up.
    goods = Decimal("200000.00") + Decimal("2774.97") + Decimal("8000")
    services = Decimal("12345.67")
    goods_discount = round_money(goods * Decimal("3.33") / 100)
    services_discount = round_money(services * Decimal("3.33") / 100)
    goods_tax = round_money((goods - goods_discount) * Decimal("13") / 100)
    services_tax = round_money((services - services_discount) * Decimal("6") / 100)
    assert [(row.vat_percent, row.tax) for row in choice.totals.tax_breakdown] == [
        (Decimal("13.00"), goods_tax),
        (Decimal("6.00"), services_tax),
    ]
    assert (choice.totals.subtotal, choice.totals.discount, choice.totals.tax) == (
        goods + services,
        goods_discount + services_discount,
        goods_tax + services_tax,
    )
    assert choice.totals.total == (
        goods + services - goods_discount - services_discount + goods_tax + services_tax
    )


def test_an_alternative_and_an_optional_item_together(quote):
    revision = quote.current_revision
    optics = optional_line(quote, "Spare optics kit")
    better = offer_choice(revision=revision, alternative="Better")
    both = offer_choice(revision=revision, alternative="Better", optional_keys=[str(optics.key)])
    assert both.totals.subtotal == better.totals.subtotal + _amount(optics)
    assert both.totals.total > better.totals.total


@pytest.mark.parametrize("alternative", ["Good", "better", "Better ", "x" * 101])
def test_an_alternative_the_revision_does_not_offer_is_refused(quote, alternative):
    with pytest.raises(InvalidValue) as refused:
        offer_choice(revision=quote.current_revision, alternative=alternative)
    assert refused.value.field == "alternative"
    assert "no alternative called" in refused.value.message


def test_optional_keys_not_of_optional_lines_of_this_revision_are_refused(quote, world):
    revision = quote.current_revision
    network_line = revision.lines.get(section=Section.NETWORK)
    better_line = revision.lines.filter(section=Section.ALTERNATIVES).first()
    other = quote_with_choices_other(world)
    for key in (
        str(network_line.key),
        str(better_line.key),
        str(uuid.uuid4()),
        "not-a-key",
        str(optional_line(other, "Spare optics kit").key),
    ):
        with pytest.raises(InvalidValue) as refused:
            offer_choice(revision=revision, optional_keys=[key])
        assert refused.value.field == "optional"
        assert "no such optional item" in refused.value.message


def quote_with_choices_other(world):
    from tests.quoting.factories import ProjectFactory

    world.project = ProjectFactory(customer=world.customer, name="Another cluster")
    return quote_with_choices(world)


def test_an_optional_item_chosen_twice_is_refused(quote):
    key = str(optional_line(quote, "Spare optics kit").key)
    with pytest.raises(InvalidValue) as refused:
        offer_choice(revision=quote.current_revision, optional_keys=[key, key])
    assert refused.value.field == "optional"


def test_a_line_kept_into_the_next_revision_keeps_its_key_and_stays_choosable(quote, world):
    key = str(optional_line(quote, "Spare optics kit").key)
    draft = quote_revise(quote=quote, user=world.sales, expected_version=quote.version)
    assert offer_choice(revision=draft, optional_keys=[key]).optional_keys == [key]
    draft.lines.filter(key=key).delete()  # gone from R2: no longer offered there
    with pytest.raises(InvalidValue):
        offer_choice(revision=draft, optional_keys=[key])


def test_the_options_list_what_can_be_chosen(quote):
    options = offer_options(revision=quote.current_revision)
    assert [a.group for a in options.alternatives] == ["Better", "Best"]
    assert [row.line.description for row in options.optional] == [
        "Spare optics kit",
        "On-site training day",
    ]
    assert bool(options)

"""Revisions: a sent revision is frozen forever; editing a sent quote opens the next one; a diff
shows what changed; the revision page costs the same queries however many lines it has."""

from __future__ import annotations

from decimal import Decimal

import pytest

from catalog.models import PriceListItem
from quoting.errors import IllegalTransition, RevisionFrozen
from quoting.quotes.models import QuoteLine, QuoteRevision, QuoteStatus
from quoting.quotes.selectors import revision_diff, revision_for_display, revision_totals
from quoting.quotes.services.quotes import (
    quote_add_free_text,
    quote_add_product,
    quote_create,
    quote_mark_accepted,
    quote_remove_line,
    quote_revise,
    quote_send,
    quote_set_discount,
    quote_update_line,
)
from tests.quoting.factories import ProductFactory, price_set, quote_reload


@pytest.fixture
def sent_quote(world):
    """Q with R1 sent: two switches at 1000.00 and a free-text survey at 500.00."""
    price_set(ProductFactory(part_number="SW-1"), "CNY", "1000.00")
    price_set(ProductFactory(part_number="SW-2"), "CNY", "2000.00")
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=quote, sku="SW-1", quantity=2, user=world.sales, expected_version=quote.version
    )
    quote_add_free_text(
        quote=quote,
        description="Site survey",
        quantity=1,
        unit_price="500",
        user=world.sales,
        expected_version=quote.version,
    )
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    return quote


def _lines(revision):
    return [
        (ln.sku or ln.description, ln.quantity, ln.unit_price)
        for ln in revision.lines.order_by("position")
    ]


def test_a_sent_revision_never_changes_when_catalog_prices_do(world, sent_quote):
    r1 = sent_quote.current_revision
    before_lines, before_totals = _lines(r1), revision_totals(revision=r1)
    PriceListItem.objects.filter(product__part_number="SW-1").update(list_price=Decimal("1.00"))
    r1.refresh_from_db()
    assert (
        _lines(r1)
        == before_lines
        == [("SW-1", 2, Decimal("1000.00")), ("Site survey", 1, Decimal("500.00"))]
    )
    assert revision_totals(revision=r1) == before_totals
    # Stored when frozen: 2,000.00 of goods at 13 % VAT and a 500.00 survey at 6 %.
    assert r1.total == Decimal("2790.00")
    # Even the next revision keeps what was offered: copying never re-prices.
    r2 = quote_revise(quote=sent_quote, user=world.sales, expected_version=sent_quote.version)
    assert _lines(r2) == before_lines


def test_sending_freezes_the_revision_and_records_when(sent_quote):
    r1 = quote_reload(sent_quote).current_revision
    assert r1.frozen_at is not None and r1.sent_at == r1.frozen_at
    assert sent_quote.status == QuoteStatus.SENT


def test_editing_a_sent_quote_opens_the_next_revision_with_the_lines_copied(world, sent_quote):
    r1 = sent_quote.current_revision
    switch = r1.lines.get(sku="SW-1")
    changed = quote_update_line(
        quote=sent_quote,
        line=switch,
        quantity=5,
        user=world.sales,
        expected_version=sent_quote.version,
    )
    quote = quote_reload(sent_quote)
    r2 = quote.current_revision
    assert (r2.number, r2.label, quote.status) == (2, "R2", QuoteStatus.DRAFT)
    assert changed.revision_id == r2.pk and changed.key == switch.key
    assert _lines(r2) == [("SW-1", 5, Decimal("1000.00")), ("Site survey", 1, Decimal("500.00"))]
    assert _lines(r1) == [("SW-1", 2, Decimal("1000.00")), ("Site survey", 1, Decimal("500.00"))]
    assert quote.number == sent_quote.number  # one number, many revisions


def test_a_line_of_an_older_revision_is_refused_as_frozen(world, sent_quote):
    old_line = sent_quote.current_revision.lines.get(sku="SW-1")
    quote_revise(quote=sent_quote, user=world.sales, expected_version=sent_quote.version)
    for edit in (
        lambda: quote_update_line(
            quote=sent_quote,
            line=old_line,
            quantity=9,
            user=world.sales,
            expected_version=sent_quote.version,
        ),
        lambda: quote_remove_line(
            quote=sent_quote, line=old_line, user=world.sales, expected_version=sent_quote.version
        ),
    ):
        with pytest.raises(RevisionFrozen) as caught:
            edit()
        assert caught.value.status_code == 409
    old_line.refresh_from_db()
    assert old_line.quantity == 2


def test_an_accepted_quote_cannot_be_edited_at_all(world, sent_quote):
    quote_mark_accepted(quote=sent_quote)
    with pytest.raises(IllegalTransition):
        quote_set_discount(
            quote=sent_quote,
            discount_percent=1,
            user=world.sales,
            expected_version=sent_quote.version,
        )
    assert sent_quote.revisions.count() == 1


def test_the_diff_shows_lines_added_removed_and_changed_and_both_totals(world, sent_quote):
    r1 = sent_quote.current_revision
    quote_update_line(
        quote=sent_quote,
        line=r1.lines.get(sku="SW-1"),
        quantity=3,
        discount_percent="10",
        user=world.sales,
        expected_version=sent_quote.version,
    )
    r2 = quote_reload(sent_quote).current_revision
    quote_remove_line(
        quote=sent_quote,
        line=r2.lines.get(description="Site survey"),
        user=world.sales,
        expected_version=sent_quote.version,
    )
    quote_add_product(
        quote=sent_quote,
        sku="SW-2",
        quantity=1,
        user=world.sales,
        expected_version=sent_quote.version,
    )
    quote_set_discount(
        quote=sent_quote, discount_percent=2, user=world.sales, expected_version=sent_quote.version
    )
    r2.refresh_from_db()

    diff = revision_diff(old=r1, new=r2)
    assert [ln.sku for ln in diff.added] == ["SW-2"]
    assert [ln.description for ln in diff.removed] == ["Site survey"]
    [change] = diff.changed
    assert change.new.sku == "SW-1"
    assert change.changes == {
        "quantity": (2, 3),
        "discount_percent": (Decimal("0.00"), Decimal("10.00")),
    }
    assert diff.terms == {"discount_percent": (Decimal("0.00"), Decimal("2.00"))}
    assert diff.totals_before.subtotal == Decimal("2500.00")
    # 3 x 1000 less 10 % = 2700.00, + 2000.00 = 4700.00; less 2 % = 4606.00
    assert (diff.totals_after.subtotal, diff.totals_after.net) == (
        Decimal("4700.00"),
        Decimal("4606.00"),
    )
    assert revision_diff(old=r2, new=r2).is_empty


def test_a_unit_price_set_by_hand_shows_in_the_diff_and_on_the_line(world, sent_quote):
    r1 = sent_quote.current_revision
    line = quote_update_line(
        quote=sent_quote,
        line=r1.lines.get(sku="SW-1"),
        unit_price="950.00",
        user=world.sales,
        expected_version=sent_quote.version,
    )
    assert line.price_source == "set by hand (was 1000.00)"
    diff = revision_diff(old=r1, new=line.revision)
    assert diff.changed[0].changes == {"unit_price": (Decimal("1000.00"), Decimal("950.00"))}


# The role check; the revision with its quote (scoped), customer, project and owner, and how
# many revisions the quote has; its lines with their products.
DISPLAY_QUERIES = 3


@pytest.mark.parametrize("line_count", [5, 50])
def test_the_revision_page_costs_the_same_queries_for_5_or_50_lines(
    world, django_assert_num_queries, line_count
):
    quote = quote_create(project=world.project, user=world.sales)
    price_set(ProductFactory(part_number="SW-1"), "CNY", "10.00")
    QuoteLine.objects.bulk_create(
        QuoteLine(
            revision=quote.current_revision,
            position=i,
            sku="SW-1",
            product_id=ProductFactory(part_number="SW-1").pk,
            description=f"Line {i}",
            quantity=1,
            unit_price=Decimal("10.00"),
        )
        for i in range(line_count)
    )
    with django_assert_num_queries(DISPLAY_QUERIES):
        shown = revision_for_display(user=world.sales, quote_id=quote.pk)
        rows = [row for rows in shown.sections.values() for row in rows]
        assert [row.line.product.part_number for row in rows] == ["SW-1"] * line_count
        assert shown.totals.subtotal == Decimal("10.00") * line_count
        assert shown.quote.customer.company and shown.revisions == ["R1"]


def test_the_revision_page_lists_every_revision_and_shows_the_one_asked_for(world, sent_quote):
    quote_revise(quote=sent_quote, user=world.sales, expected_version=sent_quote.version)
    shown = revision_for_display(user=world.sales, quote_id=sent_quote.pk)
    assert (shown.revision.label, shown.revisions) == ("R2", ["R1", "R2"])
    older = revision_for_display(user=world.sales, quote_id=sent_quote.pk, number=1)
    assert (older.revision.label, older.revisions) == ("R1", ["R1", "R2"])
    assert not older.revision.has_approvals and not older.revision.has_install_packs


def test_revision_labels_are_read_from_the_rows_when_numbers_are_missing(world, sent_quote):
    """Numbers run R1..Rn without gaps; a row gone (by hand, in the database) is not invented."""
    quote_revise(quote=sent_quote, user=world.sales, expected_version=sent_quote.version)
    quote = quote_reload(sent_quote)
    QuoteRevision.objects.filter(pk=quote.current_revision_id).update(number=3)
    assert revision_for_display(user=world.sales, quote_id=quote.pk).revisions == ["R1", "R3"]


def test_another_teams_revision_is_not_shown(world, sent_quote):
    with pytest.raises(QuoteRevision.DoesNotExist):
        revision_for_display(user=world.other_sales, quote_id=sent_quote.pk)
    with pytest.raises(QuoteRevision.DoesNotExist):
        revision_for_display(user=world.other_sales, quote_id=sent_quote.pk, number=1)

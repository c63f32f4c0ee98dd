"""The workbook's "Terms" sheet (issue 27): the revision's payment schedule with each milestone's
amount of the total, rounded half up to the cent with the last milestone taking the rounding, as
the proposal's Terms print them, and the additional terms in the workbook's language."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest

from quoting.quotes.models import QuoteRevision
from quoting.quotes.selectors import revision_totals
from quoting.quotes.services.quotes import (
    payment_schedule_clean,
    quote_add_free_text,
    quote_create,
    quote_update_terms,
)
from tests.quoting.api_world import token_client
from tests.quoting.quotes.workbook_reading import rows_with, workbook
from tests.quoting.quotes.xlsx_world import quote_offering_choices

pytestmark = pytest.mark.django_db

CENT = Decimal("0.01")


def _book(world, quote, lang="en"):
    response = token_client(world.sales, scope="read").get(
        f"/api/v1/quotes/{quote.pk}/xlsx/", {"lang": lang}
    )
    assert response.status_code == 200, response.content[:300]
    return workbook(response.content)


def _schedule(sheet) -> list[tuple[str, Decimal, Decimal]]:
    """(milestone, share, amount) of each row under the schedule's header, up to its total."""
    header = rows_with(sheet, "Milestone", column="B") or rows_with(sheet, "付款节点", column="B")
    rows = []
    for row in range(header[0] + 1, sheet.max_row + 1):
        label = sheet[f"B{row}"].value
        if label in ("Total", "总计"):
            break
        rows.append(
            (label, Decimal(repr(sheet[f"C{row}"].value)), Decimal(repr(sheet[f"D{row}"].value)))
        )
    return rows


def _quote_of(world, amount: str, schedule: list[tuple[str, str]], **terms):
    """A draft of one free-text line of `amount` (a service: 6 % VAT)."""
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_free_text(
        quote=quote,
        description="Cluster acceptance test",
        quantity=1,
        unit_price=amount,
        user=world.sales,
        expected_version=quote.version,
    )
    quote.refresh_from_db()
    quote_update_terms(
        quote=quote,
        user=world.sales,
        expected_version=quote.version,
        payment_schedule=[{"label": label, "percent": p} for label, p in schedule],
        **terms,
    )
    quote.refresh_from_db()
    return quote


def test_each_milestone_is_its_share_rounded_half_up_and_the_last_takes_the_rounding(world):
    quote = _quote_of(world, "1000.05", [("On order", "50"), ("On delivery", "50")])
    assert revision_totals(revision=quote.current_revision).total == Decimal("1060.05")
    sheet = _book(world, quote)["Terms"]
    # 530.025 rounds half up to 530.03; the last is what remains of the total: 530.02.
    assert _schedule(sheet) == [
        ("On order", Decimal(50), Decimal("530.03")),
        ("On delivery", Decimal(50), Decimal("530.02")),
    ]
    total_row = rows_with(sheet, "Total", column="B")[0]
    assert sheet[f"D{total_row}"].value == 1060.05
    assert sheet[f"D{total_row}"].number_format == "#,##0.00"
    assert rows_with(sheet, "All prices in CNY.", column="B")


def test_the_schedule_of_a_quote_offering_choices_adds_up_to_its_total_and_says_of_which(world):
    quote = quote_offering_choices(world)
    QuoteRevision.objects.filter(pk=quote.current_revision_id).update(
        payment_schedule=payment_schedule_clean(
            [
                {"label": "On order", "percent": "33.33"},
                {"label": "On delivery", "percent": "33.33"},
                {"label": "On acceptance", "percent": "33.34"},
            ]
        )
    )
    total = QuoteRevision.objects.get(pk=quote.current_revision_id).total
    rows = _schedule(_book(world, quote)["Terms"])
    amounts = [amount for _label, _share, amount in rows]
    first = (total * Decimal("33.33") / 100).quantize(CENT, rounding=ROUND_HALF_UP)
    assert amounts[:2] == [first, first]
    assert sum(amounts) == total and amounts[2] == total - 2 * first
    assert rows_with(_book(world, quote)["Terms"], "of the total ordered", column="B")


def test_the_additional_terms_print_in_the_workbooks_language(world):
    quote = _quote_of(
        world,
        "1000.00",
        [("On order", "100")],
        additional_terms="Delivery DDP Shenzhen.",
        additional_terms_zh="深圳完税交货。",
    )
    english = _book(world, quote, "en")["Terms"]
    assert rows_with(english, "Additional terms", column="B")
    assert rows_with(english, "Delivery DDP Shenzhen.", column="B")
    assert not rows_with(english, "深圳完税交货", column="B")

    chinese = _book(world, quote, "zh-hans")["条款"]
    assert chinese["B1"].value.startswith("条款")
    assert rows_with(chinese, "补充条款", column="B") and rows_with(chinese, "付款计划", column="B")
    assert rows_with(chinese, "深圳完税交货。", column="B")
    assert not rows_with(chinese, "Delivery DDP", column="B")
    # The schedule keeps a standard milestone by its key; the sheet names it in its language.
    assert rows_with(chinese, "下单时", column="B") and not rows_with(
        chinese, "On order", column="B"
    )


def test_a_long_additional_terms_text_keeps_its_row_within_excels_tallest(world):
    quote = _quote_of(world, "1000.00", [("On order", "100")], additional_terms="Clause.\n" * 250)
    terms = _book(world, quote, "en")["Terms"]
    row = rows_with(terms, "Clause.", column="B")[0]
    assert terms.row_dimensions[row].height == 409


def test_terms_written_in_one_language_print_in_both(world):
    quote = _quote_of(
        world, "1000.00", [("On order", "100")], additional_terms="Delivery DDP Shenzhen."
    )
    chinese = _book(world, quote, "zh-hans")["条款"]
    assert rows_with(chinese, "Delivery DDP Shenzhen.", column="B")


def test_a_revision_without_schedule_or_terms_has_no_terms_sheet(world):
    quote = _quote_of(world, "1000.00", [("On order", "100")])
    QuoteRevision.objects.filter(pk=quote.current_revision_id).update(payment_schedule=None)
    assert _book(world, quote).sheetnames == ["Quote", "BOM"]

"""Money: Decimal amounts rounded half up, within the limits of the columns that store them."""

from __future__ import annotations

from decimal import Decimal

from quoting.engine.money import MONEY_MAX, TOTAL_MAX, money_max, round_money


def test_round_money_rounds_half_up_not_to_even():
    assert round_money(Decimal("2.675")) == Decimal("2.68")
    assert round_money(Decimal("0.125")) == Decimal("0.13")  # banker's rounding would say 0.12
    assert round_money(Decimal("12.34567"), places=4) == Decimal("12.3457")
    assert round_money(Decimal("1234.5"), places=0) == Decimal("1235")


def test_a_price_fits_numeric_14_2_and_a_total_numeric_18_2():
    assert str(MONEY_MAX) == "999999999999.99"
    assert str(TOTAL_MAX) == "9999999999999999.99"
    assert money_max(5) == Decimal("999.99")

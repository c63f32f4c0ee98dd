"""Money: a Decimal amount in one currency; floats and mixed currencies are refused."""

from __future__ import annotations

from decimal import Decimal

import pytest

from quoting.engine.money import Money, round_money


def test_round_money_rounds_half_up_not_to_even():
    assert round_money(Decimal("2.675")) == Decimal("2.68")
    assert round_money(Decimal("0.125")) == Decimal("0.13")  # banker's rounding would say 0.12
    assert round_money(Decimal("12.34567"), places=4) == Decimal("12.3457")
    assert round_money(Decimal("1234.5"), places=0) == Decimal("1235")


def test_money_adds_subtracts_and_scales_in_one_currency():
    price = Money(Decimal("100.10"), "CNY")

    assert price + Money(Decimal("0.20"), "CNY") == Money(Decimal("100.30"), "CNY")
    assert price - price == Money.zero("CNY")
    assert (price * 3).amount == Decimal("300.30")
    assert (2 * price).amount == Decimal("200.20")
    assert (price / 3).quantize() == Money(Decimal("33.37"), "CNY")
    assert -price < Money.zero("CNY") <= price


def test_money_never_takes_a_float():
    with pytest.raises(TypeError):
        Money(0.1, "CNY")
    with pytest.raises(TypeError):
        Money(Decimal(1), "CNY") * 1.1


def test_money_never_mixes_currencies():
    with pytest.raises(ValueError, match="CNY with USD"):
        Money(Decimal(1), "CNY") + Money(Decimal(1), "USD")
    with pytest.raises(ValueError):
        Money(Decimal(1), "CNY") < Money(Decimal(1), "USD")  # noqa: B015


@pytest.mark.parametrize("code", ["cny", "RMB1", "", "YUAN"])
def test_money_needs_an_iso_currency_code(code):
    with pytest.raises(ValueError):
        Money(Decimal(1), code)

"""Money is a Decimal amount next to its ISO 4217 currency code, never a float: binary fractions
drift (0.1 + 0.2 != 0.3) and a quote must add up to the cent.

The limits below are the database columns' (NUMERIC(digits, 2)), so an amount that passes a form,
a serializer or a service always fits where it is stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

MONEY_PLACES = 2
# One price, list price or cost: NUMERIC(14, 2).
MONEY_DIGITS = 14
# A line's amount and a quote's totals add many prices: NUMERIC(18, 2).
TOTAL_DIGITS = 18


def round_money(value: Decimal, places: int = MONEY_PLACES) -> Decimal:
    """Round half up, as people and invoices do (Python's default is banker's rounding)."""
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def money_max(digits: int, places: int = MONEY_PLACES) -> Decimal:
    """The largest amount NUMERIC(digits, places) holds: 999,999,999,999.99 for (14, 2)."""
    return Decimal(10) ** (digits - places) - Decimal(1).scaleb(-places)


MONEY_MAX = money_max(MONEY_DIGITS)  # 999,999,999,999.99
TOTAL_MAX = money_max(TOTAL_DIGITS)  # 9,999,999,999,999,999.99


# The quote's rounding rule (printed on every quote) has these two functions as its only
# implementation: each line rounded after its discount, the subtotal the sum of rounded lines;
# per VAT rate, the quote discount and the tax each rounded. With one rate (most quotes) that is
# the discount and the tax of the whole subtotal, each rounded once.
_HUNDRED = Decimal(100)


def line_amount(*, quantity: int, unit_price: Decimal, discount_percent: Decimal) -> Decimal:
    return round_money(Decimal(quantity) * unit_price * (_HUNDRED - discount_percent) / _HUNDRED)


@dataclass(frozen=True, slots=True)
class TaxRow:
    """One VAT rate's part of the totals: its net (after the quote discount) and its tax."""

    vat_percent: Decimal
    net: Decimal
    tax: Decimal

    def as_json(self) -> dict:
        return {
            "vat_percent": f"{self.vat_percent:.2f}",
            "net": f"{self.net:.2f}",
            "tax": f"{self.tax:.2f}",
        }

    @classmethod
    def from_json(cls, row: dict) -> TaxRow:
        return cls(Decimal(row["vat_percent"]), Decimal(row["net"]), Decimal(row["tax"]))


@dataclass(frozen=True, slots=True)
class Totals:
    subtotal: Decimal
    discount: Decimal
    net: Decimal
    tax: Decimal
    total: Decimal
    # One row per VAT rate, highest rate first; empty where it was not kept (an acceptance
    # recorded before rates per line existed).
    tax_breakdown: tuple[TaxRow, ...] = ()


def totals_compute(
    *,
    line_amounts: Iterable[Decimal],
    discount_percent: Decimal,
    tax_percent: Decimal,
    line_rates: Iterable[Decimal | None] | None = None,
) -> Totals:
    """`line_rates`, beside `line_amounts`: each line's VAT %, None for `tax_percent`."""
    amounts = list(line_amounts)
    rates = list(line_rates) if line_rates is not None else [None] * len(amounts)
    groups: dict[Decimal, Decimal] = {}
    for amount, rate in zip(amounts, rates, strict=True):
        rate = tax_percent if rate is None else rate
        groups[rate] = groups.get(rate, Decimal("0.00")) + amount
    if not groups:
        groups[tax_percent] = Decimal("0.00")
    rows, subtotal, discount = [], Decimal("0.00"), Decimal("0.00")
    for rate in sorted(groups, reverse=True):
        part = groups[rate]
        part_discount = round_money(part * discount_percent / _HUNDRED)
        part_net = part - part_discount
        rows.append(TaxRow(rate, part_net, round_money(part_net * rate / _HUNDRED)))
        subtotal += part
        discount += part_discount
    net = subtotal - discount
    tax = sum((row.tax for row in rows), Decimal("0.00"))
    return Totals(subtotal, discount, net, tax, net + tax, tuple(rows))


def milestone_amounts(total: Decimal, percents: Iterable[Decimal]) -> list[Decimal]:
    """What each milestone of a payment schedule asks: its percent of `total`, rounded to the
    cent; the last takes what rounding left over, so the amounts add up to `total` exactly."""
    percents = list(percents)
    amounts = [round_money(total * percent / _HUNDRED) for percent in percents[:-1]]
    if percents:
        amounts.append(total - sum(amounts, Decimal(0)))
    return amounts

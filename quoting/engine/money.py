"""Money is a Decimal amount next to its ISO 4217 currency code, never a float: binary fractions
drift (0.1 + 0.2 != 0.3) and a quote must add up to the cent.

The limits below are the database columns' (NUMERIC(digits, 2)), so an amount that passes a form,
a serializer or a service always fits where it is stored.
"""

from __future__ import annotations

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

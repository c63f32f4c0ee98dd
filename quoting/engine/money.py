"""Money as a Decimal amount in one ISO 4217 currency (modelled on mirumee/prices).

Floats never become money: binary fractions drift (0.1 + 0.2 != 0.3) and a quote must add up to
the cent. Mixing currencies is a programming error, so it raises instead of guessing a rate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

_CURRENCY = re.compile(r"[A-Z]{3}")


def round_money(value: Decimal, places: int = 2) -> Decimal:
    """Round half up, as people and invoices do (Python's default is banker's rounding)."""
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


@dataclass(frozen=True, slots=True)
class Money:
    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        if not isinstance(self.amount, Decimal):
            raise TypeError(f"Money amount must be a Decimal, not {type(self.amount).__name__}")
        if not _CURRENCY.fullmatch(self.currency):
            raise ValueError(f"{self.currency!r} is not an ISO 4217 code such as 'CNY'")

    @classmethod
    def zero(cls, currency: str) -> Money:
        return cls(Decimal(0), currency)

    def _same(self, other: Money) -> Money:
        if not isinstance(other, Money):
            raise TypeError(f"cannot combine Money with {type(other).__name__}")
        if other.currency != self.currency:
            raise ValueError(f"cannot combine {self.currency} with {other.currency}")
        return other

    def __add__(self, other: Money) -> Money:
        return Money(self.amount + self._same(other).amount, self.currency)

    def __sub__(self, other: Money) -> Money:
        return Money(self.amount - self._same(other).amount, self.currency)

    def __mul__(self, factor: int | Decimal) -> Money:
        if isinstance(factor, float | Money | bool):
            raise TypeError(f"multiply Money by an int or Decimal, not {type(factor).__name__}")
        return Money(self.amount * factor, self.currency)

    __rmul__ = __mul__

    def __truediv__(self, divisor: int | Decimal) -> Money:
        if isinstance(divisor, float | Money | bool):
            raise TypeError(f"divide Money by an int or Decimal, not {type(divisor).__name__}")
        return Money(self.amount / divisor, self.currency)

    def __neg__(self) -> Money:
        return Money(-self.amount, self.currency)

    def __lt__(self, other: Money) -> bool:
        return self.amount < self._same(other).amount

    def __le__(self, other: Money) -> bool:
        return self.amount <= self._same(other).amount

    def __gt__(self, other: Money) -> bool:
        return self.amount > self._same(other).amount

    def __ge__(self, other: Money) -> bool:
        return self.amount >= self._same(other).amount

    def __bool__(self) -> bool:
        return bool(self.amount)

    def quantize(self, places: int = 2) -> Money:
        return Money(round_money(self.amount, places), self.currency)

    def __str__(self) -> str:
        return f"{self.amount} {self.currency}"

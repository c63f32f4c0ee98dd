"""Numbers as quotes and proposals print them: ``{% load quoting_numbers %}``.

Grouped by thousands in both languages (the Chinese formats group too: portal/formats), units
scaled to what a reader takes in at a glance (409.6 Tb/s, not 409600 Gb/s), and RMB amounts in
words (大写金额) for Chinese quotes. Bad input prints unchanged: a page never fails on a number.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django import template
from django.utils import numberformat
from django.utils.formats import get_format

register = template.Library()

CENT = Decimal("0.01")


def _decimal(value: object) -> Decimal | None:
    if isinstance(value, bool) or value is None or value == "":
        return None
    try:
        # repr of a float is its shortest exact form: 989.0 stays 989.0, not 988.99999...
        number = Decimal(repr(value)) if isinstance(value, float) else Decimal(str(value))
    except (InvalidOperation, ValueError, TypeError):
        return None
    return number if number.is_finite() else None


def _format(number: Decimal, decimals: int | None = None) -> str:
    """`number` grouped by thousands in the active language; `decimals` None keeps its own."""
    if decimals is not None:
        number = number.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    return numberformat.format(
        number,
        get_format("DECIMAL_SEPARATOR"),
        decimal_pos=decimals,
        grouping=get_format("NUMBER_GROUPING"),
        thousand_sep=get_format("THOUSAND_SEPARATOR"),
        force_grouping=True,
    )


def _trimmed(number: Decimal) -> Decimal:
    """1.50 → 1.5, 2.0 → 2, 1E+3 → 1000: the digits that say something."""
    normal = number.normalize()
    return normal.quantize(Decimal(1)) if normal == normal.to_integral_value() else normal


@register.filter
def amounts_total(rows) -> Decimal:
    """The sum of the rows' `amount`s (a proposal section's lines): its subtotal as printed."""
    return sum((row.amount for row in rows), Decimal(0))


@register.filter
def grouped(value: object, decimals: object = None) -> object:
    """409600 → 409,600; `grouped:2` → 239,616,000.00. Without a count, a number keeps the
    decimals it was given ("0.6667", "239616000.00") and a float drops a bare ".0"."""
    number = _decimal(value)
    if number is None:
        return value
    if decimals not in (None, ""):
        return _format(number, int(decimals))
    if isinstance(value, float):
        number = _trimmed(number)
    return _format(number)


def _scaled(value: object, units: tuple[str, ...]) -> object:
    number = _decimal(value)
    if number is None:
        return value
    step = 0
    while abs(number) >= 1000 and step < len(units) - 1:
        number, step = number / 1000, step + 1
    if step:  # a scaled figure keeps one decimal, and drops it when it is zero
        number = _trimmed(number.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
    else:
        number = _trimmed(number)
    return f"{_format(number)} {units[step]}"


@register.filter
def gbps(value: object) -> object:
    """Bandwidth given in Gb/s: 800 → 800 Gb/s, 409600 → 409.6 Tb/s."""
    return _scaled(value, ("Gb/s", "Tb/s", "Pb/s"))


@register.filter
def watts(value: object) -> object:
    """Power given in W: 950 → 950 W, 83914 → 83.9 kW, 2500000 → 2.5 MW."""
    return _scaled(value, ("W", "kW", "MW"))


@register.filter
def ratio(value: object) -> object:
    """An r:1 oversubscription: 1.0 → 1:1, 1.5 → 1.5:1."""
    number = _decimal(value)
    if number is None:
        return value
    return f"{_format(_trimmed(number))}:1"


@register.filter
def rmb_in_words(value: object) -> str:
    """An RMB amount in words as Chinese invoices print it (大写金额): 239616000.50 →
    贰亿叁仟玖佰陆拾壹万陆仟元伍角; a whole amount ends in 元整. Empty for what is not an
    amount."""
    number = _decimal(value)
    if number is None:
        return ""
    import cn2an  # a fifth of a second to import: only pages that print a Chinese total pay it

    amount = number.quantize(CENT, rounding=ROUND_HALF_UP)
    try:
        return cn2an.an2cn(f"{amount:f}", "rmb")
    except ValueError:  # beyond its 16 integer digits: the figures stand alone
        return ""


@register.filter
def margin_of(margins: object, key: object) -> object:
    """`margins|margin_of:line.pk` or `margins|margin_of:section`: one Margin of a
    quoting.quotes.margins.RevisionMargins (by line pk, or by section name), or None."""
    if margins is None:
        return None
    table = margins.sections if isinstance(key, str) else margins.lines
    return table.get(key)

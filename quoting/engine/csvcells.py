"""CSV cells that a spreadsheet opens as text, never as a formula.

Every CSV the portal writes (catalog export, cable schedule) passes its rows through `csv_row`;
the catalog import reads cells back through `csv_cell_read`, so export -> import round-trips.
Pure Python: the engine's cable schedule uses it too.
"""

from __future__ import annotations

from collections.abc import Iterable

# What Excel, LibreOffice and Google Sheets start a formula (or DDE call) with (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """Text that would start a formula gets a leading single quote; so does text that already
    starts with quotes before such a character, so reading back is exact. Numbers stay numbers
    (a price of -5 is written -5): only str values are touched."""
    if isinstance(value, str) and value.lstrip("'").startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_cell_read(text: str) -> str:
    """The inverse of csv_cell for a cell read from a CSV."""
    if text.startswith("'") and text.lstrip("'").startswith(FORMULA_STARTS):
        return text[1:]
    return text


_RISKY_FIRST = frozenset(FORMULA_STARTS) | {"'"}


def csv_row(values: Iterable) -> list:
    # Only text starting with a quote or a formula character can need one: the rest (nearly
    # every cell of a 50,000-cable schedule) skips csv_cell's work.
    return [
        csv_cell(value) if isinstance(value, str) and value[:1] in _RISKY_FIRST else value
        for value in values
    ]

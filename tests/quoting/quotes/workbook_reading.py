"""Reading a quote's .xlsx as a buyer's auditor would: the formulas computed again from the
cells, in exact decimals (openpyxl keeps no results: the workbook has none cached).

Excel's ROUND is half away from zero: Decimal's ROUND_HALF_UP."""

from __future__ import annotations

import ast
import io
import re
from decimal import ROUND_HALF_UP, Decimal

import openpyxl
from openpyxl.worksheet.worksheet import Worksheet

MONEY_FORMAT = "#,##0.00"
RANGE = re.compile(r"\b([A-Z]{1,2})([0-9]+):([A-Z]{1,2})([0-9]+)\b")
TOTAL_NAMES = ("subtotal", "discount", "net", "tax", "total")


def workbook(content: bytes) -> openpyxl.Workbook:
    return openpyxl.load_workbook(io.BytesIO(content))


def _cells_of(match: re.Match) -> str:
    column, first, column_to, last = match.groups()
    assert column == column_to, "a range of one column"
    return ",".join(f"{column}{row}" for row in range(int(first), int(last) + 1))


def value(sheet: Worksheet, ref: str) -> Decimal:
    """A cell's number: its value, or its formula computed (ROUND, SUM, + - * /, cell refs)."""
    raw = sheet[ref].value
    if raw is None:
        return Decimal(0)
    if isinstance(raw, str) and raw.startswith("="):
        return _computed(sheet, ast.parse(RANGE.sub(_cells_of, raw[1:]), mode="eval").body)
    assert isinstance(raw, int | float) and not isinstance(raw, bool), (ref, raw)
    return Decimal(repr(raw))  # the shortest exact form of what the file holds


OPERATIONS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
}


def _computed(sheet: Worksheet, node: ast.AST) -> Decimal:
    if isinstance(node, ast.BinOp):
        return OPERATIONS[type(node.op)](_computed(sheet, node.left), _computed(sheet, node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_computed(sheet, node.operand)
    if isinstance(node, ast.Constant):
        return Decimal(repr(node.value))
    if isinstance(node, ast.Name):
        return value(sheet, node.id)
    if isinstance(node, ast.Call) and node.func.id == "SUM":
        return sum((_computed(sheet, arg) for arg in node.args), Decimal(0))
    if isinstance(node, ast.Call) and node.func.id == "ROUND":
        number, places = (_computed(sheet, arg) for arg in node.args)
        return number.quantize(Decimal(1).scaleb(-int(places)), rounding=ROUND_HALF_UP)
    raise AssertionError(f"not a formula the workbook writes: {ast.dump(node)}")


def totals_row(sheet: Worksheet) -> int:
    """The subtotal's row: the first =SUM in the amount column (G); discount, net, VAT and
    total follow it, one row each."""
    for row in range(1, sheet.max_row + 1):
        cell = sheet[f"G{row}"].value
        if isinstance(cell, str) and cell.startswith("=SUM("):
            return row
    raise AssertionError("no subtotal in the amount column")


def totals(sheet: Worksheet) -> dict[str, Decimal]:
    """The totals re-added from the cells."""
    first = totals_row(sheet)
    return {name: value(sheet, f"G{first + n}") for n, name in enumerate(TOTAL_NAMES)}


def totalled_rows(sheet: Worksheet) -> set[int]:
    """The rows the subtotal adds up."""
    formula = sheet[f"G{totals_row(sheet)}"].value
    return {int(ref[1:]) for ref in RANGE.sub(_cells_of, formula[5:-1]).split(",")}


def rows_with(sheet: Worksheet, text: str, column: str = "C") -> list[int]:
    return [
        row
        for row in range(1, sheet.max_row + 1)
        if isinstance(sheet[f"{column}{row}"].value, str) and text in sheet[f"{column}{row}"].value
    ]


def every_value(book: openpyxl.Workbook) -> list:
    return [cell.value for sheet in book for row in sheet.iter_rows() for cell in row]


def texts(book: openpyxl.Workbook) -> str:
    return "\n".join(v for v in every_value(book) if isinstance(v, str))

"""Writes to the catalog: CSV import (all-or-nothing) and export.

The CSV is the catalog's exchange format: the seed catalog ships as one
(`catalog/data/nvidia_catalog.csv`), `load_catalog` imports it, admins import and export it.
Price columns `list_price_<CUR>` / `cost_<CUR>` write to the default price list of <CUR>.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from django.db import transaction
from django.utils.translation import gettext as _

from catalog.forms import MAX_IMPORT_BYTES, PRODUCT_CSV_FIELDS, PriceCellForm, ProductRowForm
from catalog.models import PriceList, PriceListItem, Product, ReplaceableUnit
from catalog.selectors import product_list
from quoting.engine.csvcells import csv_cell_read, csv_row

SEED_CATALOG = Path(__file__).resolve().parent / "data" / "nvidia_catalog.csv"
# Which PSUs and fans each seeded switch holds (catalog.ReplaceableUnit), with their sources.
SEED_REPLACEABLE_UNITS = SEED_CATALOG.with_name("replaceable_units.csv")
# The seed's empty cells in these columns keep what the reseller entered (catalog_load_seed).
SEED_KEEPS = ("lead_time_weeks",)
PRICE_COLUMN = re.compile(r"^(list_price|cost)_([a-zA-Z]{3})$")
MAX_IMPORT_ROWS = 10_000
WRITE_BATCH = 2_000  # prices per INSERT or UPDATE statement
_READ_CHUNK = 64 * 1024


@dataclass(frozen=True)
class RowError:
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        where = f" [{self.field}]" if self.field else ""
        return f"line {self.line}{where}: {self.message}"


class CatalogImportError(Exception):
    def __init__(self, errors: list[RowError]):
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))


@dataclass
class ImportResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    prices_written: int = 0
    currencies: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return (
            f"{self.created} created, {self.updated} updated, {self.unchanged} unchanged, "
            f"{self.prices_written} prices written"
        )


def _price_columns(header: list[str]) -> dict[str, dict[str, str]]:
    """{"USD": {"list_price": "list_price_usd", "cost": "cost_usd"}, ...}"""
    columns: dict[str, dict[str, str]] = {}
    for name in header:
        match = PRICE_COLUMN.match(name)
        if match:
            columns.setdefault(match.group(2).upper(), {})[match.group(1)] = name
    return columns


def _check_header(header: list[str]) -> list[RowError]:
    errors = []
    missing = [c for c in ("part_number", "name", "category") if c not in header]
    if missing:
        errors.append(RowError(1, "", _("Missing column(s): %s.") % ", ".join(missing)))
    unknown = [c for c in header if c not in PRODUCT_CSV_FIELDS and not PRICE_COLUMN.match(c)]
    if unknown:
        errors.append(RowError(1, "", _("Unknown column(s): %s.") % ", ".join(unknown)))
    duplicated = sorted({c for c in header if header.count(c) > 1})
    if duplicated:
        errors.append(RowError(1, "", _("Repeated column(s): %s.") % ", ".join(duplicated)))
    return errors


def catalog_csv_text(stream: BinaryIO, *, limit: int = MAX_IMPORT_BYTES) -> str:
    """An uploaded or local CSV file as text, refused before parsing when it is over `limit`
    bytes (read in chunks, so a huge file is never held whole), holds a NUL byte (binary, or
    UTF-16) or is not UTF-8; each refusal is a CatalogImportError naming the line."""
    chunks, size = [], 0
    while chunk := stream.read(_READ_CHUNK):
        size += len(chunk)
        if size > limit:
            raise CatalogImportError(
                [
                    RowError(
                        1,
                        "",
                        _("The file is larger than %(mb)d MB: import it in parts.")
                        % {"mb": limit // (1024 * 1024)},
                    )
                ]
            )
        chunks.append(chunk)
    raw = b"".join(chunks)
    nul = raw.find(b"\x00")
    if nul >= 0:
        raise CatalogImportError(
            [
                RowError(
                    raw.count(b"\n", 0, nul) + 1,
                    "",
                    _("A NUL byte: the file is not UTF-8 text. Save it as a UTF-8 CSV."),
                )
            ]
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CatalogImportError(
            [
                RowError(
                    raw.count(b"\n", 0, exc.start) + 1,
                    "",
                    _("Not UTF-8 text (byte 0x%(byte)02X). Save the file as a UTF-8 CSV.")
                    % {"byte": raw[exc.start]},
                )
            ]
        ) from exc


def catalog_import_csv(
    *, text: str, reference_prices: bool = False, kept_when_empty: tuple[str, ...] = ()
) -> ImportResult:
    """Validate every row, then write all of them in one transaction, or none.

    Raises CatalogImportError listing every bad row with its line number and reason.
    Rows equal to what is stored are left alone, so importing the same file twice changes nothing.
    An empty cell of a `kept_when_empty` column keeps the stored value, as an absent column does.
    """
    reader, header = _csv_reader(text)
    price_columns = _price_columns(header)
    product_columns = [c for c in header if c in PRODUCT_CSV_FIELDS]
    rows = _rows_read(reader)
    planned = _rows_validated(rows, product_columns, price_columns, kept_when_empty)
    return _rows_written(planned, price_columns, reference_prices)


def _csv_reader(text: str) -> tuple[csv.DictReader, list[str]]:
    """A reader of the rows under a checked header (names stripped of spaces and a BOM)."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")), restkey="__extra__")
    header = [h.strip() for h in (reader.fieldnames or [])]
    if not header:
        raise CatalogImportError([RowError(1, "", _("The file is empty."))])
    reader.fieldnames = header
    errors = _check_header(header)
    if errors:
        raise CatalogImportError(errors)
    return reader, header


def _rows_read(reader: csv.DictReader) -> list[dict]:
    try:
        rows = list(reader)
    except csv.Error as exc:  # e.g. a cell over the csv module's field size limit
        # line_num counts the lines of the records already read: the bad one starts after them.
        raise CatalogImportError(
            [RowError(reader.line_num + 1, "", _("Unreadable CSV: %s.") % exc)]
        ) from exc
    if len(rows) > MAX_IMPORT_ROWS:
        raise CatalogImportError(
            [RowError(1, "", _("At most %d rows per import.") % MAX_IMPORT_ROWS)]
        )
    return rows


_Planned = list[tuple[ProductRowForm, dict[str, PriceCellForm]]]


def _rows_validated(
    rows: list[dict],
    product_columns: list[str],
    price_columns: dict[str, dict[str, str]],
    kept_when_empty: tuple[str, ...] = (),
) -> _Planned:
    """Each row's product form and its prices by currency; raises CatalogImportError with every
    bad row's errors, in line order."""
    existing = Product.objects.in_bulk(
        [(r.get("part_number") or "").strip() for r in rows], field_name="part_number"
    )
    errors: list[RowError] = []
    seen: dict[str, int] = {}
    planned: _Planned = []
    for index, row in enumerate(rows):
        line = index + 2  # the header is line 1
        if row.get("__extra__"):
            errors.append(RowError(line, "", _("More cells than columns.")))
            continue
        # Cells are read back as the export wrote them (see quoting/engine/csvcells.py).
        row = {k: csv_cell_read(v) if isinstance(v, str) else v for k, v in row.items()}
        data = {c: (row.get(c) or "").strip() for c in product_columns}
        data = {c: v for c, v in data.items() if v or c not in kept_when_empty}
        part_number = data.get("part_number", "")
        if part_number in seen:
            errors.append(
                RowError(
                    line,
                    "part_number",
                    _("%(pn)s already appears on line %(line)d.")
                    % {"pn": part_number, "line": seen[part_number]},
                )
            )
            continue
        seen[part_number] = line
        form = _product_form(data, existing.get(part_number))
        errors += _product_errors(line, form)
        prices, price_errors = _row_prices(line, row, price_columns)
        errors += price_errors
        planned.append((form, prices))
    if errors:
        raise CatalogImportError(errors)
    return planned


def _product_form(data: dict[str, str], instance: Product | None) -> ProductRowForm:
    """The row's form; columns absent from the file keep their stored values (or take the
    defaults)."""
    blank_form = ProductRowForm(instance=instance)
    for column in PRODUCT_CSV_FIELDS:
        if column not in data:
            value = blank_form.get_initial_for_field(blank_form.fields[column], column)
            data[column] = "" if value is None else value
    return ProductRowForm(data=data, instance=instance)


def _product_errors(line: int, form: ProductRowForm) -> list[RowError]:
    if form.is_valid():
        return []
    return [
        RowError(line, "" if name == "__all__" else name, message)
        for name, messages in form.errors.items()
        for message in messages
    ]


def _row_prices(
    line: int, row: dict, price_columns: dict[str, dict[str, str]]
) -> tuple[dict[str, PriceCellForm], list[RowError]]:
    """The row's valid prices by currency (a currency without a list price has none), and the
    errors of its price cells; an error of the pair is the cost column's."""
    prices, errors = {}, []
    for currency, cols in price_columns.items():
        cell = PriceCellForm(data={k: (row.get(col) or "").strip() for k, col in cols.items()})
        if not cell.is_valid():
            for name, messages in cell.errors.items():
                column = cols.get(name, "") if name != "__all__" else cols.get("cost", "")
                errors.extend(RowError(line, column, m) for m in messages)
        elif cell.cleaned_data.get("list_price") is not None:
            prices[currency] = cell
    return prices, errors


def _rows_written(
    planned: _Planned, price_columns: dict[str, dict[str, str]], reference_prices: bool
) -> ImportResult:
    """Every planned row saved (unless unchanged) with its prices, in one transaction."""
    result = ImportResult(currencies=sorted(price_columns))
    with transaction.atomic():
        wanted: list[tuple[PriceList, Product, PriceCellForm]] = []
        price_lists = {
            currency: price_list_default(currency=currency, reference=reference_prices)
            for currency in price_columns
        }
        for form, prices in planned:
            product = _product_saved(form, result)
            wanted += [(price_lists[cur], product, cell) for cur, cell in prices.items()]
        result.prices_written = _prices_write(wanted)
    return result


def _product_saved(form: ProductRowForm, result: ImportResult) -> Product:
    """The row's product, saved when it is new or changed; counted in `result`."""
    if form.instance.pk is None:
        result.created += 1
        return form.save()
    if form.has_changed():
        result.updated += 1
        return form.save()
    result.unchanged += 1
    return form.instance


def price_list_default(*, currency: str, reference: bool = False) -> PriceList:
    """The default list of this currency, created on first use."""
    price_list = PriceList.objects.filter(currency=currency, is_default=True).first()
    if price_list is None:
        name = (_("Reference prices %s") if reference else _("Default prices %s")) % currency
        price_list, _created = PriceList.objects.get_or_create(
            name=name,
            defaults={"currency": currency, "is_default": True, "is_reference": reference},
        )
    return price_list


def _prices_write(wanted: list[tuple[PriceList, Product, PriceCellForm]]) -> int:
    """Write prices in bulk; returns how many changed, so a re-import reports 0."""
    existing = {
        (item.price_list_id, item.product_id): item
        for item in PriceListItem.objects.filter(
            price_list__in={pl.pk for pl, _p, _c in wanted},
            product__in={p.pk for _pl, p, _c in wanted},
        )
    }
    new, changed = [], []
    for price_list, product, cell in wanted:
        list_price, cost = cell.cleaned_data["list_price"], cell.cleaned_data["cost"]
        item = existing.get((price_list.pk, product.pk))
        if item is None:
            new.append(
                PriceListItem(
                    price_list=price_list, product=product, list_price=list_price, cost=cost
                )
            )
        elif (item.list_price, item.cost) != (list_price, cost):
            item.list_price, item.cost = list_price, cost
            changed.append(item)
    # In batches: PostgreSQL binds at most 65,535 parameters per statement (the server binds
    # them: portal.settings, DB_PREPARE_THRESHOLD), and 10,000 rows in three currencies are
    # 30,000 prices of four parameters each.
    PriceListItem.objects.bulk_create(new, batch_size=WRITE_BATCH)
    PriceListItem.objects.bulk_update(changed, ["list_price", "cost"], batch_size=WRITE_BATCH)
    return len(new) + len(changed)


def catalog_export_csv() -> str:
    """Every product with its default prices per currency, in the import's own format."""
    currencies = list(
        PriceList.objects.filter(is_default=True)
        .order_by("currency")
        .values_list("currency", flat=True)
    )
    header = [*PRODUCT_CSV_FIELDS]
    for currency in currencies:
        header += [f"list_price_{currency.lower()}", f"cost_{currency.lower()}"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for product in product_list():
        row = []
        for column in PRODUCT_CSV_FIELDS:
            value = getattr(product, column)
            if isinstance(value, bool):
                value = "true" if value else "false"
            row.append("" if value is None else value)
        by_currency = {p.price_list.currency: p for p in product.default_prices}
        for currency in currencies:
            price = by_currency.get(currency)
            row += (
                ["", ""]
                if price is None
                else [price.list_price, "" if price.cost is None else price.cost]
            )
        writer.writerow(csv_row(row))
    return out.getvalue()


def catalog_load_seed() -> ImportResult:
    """The shipped NVIDIA catalog with reference prices, and the PSUs and fans its switches hold;
    safe to run any number of times."""
    result = catalog_import_csv(
        text=SEED_CATALOG.read_text(encoding="utf-8"),
        reference_prices=True,
        # The seed knows no lead times (NVIDIA publishes none): loading it again must not
        # erase the ones the catalog manager entered.
        kept_when_empty=SEED_KEEPS,
    )
    replaceable_units_load(text=SEED_REPLACEABLE_UNITS.read_text(encoding="utf-8"))
    return result


@transaction.atomic
def replaceable_units_load(*, text: str) -> int:
    """Rows (switch_part_number, unit_part_number, per_switch, source) the catalog does not hold
    yet, added; a pair already there keeps what the catalog manager made of it, and a pair
    naming a part the catalog lacks is skipped. Returns the pairs added."""
    rows = list(csv.DictReader(io.StringIO(text)))
    products = Product.objects.in_bulk(
        {r["switch_part_number"] for r in rows} | {r["unit_part_number"] for r in rows},
        field_name="part_number",
    )
    added = 0
    for row in rows:
        switch = products.get(row["switch_part_number"])
        unit = products.get(row["unit_part_number"])
        if switch is None or unit is None:
            continue
        _, created = ReplaceableUnit.objects.get_or_create(
            switch=switch,
            unit=unit,
            defaults={"per_switch": int(row["per_switch"]), "source": row["source"]},
        )
        added += created
    return added

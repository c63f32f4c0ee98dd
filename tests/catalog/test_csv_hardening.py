"""Issue 13 finding 8 (CSV): hostile bytes are a line-numbered error, the upload size is capped
before parsing, and exported cells never start a spreadsheet formula."""

import ast
import csv
import io
import tracemalloc
from decimal import Decimal
from pathlib import Path
from unittest import mock

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from catalog.forms import MAX_IMPORT_BYTES
from catalog.models import Product
from catalog.services import (
    CatalogImportError,
    catalog_csv_text,
    catalog_export_csv,
    catalog_import_csv,
)
from quoting.engine.csvcells import FORMULA_STARTS, csv_cell, csv_cell_read

ROOT = Path(__file__).resolve().parents[2]
IMPORT_URL = "/admin/catalog/product/import-csv/"
GOOD_HEAD = b"part_number,name,category,list_price_usd\nSVC-A,Survey,service,900\n"


def _upload(content: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile("c.csv", content, content_type="text/csv")


def test_a_nul_byte_in_the_admin_upload_is_a_line_numbered_error(admin_client, seeded):
    before = Product.objects.count()
    upload = _upload(GOOD_HEAD + b"SVC-\x00B,X,service,1\n")
    response = admin_client.post(IMPORT_URL, {"file": upload})
    assert response.status_code == 200
    page = response.content.decode()
    assert "NUL byte" in page and "<td>3</td>" in page
    assert Product.objects.count() == before


def test_undecodable_bytes_name_their_line(admin_client, seeded):
    upload = _upload(GOOD_HEAD + b"SVC-B,Caf\xe9,service,1\n")
    response = admin_client.post(IMPORT_URL, {"file": upload})
    assert response.status_code == 200
    page = response.content.decode()
    assert "Not UTF-8 text (byte 0xE9)" in page and "<td>3</td>" in page


def test_an_upload_over_the_cap_is_refused_before_it_is_read(admin_client, seeded):
    big = GOOD_HEAD + b"x" * MAX_IMPORT_BYTES
    with (
        mock.patch("catalog.admin.catalog_csv_text") as read,
        mock.patch("catalog.admin.catalog_import_csv") as parse,
    ):
        response = admin_client.post(IMPORT_URL, {"file": _upload(big)})
    assert response.status_code == 200
    assert "larger than 5 MB" in response.content.decode()
    read.assert_not_called()
    parse.assert_not_called()


class _EndlessCsv(io.RawIOBase):
    """A 50 MB CSV that exists only as it is read."""

    def __init__(self, total: int):
        self.left = total

    def readable(self):
        return True

    def read(self, size=-1):
        size = self.left if size < 0 else min(size, self.left)
        self.left -= size
        return b"x" * size


def test_reading_a_50_mb_file_stops_at_the_cap_with_little_memory():
    tracemalloc.start()
    try:
        with pytest.raises(CatalogImportError, match="larger than 5 MB"):
            catalog_csv_text(_EndlessCsv(50 * 1024 * 1024))
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * MAX_IMPORT_BYTES  # the parse of the whole file took ~420 MB


def test_the_import_command_reports_a_nul_byte_with_its_line(db, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(GOOD_HEAD + b"SVC-B,X\x00,service,1\n")
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_catalog", str(bad))
    assert f"{bad}:line 3: A NUL byte" in capsys.readouterr().err


def test_a_malformed_csv_is_a_line_numbered_error_not_a_crash(db):
    huge_cell = '"' + "x" * (csv.field_size_limit() + 1) + '"'
    text = "part_number,name,category\nSVC-A,Survey,service\nSVC-B," + huge_cell + ",service\n"
    with pytest.raises(CatalogImportError, match="line 3: Unreadable CSV"):
        catalog_import_csv(text=text)


@pytest.mark.parametrize(
    "text",
    [
        '=HYPERLINK("http://x")',
        "+1+1",
        "-2+3",
        "@SUM(A1)",
        "\t=1",
        "\r=1",
        "'=already quoted",
        "''-twice",
    ],
)
def test_text_that_starts_a_formula_is_quoted_and_reads_back_exactly(text):
    written = csv_cell(text)
    assert written.startswith("'") and not written.startswith(FORMULA_STARTS)
    assert csv_cell_read(written) == text


@pytest.mark.parametrize("value", [Decimal("-5"), -5, -2.5, "plain", "", "1-2", "'quoted"])
def test_numbers_and_harmless_text_are_written_as_they_are(value):
    assert csv_cell(value) == value
    if isinstance(value, str):
        assert csv_cell_read(value) == value


def test_the_catalog_export_neutralises_formulas_and_round_trips(seeded):
    hostile = {
        "name": '=HYPERLINK("http://evil","click")',
        "family": "@SUM(1+1)",
        "description_en": "-2+3",
        "description_zh": "+cmd|' /C calc'!A0",
    }
    Product.objects.filter(part_number="MQM9700-NS2F").update(**hostile)
    exported = catalog_export_csv()
    rows = list(csv.DictReader(io.StringIO(exported)))
    for row in rows:
        for value in row.values():
            assert not value.startswith(FORMULA_STARTS), value
    switch = next(r for r in rows if r["part_number"] == "MQM9700-NS2F")
    assert switch["name"] == "'" + hostile["name"]
    before = list(Product.objects.order_by("pk").values())
    result = catalog_import_csv(text=exported)
    assert (result.created, result.updated, result.prices_written) == (0, 0, 0)
    assert list(Product.objects.order_by("pk").values()) == before


def test_every_csv_writer_in_the_project_writes_through_csv_row():
    """The one rule (quoting/engine/csvcells.py) for every CSV the portal hands out."""
    writers = []
    for path in ROOT.glob("*/**/*.py"):
        if path.parts[len(ROOT.parts)] in {"tests", "bench", ".venv", "var"}:
            continue
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        calls = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr in {"writer", "DictWriter"}
            and isinstance(n.func.value, ast.Name)
            and n.func.value.id == "csv"
        ]
        if calls:
            writers.append(path.relative_to(ROOT))
            assert "csv_row(" in source, f"{path} writes CSV without csv_row"
    assert len(writers) >= 2

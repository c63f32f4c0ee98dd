"""CSV import is all-or-nothing with a line-numbered report; export round-trips."""

from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command

from catalog.models import PriceListItem, Product
from catalog.services import (
    SEED_CATALOG,
    CatalogImportError,
    catalog_export_csv,
    catalog_import_csv,
    catalog_load_seed,
)

HEADER = "part_number,name,category,generation,port_speed_gbps,list_price_usd,cost_usd\n"


def snapshot():
    products = list(Product.objects.order_by("pk").values())
    prices = list(PriceListItem.objects.order_by("pk").values())
    return products, prices


def test_loading_the_seed_twice_changes_nothing(seeded):
    before = snapshot()
    again = catalog_load_seed()
    assert (again.created, again.updated, again.prices_written) == (0, 0, 0)
    assert again.unchanged == seeded.created
    assert snapshot() == before


def test_a_bad_file_changes_nothing_and_reports_every_bad_row_by_line(seeded):
    before = snapshot()
    text = (
        "part_number,name,category,port_count,list_price_usd\n"
        "MQM9700-NS2F,Renamed switch,switch,64,1.00\n"  # valid on its own: must not land
        "NEW-SWITCH,A new switch,switch,,100\n"  # switch without port count
        "NEW-OPTIC,,transceiver,,12\n"  # no name, no specs
        "MMA4Z00-NS,Optic,transceiver,,-5\n"  # negative price
        "MQM9700-NS2F,Again,switch,64,1\n"  # duplicate part number
        "BAD PN,Thing,gadget,,\n"  # bad part number and category
    )
    with pytest.raises(CatalogImportError) as error:
        catalog_import_csv(text=text)
    by_line = {}
    for e in error.value.errors:
        by_line.setdefault(e.line, set()).add(e.field)
    assert 2 not in by_line
    assert "port_count" in by_line[3]
    assert {"name"} <= by_line[4]
    assert "list_price_usd" in by_line[5]
    assert "part_number" in by_line[6]
    assert {"part_number", "category"} <= by_line[7]
    assert "line 3 [port_count]: A switch needs a value for ports." in str(error.value)
    assert snapshot() == before


def test_unknown_and_missing_columns_are_reported_on_line_one(db):
    with pytest.raises(CatalogImportError) as error:
        catalog_import_csv(text="part_number,colour\nX,red\n")
    messages = [str(e) for e in error.value.errors]
    assert any("line 1" in m and "name, category" in m for m in messages)
    assert any("Unknown column(s): colour" in m for m in messages)


def test_an_empty_file_is_a_clear_error(db):
    with pytest.raises(CatalogImportError, match="empty"):
        catalog_import_csv(text="")


def test_a_row_with_more_cells_than_columns_is_reported(db):
    with pytest.raises(CatalogImportError, match="line 2: More cells than columns"):
        catalog_import_csv(text="part_number,name,category\nSVC-A,Thing,service,extra\n")


def test_a_cost_without_a_list_price_is_refused(db):
    text = HEADER + "SVC-A,Service A,service,,,,12\n"
    with pytest.raises(CatalogImportError, match="line 2 \\[cost_usd\\]"):
        catalog_import_csv(text=text)


def test_import_creates_updates_and_prices_in_one_go(seeded):
    text = HEADER + (
        "MQM9700-NS2F,NVIDIA QM9700 renamed,switch,NDR,400,31000.50,25000\n"
        "SVC-NEW,Rack survey,service,,,900,\n"
    )
    result = catalog_import_csv(text=text)
    assert (result.created, result.updated) == (1, 1)
    switch = Product.objects.get(part_number="MQM9700-NS2F")
    assert switch.name == "NVIDIA QM9700 renamed"
    assert switch.port_count == 64, "columns absent from the file keep their values"
    item = PriceListItem.objects.get(product=switch, price_list__currency="USD")
    assert item.list_price == Decimal("31000.50") and item.cost == Decimal("25000.00")
    assert Product.objects.get(part_number="SVC-NEW").lifecycle == "active"


def test_export_then_import_is_a_no_op(seeded):
    before = snapshot()
    result = catalog_import_csv(text=catalog_export_csv())
    assert (result.created, result.updated, result.prices_written) == (0, 0, 0)
    assert snapshot() == before


def test_export_lists_every_product_with_its_prices(seeded):
    lines = catalog_export_csv().splitlines()
    assert len(lines) == Product.objects.count() + 1
    assert lines[0].endswith("list_price_cny,cost_cny,list_price_usd,cost_usd")
    assert any(line.startswith("MQM9700-NS2F,") and "32000.00" in line for line in lines)


def test_the_import_command_exits_with_line_numbers_and_changes_nothing(seeded, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("part_number,name,category\nNEW-SW,New,switch\n", encoding="utf-8")
    before = snapshot()
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_catalog", str(bad))
    assert f"{bad}:line 2 [generation]" in capsys.readouterr().err
    assert snapshot() == before


def test_the_import_command_reads_the_seed_file(db, capsys):
    call_command("import_catalog", str(SEED_CATALOG))
    assert "created" in capsys.readouterr().out
    assert Product.objects.count() >= 40


def test_admin_import_shows_every_problem_and_imports_nothing(admin_client, seeded):
    from django.core.files.uploadedfile import SimpleUploadedFile

    before = snapshot()
    upload = SimpleUploadedFile(
        "c.csv", b"part_number,name,category\nNEW-SW,New,switch\n", content_type="text/csv"
    )
    response = admin_client.post("/admin/catalog/product/import-csv/", {"file": upload})
    assert response.status_code == 200
    page = response.content.decode()
    assert "nothing was imported" in page and "<td>2</td>" in page
    assert snapshot() == before


def test_admin_import_of_a_good_file_redirects_with_a_summary(admin_client, seeded):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile(
        "c.csv", (HEADER + "SVC-NEW,Survey,service,,,900,\n").encode(), content_type="text/csv"
    )
    response = admin_client.post(
        "/admin/catalog/product/import-csv/", {"file": upload}, follow=True
    )
    assert "1 created" in response.content.decode()
    assert admin_client.get("/admin/catalog/product/export-csv/").content.startswith(
        b"part_number,"
    )


def test_admin_import_refuses_a_non_utf8_file(admin_client, seeded):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("c.csv", "part_number,name\nX,é\n".encode("utf-16"))
    response = admin_client.post("/admin/catalog/product/import-csv/", {"file": upload})
    assert "not UTF-8" in response.content.decode()


def test_prices_beyond_one_statements_parameters_are_written_and_rewritten_in_batches(db):
    """18,000 prices (6,000 products in three currencies) are more parameters than PostgreSQL
    binds in one statement (65,535); the largest import (10,000 rows) can hold 30,000. Written
    through the import's own price writer, without 6,000 product forms to validate first."""
    from catalog.forms import PriceCellForm
    from catalog.models import Category, PriceList
    from catalog.services import _prices_write

    products = Product.objects.bulk_create(
        Product(part_number=f"SVC-{n:05d}", name=f"Service {n}", category=Category.SERVICE)
        for n in range(6_000)
    )
    lists = [
        PriceList.objects.create(name=f"Prices {currency}", currency=currency)
        for currency in ("USD", "CNY", "EUR")
    ]

    def cells(price: int) -> list:
        cell = PriceCellForm({"list_price": str(price), "cost": "1"})
        assert cell.is_valid()
        return [(price_list, product, cell) for price_list in lists for product in products]

    assert _prices_write(cells(100)) == 18_000
    assert _prices_write(cells(200)) == 18_000  # every price changed: updated in batches
    assert PriceListItem.objects.filter(list_price=Decimal(200)).count() == 18_000
    assert _prices_write(cells(200)) == 0

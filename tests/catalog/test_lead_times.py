"""A product's lead time in weeks (issue 26): entered by the reseller's catalog manager, since
NVIDIA publishes none. Empty means unknown; the seed leaves every one empty and never erases one
the catalog manager entered. Carried by the admin, the CSV import and export, the API and the
catalog page."""

from __future__ import annotations

import csv
import io

import pytest

from catalog.models import Product
from catalog.services import (
    SEED_CATALOG,
    CatalogImportError,
    catalog_export_csv,
    catalog_import_csv,
    catalog_load_seed,
)

SWITCH = "MQM9700-NS2F"


def test_the_seed_leaves_every_lead_time_unknown(seeded):
    header = SEED_CATALOG.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert "lead_time_weeks" in header
    assert not Product.objects.filter(lead_time_weeks__isnull=False).exists()


def test_loading_the_seed_again_keeps_the_lead_times_entered_and_changes_nothing(seeded):
    Product.objects.filter(part_number=SWITCH).update(lead_time_weeks=8)
    again = catalog_load_seed()
    assert (again.created, again.updated, again.prices_written) == (0, 0, 0)
    assert Product.objects.get(part_number=SWITCH).lead_time_weeks == 8


def test_an_import_with_the_column_sets_and_clears_lead_times(seeded):
    text = "part_number,name,category,port_count,lead_time_weeks\n"
    switch = Product.objects.get(part_number=SWITCH)
    row = f'{SWITCH},"{switch.name}",switch,64,'
    result = catalog_import_csv(text=text + row + "6\n")
    assert result.updated == 1 and Product.objects.get(part_number=SWITCH).lead_time_weeks == 6
    # An admin's import is the whole truth of its columns: an empty cell is unknown again.
    catalog_import_csv(text=text + row + "\n")
    assert Product.objects.get(part_number=SWITCH).lead_time_weeks is None


def test_the_export_carries_lead_times_and_imports_back_unchanged(seeded):
    Product.objects.filter(part_number=SWITCH).update(lead_time_weeks=12)
    exported = catalog_export_csv()
    row = next(r for r in csv.DictReader(io.StringIO(exported)) if r["part_number"] == SWITCH)
    assert row["lead_time_weeks"] == "12"
    result = catalog_import_csv(text=exported)
    assert (result.created, result.updated, result.prices_written) == (0, 0, 0)
    assert Product.objects.get(part_number=SWITCH).lead_time_weeks == 12


@pytest.mark.parametrize("value", ["0", "-3", "six", "2.5", "70000"])
def test_a_bad_lead_time_is_reported_by_line_and_nothing_changes(seeded, value):
    text = (
        "part_number,name,category,port_count,lead_time_weeks\n"
        f"{SWITCH},QM9700,switch,64,4\n"
        f"{SWITCH.replace('NS2F', 'NS2R')},QM9700 C2P,switch,64,{value}\n"
    )
    with pytest.raises(CatalogImportError) as refused:
        catalog_import_csv(text=text)
    assert [(e.line, e.field) for e in refused.value.errors] == [(3, "lead_time_weeks")]
    assert str(refused.value).startswith("line 3 [lead_time_weeks]: ")
    assert Product.objects.get(part_number=SWITCH).lead_time_weeks is None


def test_the_admin_edits_a_lead_time(admin_client, seeded):
    switch = Product.objects.get(part_number=SWITCH)
    page = admin_client.get(f"/admin/catalog/product/{switch.pk}/change/").content.decode()
    assert 'name="lead_time_weeks"' in page
    listing = admin_client.get("/admin/catalog/product/").content.decode()
    assert "column-lead_time_weeks" in listing


def test_the_api_gives_the_lead_time_or_null(client, make_user, seeded):
    client.force_login(make_user("crm"))
    assert client.get(f"/api/v1/products/{SWITCH}/").json()["lead_time_weeks"] is None
    Product.objects.filter(part_number=SWITCH).update(lead_time_weeks=8)
    assert client.get(f"/api/v1/products/{SWITCH}/").json()["lead_time_weeks"] == 8


def test_the_catalog_page_shows_the_lead_time_or_unknown(sales_client, seeded):
    page = sales_client.get(f"/catalog/{SWITCH}/").content.decode()
    assert '<dd id="lead-time"><span class="muted">unknown</span></dd>' in page
    Product.objects.filter(part_number=SWITCH).update(lead_time_weeks=8)
    page = sales_client.get(f"/catalog/{SWITCH}/").content.decode()
    assert '<dd id="lead-time">8 weeks</dd>' in page
    sales_client.cookies["django_language"] = "zh-hans"
    page = sales_client.get(f"/catalog/{SWITCH}/").content.decode()
    assert "交货期" in page and '<dd id="lead-time">8 周</dd>' in page

"""The catalog for the seed's whole plan (#26 item 7): NVIDIA software sold per GPU per year
(AI Enterprise, Base Command Manager; catalog/data/SOURCES.md) and a category for the
third-party storage and backup items the catalog manager adds. Migration 0014 adds the two rows
to a database seeded before them."""

from __future__ import annotations

import importlib
from decimal import Decimal

import pytest
from django.apps import apps

from catalog.models import (
    Category,
    PriceListItem,
    Product,
    TaxCategory,
    Unit,
    paid_yearly,
    tax_category_of,
)
from catalog.selectors import price_lookup
from catalog.services import catalog_import_csv

AIE, BCM = "NVAIE-SUB-1Y-GPU", "BCM-LIC-1Y-GPU"
add_software = importlib.import_module(
    "catalog.migrations.0014_per_gpu_software_and_storage"
).add_software


def test_ai_enterprise_is_software_per_gpu_per_year_at_nvidias_public_price(seeded):
    row = Product.objects.get(part_number=AIE)
    assert (row.category, row.unit) == (Category.SOFTWARE, Unit.GPU_YEAR)
    row.full_clean()
    price = price_lookup(part_numbers=[AIE], currency="USD")[AIE]
    assert price.list_price == Decimal("4500.00") and price.is_reference and price.paid_yearly


def test_base_command_manager_comes_without_a_price_nvidia_does_not_publish(seeded):
    row = Product.objects.get(part_number=BCM)
    assert (row.category, row.unit) == (Category.SOFTWARE, Unit.GPU_YEAR)
    assert not PriceListItem.objects.filter(product=row).exists()
    assert price_lookup(part_numbers=[BCM], currency="CNY") == {}


def test_a_licence_per_gpu_per_year_is_paid_every_year():
    assert paid_yearly(unit=Unit.GPU_YEAR, category=Category.SOFTWARE)
    assert not paid_yearly(unit=Unit.EACH, category=Category.SOFTWARE)


def test_the_catalog_manager_imports_a_third_party_storage_row_taxed_as_goods(db):
    result = catalog_import_csv(
        text="part_number,name,category\nARRAY-500TB,Backup array 500 TB (third party),storage\n"
    )
    assert result.created == 1
    row = Product.objects.get(part_number="ARRAY-500TB")
    assert row.category == Category.STORAGE
    assert tax_category_of(tax_category=row.tax_category, category=row.category) == (
        TaxCategory.GOODS
    )


def test_the_admin_filters_the_catalog_by_the_storage_category(admin_client, db):
    Product.objects.create(
        part_number="ARRAY-500TB", name="Backup array 500 TB", category=Category.STORAGE
    )
    page = admin_client.get("/admin/catalog/product/?category__exact=storage")
    assert page.status_code == 200
    html = page.content.decode()
    assert "ARRAY-500TB" in html and "Storage and backup (third party)" in html


def test_the_seed_holds_no_third_party_storage_row(seeded):
    assert not Product.objects.filter(category=Category.STORAGE).exists()


def test_the_migration_adds_the_rows_to_a_database_seeded_before_them(seeded):
    Product.objects.filter(part_number__in=[AIE, BCM]).delete()
    add_software(apps, None)
    assert set(
        Product.objects.filter(unit=Unit.GPU_YEAR).values_list("part_number", flat=True)
    ) == {AIE, BCM}
    assert {
        p.price_list.currency for p in PriceListItem.objects.filter(product__part_number=AIE)
    } == {
        "USD",
        "CNY",
    }
    assert not PriceListItem.objects.filter(product__part_number=BCM).exists()


def test_the_migration_keeps_a_row_as_its_catalog_manager_left_it(seeded):
    Product.objects.filter(part_number=AIE).update(name="AI Enterprise (our wording)")
    add_software(apps, None)
    assert Product.objects.get(part_number=AIE).name == "AI Enterprise (our wording)"


def test_the_migration_leaves_an_unseeded_database_alone(db):
    add_software(apps, None)
    assert not Product.objects.filter(part_number__in=[AIE, BCM]).exists()


@pytest.mark.parametrize(
    "language, label", [("en", "per GPU per year"), ("zh-hans", "每 GPU 每年")]
)
def test_the_unit_reads_in_both_languages(language, label):
    from django.utils import translation

    with translation.override(language):
        assert str(Unit.GPU_YEAR.label) == label

"""A product's export classification and its source: carried by the seed (every seeded one
marked "verify"), the CSV both ways, the admin and the API; a classification is sourced or
marked "verify", never bare."""

import csv
import io

import pytest

from catalog.models import Product
from catalog.services import CatalogImportError, catalog_export_csv, catalog_import_csv


def _exported(part_number: str) -> dict:
    rows = csv.DictReader(io.StringIO(catalog_export_csv()))
    return next(row for row in rows if row["part_number"] == part_number)


def test_the_seed_marks_every_classification_it_gives_as_to_verify(seeded):
    classified = Product.objects.exclude(export_classification="")

    assert Product.objects.get(part_number="MQM9700-NS2F").export_classification == "5A992.c"
    assert Product.objects.get(part_number="DGX-H100").export_classification == "4A090.a"
    assert {p.export_classification_source for p in classified} == {"verify"}
    # Optics, cables, software and services: unknown, not guessed.
    assert Product.objects.get(part_number="MMA4Z00-NS").export_classification == ""
    assert Product.objects.get(part_number="SVC-NCCL-TUNING").export_classification == ""


def test_classification_columns_round_trip_through_the_csv(seeded):
    text = (
        "part_number,name,category,export_classification,export_classification_source\n"
        'MMA4Z00-NS,"{name}",transceiver,5A991.b,NVIDIA export letter 2026-11\n'
    ).format(name=Product.objects.get(part_number="MMA4Z00-NS").name)

    catalog_import_csv(text=text)
    exported = _exported("MMA4Z00-NS")
    again = catalog_import_csv(text=catalog_export_csv())

    assert exported["export_classification"] == "5A991.b"
    assert exported["export_classification_source"] == "NVIDIA export letter 2026-11"
    assert again.updated == 0 and again.created == 0
    product = Product.objects.get(part_number="MMA4Z00-NS")
    assert (product.export_classification, product.export_classification_source) == (
        "5A991.b",
        "NVIDIA export letter 2026-11",
    )


@pytest.mark.parametrize(
    ("classification", "source", "field"),
    [
        ("5A992.c", "", "export_classification_source"),
        ("", "verify", "export_classification"),
        ("5A992 c", "verify", "export_classification"),
        ("ear99", "verify", "export_classification"),
    ],
)
def test_a_classification_is_sourced_or_marked_verify_and_spelt_as_an_eccn(
    seeded, classification, source, field
):
    name = Product.objects.get(part_number="MMA4Z00-NS").name
    text = (
        "part_number,name,category,export_classification,export_classification_source\n"
        f'MMA4Z00-NS,"{name}",transceiver,{classification},{source}\n'
    )

    with pytest.raises(CatalogImportError) as error:
        catalog_import_csv(text=text)

    assert [(e.line, e.field) for e in error.value.errors] == [(2, field)]
    assert Product.objects.get(part_number="MMA4Z00-NS").export_classification == ""


def test_the_api_reads_the_classification_and_its_source(admin_client, seeded):
    body = admin_client.get("/api/v1/products/DGX-H100/").json()

    assert body["export_classification"] == "4A090.a"
    assert body["export_classification_source"] == "verify"


def test_the_admin_edits_the_classification(admin_client, seeded):
    product = Product.objects.get(part_number="MMA4Z00-NS")

    page = admin_client.get(f"/admin/catalog/product/{product.pk}/change/").content.decode()

    assert 'name="export_classification"' in page
    assert 'name="export_classification_source"' in page

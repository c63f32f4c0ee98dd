"""How support is priced is catalog data (issue 22 item 6): a product sold per year is sold as it
is, per device on the quote, or as a share of the quoted hardware with its percentage. The CSV
carries it both ways, and a product that cannot be priced so is refused like any bad spec."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from catalog.models import PricingBasis, Product, Unit
from catalog.services import CatalogImportError, catalog_export_csv, catalog_import_csv

HEADER = "part_number,name,category,unit,pricing_basis,hardware_percent,list_price_cny\n"


def test_the_seed_says_how_each_support_tier_is_priced(seeded):
    bases = {
        p.part_number: (p.pricing_basis, p.hardware_percent)
        for p in Product.objects.filter(category="support")
    }
    assert bases == {
        "SUP-STD-1Y": (PricingBasis.AS_SOLD, None),
        "SUP-PREM-1Y": (PricingBasis.AS_SOLD, None),
        "SUP-DEV-NBD-1Y": (PricingBasis.PER_DEVICE, None),
        "SUP-HW-PCT-1Y": (PricingBasis.PERCENT_OF_HARDWARE, Decimal("10.00")),
    }


def test_the_export_carries_the_pricing_basis_and_reads_back_the_same(seeded):
    lines = catalog_export_csv().splitlines()
    header = lines[0].split(",")
    assert header[header.index("unit") + 1 : header.index("unit") + 4] == [
        "tax_category",
        "pricing_basis",
        "hardware_percent",
    ]
    row = next(line for line in lines if line.startswith("SUP-HW-PCT-1Y,"))
    assert ",year,,percent_of_hardware,10.00," in row  # no tax category: from the category
    result = catalog_import_csv(text="\n".join(lines))
    assert (result.created, result.updated, result.prices_written) == (0, 0, 0)


def test_a_csv_without_the_columns_keeps_the_stored_basis(seeded):
    catalog_import_csv(text="part_number,name,category\nSUP-HW-PCT-1Y,Renamed,support\n")
    product = Product.objects.get(part_number="SUP-HW-PCT-1Y")
    assert product.name == "Renamed"
    assert (product.pricing_basis, product.hardware_percent) == (
        PricingBasis.PERCENT_OF_HARDWARE,
        Decimal("10.00"),
    )


def test_a_share_of_hardware_is_imported_with_its_percentage(db):
    catalog_import_csv(
        text=HEADER + "SUP-X,Support at 12.5 %,support,year,percent_of_hardware,12.5,1000\n"
    )
    product = Product.objects.get(part_number="SUP-X")
    assert product.pricing_basis == PricingBasis.PERCENT_OF_HARDWARE
    assert product.hardware_percent == Decimal("12.50")


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ("SUP-X,No share,support,year,percent_of_hardware,,1000", "hardware_percent"),
        ("SUP-X,Share of nothing,support,year,,10,1000", "hardware_percent"),
        ("SUP-X,Per device once,support,each,per_device,,1000", "pricing_basis"),
        ("SUP-X,Over all of it,support,year,percent_of_hardware,101,1000", "hardware_percent"),
        ("SUP-X,Per what,support,year,per_rack,,1000", "pricing_basis"),
    ],
)
def test_a_basis_that_cannot_price_the_product_is_refused_on_its_line(db, row, field):
    with pytest.raises(CatalogImportError) as refused:
        catalog_import_csv(text=HEADER + row + "\n")
    assert [(e.line, e.field) for e in refused.value.errors] == [(2, field)]
    assert not Product.objects.filter(part_number="SUP-X").exists()


def test_the_model_refuses_per_device_on_a_product_not_sold_by_the_year():
    product = Product(
        part_number="SUP-Y",
        name="Per device, once",
        category="support",
        unit=Unit.EACH,
        pricing_basis=PricingBasis.PER_DEVICE,
    )
    with pytest.raises(ValidationError) as refused:
        product.clean()
    assert set(refused.value.message_dict) == {"pricing_basis"}


def test_a_tax_category_in_the_csv_is_stored_and_a_wrong_one_reported_by_line(seeded):
    header = "part_number,name,category,tax_category\n"
    catalog_import_csv(text=header + "SUP-HW-PCT-1Y,Support,support,software\n")
    assert Product.objects.get(part_number="SUP-HW-PCT-1Y").tax_category == "software"
    with pytest.raises(CatalogImportError, match=r"line 2 \[tax_category\]"):
        catalog_import_csv(text=header + "SUP-HW-PCT-1Y,Support,support,food\n")
    assert Product.objects.get(part_number="SUP-HW-PCT-1Y").tax_category == "software"

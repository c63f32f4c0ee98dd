"""A switch's ports apart from its panel (uplinks): counted and clocked together, carried by the
seed, the CSV, the admin and the engine's specs."""

import csv
import io

import pytest
from django.contrib.admin.sites import site as admin_site
from django.test import RequestFactory

from catalog.models import PriceListItem, Product
from catalog.selectors import product_specs
from catalog.services import (
    CatalogImportError,
    catalog_export_csv,
    catalog_import_csv,
    catalog_load_seed,
)

SN2201 = "920-9N110-00F1-0C0"


def snapshot():
    products = list(Product.objects.order_by("pk").values())
    prices = list(PriceListItem.objects.order_by("pk").values())
    return products, prices


def uplinks_csv(part_number: str, name: str, count, speed) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["part_number", "name", "category", "uplink_port_count", "uplink_speed_gbps"])
    writer.writerow([part_number, name, "switch", count, speed])
    return out.getvalue()


def export_rows() -> dict[str, dict]:
    return {r["part_number"]: r for r in csv.DictReader(io.StringIO(catalog_export_csv()))}


def test_the_seed_gives_the_sn2201_its_four_100g_uplinks_and_no_other_product_any(seeded):
    sn2201 = Product.objects.get(part_number=SN2201)
    assert (sn2201.port_count, sn2201.uplink_port_count, sn2201.uplink_speed_gbps) == (48, 4, 100)
    others = Product.objects.exclude(part_number=SN2201)
    assert not others.filter(uplink_port_count__isnull=False).exists()
    assert not others.filter(uplink_speed_gbps__isnull=False).exists()
    spec = next(s for s in product_specs() if s.part_number == SN2201)
    assert (spec.uplink_port_count, spec.uplink_speed_gbps) == (4, 100)


def test_loading_the_seed_again_leaves_the_uplinks_as_they_are(seeded):
    before = snapshot()
    again = catalog_load_seed()
    assert (again.created, again.updated, again.prices_written) == (0, 0, 0)
    assert snapshot() == before


def test_export_and_import_carry_the_uplinks_both_ways(seeded):
    row = export_rows()[SN2201]
    assert (row["uplink_port_count"], row["uplink_speed_gbps"]) == ("4", "100")
    assert export_rows()["MQM9700-NS2F"]["uplink_port_count"] == ""
    # Changed by an import, the export says so, and importing that export changes nothing.
    assert catalog_import_csv(text=uplinks_csv(SN2201, row["name"], 2, 400)).updated == 1
    exported = catalog_export_csv()
    row = export_rows()[SN2201]
    assert (row["uplink_port_count"], row["uplink_speed_gbps"]) == ("2", "400")
    before = snapshot()
    result = catalog_import_csv(text=exported)
    assert (result.created, result.updated, result.prices_written) == (0, 0, 0)
    assert snapshot() == before
    # Emptied by an import: no uplinks at all.
    catalog_import_csv(text=uplinks_csv(SN2201, row["name"], "", ""))
    sn2201 = Product.objects.get(part_number=SN2201)
    assert (sn2201.uplink_port_count, sn2201.uplink_speed_gbps) == (None, None)


@pytest.mark.parametrize(
    ("cells", "missing"),
    [
        ("4,", "uplink_speed_gbps"),
        (",100", "uplink_port_count"),
    ],
)
def test_an_uplink_count_without_its_speed_or_the_reverse_is_refused_by_line(
    seeded, cells, missing
):
    before = snapshot()
    text = (
        "part_number,name,category,uplink_port_count,uplink_speed_gbps\n"
        "SVC-NEW,Rack survey,service,,\n"  # valid on its own: must not land
        f"MQM9700-NS2F,QM9700,switch,{cells}\n"
    )
    with pytest.raises(CatalogImportError) as error:
        catalog_import_csv(text=text)
    assert [(e.line, e.field) for e in error.value.errors] == [(3, missing)]
    assert "given together" in str(error.value)
    assert snapshot() == before


def test_the_admin_form_refuses_an_uplink_count_without_its_speed(seeded, admin_user):
    request = RequestFactory().get("/admin/catalog/product/")
    request.user = admin_user
    product = Product.objects.get(part_number="MQM9700-NS2F")
    model_admin = admin_site._registry[Product]
    form_class = model_admin.get_form(request, product)
    data = {
        name: value
        for name, value in form_class(instance=product).initial.items()
        if value is not None
    }
    data.update(uplink_port_count="2")
    form = form_class(data=data, instance=product)
    assert not form.is_valid()
    assert list(form.errors) == ["uplink_speed_gbps"]
    data.update(uplink_speed_gbps="400")
    assert form_class(data=data, instance=product).is_valid()

"""Rack-scale systems in the catalog: one DGX GB200 (GB300) NVL72 item is one whole rack.

NVIDIA DGX GB200 User Guide, "Hardware": 18 compute trays of 4 GPUs and 4 single-port
ConnectX-7 400G OSFP NICs each, so 72 GPUs and 72 compute ports per rack; hybrid liquid
cooling (DGX SuperPOD RA, DGX GB200, "DGX SuperPOD Architecture"). NVIDIA Enterprise RA
"NVL72 AI Factory", "System Hardware & Components": a GB300 NVL72 tray has 4 ConnectX-8, a
rack needs up to 142 kW. catalog/data/SOURCES.md, "Rack-scale systems". Migration 0014 adds the
`cooling` field and the rows to a database seeded before them.
"""

from __future__ import annotations

import importlib
from decimal import Decimal

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError

from catalog.models import PriceListItem, Product
from catalog.selectors import product_specs

migration = importlib.import_module("catalog.migrations.0015_product_cooling_and_nvl72_racks")
RACKS = ("DGX-GB200-NVL72", "DGX-GB300-NVL72")


def test_the_seed_holds_the_gb200_nvl72_as_one_liquid_cooled_rack_of_72_ndr_ports(seeded):
    rack = Product.objects.get(part_number="DGX-GB200-NVL72")
    rack.full_clean()
    assert (rack.category, rack.gpu_count, rack.port_count, rack.port_speed_gbps) == (
        "server",
        72,
        72,
        400,
    )
    assert (rack.generation, rack.cage_count, rack.cooling) == ("NDR", 72, "liquid-rack")
    assert rack.power_max_w == Decimal("120000")
    price = PriceListItem.objects.get(product=rack, price_list__currency="USD")
    assert price.price_list.is_reference and price.list_price == Decimal("3000000.00")


def test_the_gb300_nvl72_rack_runs_xdr_at_up_to_142_kw_at_a_reference_price_to_verify(seeded):
    rack = Product.objects.get(part_number="DGX-GB300-NVL72")
    rack.full_clean()
    assert (rack.generation, rack.port_count, rack.port_speed_gbps) == ("XDR", 72, 800)
    assert rack.power_max_w == Decimal("142000") and rack.cooling == "liquid-rack"
    # No public GB300 price at hand: the GB200's reference figure, said so on the row.
    price = PriceListItem.objects.get(product=rack, price_list__currency="USD")
    assert price.price_list.is_reference and "verify" in rack.description_en


def test_the_engine_reads_a_rack_scale_server_and_an_air_cooled_one(seeded):
    specs = {p.part_number: p for p in product_specs()}
    assert specs["DGX-GB200-NVL72"].rack_scale
    assert not specs["DGX-B200"].rack_scale and specs["DGX-B200"].cooling == ""


def test_only_a_server_is_a_rack_scale_system(seeded):
    switch = Product.objects.get(part_number="MQM9700-NS2F")
    switch.cooling = "liquid-rack"
    with pytest.raises(ValidationError) as error:
        switch.full_clean()
    assert "Only a server" in error.value.message_dict["cooling"][0]
    switch.cooling = "liquid"  # a liquid-cooled switch is a switch like another
    switch.full_clean()


def test_an_unknown_cooling_is_refused(seeded):
    rack = Product.objects.get(part_number="DGX-GB200-NVL72")
    rack.cooling = "immersion"
    with pytest.raises(ValidationError) as error:
        rack.full_clean()
    assert "cooling" in error.value.message_dict


def test_the_api_shows_the_cooling_in_the_specs(client, make_user, seeded):
    client.force_login(make_user("crm"))
    specs = client.get("/api/v1/products/DGX-GB200-NVL72/").json()["specs"]
    assert (specs["cooling"], specs["gpu_count"], specs["port_count"]) == ("liquid-rack", 72, 72)
    assert client.get("/api/v1/products/DGX-B200/").json()["specs"]["cooling"] == ""


def test_the_migration_adds_the_racks_to_a_database_seeded_before_them(seeded):
    Product.objects.filter(part_number__in=RACKS).delete()
    migration.add_nvl72_racks(apps, None)
    gb200 = Product.objects.get(part_number="DGX-GB200-NVL72")
    gb200.full_clean()
    assert gb200.cooling == "liquid-rack" and gb200.gpu_count == 72
    assert {p.price_list.currency for p in PriceListItem.objects.filter(product=gb200)} == {
        "USD",
        "CNY",
    }
    assert Product.objects.get(part_number="DGX-GB300-NVL72").power_max_w == Decimal("142000")


def test_the_migration_keeps_a_rack_its_catalog_manager_changed(seeded):
    Product.objects.filter(part_number="DGX-GB200-NVL72").update(power_max_w=Decimal("132000"))
    migration.add_nvl72_racks(apps, None)
    assert Product.objects.get(part_number="DGX-GB200-NVL72").power_max_w == Decimal("132000")


def test_the_migration_leaves_an_unseeded_database_alone(db):
    migration.add_nvl72_racks(apps, None)
    assert not Product.objects.filter(part_number__in=RACKS).exists()


def test_the_seed_rows_match_what_the_migration_adds(seeded):
    """The CSV and the migration say the same: a database seeded either way holds one rack."""
    for part_number, (fields, _prices) in migration.RACKS.items():
        product = Product.objects.get(part_number=part_number)
        for name, value in fields.items():
            assert getattr(product, name) == value, (part_number, name)

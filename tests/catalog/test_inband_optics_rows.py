"""The 100GbE in-band optics: NVIDIA LinkX MMS1C10-CM, the QSFP28 PSM4 single-mode module that
in-band runs beyond the longest AOC take at each end, seeded with a reference price
(catalog/data/SOURCES.md, "100GbE in-band optics"). Migration 0021 adds it to a database seeded
before it, keeping a row a catalog manager already has."""

from __future__ import annotations

import importlib
from decimal import Decimal

from django.apps import apps

from catalog.models import PriceListItem, Product

add_inband_optics = importlib.import_module(
    "catalog.migrations.0021_inband_optics"
).add_inband_optics
MODULE = "MMS1C10-CM"


def test_the_seed_loads_the_module_bilingual_at_a_reference_price(seeded):
    module = Product.objects.get(part_number=MODULE)
    module.full_clean()
    assert (module.category, module.cage_type, module.port_speed_gbps) == (
        "transceiver",
        "QSFP28",
        100,
    )
    assert (module.media, module.reach_m, module.ports_per_module) == (
        "singlemode",
        Decimal("500"),
        1,
    )
    assert module.name_zh and module.description_zh
    assert "Reference price: verify" in module.description_en
    prices = PriceListItem.objects.filter(product=module)
    assert {p.price_list.currency for p in prices} == {"USD", "CNY"}
    assert all(p.price_list.is_reference for p in prices)


def test_the_migration_adds_the_module_as_the_seed_has_it(seeded):
    seed = Product.objects.get(part_number=MODULE)
    fields = ("name", "name_zh", "media", "reach_m", "power_typical_w", "description_en")
    seeded_as = {f: getattr(seed, f) for f in fields}
    seed_prices = {
        p.price_list.currency: (p.list_price, p.cost)
        for p in PriceListItem.objects.filter(product=seed)
    }
    seed.delete()
    add_inband_optics(apps, None)
    module = Product.objects.get(part_number=MODULE)
    module.full_clean()
    assert {f: getattr(module, f) for f in fields} == seeded_as
    prices = {
        p.price_list.currency: (p.list_price, p.cost)
        for p in PriceListItem.objects.filter(product=module)
    }
    assert prices == seed_prices
    assert prices["USD"] == (Decimal("410.00"), Decimal("319.80"))


def test_the_migration_keeps_a_row_its_catalog_manager_changed(seeded):
    Product.objects.filter(part_number=MODULE).update(name="Our PSM4 module")
    add_inband_optics(apps, None)
    assert Product.objects.get(part_number=MODULE).name == "Our PSM4 module"


def test_the_migration_leaves_an_unseeded_database_alone(db):
    add_inband_optics(apps, None)
    assert not Product.objects.filter(part_number=MODULE).exists()

"""The 100GbE in-band cables: NVIDIA LinkX MCP1600-C passive copper and MFA1A00-C active optical
cables, seeded with reference prices (catalog/data/SOURCES.md, "100GbE in-band cables").
Migration 0017 adds them to a database seeded before them."""

from __future__ import annotations

import importlib
from decimal import Decimal

from django.apps import apps

from catalog.models import PriceListItem, Product

add_inband_cables = importlib.import_module(
    "catalog.migrations.0017_inband_100g_cables"
).add_inband_cables
PARTS = {
    "MCP1600-C00A", "MCP1600-C001", "MCP1600-C01A", "MCP1600-C002", "MCP1600-C02A",
    "MCP1600-C003", "MCP1600-C005", "MFA1A00-C003", "MFA1A00-C005", "MFA1A00-C010",
    "MFA1A00-C015", "MFA1A00-C020", "MFA1A00-C030", "MFA1A00-C050",
}  # fmt: skip


def test_the_seed_loads_every_100gbe_cable_bilingual_at_reference_prices(seeded):
    cables = Product.objects.filter(cage_type="QSFP28", port_speed_gbps=100, category="cable")
    assert set(cables.values_list("part_number", flat=True)) == PARTS
    for cable in cables:
        cable.full_clean()
        assert cable.name_zh and cable.description_zh and "Reference price" in cable.description_en
        prices = PriceListItem.objects.filter(product=cable)
        assert {p.price_list.currency for p in prices} == {"USD", "CNY"}
        assert all(p.price_list.is_reference for p in prices)
    dac = Product.objects.get(part_number="MCP1600-C005")
    assert (dac.media, dac.length_m, dac.reach_m) == ("dac", Decimal("5"), Decimal("5"))


def test_the_migration_adds_the_cables_to_a_database_seeded_before_them(seeded):
    Product.objects.filter(part_number__in=PARTS).delete()
    add_inband_cables(apps, None)
    assert Product.objects.filter(part_number__in=PARTS).count() == len(PARTS)
    aoc = Product.objects.get(part_number="MFA1A00-C050")
    assert aoc.media == "aoc" and aoc.cage_type == "QSFP28"
    usd = PriceListItem.objects.get(product=aoc, price_list__currency="USD")
    assert usd.list_price == Decimal("490.00") and usd.price_list.is_reference


def test_the_migration_leaves_an_unseeded_database_alone(db):
    add_inband_cables(apps, None)
    assert not Product.objects.filter(part_number__in=PARTS).exists()

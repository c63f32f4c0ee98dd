"""The PSUs of the switches the engine designs with, for the spares kit's PSU/fan class
(catalog/data/SOURCES.md, "PSUs and fans", looked up 2026-12-07; every pair marked "verify"):

- MQM9700-NS2F and MQM9790-NS2F hold two MTEF-PSF-AC-K: NVIDIA hw-mgmt's PSU record for the
  MQM9700 (`usr/etc/hw-management-virtual/HI130/psu_vpd`), forward airflow in its commit
  f0af2344; MQM9700-NS2R and MQM9790-NS2R hold two MTEF-PSR-AC-K, its reverse twin there.
- 920-9N42F-00RI-7C0 (SN5600) holds two 930-9SPSU-00RA-00B: such an SN5600 reports PSU1 and
  PSU2 of that model, 3300 W (NVIDIA/nv-config-manager's Cumulus test data), as hw-mgmt's
  SN5600 record (HI144) has it.

NVIDIA publishes no price: the seed's reference price is ours, 3 % of the list price of the
switch the PSU fits. Migration 0020 adds them to a database seeded before them.
"""

from __future__ import annotations

import csv
import importlib
from decimal import Decimal

from django.apps import apps

from catalog.models import PriceListItem, Product, ReplaceableUnit
from catalog.services import SEED_CATALOG, SEED_REPLACEABLE_UNITS

migration = importlib.import_module("catalog.migrations.0020_sourced_switch_psus")
PAIRS = {
    ("MQM9700-NS2F", "MTEF-PSF-AC-K"),
    ("MQM9790-NS2F", "MTEF-PSF-AC-K"),
    ("MQM9700-NS2R", "MTEF-PSR-AC-K"),
    ("MQM9790-NS2R", "MTEF-PSR-AC-K"),
    ("920-9N42F-00RI-7C0", "930-9SPSU-00RA-00B"),
}
PSUS = {unit for _, unit in PAIRS}
PRICED_AT_3_PERCENT_OF = {
    "MTEF-PSF-AC-K": "MQM9700-NS2F",
    "MTEF-PSR-AC-K": "MQM9700-NS2F",
    "930-9SPSU-00RA-00B": "920-9N42F-00RI-7C0",
}


def test_the_seed_gives_each_designed_switch_two_psus_with_a_source_to_verify(seeded):
    pairs = ReplaceableUnit.objects.filter(unit__part_number__in=PSUS)

    assert {(p.switch.part_number, p.unit.part_number) for p in pairs} == PAIRS
    for pair in pairs:
        assert pair.per_switch == 2 and pair.unit.category == "psu_fan"
        assert pair.source.startswith("verify: ")
    sn5600 = pairs.get(switch__part_number="920-9N42F-00RI-7C0").source
    assert "nv-config-manager" in sn5600 and "3300 W" in sn5600
    qm9700 = pairs.get(switch__part_number="MQM9700-NS2F").source
    assert "hw-mgmt" in qm9700 and "HI130" in qm9700


def test_each_psu_is_bilingual_at_a_reference_price_of_3_percent_of_its_switch(seeded):
    for part_number, switch in PRICED_AT_3_PERCENT_OF.items():
        psu = Product.objects.get(part_number=part_number)
        psu.full_clean()
        assert psu.name_zh and psu.description_zh
        assert "Reference price: verify" in psu.description_en and "参考价格，请核实" in (
            psu.description_zh
        )
        for currency in ("USD", "CNY"):
            price = PriceListItem.objects.get(product=psu, price_list__currency=currency)
            of_switch = PriceListItem.objects.get(
                product__part_number=switch, price_list=price.price_list
            )
            assert price.price_list.is_reference
            assert price.list_price == of_switch.list_price * Decimal("0.03")
            assert price.cost == price.list_price * Decimal("0.78")


def test_the_migration_adds_the_psus_their_prices_and_pairs_to_a_database_seeded_before(seeded):
    ReplaceableUnit.objects.filter(unit__part_number__in=PSUS).delete()
    Product.objects.filter(part_number__in=PSUS).delete()
    migration.add_sourced_switch_psus(apps, None)

    pairs = ReplaceableUnit.objects.filter(unit__part_number__in=PSUS)
    assert {(p.switch.part_number, p.unit.part_number, p.per_switch) for p in pairs} == {
        (switch, unit, 2) for switch, unit in PAIRS
    }
    usd = PriceListItem.objects.get(
        product__part_number="930-9SPSU-00RA-00B", price_list__currency="USD"
    )
    assert usd.list_price == Decimal("1650.00") and usd.price_list.is_reference


def test_the_migration_keeps_what_the_catalog_manager_made_of_a_psu(seeded):
    PriceListItem.objects.filter(product__part_number="MTEF-PSF-AC-K").update(
        list_price=Decimal("7777.00")
    )
    ReplaceableUnit.objects.filter(unit__part_number="MTEF-PSF-AC-K").update(per_switch=1)
    migration.add_sourced_switch_psus(apps, None)

    assert set(
        PriceListItem.objects.filter(
            product__part_number="MTEF-PSF-AC-K", price_list__currency="CNY"
        ).values_list("list_price", flat=True)
    ) == {Decimal("7777.00")}
    assert set(
        ReplaceableUnit.objects.filter(unit__part_number="MTEF-PSF-AC-K").values_list(
            "per_switch", flat=True
        )
    ) == {1}


def test_the_migration_leaves_an_unseeded_database_alone(db):
    migration.add_sourced_switch_psus(apps, None)

    assert not Product.objects.exists() and not ReplaceableUnit.objects.exists()


def test_the_migration_and_the_csvs_say_the_same():
    with SEED_CATALOG.open(encoding="utf-8") as handle:
        rows = {r["part_number"]: r for r in csv.DictReader(handle)}
    for part_number, (fields, prices) in migration.UNITS.items():
        row = rows[part_number]
        assert {k: row[k] for k in fields} == fields
        assert row["category"] == "psu_fan"
        assert prices == {
            "USD": (Decimal(row["list_price_usd"]), Decimal(row["cost_usd"])),
            "CNY": (Decimal(row["list_price_cny"]), Decimal(row["cost_cny"])),
        }
    with SEED_REPLACEABLE_UNITS.open(encoding="utf-8") as handle:
        seeded_pairs = {
            (r["switch_part_number"], r["unit_part_number"], int(r["per_switch"]), r["source"])
            for r in csv.DictReader(handle)
        }
    assert set(migration.PAIRS) <= seeded_pairs
    assert {(s, u) for s, u, _, _ in migration.PAIRS} == PAIRS

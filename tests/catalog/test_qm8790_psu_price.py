"""The QM8790's PSU, MTEF-PSF-AC-C (two in an MQM8790-HS2F: catalog/data/SOURCES.md, "PSUs and
fans"), at the reference price the other sourced PSUs have: ours, 3 % of the list price of the
switch it fits, as NVIDIA publishes none, marked "Reference price: verify". Migration 0022 prices
it in a database seeded before, where 0016 added it without a price.
"""

from __future__ import annotations

import csv
import importlib
from decimal import Decimal

from django.apps import apps

from catalog.models import PriceList, PriceListItem, Product
from catalog.services import SEED_CATALOG

migration = importlib.import_module("catalog.migrations.0022_qm8790_psu_reference_price")
PSU = "MTEF-PSF-AC-C"
SWITCH = "MQM8790-HS2F"


def _as_0016_left_it():
    """A database seeded before 0022: the PSU there, unpriced, with 0016's description."""
    PriceListItem.objects.filter(product__part_number=PSU).delete()
    Product.objects.filter(part_number=PSU).update(
        **{field: seeded for field, (seeded, _now) in migration.DESCRIPTIONS.items()}
    )


def _prices():
    return {
        item.price_list.currency: (item.list_price, item.cost)
        for item in PriceListItem.objects.filter(product__part_number=PSU)
    }


def test_the_seed_prices_the_qm8790_psu_at_3_percent_of_the_switch_as_a_reference(seeded):
    psu = Product.objects.get(part_number=PSU)

    assert "Reference price: verify" in psu.description_en
    assert "参考价格，请核实" in psu.description_zh
    assert "partner price" not in psu.description_en
    for currency in ("USD", "CNY"):
        price = PriceListItem.objects.get(product=psu, price_list__currency=currency)
        of_switch = PriceListItem.objects.get(
            product__part_number=SWITCH, price_list=price.price_list
        )
        assert price.price_list.is_reference
        assert price.list_price == of_switch.list_price * Decimal("0.03")
        assert price.cost == price.list_price * Decimal("0.78")
    assert _prices()["USD"] == (Decimal("480.00"), Decimal("374.40"))


def test_the_migration_prices_the_psu_of_a_database_seeded_before(seeded):
    _as_0016_left_it()
    migration.price_qm8790_psu(apps, None)

    assert _prices() == migration.PRICES
    psu = Product.objects.get(part_number=PSU)
    assert (psu.description_en, psu.description_zh) == tuple(
        now for _seeded, now in migration.DESCRIPTIONS.values()
    )


def test_the_migration_keeps_a_price_and_a_description_the_catalog_manager_set(seeded):
    _as_0016_left_it()
    for currency in ("USD", "CNY"):
        PriceListItem.objects.create(
            price_list=PriceList.objects.get(currency=currency, is_default=True),
            product=Product.objects.get(part_number=PSU),
            list_price=Decimal("777.00"),
            cost=Decimal("600.00"),
        )
    migration.price_qm8790_psu(apps, None)

    assert _prices() == {
        "USD": (Decimal("777.00"), Decimal("600.00")),
        "CNY": (Decimal("777.00"), Decimal("600.00")),
    }
    # Priced by the catalog manager, not by the rule: the description does not claim the rule.
    assert "partner price" in Product.objects.get(part_number=PSU).description_en


def test_the_migration_prices_but_keeps_a_description_the_catalog_manager_rewrote(seeded):
    _as_0016_left_it()
    Product.objects.filter(part_number=PSU).update(description_en="Checked with NVIDIA.")
    migration.price_qm8790_psu(apps, None)

    assert _prices() == migration.PRICES
    psu = Product.objects.get(part_number=PSU)
    assert psu.description_en == "Checked with NVIDIA."
    assert "参考价格，请核实" in psu.description_zh


def test_the_migration_leaves_an_unseeded_database_alone(db):
    migration.price_qm8790_psu(apps, None)

    assert not Product.objects.exists() and not PriceListItem.objects.exists()


def test_the_migration_and_the_csv_say_the_same():
    with SEED_CATALOG.open(encoding="utf-8") as handle:
        row = next(r for r in csv.DictReader(handle) if r["part_number"] == PSU)
    assert {field: row[field] for field in migration.DESCRIPTIONS} == {
        field: now for field, (_seeded, now) in migration.DESCRIPTIONS.items()
    }
    assert {
        "USD": (Decimal(row["list_price_usd"]), Decimal(row["cost_usd"])),
        "CNY": (Decimal(row["list_price_cny"]), Decimal(row["cost_cny"])),
    } == migration.PRICES


def test_the_migration_replaces_the_description_0016_wrote():
    added_by_0016 = importlib.import_module("catalog.migrations.0016_psu_fan_spares")

    assert added_by_0016.UNIT == PSU
    assert {field: seeded for field, (seeded, _now) in migration.DESCRIPTIONS.items()} == {
        field: added_by_0016.PRODUCT[field] for field in migration.DESCRIPTIONS
    }

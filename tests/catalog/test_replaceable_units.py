"""Which PSUs and fans a switch holds (catalog.ReplaceableUnit), for the spares kit's PSU/fan class.

The seed's first pair, from catalog/data/SOURCES.md "PSUs and fans": an MQM8790-HS2F reports two
power supplies of NVIDIA P/N MTEF-PSF-AC-C (stanford-rc/ibswinfo, README, "Default output"),
a forward-airflow PSU in NVIDIA's hw-mgmt (`hw-management-helpers.sh`, `psu_fan_pn`). It is
marked "verify": NVIDIA's QM87xx replacement-parts table was not at hand. The QM9700/QM9790 and
SN5600 pairs: tests/catalog/test_switch_psu_rows.py.
"""

from __future__ import annotations

import csv
import importlib
from decimal import Decimal

import pytest
from django.apps import apps
from django.db import IntegrityError, transaction

from catalog.models import Product, ReplaceableUnit, SparesRatio
from catalog.selectors import replaceable_units
from catalog.services import (
    SEED_CATALOG,
    SEED_REPLACEABLE_UNITS,
    catalog_load_seed,
    replaceable_units_load,
)

SEED_PAIR = "MQM8790-HS2F,MTEF-PSF-AC-C"


def _qm8790_pair():
    return ReplaceableUnit.objects.get(switch__part_number="MQM8790-HS2F")


def test_loading_the_seed_again_adds_nothing_and_keeps_the_managers_count(seeded):
    ReplaceableUnit.objects.update(per_switch=3, source="checked against the manual")
    pairs = ReplaceableUnit.objects.count()
    catalog_load_seed()

    assert ReplaceableUnit.objects.count() == pairs
    assert set(ReplaceableUnit.objects.values_list("per_switch", "source")) == {
        (3, "checked against the manual")
    }


def test_a_pair_naming_a_part_the_catalog_lacks_is_skipped(seeded):
    text = SEED_REPLACEABLE_UNITS.read_text(encoding="utf-8")
    text += "MQM9700-NS2F,NO-SUCH-PSU,2,verify\n"
    pairs = ReplaceableUnit.objects.count()

    assert replaceable_units_load(text=text) == 0
    assert ReplaceableUnit.objects.count() == pairs


def test_the_seed_file_names_the_pair_with_its_source():
    lines = SEED_REPLACEABLE_UNITS.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "switch_part_number,unit_part_number,per_switch,source"
    assert lines[1].startswith(SEED_PAIR + ",2,") and "ibswinfo" in lines[1]


def test_the_kit_reads_each_switchs_units_and_leaves_end_of_life_ones_out(seeded):
    assert replaceable_units()["MQM8790-HS2F"] == [
        {
            "sku": "MTEF-PSF-AC-C",
            "name": Product.objects.get(part_number="MTEF-PSF-AC-C").name,
            "category": "psu_fan",
            "per_switch": 2,
        }
    ]
    Product.objects.filter(part_number="MTEF-PSF-AC-C").update(lifecycle="eol")
    assert "MQM8790-HS2F" not in replaceable_units()
    assert "MQM9700-NS2F" in replaceable_units()


def test_a_switch_counts_a_unit_once_and_at_least_one(seeded):
    unit = _qm8790_pair()
    with pytest.raises(IntegrityError), transaction.atomic():
        ReplaceableUnit.objects.create(switch=unit.switch, unit=unit.unit, per_switch=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        ReplaceableUnit.objects.filter(pk=unit.pk).update(per_switch=0)


seed_psu_fan_spares = importlib.import_module(
    "catalog.migrations.0016_psu_fan_spares"
).seed_psu_fan_spares


def test_the_migration_adds_the_psu_and_its_pair_to_a_database_seeded_before_it(seeded):
    ReplaceableUnit.objects.all().delete()
    Product.objects.filter(part_number="MTEF-PSF-AC-C").delete()
    seed_psu_fan_spares(apps, None)

    unit = ReplaceableUnit.objects.get()
    assert (unit.switch.part_number, unit.unit.part_number, unit.per_switch) == (
        "MQM8790-HS2F",
        "MTEF-PSF-AC-C",
        2,
    )
    # As the CSV names it, without a price: 0022 gives it its reference price.
    assert unit.unit.name == Product.objects.get(part_number="MTEF-PSF-AC-C").name
    assert not unit.unit.prices.exists()
    assert SparesRatio.objects.get(spare_class="psus_fans").percent == Decimal("5")


def test_the_migration_leaves_an_unseeded_catalog_alone_but_seeds_the_ratio(db):
    SparesRatio.objects.filter(spare_class="psus_fans").delete()
    seed_psu_fan_spares(apps, None)

    assert not Product.objects.exists() and not ReplaceableUnit.objects.exists()
    assert SparesRatio.objects.filter(spare_class="psus_fans").exists()


def test_the_migrations_and_the_csv_describe_the_psu_alike():
    migration = importlib.import_module("catalog.migrations.0016_psu_fan_spares")
    # 0022 priced it, and its description says so now (tests/catalog/test_qm8790_psu_price.py).
    priced = importlib.import_module("catalog.migrations.0022_qm8790_psu_reference_price")
    with SEED_CATALOG.open(encoding="utf-8") as handle:
        row = next(r for r in csv.DictReader(handle) if r["part_number"] == "MTEF-PSF-AC-C")
    described = {field: now for field, (_seeded, now) in priced.DESCRIPTIONS.items()}
    assert {k: row[k] for k in migration.PRODUCT} == migration.PRODUCT | described
    assert migration.SOURCE in SEED_REPLACEABLE_UNITS.read_text(encoding="utf-8")


def test_the_admin_edits_a_switchs_units_on_the_switch(admin_client, seeded):
    switch = Product.objects.get(part_number="MQM8790-HS2F")

    page = admin_client.get(f"/admin/catalog/product/{switch.pk}/change/").content.decode()

    assert 'name="replaceable_units-0-per_switch"' in page
    assert 'value="2"' in page and "MTEF-PSF-AC-C" in page

"""Issue 26: the seed's "HDR fibres" MC2609130-050/-100 were a number known as a 40GbE QSFP to
4 x SFP+ copper breakout, never an MPO fibre for the HDR SR4 module MMA1T00-HS.

MMA1T00-HS takes a female MPO/UPC multimode patch cable (NVIDIA Cable Management Guidelines and
FAQ, "Transceivers and Cable Connectors",
https://docs.nvidia.com/networking/display/cablemanagfaq/cable+and+connector+definitions); no
NVIDIA part number for that fibre was found (catalog/data/SOURCES.md, "HDR multimode fibre"), so
the seed sells none and databases seeded before keep the two rows retired (migration 0008)."""

from importlib import import_module

import pytest
from django.apps import apps

from catalog.models import Product
from catalog.selectors import product_specs
from catalog.services import SEED_CATALOG
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, design_fabric

RETIRED = ("MC2609130-050", "MC2609130-100")
retire = import_module("catalog.migrations.0008_retire_mc2609130_hdr_fibre").retire_mc2609130


def _as_seeded_before(part_number: str, length: int) -> Product:
    """The row as the seed CSV carried it before issue 26."""
    return Product.objects.create(
        part_number=part_number,
        name=f"NVIDIA multimode fibre for HDR SR4, MPO-12 straight, {length} m",
        category="cable",
        family="LinkX",
        generation="HDR",
        lifecycle="active",
        media="multimode",
        reach_m=100,
        length_m=length,
        breakout=1,
        description_en="OM4 multimode MPO-12 to MPO-12. Part number to verify.",
    )


def _hdr_50_m_trunk():
    return design_fabric(
        FabricRequirements(gpu_count=256, nic_generation="HDR", leaf_to_spine=50),
        product_specs(),
    )


def test_the_seed_no_longer_carries_mc2609130():
    assert "MC2609130" not in SEED_CATALOG.read_text(encoding="utf-8")


def test_the_seed_says_mma1t00_hs_has_no_fibre_in_the_catalog(seeded):
    row = Product.objects.get(part_number="MMA1T00-HS")
    assert "MPO-12/UPC" in row.description_en and "no NVIDIA fibre" in row.description_en
    assert "MPO-12/UPC" in row.description_zh and "没有" in row.description_zh
    assert not Product.objects.filter(part_number__startswith="MC2609130").exists()


def test_a_database_seeded_before_gets_the_rows_retired_and_never_quotes_them(seeded):
    for part_number, length in zip(RETIRED, (50, 100), strict=True):
        _as_seeded_before(part_number, length)
    # As loaded before the fix, the engine quoted the copper breakout's number as HDR fibre.
    assert "MC2609130-050" in {line.sku for line in _hdr_50_m_trunk().bom}

    retire(apps, None)

    for row in Product.objects.filter(part_number__in=RETIRED):
        # The kept row says what it is: not an HDR fibre, a 40GbE copper breakout number.
        assert row.lifecycle == "eol" and row.reach_m is None
        assert "not an HDR fibre" in row.name and "40GbE QSFP to 4 x SFP+" in row.name
        assert "不是 HDR 光纤" in row.name_zh
        assert "Never quoted" in row.description_en and "不会被报价" in row.description_zh
        row.full_clean()
    assert not [p for p in product_specs() if p.part_number in RETIRED]
    # Even made active again by hand, a row with no reach is no module's fibre.
    Product.objects.filter(part_number__in=RETIRED).update(lifecycle="active")
    with pytest.raises(InvalidInput) as caught:
        _hdr_50_m_trunk()
    assert "no HDR multimode fibre" in caught.value.errors["leaf_to_spine"][0]

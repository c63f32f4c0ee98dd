"""Datasheet weights: every figure the seed fills has its source in SOURCES.md, an unknown weight
stays empty (never guessed), and a changed figure reaches a database loaded before it."""

import csv
from decimal import Decimal
from pathlib import Path

from catalog.models import Product
from catalog.selectors import product_specs
from catalog.services import SEED_CATALOG, catalog_load_seed

SOURCES = Path(SEED_CATALOG).with_name("SOURCES.md")
SN5600 = "920-9N42F-00RI-7C0"


def seed_rows() -> list[dict]:
    with SEED_CATALOG.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def weights_section() -> str:
    text = SOURCES.read_text(encoding="utf-8")
    return text[text.index("## weight_kg") :].split("\n## ")[0]


def test_every_seeded_weight_names_its_source_and_every_unknown_one_is_listed_as_such():
    section = weights_section()
    table, _, unknown = section.partition("Not filled")
    for row in seed_rows():
        if row["category"] not in ("switch", "server") and not row["part_number"].startswith(
            "UFM-APPLIANCE"
        ):
            continue
        part = row["part_number"]
        family = part.rsplit("-", 1)[0]  # MQM9700-NS2F/-NS2R share one table row
        if row["weight_kg"]:
            assert part in table or family in table, part
            assert f"| {Decimal(row['weight_kg']):.2f} |" in table, part
        else:
            assert part in unknown or family.split("-")[0] in unknown, part


def test_loading_the_seed_again_brings_a_new_datasheet_weight_into_an_existing_catalog(seeded):
    # A database loaded before the SN5600's weight was in the seed.
    Product.objects.filter(part_number=SN5600).update(weight_kg=None)
    result = catalog_load_seed()
    assert result.updated == 1 and result.created == 0
    assert Product.objects.get(part_number=SN5600).weight_kg == Decimal("23.50")
    spec = next(s for s in product_specs() if s.part_number == SN5600)
    assert spec.weight_kg == 23.5


def test_a_device_without_a_datasheet_weight_stays_unknown_in_the_engine(seeded):
    specs = {s.part_number: s for s in product_specs()}
    assert specs["HGX-H100-8GPU-SRV"].weight_kg is None
    assert specs["UFM-APPLIANCE-3.1"].weight_kg is None
    assert specs["DGX-H100"].weight_kg == 130.45

"""Engine tests read the seed catalog CSV straight into ProductSpec: no database needed."""

from __future__ import annotations

import csv
from dataclasses import fields
from pathlib import Path

import pytest

from quoting.engine.catalog import ProductSpec

CATALOG_CSV = Path(__file__).resolve().parents[3] / "catalog" / "data" / "nvidia_catalog.csv"


def _convert(kind: str, value: str):
    if value == "":
        return None
    if "bool" in kind:
        return value.lower() == "true"
    if "int" in kind:
        return int(value)
    if "float" in kind:
        return float(value)
    return value


def load_catalog() -> list[ProductSpec]:
    spec_fields = {f.name: str(f.type) for f in fields(ProductSpec)}
    products = []
    with CATALOG_CSV.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            values = {}
            for name, kind in spec_fields.items():
                value = _convert(kind, row.get(name, ""))
                if value is not None or "None" in kind:
                    values[name] = value
            products.append(ProductSpec(**values))
    return products


@pytest.fixture(scope="session")
def catalog() -> list[ProductSpec]:
    return load_catalog()

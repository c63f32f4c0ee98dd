"""A spares kit offered beside a design's bill of materials: per class of part (optics, cables,
NICs, PSUs and fans, switches), a stated share of the design's quantity of each part, rounded up
per part.

The ratios and which category falls in which class are the catalog's (catalog.SparesRatio); this
module only counts. Spares the design already buys (its spares percentage, role "spare") are not
counted again, and a design that buys them gets no kit: one source of spares per quote. PSUs and
fans are no BOM lines of their own: the design holds them inside its switches, so their count is
each switch's units (catalog.ReplaceableUnit) times the switches the BOM buys.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

SPARE_ROLE = "spare"  # quoting.engine.fabric.bom: spares the design's percentage added
KIT_ROLE_PREFIX = "spares-kit"


@dataclass(frozen=True, slots=True)
class KitLine:
    spare_class: str
    sku: str
    name: str
    category: str
    quantity: int  # spares offered
    base: int  # the design's quantity of the part, spares excluded
    percent: Decimal

    @property
    def role(self) -> str:
        return kit_role(self.spare_class, self.percent, self.base)


def kit_role(spare_class: str, percent: Decimal, base: int) -> str:
    """The quote line's role: the class and the ratio it was sized by, read back by kit_of."""
    return f"{KIT_ROLE_PREFIX}:{spare_class}:{percent.normalize():f}:{base}"


def kit_of(role: str) -> tuple[str, Decimal, int] | None:
    """(class, percent, base) of a spares-kit line's role; None for any other role."""
    parts = role.split(":")
    if len(parts) != 4 or parts[0] != KIT_ROLE_PREFIX:
        return None
    return parts[1], Decimal(parts[2]), int(parts[3])


def units_in_switches(
    bom: Iterable[Mapping], units_of: Mapping[str, Iterable[Mapping]]
) -> list[dict]:
    """Rows (sku, name, category, quantity) for the field-replaceable units inside the
    BOM's switches: each unit (sku, name, category, per_switch) of a switch part, per_switch
    times the switches bought. A switch with no units listed adds none."""
    rows = []
    for row in bom:
        for unit in units_of.get(row["sku"], ()):
            rows.append(
                {
                    "sku": unit["sku"],
                    "name": unit.get("name") or "",
                    "category": unit["category"],
                    "quantity": int(row["quantity"]) * int(unit["per_switch"]),
                }
            )
    return rows


def spares_kit(
    bom: Iterable[Mapping],
    *,
    ratios: Mapping[str, Decimal],
    class_of_category: Mapping[str, str],
    units_of: Mapping[str, Iterable[Mapping]] | None = None,
) -> tuple[KitLine, ...]:
    """The kit for BOM rows (sku, name, category, quantity, role): per part of a class with a
    ratio above 0, ceil(quantity x ratio / 100), so at least one of every part of the class.
    `units_of` (switch part number: its PSUs and fans) counts the units inside the BOM's
    switches as parts of their own class. Empty when the BOM already holds spares."""
    rows = list(bom)
    if any(row.get("role") == SPARE_ROLE for row in rows):
        return ()
    rows += units_in_switches(rows, units_of or {})
    parts: dict[str, dict] = {}
    for row in rows:
        spare_class = class_of_category.get(row.get("category") or "")
        if spare_class is None or not ratios.get(spare_class):
            continue
        part = parts.setdefault(row["sku"], {**row, "quantity": 0, "class": spare_class})
        part["quantity"] += int(row["quantity"])
    order = list(ratios)
    kit = [
        KitLine(
            spare_class=part["class"],
            sku=sku,
            name=part.get("name") or "",
            category=part["category"],
            quantity=math.ceil(part["quantity"] * ratios[part["class"]] / 100),
            base=part["quantity"],
            percent=ratios[part["class"]],
        )
        for sku, part in parts.items()
        if part["quantity"] > 0
    ]
    # Class by class in the ratios' order, parts in the BOM's order within a class.
    return tuple(sorted(kit, key=lambda line: order.index(line.spare_class)))

"""A spares kit offered beside a design's bill of materials: per class of part (optics, cables,
NICs, switches), a stated share of the design's quantity of each part, rounded up per part.

The ratios and which category falls in which class are the catalog's (catalog.SparesRatio); this
module only counts. Spares the design already buys (its spares percentage, role "spare") are not
counted again, and a design that buys them gets no kit: one source of spares per quote.
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


def spares_kit(
    bom: Iterable[Mapping],
    *,
    ratios: Mapping[str, Decimal],
    class_of_category: Mapping[str, str],
) -> tuple[KitLine, ...]:
    """The kit for BOM rows (sku, name, category, quantity, role): per part of a class with a
    ratio above 0, ceil(quantity x ratio / 100), so at least one of every part of the class.
    Empty when the BOM already holds spares."""
    rows = list(bom)
    if any(row.get("role") == SPARE_ROLE for row in rows):
        return ()
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

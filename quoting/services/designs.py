"""Fabric designs: the catalog, turned into engine specs, fed to the pure-Python engine."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from catalog.selectors import price_lookup, product_specs
from quoting.engine.fabric import FabricDesign, FabricRequirements, design_fabric
from quoting.engine.money import round_money


def design_compute(*, requirements: FabricRequirements) -> FabricDesign:
    """Design a fabric from the current catalog. Raises InvalidInput naming the bad field."""
    return design_fabric(requirements, product_specs())


@dataclass(frozen=True, slots=True)
class PricedBomLine:
    sku: str
    name: str
    category: str
    role: str
    quantity: int
    unit_price: Decimal | None
    amount: Decimal | None
    is_reference: bool


@dataclass(frozen=True, slots=True)
class PricedBom:
    currency: str
    lines: tuple[PricedBomLine, ...]
    total: Decimal  # of the priced lines; `missing` says which are not in it
    missing: tuple[str, ...]
    has_reference_prices: bool


def design_bom_priced(*, design: FabricDesign, currency: str) -> PricedBom:
    """The BOM at list prices in one currency: what the design costs before any discount."""
    prices = price_lookup(part_numbers={line.sku for line in design.bom}, currency=currency)
    lines = []
    for line in design.bom:
        price = prices.get(line.sku)
        unit = price.list_price if price else None
        lines.append(PricedBomLine(
            sku=line.sku, name=line.name, category=line.category, role=line.role,
            quantity=line.quantity, unit_price=unit,
            amount=round_money(unit * line.quantity) if unit is not None else None,
            is_reference=bool(price and price.is_reference),
        ))
    return PricedBom(
        currency=currency, lines=tuple(lines),
        total=sum((ln.amount for ln in lines if ln.amount is not None), Decimal("0.00")),
        missing=tuple(sorted({ln.sku for ln in lines if ln.amount is None})),
        has_reference_prices=any(ln.is_reference for ln in lines),
    )

"""Pricing a bill of materials: the one way a BOM is priced (the design page, a saved design's
snapshot, its TCO capex and the quote made from it all call bom_priced), and the FX rates it
converts with.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from django.utils import timezone

from catalog.models import SPARES_CLASS_OF_CATEGORY, SparesClass
from catalog.selectors import price_lookup, replaceable_units, spares_ratios
from quoting.conf import quoting_setting
from quoting.designs.models import FxRate
from quoting.engine.money import round_money
from quoting.engine.spares import spares_kit

# --- pricing a bill of materials ------------------------------------------------------------------
#
# The one way a BOM is priced: the design page, the saved design's snapshot, its TCO capex and the
# quote made from it all call bom_priced(), so they show the same total.


@dataclass(frozen=True, slots=True)
class FxLock:
    """The one conversion a priced BOM (and the quote revision that keeps it) uses."""

    source: str
    rate: Decimal
    as_of: dt.date


@dataclass(frozen=True, slots=True)
class PricedBomLine:
    sku: str
    name: str
    category: str
    role: str
    quantity: int
    unit_price: Decimal | None  # in the BOM's currency, converted when `source` says so
    amount: Decimal | None
    is_reference: bool
    paid_yearly: bool = False  # the amount buys one year: a TCO pays it every year
    source: str = ""  # which price list, or which conversion: printed on a quote line
    # What one unit costs the reseller (the price list's cost, converted like the price); None
    # when the list gives none. The reseller's own: never in as_json (snapshots, documents).
    unit_cost: Decimal | None = None


@dataclass(frozen=True, slots=True)
class PricedBom:
    currency: str
    lines: tuple[PricedBomLine, ...]
    total: Decimal  # of the priced lines; `missing` says which are not in it
    missing: tuple[str, ...]
    has_reference_prices: bool
    yearly_total: Decimal = Decimal("0.00")  # the part of `total` paid again every year
    fx: FxLock | None = None

    @property
    def one_time_total(self) -> Decimal:
        return self.total - self.yearly_total

    def as_json(self) -> dict:
        """As a snapshot keeps it: amounts as text, exactly."""

        def text(value):
            return None if value is None else str(value)

        return {
            "currency": self.currency,
            "lines": [
                {
                    "sku": ln.sku,
                    "name": ln.name,
                    "category": ln.category,
                    "role": ln.role,
                    "quantity": ln.quantity,
                    "unit_price": text(ln.unit_price),
                    "amount": text(ln.amount),
                    "is_reference": ln.is_reference,
                    "paid_yearly": ln.paid_yearly,
                    "source": ln.source,
                }
                for ln in self.lines
            ],
            "total": str(self.total),
            "yearly_total": str(self.yearly_total),
            "missing": list(self.missing),
            "has_reference_prices": self.has_reference_prices,
            "fx": None
            if self.fx is None
            else {
                "source": self.fx.source,
                "rate": str(self.fx.rate),
                "as_of": self.fx.as_of.isoformat(),
            },
        }

    @classmethod
    def from_json(cls, data: dict) -> PricedBom:
        def money(value):
            return None if value is None else Decimal(value)

        fx = data.get("fx")
        return cls(
            currency=data["currency"],
            lines=tuple(
                PricedBomLine(
                    sku=ln["sku"],
                    name=ln["name"],
                    category=ln["category"],
                    role=ln["role"],
                    quantity=ln["quantity"],
                    unit_price=money(ln["unit_price"]),
                    amount=money(ln["amount"]),
                    is_reference=ln["is_reference"],
                    paid_yearly=ln["paid_yearly"],
                    source=ln["source"],
                )
                for ln in data["lines"]
            ),
            total=Decimal(data["total"]),
            missing=tuple(data["missing"]),
            has_reference_prices=data["has_reference_prices"],
            yearly_total=Decimal(data["yearly_total"]),
            fx=None
            if fx is None
            else FxLock(fx["source"], Decimal(fx["rate"]), dt.date.fromisoformat(fx["as_of"])),
        )


def fx_rate_on(*, source: str, target: str, on: dt.date) -> FxLock | None:
    rate = (
        FxRate.objects.filter(source=source, target=target, as_of__lte=on)
        .order_by("-as_of")
        .first()
    )
    return FxLock(source, rate.rate, rate.as_of) if rate else None


def _bom_row(line) -> dict:
    """A BOM line as the engine gives it (BomLine) or as a snapshot keeps it (a dict)."""
    if isinstance(line, dict):
        return line
    return {
        "sku": line.sku,
        "name": line.name,
        "category": line.category,
        "role": line.role,
        "quantity": line.quantity,
    }


def bom_priced(
    *, bom: Iterable, currency: str, on: dt.date | None = None, fx: FxLock | None = None
) -> PricedBom:
    """The BOM at list prices in `currency`: what it costs before any discount.

    The currency fallback rule, the only one: a product with no price in `currency` is priced
    in the first of QUOTING_FX_FALLBACK_CURRENCIES that has a price for it and an exchange rate
    to `currency` (on or before `on`), converted at that one rate and rounded to 0.01 per unit.
    One BOM uses at most one rate; given `fx` (a quote revision's locked rate) only that one.
    A product priced in none of them is left unpriced and named in `missing`.
    """
    on = on or timezone.localdate()
    rows = [_bom_row(line) for line in bom]
    skus = {row["sku"] for row in rows}
    found = {
        sku: (
            p,
            p.list_price,
            f"{p.price_list}" + (" (reference)" if p.is_reference else ""),
            p.cost,
        )
        for sku, p in price_lookup(part_numbers=skus, currency=currency, on=on).items()
    }
    missing = skus - found.keys()
    sources = (
        [fx.source]
        if fx
        else [c for c in quoting_setting("QUOTING_FX_FALLBACK_CURRENCIES") if c != currency]
    )
    used = None
    for source in sources if missing else ():
        converted = price_lookup(part_numbers=missing, currency=source, on=on)
        lock = fx or fx_rate_on(source=source, target=currency, on=on)
        if not converted or lock is None:
            continue
        for sku, p in converted.items():
            found[sku] = (
                p,
                round_money(p.list_price * lock.rate),
                f"{p.price_list}: {source} {p.list_price} x {lock.rate} ({lock.as_of})",
                None if p.cost is None else round_money(p.cost * lock.rate),
            )
        missing -= converted.keys()
        used = lock
        break
    lines = []
    for row in rows:
        price, unit, source, cost = found.get(row["sku"], (None, None, "", None))
        lines.append(
            PricedBomLine(
                sku=row["sku"],
                name=row.get("name") or "",
                category=row.get("category") or "",
                role=row.get("role") or "",
                quantity=row["quantity"],
                unit_price=unit,
                amount=round_money(unit * row["quantity"]) if unit is not None else None,
                is_reference=bool(price and price.is_reference),
                paid_yearly=bool(price and price.paid_yearly),
                source=source,
                unit_cost=cost,
            )
        )
    priced = [ln for ln in lines if ln.amount is not None]
    return PricedBom(
        currency=currency,
        lines=tuple(lines),
        total=sum((ln.amount for ln in priced), Decimal("0.00")),
        missing=tuple(sorted(missing)),
        has_reference_prices=any(ln.is_reference for ln in lines),
        yearly_total=sum((ln.amount for ln in priced if ln.paid_yearly), Decimal("0.00")),
        fx=used,
    )


def spares_kit_ratios(*, bom: Iterable, currency: str) -> list[tuple[str, str]]:
    """The classes a quote made from this BOM in `currency` offers spares of, with the ratio it
    uses: (class label in the active language, percent). Empty when the BOM buys its own
    spares; a part without a price is left out, as the quote leaves it out of its kit."""
    kit = spares_kit(
        [_bom_row(line) for line in bom],
        ratios=spares_ratios(),
        class_of_category=SPARES_CLASS_OF_CATEGORY,
        units_of=replaceable_units(),
    )
    rows = [{"sku": k.sku, "name": k.name, "category": k.category, "quantity": 1} for k in kit]
    unpriced = set(bom_priced(bom=rows, currency=currency).missing) if rows else set()
    shown = {k.spare_class: f"{k.percent.normalize():f}" for k in kit if k.sku not in unpriced}
    return [(str(SparesClass(c).label), percent) for c, percent in shown.items()]

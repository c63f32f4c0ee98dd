"""Support priced by the offer it is on: the catalog says how (Product.pricing_basis).

- **As sold** (empty): the quantity sold times the price, like any line (a flat contract).
- **Per device**: one per switch in the offer's totals (spares on a shelf are not devices); the
  line's quantity is that count.
- **Share of the quoted hardware**: the product's share a year (`hardware_percent`) of the
  hardware lines in the offer's totals, each after its own discount, rounded to the cent, and at
  least the product's list price. That is the line's unit and list price (quantity: the years
  sold); the quote discount then applies to it as to every line, so the customer pays the share
  of what they pay for the hardware.

The last two follow the offer: after every change to its lines (`_tco_follows` in
services/quotes.py) they are priced again, before its TCO is, so the TCO's support is the
support the offer sells (docs/tco-model.md §6). A line whose price was set by hand keeps it.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from catalog.models import DEVICE_CATEGORIES, HARDWARE_CATEGORIES, PricingBasis, paid_yearly
from quoting.designs.selectors import FxLock, bom_priced
from quoting.engine.money import TOTAL_MAX, round_money
from quoting.errors import InvalidValue
from quoting.quotes.models import (
    TOTALLED_SECTIONS,
    QuoteEvent,
    QuoteEventVerb,
    QuoteLine,
    QuoteRevision,
    Section,
)
from quoting.quotes.selectors import line_amount

FOLLOWING = (PricingBasis.PER_DEVICE, PricingBasis.PERCENT_OF_HARDWARE)
SET_BY_HAND = "set by hand"  # quote_update_line's price_source for a price typed in
SPARE_ROLE = "spare"  # a design's spare switches (quoting/engine/fabric/bom.py)
_NOTE = " · "  # between the price list's source and what the line follows
MAX_QUANTITY = 1_000_000  # services/quotes.py's, for a line's quantity


def _counted(line: QuoteLine) -> bool:
    return line.section in TOTALLED_SECTIONS and line.product is not None


def offer_devices(lines: Iterable[QuoteLine]) -> int:
    """The devices a per-device support covers: the switches in the offer's totals, spares
    not counted."""
    return sum(
        ln.quantity
        for ln in lines
        if _counted(ln) and ln.product.category in DEVICE_CATEGORIES and ln.role != SPARE_ROLE
    )


def offer_hardware(lines: Iterable[QuoteLine]) -> Decimal:
    """The hardware in the offer's totals: goods bought once, each line after its own discount
    (before the quote discount)."""
    return sum(
        (
            line_amount(
                quantity=ln.quantity, unit_price=ln.unit_price, discount_percent=ln.discount_percent
            )
            for ln in lines
            if _counted(ln)
            and ln.product.category in HARDWARE_CATEGORIES
            and not paid_yearly(unit=ln.product.unit, category=ln.product.category)
        ),
        Decimal("0.00"),
    )


def share_of_hardware(*, hardware: Decimal, percent: Decimal, least: Decimal) -> Decimal:
    """A year of support at `percent` of `hardware`, rounded to the cent, at least `least`."""
    return max(round_money(hardware * percent / 100), least)


def revision_support_follow(*, revision: QuoteRevision, user) -> int:
    """Price the draft's per-device and share-of-hardware support lines again from its lines
    now; returns how many changed (each writes a "line changed" event with the reason)."""
    if revision.is_frozen:
        return 0
    lines = list(revision.lines.select_related("product"))
    following = [
        ln
        for ln in lines
        if ln.product is not None
        and ln.product.pricing_basis in FOLLOWING
        and ln.section != Section.ALTERNATIVES
        and not ln.price_source.startswith(SET_BY_HAND)
    ]
    if not following:
        return 0
    devices, hardware = offer_devices(lines), offer_hardware(lines)
    least = _list_prices(revision, following)
    changed = 0
    for line in following:
        before = {"quantity": line.quantity, "unit_price": line.unit_price}
        noted = line.price_source
        source = noted.split(_NOTE)[0]
        if line.product.pricing_basis == PricingBasis.PER_DEVICE:
            line.quantity = devices
            note = f"per device: {devices} switches on this offer"
        else:
            percent = line.product.hardware_percent or Decimal(0)
            price = share_of_hardware(
                hardware=hardware, percent=percent, least=least.get(line.sku, Decimal("0.00"))
            )
            line.unit_price = line.list_price = price
            note = f"{percent} % of the hardware on this offer, {hardware}"
        line.price_source = f"{source}{_NOTE}{note}"[:300]
        after = {"quantity": line.quantity, "unit_price": line.unit_price}
        if after == before and line.price_source == noted:
            continue
        _assert_line_fits(line)
        line.save(update_fields=["quantity", "unit_price", "list_price", "price_source"])
        if after != before:
            changed += 1
            QuoteEvent.objects.create(
                quote_id=revision.quote_id,
                revision=revision,
                actor=user,
                verb=QuoteEventVerb.LINE_CHANGED,
                details={
                    "line": line.sku,
                    "before": {**before, "unit_price": str(before["unit_price"])},
                    "after": {**after, "unit_price": str(after["unit_price"])},
                    "reason": note,
                },
            )
    return changed


def _list_prices(revision: QuoteRevision, lines: list[QuoteLine]) -> dict[str, Decimal]:
    """The catalog's price now of each share-of-hardware product (the least a year of it
    costs), at the revision's locked exchange rate; one lookup, none without such a line."""
    skus = {ln.sku for ln in lines if ln.product.pricing_basis == PricingBasis.PERCENT_OF_HARDWARE}
    if not skus:
        return {}
    fx = None
    if revision.fx_rate:
        fx = FxLock(revision.fx_source_currency, revision.fx_rate, revision.fx_rate_date)
    priced = bom_priced(
        bom=[{"sku": sku, "quantity": 1} for sku in sorted(skus)],
        currency=revision.quote.currency,
        fx=fx,
    )
    return {ln.sku: ln.unit_price for ln in priced.lines if ln.unit_price is not None}


def _assert_line_fits(line: QuoteLine) -> None:
    amount = line_amount(
        quantity=line.quantity, unit_price=line.unit_price, discount_percent=line.discount_percent
    )
    if amount > TOTAL_MAX or line.quantity > MAX_QUANTITY:
        raise InvalidValue(
            f"The support line {line.sku} would come to {amount:,} for {line.quantity:,} "
            f"devices, more than a quote can hold.",
            field="quantity",
        )

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
On a renewal quote (`Quote.renewal_of`) they follow the installed base instead: the switches
and hardware of the booked choice of the quote it renews (renewals.installed_base).
An alternative, chosen, carries its own: offer_choice prices these lines for it by the same
functions (quoting.quotes.selectors), without writing them.
"""

from __future__ import annotations

from quoting.engine.money import TOTAL_MAX
from quoting.errors import InvalidValue
from quoting.kept_texts import PRICE_SOURCE_NOTE
from quoting.quotes.models import (
    TOTALLED_SECTIONS,
    QuoteEvent,
    QuoteEventVerb,
    QuoteLine,
    QuoteRevision,
)
from quoting.quotes.renewals import installed_base
from quoting.quotes.selectors import (
    follows_the_offer,
    line_amount,
    offer_devices,
    offer_hardware,
    support_followed,
    support_least_prices,
)

__all__ = ["offer_hardware", "revision_support_follow"]  # offer_hardware: snapshots' TCO

MAX_QUANTITY = 1_000_000  # services/quotes.py's, for a line's quantity


def revision_support_follow(*, revision: QuoteRevision, user) -> int:
    """Price the draft's per-device and share-of-hardware support lines again from its lines
    now; returns how many changed (each writes a "line changed" event with the reason)."""
    if revision.is_frozen:
        return 0
    lines = list(revision.lines.select_related("product"))
    following = [ln for ln in lines if ln.section in TOTALLED_SECTIONS and follows_the_offer(ln)]
    if not following:
        return 0
    base = installed_base(revision.quote)
    if base is None:
        offer = [ln for ln in lines if ln.section in TOTALLED_SECTIONS]
        devices, hardware = offer_devices(offer), offer_hardware(offer)
    else:
        # A renewal quote renews support for what the customer owns, not for its own lines
        # (it holds no hardware: priced on them, support per device would fall to 0 switches).
        devices, hardware = base.devices, base.hardware
    # Today's catalog percent and least price, on a renewal quote too: a renewal is a new sale
    # at the current price book, as its other lines are priced now (quote_add_product); the
    # booked line kept only its price, not the percent it was priced at.
    least = support_least_prices(revision, following)
    changed = 0
    for line in following:
        before = {"quantity": line.quantity, "unit_price": line.unit_price}
        noted = line.price_source
        source = noted.split(PRICE_SOURCE_NOTE)[0]
        followed = support_followed(
            line, devices=devices, hardware=hardware, least=least, installed=base is not None
        )
        line.quantity, line.unit_price, note = followed.quantity, followed.unit_price, followed.note
        text = str(note)  # the English the line's price source and the event's reason keep
        line.list_price = followed.list_price
        line.price_source = f"{source}{PRICE_SOURCE_NOTE}{text}"[:300]
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
                    "reason": text,
                },
                reason_message=note.as_json(),  # the audit trail words it in its reader's language
            )
    return changed


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

"""The fingerprint of what a revision offers: every figure and word a proposal prints from it.

A revision's fingerprint is stored when it is frozen (quote_send), and every proposal document
records the fingerprint of the revision as its renderer read it. The PDF a customer reads,
accepts and signs must carry the fingerprint of the revision that was sent: a document
rendered from a draft (or from anything else) never passes for it.

The fields are listed per version, not discovered: a field added to a revision or a line later
must not change the fingerprint of a revision frozen before it existed (its documents would
then never pass). A new printed field means a new version here; a stored fingerprint names the
version it was made with (`"1:<sha256>"`) and is checked with that version's fields.
tests/quoting/quotes/test_content_hash.py fails until a new field is listed as hashed or as not
printed.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterable
from decimal import Decimal

CURRENT_VERSION = 7

# version -> (revision fields, line fields). The quote's own number and currency are part of
# every version.
FIELDS: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] = {
    1: (
        (
            "number",
            "tax_percent",
            "discount_percent",
            "fx_source_currency",
            "fx_rate",
            "fx_rate_date",
            "design_snapshot",
            "tco_snapshot",
            "workload",
            "subtotal",
            "discount_amount",
            "net",
            "tax_amount",
            "total",
        ),
        (
            "key",
            "position",
            "section",
            "alternative_group",
            "kind",
            "product_id",
            "sku",
            "description",
            "quantity",
            "unit_price",
            "discount_percent",
            "role",
        ),
    ),
}
# 2: VAT per line (its rate prints beside the line and in the breakdown by rate).
FIELDS[2] = (
    (*FIELDS[1][0], "tax_breakdown"),
    (*FIELDS[1][1], "vat_percent"),
)
# 3: the payment schedule and the additional terms (printed in the proposal's terms), and the
# TCO options the sales engineer chose to show (tco-model §7).
FIELDS[3] = (
    (*FIELDS[2][0], "payment_schedule", "additional_terms", "tco_options"),
    FIELDS[2][1],
)
# 4: the additional terms' Chinese text (printed in the Chinese proposal, share page and
# workbook). A revision sent before keeps version 3 and its fingerprint.
FIELDS[4] = (
    (*FIELDS[3][0], "additional_terms_zh"),
    FIELDS[3][1],
)
# 5: where each line came from (QuoteLine.origin): which lines an alternative takes the place
# of, so what its "total if chosen" prints. A revision sent before keeps version 4.
FIELDS[5] = (
    FIELDS[4][0],
    (*FIELDS[4][1], "origin"),
)
# 6: the delivery time the proposal prints (QuoteRevision.lead_time_weeks, frozen at the send),
# and the rule that each alternative carries its own spares kit (optional lines of origin
# spares_kit under its alternative_group, both already fingerprinted), offered only with that
# option, the proposed design's kit only as quoted (selectors.kits_follow_the_option: the
# version tells the rule the revision was printed with). Both came in one release. A revision
# sent before keeps version 5, its fingerprint, and every optional line offered with every
# configuration.
FIELDS[6] = (
    (*FIELDS[5][0], "lead_time_weeks"),
    FIELDS[5][1],
)
# 7: what the lines that follow the option chosen are priced on (QuoteRevision.option_basis,
# frozen at the send): each configuration's compute nodes, for the services priced per node, and
# each share-of-hardware support product's percent and least price; and the rule that both
# follow the option (selectors.services_follow_the_option), as support per switch already did.
# A revision sent before keeps version 6, its fingerprint, and its services and share-of-hardware
# support as quoted with every option.
FIELDS[7] = (
    (*FIELDS[6][0], "option_basis"),
    FIELDS[6][1],
)

# Kept out of every version, and why: bookkeeping, or renderings made again from the snapshots
# above (a later release may draw them differently; the figures stay the same).
NOT_HASHED = {
    "revision": (
        "id",
        "quote",
        "created_by",
        "created_at",
        "frozen_at",
        "sent_at",
        "content_sha256",
        "design",
        "tco",  # the snapshots are what prints, not the live objects
        "design_drawing",
        "design_drawings",
        "tco_charts",
        "design_racks",
        "snapshot_version",
        "design_list_value",  # the approval gate's measure, never printed
        "lead_time_unknown",  # the staff's note of lines without a lead time, never printed
    ),
    "line": (
        "id",
        "revision",
        "list_price",
        "price_source",  # what the price was checked against, never printed
        "unit_cost",  # the reseller's own, never printed for the customer
        "design",  # an alternative's saved design: what installs it, not what prints
        "vat_reason",  # why a manager changed the rate: for the audit trail, never printed
        "term_months",  # the renewal bookkeeping below: not printed (yet)
        "starts_on",
        "renewal_notified",
    ),
}


def _plain(value):
    """One spelling per value, whatever the database or the code made of it."""
    if isinstance(value, Decimal):
        return format(value.normalize(), "f") if value == value else str(value)
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    if value is None or isinstance(value, bool | int | float | str | dict | list):
        return value
    return str(value)  # UUIDs


def content_sha256(
    revision, lines: Iterable, *, quote_number: str, currency: str, version: int = CURRENT_VERSION
) -> str:
    """`"<version>:<sha256>"` of the revision's printed content and all its lines.

    `revision` and `lines` are model instances as read from the database (historical models in a
    migration will do): the fingerprint of what was stored, not of values in flight."""
    revision_fields, line_fields = FIELDS[version]
    content = {
        "quote": [quote_number, currency],
        "revision": {name: _plain(getattr(revision, name)) for name in revision_fields},
        "lines": sorted(
            ([_plain(getattr(line, name)) for name in line_fields] for line in lines),
            key=lambda row: (row[1], str(row[0])),  # position, then key
        ),
    }
    text = json.dumps(
        content, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )
    return f"{version}:{hashlib.sha256(text.encode()).hexdigest()}"


def content_version(stored: str) -> int:
    """The version a stored fingerprint was made with (the current one for none yet)."""
    head, _, _ = (stored or "").partition(":")
    return int(head) if head.isdigit() and int(head) in FIELDS else CURRENT_VERSION

"""The QUOTING_* settings and their defaults, read in one place (quoting_setting)."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings

from portal.models import SALES, SALES_MANAGER

# --- settings ------------------------------------------------------------------------------------

# Defaults of the QUOTING_* settings; a project setting of the same name replaces one entirely.
QUOTING_DEFAULTS: dict[str, object] = {
    # How far below list (%) each role may price a line or the whole quote without a manager's
    # approval (see revision_largest_discount).
    # A user with several roles gets the highest; superusers have no limit; no role means 0.
    "QUOTING_DISCOUNT_APPROVAL_THRESHOLDS": {SALES: Decimal("10"), SALES_MANAGER: Decimal("25")},
    # VAT per customer VAT zone (Customer.vat_zone); a revision copies it and staff may change it.
    "QUOTING_VAT_PERCENT": {"china": Decimal("13"), "export": Decimal("0")},
    # Where to look for a price when the quote currency has none, in this order; the first
    # currency with a price and an FxRate to the quote currency is locked on the revision.
    "QUOTING_FX_FALLBACK_CURRENCIES": ("USD", "CNY"),
    "QUOTING_NUMBER_SERIES": "Q",
    "QUOTING_VALIDITY_DAYS": 30,
}


def quoting_setting(name: str):
    return getattr(settings, name, QUOTING_DEFAULTS[name])

"""The QUOTING_* settings and their defaults, read in one place (quoting_setting)."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings

# --- settings ------------------------------------------------------------------------------------

# Defaults of the QUOTING_* settings; a project setting of the same name replaces one entirely.
QUOTING_DEFAULTS: dict[str, object] = {
    # The approval rules (quoting.quotes.models.ApprovalRule) while none is saved in the admin:
    # (role, level, deepest discount below list %, lowest margin % or None). A fresh database
    # is seeded with them (migration 0012); an admin who deletes every rule gets them back.
    # Sales send up to 10 % below list at a 10 % margin; managers up to 25 % and never below
    # cost; beyond that a director decides.
    "QUOTING_DEFAULT_APPROVAL_RULES": (
        ("sales", 1, Decimal("10"), Decimal("10")),
        ("sales-manager", 2, Decimal("25"), Decimal("0")),
        ("director", 3, Decimal("100"), None),
    ),
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

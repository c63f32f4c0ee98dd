"""Quotes, their revisions, lines and approvals, the audit trail, notifications and
installation packs (one per sent revision); import them from here."""

from quoting.quotes.models.as_built import AsBuiltCheck
from quoting.quotes.models.audit import (
    DETAIL_LABELS,
    DETAIL_VALUES,
    QuoteEvent,
    QuoteEventVerb,
)
from quoting.quotes.models.install import (
    InstallPack,
    InstallPackStatus,
)
from quoting.quotes.models.notifications import (
    Notification,
    NotificationEmailOptOut,
    NotificationKind,
)
from quoting.quotes.models.quotes import (
    ANSWERABLE_WHILE_DRAFTING,
    FABRIC_SECTIONS,
    PERCENT_VALIDATORS,
    ROLE_CHOICES,
    SECTION_ORDER,
    STANDARD_MILESTONES,
    TOTALLED_SECTIONS,
    TRANSITIONS,
    Approval,
    ApprovalDecision,
    ApprovalRule,
    LineKind,
    Quote,
    QuoteCounter,
    QuoteLine,
    QuoteRevision,
    QuoteStatus,
    Section,
    choice_label,
    milestone_key,
    milestone_label,
    spares_kit_label,
)

__all__ = [
    "ANSWERABLE_WHILE_DRAFTING",
    "FABRIC_SECTIONS",
    "AsBuiltCheck",
    "Approval",
    "ApprovalDecision",
    "ApprovalRule",
    "ROLE_CHOICES",
    "DETAIL_LABELS",
    "DETAIL_VALUES",
    "InstallPack",
    "InstallPackStatus",
    "LineKind",
    "Notification",
    "NotificationEmailOptOut",
    "NotificationKind",
    "PERCENT_VALIDATORS",
    "Quote",
    "QuoteCounter",
    "QuoteEvent",
    "QuoteEventVerb",
    "QuoteLine",
    "QuoteRevision",
    "QuoteStatus",
    "Section",
    "SECTION_ORDER",
    "spares_kit_label",
    "STANDARD_MILESTONES",
    "choice_label",
    "milestone_key",
    "milestone_label",
    "TOTALLED_SECTIONS",
    "TRANSITIONS",
]

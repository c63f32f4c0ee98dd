"""Quoting models, one module per concern; import them from here."""

from .audit import QuoteEvent, QuoteEventVerb
from .customers import Contact, Customer, Project, Team, VatZone
from .designs import SavedDesign, TcoScenario
from .install import InstallPack, InstallPackStatus
from .notifications import Notification, NotificationEmailOptOut, NotificationKind
from .quotes import (
    ANSWERABLE_WHILE_DRAFTING,
    TOTALLED_SECTIONS,
    TRANSITIONS,
    Approval,
    ApprovalDecision,
    FxRate,
    LineKind,
    Quote,
    QuoteCounter,
    QuoteLine,
    QuoteRevision,
    QuoteStatus,
    Section,
)

__all__ = [
    "TOTALLED_SECTIONS",
    "ANSWERABLE_WHILE_DRAFTING",
    "TRANSITIONS",
    "Approval",
    "ApprovalDecision",
    "Contact",
    "Customer",
    "FxRate",
    "InstallPack",
    "InstallPackStatus",
    "LineKind",
    "Notification",
    "NotificationEmailOptOut",
    "NotificationKind",
    "Project",
    "Quote",
    "QuoteCounter",
    "QuoteEvent",
    "QuoteEventVerb",
    "QuoteLine",
    "QuoteRevision",
    "QuoteStatus",
    "SavedDesign",
    "Section",
    "TcoScenario",
    "Team",
    "VatZone",
]

"""The audit trail of a quote: every state change and every price, quantity or discount change."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from quoting.quotes.models.quotes import Quote, QuoteRevision


class QuoteEventVerb(models.TextChoices):
    """What happened. The value is stable (the API and stored rows use it); pages show the label."""

    CREATED = "created", _("Created")
    LINES_FROM_DESIGN = "lines_from_design", _("Lines from the design")
    LINE_ADDED = "line_added", _("Line added")
    LINE_CHANGED = "line_changed", _("Line changed")
    LINE_REMOVED = "line_removed", _("Line removed")
    DISCOUNT_CHANGED = "discount_changed", _("Quote discount changed")
    VALIDITY_CHANGED = "validity_changed", _("Validity changed")
    TAX_CHANGED = "tax_changed", _("VAT changed")
    WORKLOAD_CHANGED = "workload_changed", _("TCO workload changed")
    PAYMENT_TERMS_CHANGED = "payment_terms_changed", _("Payment schedule or terms changed")
    TCO_OPTIONS_CHANGED = "tco_options_changed", _("TCO options shown changed")
    STATUS_CHANGED = "status_changed", _("Status changed")
    APPROVAL_REQUESTED = "approval_requested", _("Approval requested")
    APPROVED = "approved", _("Discount approved")
    REJECTED = "rejected", _("Discount rejected")
    REVISION_CREATED = "revision_created", _("New revision")
    ALTERNATIVE_ADDED = "alternative_added", _("Alternative added")
    ALTERNATIVE_REMOVED = "alternative_removed", _("Alternative removed")
    # A revision copied from one sent before each option carried its kit: the option's kit added.
    ALTERNATIVE_KIT_ADDED = "alternative_kit_added", _("Spares kit added to an alternative")
    SHARE_LINK_CREATED = "share_link_created", _("Share link created")
    SHARE_LINK_REVOKED = "share_link_revoked", _("Share link revoked")
    # The signed copy certifies the sent PDF: an acceptance bound to another one is rebound.
    ACCEPTED_DOCUMENT_REPLACED = (
        "accepted_document_replaced",
        _("Accepted PDF replaced by the sent one"),
    )
    # Staff checked the export-control note of these lines for this destination (not legal
    # advice); sending needs one for the revision's contents as they are.
    EXPORT_CHECKED = "export_checked", _("Export-control note checked")
    # The seller approved the customer's acceptance; the signed copy is made again with it.
    COUNTERSIGNED = "countersigned", _("Countersigned by the seller")


class QuoteEvent(models.Model):
    quote = models.ForeignKey(Quote, on_delete=models.CASCADE, related_name="events")
    revision = models.ForeignKey(
        QuoteRevision, on_delete=models.CASCADE, null=True, blank=True, related_name="events"
    )
    # Null for the system (the expiry job) and for customers acting through a share link.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("actor"),
    )
    verb = models.CharField(_("what"), max_length=40, choices=QuoteEventVerb.choices)
    details = models.JSONField(_("details"), default=dict, blank=True)
    # details["reason"] (kept in English, as the API gives it) as its message, which the audit
    # trail words in its reader's language (quoting.kept_messages); null for an event without
    # one, or kept before messages (its reason worded through quoting.kept_texts).
    reason_message = models.JSONField(
        _("reason, as its message"), null=True, blank=True, editable=False
    )
    at = models.DateTimeField(_("when"), auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["quote", "at", "pk"]
        verbose_name = _("quote event")
        verbose_name_plural = _("quote events")

    def __str__(self) -> str:
        return f"{self.quote} {self.verb}"

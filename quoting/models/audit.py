"""The audit trail of a quote: every state change and every price, quantity or discount change."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .quotes import Quote, QuoteRevision


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
    verb = models.CharField(_("what"), max_length=40)
    details = models.JSONField(_("details"), default=dict, blank=True)
    at = models.DateTimeField(_("when"), auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["quote", "at", "pk"]
        verbose_name = _("quote event")
        verbose_name_plural = _("quote events")

    def __str__(self) -> str:
        return f"{self.quote} {self.verb}"

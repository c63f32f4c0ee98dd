"""As-built checks of quote revisions: the discovered fabric compared with the plan, kept as the
acceptance record (who uploaded which file, when, and what it showed).

The upload itself is not kept (up to 20 MB of ibnetdiscover text): its SHA-256 names it, so the
installer's copy can be matched to the record. The report is kept whole, with its counts beside
it for lists and filters.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from quoting.quotes.models.quotes import QuoteRevision


class AsBuiltCheck(models.Model):
    revision = models.ForeignKey(
        QuoteRevision, on_delete=models.CASCADE, related_name="as_built_checks"
    )
    filename = models.CharField(_("file"), max_length=255, blank=True)
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    size = models.PositiveIntegerField(_("size (bytes)"))
    # What the plan was laid out from, so the check can be repeated on the same plan.
    requirements = models.JSONField(_("requirements"))
    site = models.JSONField(_("site inputs"), default=dict, blank=True)
    result = models.JSONField(_("report"))
    planned_count = models.PositiveIntegerField(_("links planned"))
    ok_count = models.PositiveIntegerField(_("links as planned"))
    missing_count = models.PositiveIntegerField(_("missing"))
    unexpected_count = models.PositiveIntegerField(_("unexpected"))
    miswired_count = models.PositiveIntegerField(_("miswired"))
    degraded_count = models.PositiveIntegerField(_("degraded"))
    devices_missing_count = models.PositiveIntegerField(_("devices not found"))
    check_ms = models.PositiveIntegerField(_("check time (ms)"), null=True, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("uploaded by"),
    )
    created_at = models.DateTimeField(_("checked"), auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("as-built check")
        verbose_name_plural = _("as-built checks")

    def __str__(self) -> str:
        return f"{self.revision} as-built check {self.pk}"

    @property
    def problem_count(self) -> int:
        return (
            self.missing_count
            + self.unexpected_count
            + self.miswired_count
            + self.degraded_count
            + self.devices_missing_count
        )

    @property
    def passed(self) -> bool:
        return self.problem_count == 0

"""Installation packs of quote revisions: one row per request, the zip stored with its SHA-256
(like the proposal PDFs), so a sent revision hands out the very bytes it was built with."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from quoting.designs.models import InstallPackStatus
from quoting.quotes.models.quotes import QuoteRevision


class InstallPack(models.Model):
    """The pack of one revision on one site. The requirements are copied from the revision's
    design when asked for, so a later change to the saved design cannot change the pack."""

    revision = models.ForeignKey(
        QuoteRevision, on_delete=models.CASCADE, related_name="install_packs"
    )
    requirements = models.JSONField(_("requirements"))
    site = models.JSONField(_("site inputs"), default=dict, blank=True)
    # The words of the files people read (README, elevations, labels); the files tools read are
    # the same in every language. Packs made before packs had a language were English.
    language = models.CharField(
        _("language"), max_length=10, choices=settings.LANGUAGES, default="en"
    )
    status = models.CharField(
        _("status"),
        max_length=10,
        choices=InstallPackStatus.choices,
        default=InstallPackStatus.PENDING,
        db_index=True,
    )
    error = models.CharField(_("error"), max_length=500, blank=True)
    # The error as its message (quoting.kept_messages): the page words it in its reader's
    # language; null on a row kept before messages (worded through quoting.kept_texts).
    error_message = models.JSONField(
        _("error, as its message"), null=True, blank=True, editable=False
    )
    archive = models.BinaryField(_("zip"), null=True, blank=True, editable=False)
    sha256 = models.CharField(_("SHA-256"), max_length=64, blank=True)
    size = models.PositiveIntegerField(_("size (bytes)"), null=True, blank=True)
    build_ms = models.PositiveIntegerField(_("build time (ms)"), null=True, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("requested by"),
    )
    created_at = models.DateTimeField(_("requested"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("installation pack")
        verbose_name_plural = _("installation packs")
        constraints = [
            models.CheckConstraint(
                condition=~Q(status="ready") | (Q(archive__isnull=False) & ~Q(sha256="")),
                name="ready_install_pack_has_archive",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.revision} install pack {self.status}"

    @property
    def filename(self) -> str:
        return f"{self.revision.quote.number or 'quote'}-r{self.revision.number}-install-pack.zip"

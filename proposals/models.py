"""Proposal PDFs (one row per request: the row is the truth, not the task queue) and the share
links customers read them through."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from quoting.models import Quote, QuoteRevision


class DocumentStatus(models.TextChoices):
    PENDING = "pending", _("Waiting for a worker")
    RENDERING = "rendering", _("Rendering")
    READY = "ready", _("Ready")
    FAILED = "failed", _("Failed")


FINAL_STATUSES = (DocumentStatus.READY, DocumentStatus.FAILED)


class ProposalDocument(models.Model):
    """The PDF of one revision in one language.

    The bytes live in the database (not on a disk): web and worker processes on other machines
    reach them through the one connection they already have, a backup holds them together with
    the quote they belong to, and the 500-line cap keeps a PDF to a few hundred kilobytes.
    """

    revision = models.ForeignKey(
        QuoteRevision, on_delete=models.CASCADE, related_name="proposal_documents"
    )
    language = models.CharField(_("language"), max_length=10, choices=settings.LANGUAGES)
    status = models.CharField(
        _("status"),
        max_length=10,
        choices=DocumentStatus.choices,
        default=DocumentStatus.PENDING,
        db_index=True,
    )
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    error = models.CharField(_("error"), max_length=500, blank=True)
    # A fresh value per claim: a renderer whose claim was taken over (it was presumed dead)
    # cannot overwrite the result of the one that replaced it.
    claim = models.CharField(max_length=32, blank=True, editable=False)
    pdf = models.BinaryField(_("PDF"), null=True, blank=True, editable=False)
    sha256 = models.CharField(_("SHA-256"), max_length=64, blank=True)
    size = models.PositiveIntegerField(_("size (bytes)"), null=True, blank=True)
    render_ms = models.PositiveIntegerField(_("render time (ms)"), null=True, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("requested by"),
    )
    created_at = models.DateTimeField(_("requested"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("proposal document")
        verbose_name_plural = _("proposal documents")
        indexes = [models.Index(fields=["revision", "language", "status"])]
        constraints = [
            models.CheckConstraint(
                condition=~Q(status="ready") | (Q(pdf__isnull=False) & ~Q(sha256="")),
                name="ready_document_has_pdf",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.revision} {self.language} {self.status}"

    @property
    def is_final(self) -> bool:
        return self.status in FINAL_STATUSES

    @property
    def filename(self) -> str:
        return f"{self.revision.quote.number}-{self.revision.label}-{self.language}.pdf"


class ShareLink(models.Model):
    """A link to a quote for one recipient. Only the token's SHA-256 is kept.

    It is not pinned to a revision: it shows the quote's latest *sent* revision, so a customer
    holding an old link reads the offer that stands, never a draft.
    """

    quote = models.ForeignKey(Quote, on_delete=models.CASCADE, related_name="share_links")
    recipient_name = models.CharField(_("recipient"), max_length=100, blank=True)
    recipient_email = models.EmailField(_("recipient e-mail"), blank=True)
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"))
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)
    last_used_at = models.DateTimeField(_("last opened"), null=True, blank=True)
    use_count = models.PositiveIntegerField(_("opens"), default=0)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("share link")
        verbose_name_plural = _("share links")

    def __str__(self) -> str:
        return f"{self.quote} → {self.recipient_name or self.recipient_email or self.pk}"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and self.expires_at > timezone.now()


class OpenKind(models.TextChoices):
    """What an open of a share link turned out to be (proposals.engagement). Only REAL opens
    count as the customer reading: they tell the owner and fire quote.viewed."""

    REAL = "real", _("reader")
    NO_SCRIPT = "no_script", _("no script ran")
    SHORT = "short", _("shorter than two seconds")
    SCANNER = "scanner", _("scanner or preview")
    HEAD = "head", _("HEAD request")


# Served and not (yet) shown to be a reader: a beacon may still make these real.
OPEN_KINDS_PENDING = (OpenKind.NO_SCRIPT, OpenKind.SHORT)


class LinkView(models.Model):
    """One open of a share link: when, what kind of device, what it turned out to be and how
    long each part was read. No IP address and no User-Agent is kept."""

    link = models.ForeignKey(ShareLink, on_delete=models.CASCADE, related_name="views")
    at = models.DateTimeField(_("opened"), auto_now_add=True)
    revision_label = models.CharField(_("revision"), max_length=8, blank=True)
    browser = models.CharField(_("browser"), max_length=20, blank=True)
    os = models.CharField(_("system"), max_length=20, blank=True)
    is_mobile = models.BooleanField(_("mobile"), default=False)
    kind = models.CharField(_("kind"), max_length=10, choices=OpenKind.choices,
                            default=OpenKind.NO_SCRIPT)
    scanner = models.CharField(_("scanner"), max_length=40, blank=True)  # who, when known
    # Issued with the page, sent back by its beacons: they attach to this view only.
    open_key = models.CharField(max_length=32, null=True, blank=True, unique=True,
                                editable=False)
    script_ran = models.BooleanField(_("script ran"), default=False)
    seconds = models.PositiveIntegerField(_("reading time (s)"), default=0)
    sections = models.JSONField(_("seconds per section"), default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-pk"]
        verbose_name = _("link view")
        verbose_name_plural = _("link views")

    def __str__(self) -> str:
        return f"{self.link_id} {self.at:%Y-%m-%d %H:%M}"

"""Saved results of the engines (a design or a TCO run stays as it was computed), and the FX
rates a BOM is priced with.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from catalog.models import CURRENCY_VALIDATOR
from quoting.customers.models import Project
from quoting.engine.tco.presets import DEFAULT_WORKLOAD

# A key of quoting.engine.tco.presets.WORKLOAD_PRESETS (the services check it): no choices here,
# so a new preset needs no migration.
WORKLOAD_MAX_LENGTH = 40


class SavedDesign(models.Model):
    """A fabric design with the requirements that produced it, and its snapshot.

    The snapshot is computed once, when the requirements are saved
    (quoting.designs.services.snapshots), and read by every page, the API and the quotes made
    from it: the engine result (FabricDesign.as_dict()), its drawing and messages, its priced
    BOM and its TCO comparison. `snapshot_version` below the code's SNAPSHOT_VERSION means "to be
    stored again by the refresh" (reads compute it in memory meanwhile).
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="designs")
    name = models.CharField(_("name"), max_length=200)
    requirements = models.JSONField(_("requirements"))
    result = models.JSONField(_("result snapshot"))
    drawing = models.TextField(_("drawing (SVG)"), blank=True)
    # The same drawing in each of the portal's languages ({language: SVG}); see drawing_in().
    drawings = models.JSONField(_("drawing in each language"), null=True, blank=True)
    # The engine's warnings and advice as translatable messages ({template, params}).
    engine_messages = models.JSONField(_("warnings and advice"), null=True, blank=True)
    # What the TCO comparison needs of this design and the other family's, prices aside.
    tco_inputs = models.JSONField(_("TCO inputs"), null=True, blank=True)
    # PricedBom.as_json() in the customer's currency, and the TCO comparison priced with it.
    priced_bom = models.JSONField(_("priced bill of materials"), null=True, blank=True)
    tco = models.JSONField(_("TCO comparison"), null=True, blank=True)
    # Its racks on the default site for the proposal's appendix (quoting.designs.svg.racks).
    racks = models.JSONField(_("racks and power"), null=True, blank=True)
    # The job the TCO comparison assumes.
    workload = models.CharField(
        _("workload"), max_length=WORKLOAD_MAX_LENGTH, default=DEFAULT_WORKLOAD
    )
    snapshot_version = models.PositiveSmallIntegerField(_("snapshot version"), default=0)
    snapshot_at = models.DateTimeField(_("snapshot computed"), null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ["project", "-created_at"]
        verbose_name = _("saved design")
        verbose_name_plural = _("saved designs")
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="one_design_name_per_project"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def bom(self) -> list[dict]:
        return self.result.get("bom", [])


class TcoScenario(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="tco_scenarios")
    name = models.CharField(_("name"), max_length=200)
    request = models.JSONField(_("request"))
    result = models.JSONField(_("result snapshot"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["project", "-created_at"]
        verbose_name = _("TCO scenario")
        verbose_name_plural = _("TCO scenarios")

    def __str__(self) -> str:
        return self.name


class FxRate(models.Model):
    """Exchange rates we quote with, entered by staff (no live feed: the rate is a commercial
    decision, and a quote locks the one it used).

    1 unit of `source` = `rate` units of `target`, valid from `as_of`.
    """

    source = models.CharField(_("from"), max_length=3, validators=[CURRENCY_VALIDATOR])
    target = models.CharField(_("to"), max_length=3, validators=[CURRENCY_VALIDATOR])
    rate = models.DecimalField(
        _("rate"), max_digits=14, decimal_places=6, validators=[MinValueValidator(0)]
    )
    as_of = models.DateField(_("as of"))

    class Meta:
        ordering = ["source", "target", "-as_of"]
        verbose_name = _("exchange rate")
        verbose_name_plural = _("exchange rates")
        constraints = [
            models.UniqueConstraint(
                fields=["source", "target", "as_of"], name="one_fx_rate_per_day"
            ),
            models.CheckConstraint(condition=Q(rate__gt=0), name="fx_rate_positive"),
        ]

    def __str__(self) -> str:
        return f"1 {self.source} = {self.rate} {self.target} ({self.as_of})"


class InstallPackStatus(models.TextChoices):
    PENDING = "pending", _("Waiting for a worker")
    BUILDING = "building", _("Building")
    READY = "ready", _("Ready")
    FAILED = "failed", _("Failed")


class DesignInstallPack(models.Model):
    """The installation pack of an unsaved design (the design page's and the design API's), too
    large to build while a request waits: built by a worker, kept for whoever asked (a few per
    person, quoting.designs.services.packs.DESIGN_PACKS_KEPT)."""

    requirements = models.JSONField(_("requirements"))
    site = models.JSONField(_("site inputs"), default=dict, blank=True)
    gpu_count = models.PositiveIntegerField(_("GPUs"))
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
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("requested by"),
    )
    created_at = models.DateTimeField(_("requested"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("design installation pack")
        verbose_name_plural = _("design installation packs")
        constraints = [
            models.CheckConstraint(
                condition=~Q(status="ready") | (Q(archive__isnull=False) & ~Q(sha256="")),
                name="ready_design_install_pack_has_archive",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.gpu_count}-GPU install pack {self.status}"

    @property
    def filename(self) -> str:
        return f"install-pack-{self.gpu_count}-gpus.zip"

"""Saved results of the engines: a design or a TCO run stays as it was computed."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .customers import Project


class SavedDesign(models.Model):
    """A fabric design with the requirements that produced it.

    The result is a snapshot (FabricDesign.as_dict()): the catalog may change later, and a quote
    made from this design must show what the customer was shown.
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="designs")
    name = models.CharField(_("name"), max_length=200)
    requirements = models.JSONField(_("requirements"))
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

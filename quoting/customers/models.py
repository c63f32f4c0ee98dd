"""Who we sell to: teams of sales staff, their customers, contacts and projects."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from catalog.models import CURRENCY_VALIDATOR, TaxCategory


class Team(models.Model):
    """A sales team. Sales users see the customers of their teams; managers see all."""

    name = models.CharField(_("name"), max_length=100, unique=True)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="teams", blank=True, verbose_name=_("members")
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("team")
        verbose_name_plural = _("teams")

    def __str__(self) -> str:
        return self.name


COUNTRY_VALIDATOR = RegexValidator(r"^[A-Z]{2}$", _("Use a two-letter ISO 3166 code."))


class VatRate(models.Model):
    """The VAT rate per country and tax category, edited in the admin. Seeded for CN (goods
    13 %, services 6 %, software 13 %) as data to review with the reseller's accountant."""

    country = models.CharField(_("country"), max_length=2, validators=[COUNTRY_VALIDATOR])
    tax_category = models.CharField(_("tax category"), max_length=10, choices=TaxCategory.choices)
    vat_percent = models.DecimalField(
        _("VAT %"),
        max_digits=5,
        decimal_places=2,
        validators=[MinValueValidator(0), MaxValueValidator(100)],
    )

    class Meta:
        ordering = ["country", "tax_category"]
        verbose_name = _("VAT rate")
        verbose_name_plural = _("VAT rates")
        constraints = [
            models.UniqueConstraint(
                fields=["country", "tax_category"], name="one_vat_rate_per_country_category"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.country} {self.get_tax_category_display()}: {self.vat_percent} %"


class ExportDestination(models.Model):
    """A destination the admin lists for export-control attention: a quote for a customer there
    with classified items shows staff a note to acknowledge before sending (never the customer;
    docs/architecture.md). Rows in the admin rather than a setting, as VAT rates are: the list
    changes with the rules, and whoever keeps it says why beside each code."""

    country = models.CharField(
        _("country"),
        max_length=2,
        unique=True,
        validators=[COUNTRY_VALIDATOR],
        help_text=_("ISO 3166-1 alpha-2 code, e.g. CN."),
    )
    note = models.CharField(
        _("note"),
        max_length=500,
        blank=True,
        help_text=_("Why it is listed, and what to check (shown to staff on the note)."),
    )

    class Meta:
        ordering = ["country"]
        verbose_name = _("export-control destination")
        verbose_name_plural = _("export-control destinations")

    def __str__(self) -> str:
        return self.country


class VatZone(models.TextChoices):
    # The VAT rate of each zone is a setting (QUOTING_VAT_PERCENT), not code.
    CHINA = "china", _("Mainland China (VAT)")
    EXPORT = "export", _("Export (no VAT)")


class Customer(models.Model):
    company = models.CharField(_("company"), max_length=200)
    industry = models.CharField(_("industry"), max_length=100, blank=True)
    region = models.CharField(
        _("region"),
        max_length=100,
        blank=True,
        help_text=_("Where the customer is, e.g. Guangdong."),
    )
    vat_zone = models.CharField(
        _("VAT zone"), max_length=8, choices=VatZone.choices, default=VatZone.CHINA
    )
    language = models.CharField(
        _("language"), max_length=10, choices=settings.LANGUAGES, default="zh-hans"
    )
    default_currency = models.CharField(
        _("default currency"), max_length=3, default="CNY", validators=[CURRENCY_VALIDATOR]
    )
    # ISO 3166 alpha-2: which VAT rates apply (VatRate). Empty: CN for a Mainland China customer
    # (customer_country()).
    country = models.CharField(
        _("country"),
        max_length=2,
        blank=True,
        validators=[COUNTRY_VALIDATOR],
        help_text=_("ISO 3166 code, e.g. CN; empty means CN for Mainland China customers."),
    )
    # PROTECT: a team's customers move to another team before the team goes.
    team = models.ForeignKey(
        Team, on_delete=models.PROTECT, related_name="customers", verbose_name=_("team")
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="owned_customers",
        verbose_name=_("owner"),
    )
    notes = models.TextField(_("notes"), max_length=5000, blank=True)
    # The CRM's own id for this record (PUT .../by-external-id/{external_id}/ upserts by it).
    external_id = models.CharField(
        _("external ID"), max_length=100, unique=True, null=True, blank=True
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ["company"]
        verbose_name = _("customer")
        verbose_name_plural = _("customers")
        constraints = [
            models.UniqueConstraint(fields=["team", "company"], name="one_company_per_team"),
        ]

    def __str__(self) -> str:
        return self.company


class Contact(models.Model):
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="contacts")
    name = models.CharField(_("name"), max_length=100)
    title = models.CharField(_("title"), max_length=100, blank=True)
    email = models.EmailField(_("e-mail"), blank=True)
    phone = models.CharField(_("phone"), max_length=40, blank=True)
    # The CRM's own id for this record (PUT .../by-external-id/{external_id}/ upserts by it).
    external_id = models.CharField(
        _("external ID"), max_length=100, unique=True, null=True, blank=True
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ["customer", "name"]
        verbose_name = _("contact")
        verbose_name_plural = _("contacts")

    def __str__(self) -> str:
        return f"{self.name} ({self.customer})"


# The parts of a plan a project may ask for (#26: "GPU servers, InfiniBand network,
# virtualization management and DR backup must be planned together"), in the order pages show
# them: (part, the label of its question). Each part is a yes/no field `needs_<part>` with a note
# `needs_<part>_note` on Project, and a quote section of the same name (quoting.quotes.models.
# Section) whose lines answer it (quoting.quotes.selectors.revision_completeness).
PLAN_PARTS = (
    ("gpu_servers", _("GPU servers")),
    ("network", _("Network")),
    ("cluster_management", _("Virtualization and cluster management")),
    ("backup", _("DR and backup")),
)
PLAN_NOTE_MAX_LENGTH = 500


def plan_fields() -> tuple[str, ...]:
    """needs_gpu_servers, needs_gpu_servers_note, needs_network, ...: the API's and forms' names."""
    return tuple(
        name for part, _label in PLAN_PARTS for name in (f"needs_{part}", f"needs_{part}_note")
    )


def _plan_note(label) -> models.CharField:
    return models.CharField(
        label,
        max_length=PLAN_NOTE_MAX_LENGTH,
        blank=True,
        help_text=_("What the customer said about it, e.g. the existing backup system."),
    )


class Project(models.Model):
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="projects")
    name = models.CharField(_("name"), max_length=200)
    # The FabricRequirements fields, as the sales engineer last entered them.
    requirements = models.JSONField(_("cluster requirements"), default=dict, blank=True)
    # Which parts of the plan the customer asks for (PLAN_PARTS). Network yes, the rest no: what
    # every project asked for before the other parts could be quoted.
    needs_gpu_servers = models.BooleanField(_("GPU servers wanted"), default=False)
    needs_gpu_servers_note = _plan_note(_("GPU servers note"))
    needs_network = models.BooleanField(_("network wanted"), default=True)
    needs_network_note = _plan_note(_("network note"))
    needs_cluster_management = models.BooleanField(
        _("virtualization and cluster management wanted"), default=False
    )
    needs_cluster_management_note = _plan_note(_("virtualization and cluster management note"))
    needs_backup = models.BooleanField(_("DR and backup wanted"), default=False)
    needs_backup_note = _plan_note(_("DR and backup note"))
    notes = models.TextField(_("notes"), max_length=5000, blank=True)
    # The CRM's own id for this record (PUT .../by-external-id/{external_id}/ upserts by it).
    external_id = models.CharField(
        _("external ID"), max_length=100, unique=True, null=True, blank=True
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="owned_projects",
        verbose_name=_("owner"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ["customer", "name"]
        verbose_name = _("project")
        verbose_name_plural = _("projects")
        constraints = [
            models.UniqueConstraint(
                fields=["customer", "name"], name="one_project_name_per_customer"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.customer} / {self.name}"

"""Products with typed specs, and price lists per currency.

Specs are real columns, not a JSON blob: the design engine reads them, admins edit them with
validation, and a switch without a port count is refused when it is saved, not when a design
crashes on it later.
"""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from quoting.engine.money import MONEY_DIGITS, MONEY_PLACES

PART_NUMBER_VALIDATOR = RegexValidator(
    r"^[A-Za-z0-9][A-Za-z0-9._-]*$",
    _("Use letters, digits and . _ - only, starting with a letter or digit."),
)
CURRENCY_VALIDATOR = RegexValidator(r"^[A-Z]{3}$", _("Use a three-letter ISO 4217 code."))
# An export control classification as the US Commerce Control List spells one (5A992.c, 4A090.a)
# or EAR99; the catalog keeps what it was told, it does not classify.
EXPORT_CLASSIFICATION_VALIDATOR = RegexValidator(
    r"^(EAR99|[0-9][A-E][0-9]{3}(\.[A-Za-z0-9]+)*)$",
    _("Use an ECCN such as 5A992.c or 4A090.a, or EAR99."),
)
# The source a classification marked as not confirmed carries.
EXPORT_SOURCE_VERIFY = "verify"


class Category(models.TextChoices):
    SWITCH = "switch", _("Switch")
    ADAPTER = "adapter", _("Adapter (NIC)")
    DPU = "dpu", _("DPU")
    TRANSCEIVER = "transceiver", _("Transceiver")
    CABLE = "cable", _("Cable")
    SERVER = "server", _("Server")
    SOFTWARE = "software", _("Software / licence")
    SERVICE = "service", _("Service")
    SUPPORT = "support", _("Support")
    # Storage arrays, backup software and appliances of other makers, for the DR and backup part
    # of a plan (#26): rows the catalog manager adds (admin or CSV); the seed brings none.
    STORAGE = "storage", _("Storage and backup (third party)")
    # A switch's field-replaceable power supply or fan module, sold as a spare (#26): which
    # switch holds how many is catalog.ReplaceableUnit.
    PSU_FAN = "psu_fan", _("PSU or fan module")


class TaxCategory(models.TextChoices):
    """What VAT treats a product as (quoting.customers.models.VatRate holds the rates)."""

    GOODS = "goods", _("Goods")
    SERVICES = "services", _("Services")
    SOFTWARE = "software", _("Software")


# A product's tax category when it names none: from its catalog category.
TAX_CATEGORY_OF_CATEGORY = {
    Category.SERVICE: TaxCategory.SERVICES,
    Category.SUPPORT: TaxCategory.SERVICES,
    Category.SOFTWARE: TaxCategory.SOFTWARE,
    # Mostly arrays and appliances; backup software sold alone names its own tax category.
    Category.STORAGE: TaxCategory.GOODS,
}


def tax_category_of(*, tax_category: str, category: str) -> str:
    return tax_category or TAX_CATEGORY_OF_CATEGORY.get(category, TaxCategory.GOODS)


class Generation(models.TextChoices):
    HDR = "HDR", "HDR 200G"
    NDR200 = "NDR200", "NDR200"
    NDR = "NDR", "NDR 400G"
    XDR = "XDR", "XDR 800G"
    GBE1 = "1GbE", "1GbE"
    GBE10 = "10GbE", "10GbE"
    GBE25 = "25GbE", "25GbE"
    GBE100 = "100GbE", "100GbE"
    GBE200 = "200GbE", "200GbE"
    GBE400 = "400GbE", "400GbE"
    GBE800 = "800GbE", "800GbE"


class Protocol(models.TextChoices):
    INFINIBAND = "infiniband", "InfiniBand"
    ETHERNET = "ethernet", _("Ethernet")


class Lifecycle(models.TextChoices):
    ACTIVE = "active", _("Active")
    PREVIEW = "preview", _("Preview (verify before quoting)")
    EOL = "eol", _("End of life")


class Unit(models.TextChoices):
    EACH = "each", _("each")
    ENDPOINT = "endpoint", _("per endpoint")
    DAY = "day", _("per day")
    YEAR = "year", _("per year")
    PROJECT = "project", _("per project")
    # A service priced by cluster size: a quote made from a design sells one per compute node.
    NODE = "node", _("per node")
    # Software licensed per GPU for a year (NVIDIA AI Enterprise, Base Command Manager).
    GPU_YEAR = "gpu_year", _("per GPU per year")


def paid_yearly(*, unit: str, category: str) -> bool:
    """Whether one unit's price buys one year: support contracts, and per-endpoint software
    licences, which are subscriptions (UFM Enterprise: per managed endpoint per year), and
    licences per GPU per year (NVIDIA AI Enterprise). A TCO pays them every year of its horizon,
    not once."""
    return unit in (Unit.YEAR, Unit.GPU_YEAR) or (
        unit == Unit.ENDPOINT and category == Category.SOFTWARE
    )


class PricingBasis(models.TextChoices):
    """How a product sold by the year (a support contract) is priced on a quote."""

    AS_SOLD = "", _("per unit, as sold")
    PER_DEVICE = "per_device", _("per device on the quote")
    PERCENT_OF_HARDWARE = "percent_of_hardware", _("share of the quoted hardware")


# What support per device counts on a quote: its switches (spares on a shelf are not devices).
DEVICE_CATEGORIES = frozenset({Category.SWITCH})
# What support as a share of hardware covers, and the TCO's hardware: goods bought once.
HARDWARE_CATEGORIES = frozenset(
    {
        Category.SWITCH,
        Category.ADAPTER,
        Category.DPU,
        Category.TRANSCEIVER,
        Category.CABLE,
        Category.SERVER,
        Category.PSU_FAN,  # a spare PSU or fan taken from the kit is hardware bought once
    }
)


# A support tier's response terms (Product), in the order the proposal prints them.
SUPPORT_TERMS = ("response_hours", "onsite_hours", "spares_days")


class CageType(models.TextChoices):
    OSFP = "OSFP", "OSFP"
    QSFP112 = "QSFP112", "QSFP112"
    QSFP56 = "QSFP56", "QSFP56"
    QSFP28 = "QSFP28", "QSFP28"
    SFP28 = "SFP28", "SFP28"
    RJ45 = "RJ45", "RJ45"


class Media(models.TextChoices):
    DAC = "dac", _("Passive copper (DAC)")
    ACC = "acc", _("Active copper (ACC)")
    AOC = "aoc", _("Active optical cable (AOC)")
    MULTIMODE = "multimode", _("Multimode fibre")
    SINGLEMODE = "singlemode", _("Single-mode fibre")
    TWISTED_PAIR = "twisted-pair", _("Twisted pair (RJ45 patch cord)")


class Cooling(models.TextChoices):
    AIR = "air", _("Air-cooled")
    LIQUID = "liquid", _("Liquid-cooled")
    # A rack-scale system (GB200/GB300 NVL72): one catalog item is a whole rack with its own
    # power shelves and liquid cooling, so it takes a rack of its own whatever the site's
    # air-cooled rack power budget.
    LIQUID_RACK = "liquid-rack", _("Liquid-cooled rack-scale system (a rack of its own)")


class FormFactor(models.TextChoices):
    FINNED = "finned", _("Finned top (switch cages)")
    FLAT_TOP = "flat-top", _("Flat top (NIC / DGX cages)")


# The specs each category must carry. Keys are model field names.
REQUIRED_SPECS: dict[str, tuple[str, ...]] = {
    Category.SWITCH: (
        "generation",
        "protocol",
        "port_count",
        "port_speed_gbps",
        "cage_type",
        "cage_count",
        "managed",
        "rack_units",
        "power_typical_w",
        "power_max_w",
    ),
    Category.ADAPTER: (
        "generation",
        "port_count",
        "port_speed_gbps",
        "cage_type",
        "power_typical_w",
    ),
    Category.DPU: ("generation", "port_count", "port_speed_gbps", "cage_type", "power_typical_w"),
    Category.TRANSCEIVER: (
        "generation",
        "port_speed_gbps",
        "cage_type",
        "media",
        "reach_m",
        "form_factor",
        "ports_per_module",
        "power_typical_w",
    ),
    Category.CABLE: ("generation", "media", "length_m", "breakout"),
    Category.SERVER: ("power_max_w",),
}

# A GPU server's GPUs (the TCO's compute): given together or not at all. A server without them
# is a management host (the servers UFM Enterprise runs on).
SERVER_GPUS = ("gpu_model", "gpu_count", "gpu_peak_tflops")

# A server's compute ports: NIC generation, ports, their speed, and the cages they come through
# (8 ports through 4 OSFP cages is a DGX's twin-port layout). Given together or not at all.
SERVER_HOST_LAYOUT = ("generation", "port_count", "port_speed_gbps", "cage_type", "cage_count")

SPEC_FIELDS = (
    "port_count",
    "port_speed_gbps",
    "cage_type",
    "cage_count",
    "managed",
    "rack_units",
    "power_typical_w",
    "power_max_w",
    "media",
    "reach_m",
    "length_m",
    "form_factor",
    "ports_per_module",
    "breakout",
    "gpu_model",
    "gpu_count",
    "gpu_peak_tflops",
    "weight_kg",
    "uplink_port_count",
    "uplink_speed_gbps",
    "port_names",
    "cooling",
)


def _positive_small(verbose: str, help_text: str = "") -> models.PositiveSmallIntegerField:
    return models.PositiveSmallIntegerField(
        verbose, null=True, blank=True, validators=[MinValueValidator(1)], help_text=help_text
    )


def _decimal(verbose: str, digits: int = 8, places: int = 1) -> models.DecimalField:
    return models.DecimalField(
        verbose,
        max_digits=digits,
        decimal_places=places,
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
    )


class Product(models.Model):
    part_number = models.CharField(
        _("part number"),
        max_length=64,
        unique=True,
        validators=[PART_NUMBER_VALIDATOR],
        help_text=_("The manufacturer's orderable part number (OPN), e.g. MQM9700-NS2F."),
    )
    name = models.CharField(_("name"), max_length=200)
    name_zh = models.CharField(
        _("name (Chinese)"),
        max_length=200,
        blank=True,
        help_text=_("Shown instead of the name when the page is in Chinese; empty shows the name."),
    )
    category = models.CharField(_("category"), max_length=16, choices=Category.choices)
    family = models.CharField(_("family"), max_length=64, blank=True)
    generation = models.CharField(
        _("generation"), max_length=8, choices=Generation.choices, blank=True
    )
    protocol = models.CharField(
        _("protocol"),
        max_length=12,
        choices=Protocol.choices,
        blank=True,
        help_text=_("Empty for products that work with both, or with neither."),
    )
    lifecycle = models.CharField(
        _("lifecycle"), max_length=8, choices=Lifecycle.choices, default=Lifecycle.ACTIVE
    )
    unit = models.CharField(_("unit"), max_length=10, choices=Unit.choices, default=Unit.EACH)
    pricing_basis = models.CharField(
        _("pricing basis"),
        max_length=20,
        choices=PricingBasis.choices,
        blank=True,
        default=PricingBasis.AS_SOLD,
        help_text=_(
            "Products sold per year: empty, the quantity sold times the price; per device, the "
            "quote sells one per switch on it; a share of the quoted hardware, the quote prices "
            "it at that share (the list price is then the least it costs a year)."
        ),
    )
    hardware_percent = models.DecimalField(
        _("share of hardware (% a year)"),
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(100)],
        help_text=_("With the pricing basis share of the quoted hardware: 10 = 10 % a year."),
    )
    # A support tier's response terms, printed in the proposal beside the tier (the seed's
    # premium: 2 h response, 4 h on site within the seller's service area, next-day spares).
    response_hours = models.PositiveSmallIntegerField(
        _("response within (hours)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_("Support: hours to respond, around the clock. Empty: no such promise."),
    )
    onsite_hours = models.PositiveSmallIntegerField(
        _("on site within (hours)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_(
            "Support: hours to be on site within the service area (the company profile's)."
        ),
    )
    spares_days = models.PositiveSmallIntegerField(
        _("spare parts within (days)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_("Support: days to deliver a spare part; 1 is the next day."),
    )
    # NVIDIA publishes no lead times: the reseller's catalog manager enters what the
    # distributor quotes them, and the seed leaves it empty. A quote prints a delivery time
    # only when every line it totals has one (quoting.quotes.selectors.revision_lead_time).
    lead_time_weeks = models.PositiveSmallIntegerField(
        _("lead time (weeks)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_(
            "Weeks from order to delivery, as your distributor quotes them. Empty: unknown "
            "(a quote with this product then prints no delivery time)."
        ),
    )
    tax_category = models.CharField(
        _("tax category"),
        max_length=10,
        choices=TaxCategory.choices,
        blank=True,
        help_text=_(
            "Empty: from the category (services and support: services; software: "
            "software; the rest: goods)."
        ),
    )
    description_en = models.TextField(_("description (English)"), max_length=2000, blank=True)
    description_zh = models.TextField(_("description (Chinese)"), max_length=2000, blank=True)

    port_count = models.PositiveSmallIntegerField(
        _("ports"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_("Logical ports at the port speed (a QM9700 has 64 x 400G)."),
    )
    port_speed_gbps = models.PositiveIntegerField(
        _("port speed (Gb/s)"), null=True, blank=True, validators=[MinValueValidator(1)]
    )
    cage_type = models.CharField(_("cage type"), max_length=8, choices=CageType.choices, blank=True)
    cage_count = _positive_small(_("cages"))
    managed = models.BooleanField(
        _("managed"),
        null=True,
        blank=True,
        help_text=_("Switches: runs its own management and can host the subnet manager."),
    )
    rack_units = _positive_small(_("rack units"))
    power_typical_w = _decimal(_("typical power (W)"))
    power_max_w = _decimal(_("maximum power (W)"))
    media = models.CharField(_("media"), max_length=12, choices=Media.choices, blank=True)
    reach_m = _decimal(_("reach (m)"))
    length_m = _decimal(_("length (m)"), digits=6)
    form_factor = models.CharField(
        _("form factor"), max_length=10, choices=FormFactor.choices, blank=True
    )
    ports_per_module = _positive_small(
        _("ports per module"), _("Transceivers: 2 for a twin-port module, 1 for single-port.")
    )
    breakout = _positive_small(
        _("breakout"), _("Cables: far ends per near end (1 straight, 2 for a 1:2 splitter).")
    )
    gpu_model = models.CharField(_("GPU model"), max_length=32, blank=True)
    gpu_count = _positive_small(_("GPUs"))
    gpu_peak_tflops = _decimal(_("peak dense BF16 TFLOP/s per GPU"))
    weight_kg = models.DecimalField(
        _("weight (kg)"),
        max_digits=7,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
        help_text=_("The datasheet's weight; empty when unknown (a rack's weight then reads n/a)."),
    )
    # Ports off the panel's port_count, at their own speed: the SN2201's 4 x 100G QSFP28 beside
    # its 48 x 1G RJ45. The installation pack lists them after the panel's ports.
    uplink_port_count = models.PositiveSmallIntegerField(
        _("uplink ports"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_("Ports apart from the panel's port_count, e.g. a management switch's uplinks."),
    )
    uplink_speed_gbps = models.PositiveIntegerField(
        _("uplink speed (Gb/s)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_("The uplink ports' speed; given together with the uplink ports."),
    )

    # The installation pack names a server's host ends by these; a validator or the as-built
    # check compares by them, so a wrong order flags correctly cabled links.
    port_names = models.CharField(
        _("OS port names"),
        max_length=255,
        blank=True,
        help_text=_(
            "A server's compute ports as its operating system names them, in cage and port "
            "order, separated by spaces (DGX H100: mlx5_11 mlx5_6 mlx5_10 ...). Empty: mlx5_0, "
            "mlx5_1, ... in order."
        ),
    )

    # The site model racks a liquid-cooled rack-scale system on its own, outside the rack
    # power budget (quoting/engine/install/layout.py); empty: not stated (air).
    cooling = models.CharField(
        _("cooling"),
        max_length=12,
        choices=Cooling.choices,
        blank=True,
        help_text=_(
            "Rack-scale (GB200 NVL72): one item is a whole liquid-cooled rack with its own "
            "power shelves. Empty: not stated (air)."
        ),
    )

    # Data for the staff's export-control note on quotes (quoting.quotes.selectors), never legal
    # advice: empty means unknown, and a classification nobody confirmed says so in its source.
    export_classification = models.CharField(
        _("export classification"),
        max_length=20,
        blank=True,
        validators=[EXPORT_CLASSIFICATION_VALIDATOR],
        help_text=_(
            "The ECCN the manufacturer states (e.g. 5A992.c), or EAR99; empty when unknown."
        ),
    )
    export_classification_source = models.CharField(
        _("export classification source"),
        max_length=200,
        blank=True,
        help_text=_(
            'Where the classification comes from (a document, a date), or "verify" while '
            "nobody has confirmed it."
        ),
    )

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["category", "part_number"]
        verbose_name = _("product")
        verbose_name_plural = _("products")
        indexes = [models.Index(fields=["category", "generation"])]

    def __str__(self) -> str:
        return f"{self.part_number} — {self.name}"

    def clean(self) -> None:
        errors: dict[str, list[str]] = {}
        label = self.get_category_display()
        for field in REQUIRED_SPECS.get(self.category, ()):
            if getattr(self, field) in (None, ""):
                verbose = self._meta.get_field(field).verbose_name
                errors.setdefault(field, []).append(
                    _("A %(category)s needs a value for %(field)s.")
                    % {"category": label.lower(), "field": verbose}
                )
        if (
            self.power_typical_w is not None
            and self.power_max_w is not None
            and self.power_max_w < self.power_typical_w
        ):
            errors.setdefault("power_max_w", []).append(
                _("Maximum power cannot be below typical power.")
            )
        if self.port_count and self.cage_count and self.port_count % self.cage_count:
            errors.setdefault("cage_count", []).append(
                _("Ports must divide evenly into cages (%(ports)s ports, %(cages)s cages).")
                % {"ports": self.port_count, "cages": self.cage_count}
            )
        if self.category == Category.SERVER:
            # A server's host network layout decides its optics: all of it or none of it.
            layout = [f for f in SERVER_HOST_LAYOUT if getattr(self, f) not in (None, "")]
            for field in SERVER_HOST_LAYOUT:
                if layout and field not in layout:
                    verbose = self._meta.get_field(field).verbose_name
                    errors.setdefault(field, []).append(
                        _("A server's host network layout needs %(field)s as well.")
                        % {"field": verbose}
                    )
            gpus = [f for f in SERVER_GPUS if getattr(self, f) not in (None, "")]
            for field in SERVER_GPUS:
                if gpus and field not in gpus:
                    errors.setdefault(field, []).append(
                        _("A server's GPUs need %(field)s as well.")
                        % {"field": self._meta.get_field(field).verbose_name}
                    )
        # Uplinks are counted and clocked together: a count without a speed (or the reverse)
        # would put ports of no speed in the installation pack.
        uplinks = ("uplink_port_count", "uplink_speed_gbps")
        given = [f for f in uplinks if getattr(self, f) is not None]
        if len(given) == 1:
            missing = next(f for f in uplinks if f not in given)
            errors.setdefault(missing, []).append(
                _("Uplink ports and uplink speed are given together: %(field)s is missing.")
                % {"field": self._meta.get_field(missing).verbose_name}
            )
        self._clean_port_names(errors)
        if self.cooling == Cooling.LIQUID_RACK and self.category != Category.SERVER:
            errors.setdefault("cooling", []).append(_("Only a server is a rack-scale system."))
        if self.ports_per_module is not None and self.ports_per_module > 2:
            errors.setdefault("ports_per_module", []).append(
                _("A transceiver carries one or two ports.")
            )
        self._clean_pricing_basis(errors)
        self._clean_export_classification(errors)
        self._clean_support_terms(errors)
        if errors:
            raise ValidationError(errors)

    def _clean_export_classification(self, errors: dict[str, list[str]]) -> None:
        """A classification is sourced or marked "verify": an unsourced one would read as
        certain on the staff's note."""
        if self.export_classification and not self.export_classification_source.strip():
            errors.setdefault("export_classification_source", []).append(
                _('Say where the classification comes from, or write "verify".')
            )
        if self.export_classification_source and not self.export_classification:
            errors.setdefault("export_classification", []).append(
                _("A source needs the classification it gives.")
            )

    def _clean_port_names(self, errors: dict[str, list[str]]) -> None:
        """One distinct OS name per compute port, on servers only."""
        names = self.port_names.split()
        if not names:
            return
        if self.category != Category.SERVER:
            errors.setdefault("port_names", []).append(_("Only a server names its OS ports."))
        elif len(names) != (self.port_count or 0):
            errors.setdefault("port_names", []).append(
                _("Give one name per port: %(ports)s ports, %(names)s names.")
                % {"ports": self.port_count or 0, "names": len(names)}
            )
        elif len(set(names)) != len(names):
            errors.setdefault("port_names", []).append(_("Each port needs its own name."))
        elif not all(re.fullmatch(r"[A-Za-z0-9_.-]{1,32}", name) for name in names):
            errors.setdefault("port_names", []).append(
                _("Port names are letters, digits, '_', '.' or '-', separated by spaces.")
            )

    def _clean_support_terms(self, errors: dict[str, list[str]]) -> None:
        if self.category == Category.SUPPORT:
            return
        for name in SUPPORT_TERMS:
            if getattr(self, name) is not None:
                errors.setdefault(name, []).append(_("Only a support tier has these terms."))

    def _clean_pricing_basis(self, errors: dict[str, list[str]]) -> None:
        """Per device and share of hardware price a product sold per year; a share needs its
        percentage, and only a share has one."""
        basis = self.pricing_basis or PricingBasis.AS_SOLD
        if basis != PricingBasis.AS_SOLD and self.unit != Unit.YEAR:
            errors.setdefault("pricing_basis", []).append(
                _("Only a product sold per year is priced per device or as a share of hardware.")
            )
        if basis == PricingBasis.PERCENT_OF_HARDWARE and not self.hardware_percent:
            errors.setdefault("hardware_percent", []).append(
                _("Give the share of the quoted hardware it costs a year.")
            )
        if basis != PricingBasis.PERCENT_OF_HARDWARE and self.hardware_percent is not None:
            errors.setdefault("hardware_percent", []).append(
                _("A share of hardware needs the pricing basis share of the quoted hardware.")
            )

    @property
    def display_name(self) -> str:
        """The name in the active language, falling back to English."""
        from django.utils.translation import get_language

        if (get_language() or "").startswith("zh") and self.name_zh:
            return self.name_zh
        return self.name

    @property
    def description(self) -> str:
        """The description in the active language, falling back to English."""
        from django.utils.translation import get_language

        if (get_language() or "").startswith("zh") and self.description_zh:
            return self.description_zh
        return self.description_en

    def specs(self) -> dict:
        """The spec fields that carry a value, for display and the API."""
        return {f: getattr(self, f) for f in SPEC_FIELDS if getattr(self, f) not in (None, "")}


class PriceList(models.Model):
    """Prices in one currency. One default list per currency serves quoting and CSV import."""

    name = models.CharField(_("name"), max_length=100, unique=True)
    currency = models.CharField(_("currency"), max_length=3, validators=[CURRENCY_VALIDATOR])
    is_default = models.BooleanField(
        _("default for its currency"),
        default=False,
        help_text=_("Quotes in this currency look prices up here first."),
    )
    is_reference = models.BooleanField(
        _("reference prices"),
        default=False,
        help_text=_("Indicative prices, not a supplier's list: verify before quoting."),
    )
    valid_from = models.DateField(_("valid from"), null=True, blank=True)
    valid_until = models.DateField(_("valid until"), null=True, blank=True)
    notes = models.TextField(_("notes"), max_length=2000, blank=True)

    class Meta:
        ordering = ["currency", "name"]
        verbose_name = _("price list")
        verbose_name_plural = _("price lists")
        constraints = [
            models.UniqueConstraint(
                fields=["currency"],
                condition=Q(is_default=True),
                name="one_default_price_list_per_currency",
            ),
            models.CheckConstraint(
                condition=Q(valid_until__isnull=True)
                | Q(valid_from__isnull=True)
                | Q(valid_until__gte=models.F("valid_from")),
                name="price_list_validity_ordered",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.currency})"

    def clean(self) -> None:
        if self.valid_from and self.valid_until and self.valid_until < self.valid_from:
            raise ValidationError({"valid_until": _("The end date is before the start date.")})


class PriceListItem(models.Model):
    price_list = models.ForeignKey(PriceList, on_delete=models.CASCADE, related_name="items")
    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="prices")
    list_price = models.DecimalField(
        _("list price"),
        max_digits=MONEY_DIGITS,
        decimal_places=MONEY_PLACES,
        validators=[MinValueValidator(0)],
    )
    cost = models.DecimalField(
        _("cost"),
        max_digits=MONEY_DIGITS,
        decimal_places=MONEY_PLACES,
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
    )

    class Meta:
        verbose_name = _("price")
        verbose_name_plural = _("prices")
        constraints = [
            models.UniqueConstraint(fields=["price_list", "product"], name="one_price_per_list"),
            models.CheckConstraint(condition=Q(list_price__gte=0), name="list_price_not_negative"),
            models.CheckConstraint(
                condition=Q(cost__isnull=True) | Q(cost__gte=0), name="cost_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.product.part_number} {self.list_price} {self.price_list.currency}"


class SparesClass(models.TextChoices):
    """The classes a quote's spares kit is offered by (quoting.engine.spares). PSUs and fans are
    counted from the design's switches (ReplaceableUnit), not from BOM lines of their own."""

    OPTICS = "optics", _("optics")
    CABLES = "cables", _("cables")
    NICS = "nics", _("NICs")
    PSUS_FANS = "psus_fans", _("PSUs and fans")
    SWITCHES = "switches", _("switches")


# Which catalog categories each spares class covers: a DPU is a NIC on a shelf.
SPARES_CLASS_OF_CATEGORY = {
    Category.TRANSCEIVER: SparesClass.OPTICS,
    Category.CABLE: SparesClass.CABLES,
    Category.ADAPTER: SparesClass.NICS,
    Category.DPU: SparesClass.NICS,
    Category.SWITCH: SparesClass.SWITCHES,
    Category.PSU_FAN: SparesClass.PSUS_FANS,
}


class SparesRatio(models.Model):
    """How many spares a quote made from a design offers of a class, as a share of the design's
    quantity of each part of that class (rounded up per part): edited by the catalog manager in
    the admin. A class without a row, or at 0 %, is not offered."""

    spare_class = models.CharField(
        _("class"), max_length=20, choices=SparesClass.choices, unique=True
    )
    percent = models.DecimalField(
        _("spares %"),
        max_digits=5,
        decimal_places=2,
        validators=[MinValueValidator(0), MaxValueValidator(100)],
        help_text=_("Of the design's quantity of each part of the class, rounded up per part."),
    )

    class Meta:
        verbose_name = _("spares ratio")
        verbose_name_plural = _("spares ratios")
        ordering = ["spare_class"]
        constraints = [
            models.CheckConstraint(
                condition=Q(percent__gte=0) & Q(percent__lte=100), name="spares_percent_0_to_100"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_spare_class_display()}: {self.percent} %"


class ReplaceableUnit(models.Model):
    """A field-replaceable PSU or fan module a switch model holds, and how many: the spares kit
    offers its PSU/fan class from the design's switches, `per_switch` of the unit for each
    (quoting.engine.spares). Kept per switch part number because the airflow (P2C or C2P) of
    the switch decides the unit's."""

    switch = models.ForeignKey(
        Product,
        verbose_name=_("switch"),
        on_delete=models.CASCADE,
        related_name="replaceable_units",
        limit_choices_to={"category": Category.SWITCH},
    )
    unit = models.ForeignKey(
        Product,
        verbose_name=_("PSU or fan module"),
        on_delete=models.PROTECT,
        related_name="fits_switches",
        limit_choices_to={"category": Category.PSU_FAN},
    )
    per_switch = models.PositiveSmallIntegerField(
        _("per switch"), validators=[MinValueValidator(1)]
    )
    source = models.CharField(
        _("source"),
        max_length=300,
        help_text=_("Where the part number and count come from, or 'verify' until checked."),
    )

    class Meta:
        verbose_name = _("replaceable unit")
        verbose_name_plural = _("replaceable units")
        ordering = ["switch__part_number", "unit__part_number"]
        constraints = [
            models.UniqueConstraint(fields=["switch", "unit"], name="one_count_per_switch_unit"),
            models.CheckConstraint(condition=Q(per_switch__gte=1), name="per_switch_at_least_1"),
        ]

    def __str__(self) -> str:
        return f"{self.switch.part_number}: {self.per_switch} x {self.unit.part_number}"

"""Quotes: a human number, revisions R1, R2... under it, their lines and approvals.

Money columns are NUMERIC (DecimalField) with two places; percentages keep two places too.
The pricing rules (rounding, totals, thresholds) live in quoting.quotes.selectors and
quoting.quotes.services.
"""

from __future__ import annotations

import functools
import re
import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from catalog.models import CURRENCY_VALIDATOR, Category, Product, SparesClass
from portal.models import CompanyProfile
from quoting.customers.models import Contact, Customer, Project
from quoting.designs.models import WORKLOAD_MAX_LENGTH, SavedDesign, TcoScenario
from quoting.engine.money import MONEY_DIGITS, MONEY_PLACES, TOTAL_DIGITS
from quoting.engine.spares import kit_of
from quoting.engine.written import (
    CHINESE,
    ENGLISH,
    WrittenIn,
    WrittenParts,
    written_as_typed,
    written_either,
    written_in,
)

PERCENT_VALIDATORS = [MinValueValidator(0), MaxValueValidator(100)]


def _money(verbose: str, **kwargs) -> models.DecimalField:
    return models.DecimalField(
        verbose, max_digits=MONEY_DIGITS, decimal_places=MONEY_PLACES, **kwargs
    )


def _total(verbose: str) -> models.DecimalField:
    # Totals of many lines need more digits than one unit price; null until frozen.
    return models.DecimalField(
        verbose, max_digits=TOTAL_DIGITS, decimal_places=MONEY_PLACES, null=True, blank=True
    )


def _percent(verbose: str) -> models.DecimalField:
    return models.DecimalField(
        verbose, max_digits=5, decimal_places=2, default=0, validators=PERCENT_VALIDATORS
    )


class QuoteStatus(models.TextChoices):
    DRAFT = "draft", _("Draft")
    AWAITING_APPROVAL = "awaiting_approval", _("Awaiting approval")
    APPROVED = "approved", _("Approved")
    SENT = "sent", _("Sent")
    ACCEPTED = "accepted", _("Accepted")
    DECLINED = "declined", _("Declined")
    EXPIRED = "expired", _("Expired")


# The lifecycle, in one place. Services change a status only through their _transition(), which
# refuses anything else. Back to DRAFT means "being edited again": from awaiting approval or
# approved an edit voids the approval; from sent, declined or expired an edit opens the next
# revision. Accepted is final.
TRANSITIONS: dict[str, frozenset[str]] = {
    QuoteStatus.DRAFT: frozenset({QuoteStatus.AWAITING_APPROVAL, QuoteStatus.SENT}),
    QuoteStatus.AWAITING_APPROVAL: frozenset({QuoteStatus.APPROVED, QuoteStatus.DRAFT}),
    QuoteStatus.APPROVED: frozenset({QuoteStatus.SENT, QuoteStatus.DRAFT}),
    QuoteStatus.SENT: frozenset(
        {QuoteStatus.ACCEPTED, QuoteStatus.DECLINED, QuoteStatus.EXPIRED, QuoteStatus.DRAFT}
    ),
    QuoteStatus.DECLINED: frozenset({QuoteStatus.DRAFT}),
    QuoteStatus.EXPIRED: frozenset({QuoteStatus.DRAFT}),
    QuoteStatus.ACCEPTED: frozenset(),
}

# While sales draft the next revision, the customer can still answer the latest sent one (the
# answer reinstates it): the offer stands until a newer revision is sent.
ANSWERABLE_WHILE_DRAFTING = (QuoteStatus.DRAFT, QuoteStatus.AWAITING_APPROVAL, QuoteStatus.APPROVED)


class Section(models.TextChoices):
    NETWORK = "network", _("Network")
    SERVICES = "services", _("Services")
    SUPPORT = "support", _("Support")
    OPTIONAL = "optional", _("Optional items")
    ALTERNATIVES = "alternatives", _("Alternatives")
    # The other parts of the seed's plan (#26): "GPU servers, InfiniBand network, virtualization
    # management and DR backup must be planned together". After the first five, whose stored
    # values and order stay; SECTION_ORDER is the order pages print them in.
    GPU_SERVERS = "gpu_servers", _("GPU servers")
    CLUSTER_MANAGEMENT = "cluster_management", _("Virtualization and cluster management")
    BACKUP = "backup", _("DR and backup")


# The order every page, the proposal and the workbook show the sections in: the plan's parts as
# the customer builds the cluster, then the work, the support and what is only offered.
SECTION_ORDER = (
    Section.GPU_SERVERS,
    Section.NETWORK,
    Section.CLUSTER_MANAGEMENT,
    Section.BACKUP,
    Section.SERVICES,
    Section.SUPPORT,
    Section.OPTIONAL,
    Section.ALTERNATIVES,
)

# Optional items and alternatives are offered, not ordered: they stay out of the totals.
TOTALLED_SECTIONS = (
    Section.GPU_SERVERS,
    Section.NETWORK,
    Section.CLUSTER_MANAGEMENT,
    Section.BACKUP,
    Section.SERVICES,
    Section.SUPPORT,
)


# What a quote charges for its fabric, the network the TCO compares (services.snapshots.
# revision_network_price): the network with its services and support. The other parts of the
# plan are the same whichever fabric the customer picks, and the TCO prices the servers itself.
FABRIC_SECTIONS = (Section.NETWORK, Section.SERVICES, Section.SUPPORT)


class LineOrigin(models.TextChoices):
    """Where a line came from. An alternative takes the place of the lines from the chosen design
    (selectors.choice_lines), wherever they sit, and keeps the rest."""

    ENTERED = "", _("entered on the quote")
    DESIGN = "design", _("the design's bill of materials")
    SPARES_KIT = "spares_kit", _("the design's spares kit")
    NODE_SERVICES = "node_services", _("the design's services per node")


class LineKind(models.TextChoices):
    PRODUCT = "product", _("Product")
    SERVICE = "service", _("Service")
    FREE_TEXT = "free-text", _("Free text")


class QuoteCounter(models.Model):
    """The last number used per series and year; locked while a quote takes the next one."""

    series = models.CharField(max_length=8)
    year = models.PositiveSmallIntegerField()
    last = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["series", "year"], name="one_counter_per_series_year"),
        ]

    def __str__(self) -> str:
        return f"{self.series}-{self.year}: {self.last}"


class Quote(models.Model):
    number = models.CharField(_("number"), max_length=20, unique=True, editable=False)
    series = models.CharField(_("series"), max_length=8, editable=False)
    year = models.PositiveSmallIntegerField(_("year"), editable=False)
    seq = models.PositiveIntegerField(_("sequence"), editable=False)
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="quotes")
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="quotes")
    # The customer's person this quote is for (a contact of its customer), when the CRM says.
    contact = models.ForeignKey(
        Contact,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="quotes",
        verbose_name=_("contact"),
    )
    # The CRM's own id for this record (PUT .../by-external-id/{external_id}/ upserts by it).
    external_id = models.CharField(
        _("external ID"), max_length=100, unique=True, null=True, blank=True
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="owned_quotes",
        verbose_name=_("owner"),
    )
    currency = models.CharField(_("currency"), max_length=3, validators=[CURRENCY_VALIDATOR])
    status = models.CharField(
        _("status"),
        max_length=20,
        choices=QuoteStatus.choices,
        default=QuoteStatus.DRAFT,
        db_index=True,
    )
    valid_until = models.DateField(_("valid until"))
    # Optimistic concurrency: every write bumps it with UPDATE ... WHERE version = expected.
    version = models.PositiveIntegerField(_("version"), default=1)
    current_revision = models.ForeignKey(
        "QuoteRevision",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("current revision"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    # The booked configuration: what the customer accepted (the revision, its chosen alternative
    # and optional items, and their totals), set once with the acceptance and never changed. It
    # is what the reseller orders, invoices and installs: the list, the pages, the exports and
    # the installation pack follow it (quoting.quotes.selectors.booked_choice). Null until
    # accepted; an acceptance recorded by staff books the revision as quoted.
    booked_revision = models.ForeignKey(
        "QuoteRevision",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("booked revision"),
    )
    booked_alternative = models.CharField(_("booked alternative"), max_length=100, blank=True)
    booked_optional = models.JSONField(_("booked optional items"), default=list, blank=True)
    booked_at = models.DateTimeField(_("booked"), null=True, blank=True)
    booked_subtotal = _total(_("booked subtotal"))
    booked_discount = _total(_("booked discount"))
    booked_net = _total(_("booked net"))
    booked_tax = _total(_("booked VAT"))
    booked_total = _total(_("booked total"))
    booked_tax_breakdown = models.JSONField(_("booked VAT by rate"), null=True, blank=True)
    # A renewal quote points at the quote whose support and licences it renews.
    renewal_of = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="renewals",
        verbose_name=_("renews"),
    )

    class Meta:
        ordering = ["-year", "-seq"]
        verbose_name = _("quote")
        verbose_name_plural = _("quotes")
        # Cost and margin are the reseller's own: who sees them is a permission, granted to the
        # sales managers' and directors' roles (portal.services.ROLE_PERMISSIONS) and to anyone
        # else an admin chooses.
        permissions = [("view_margin", _("Can see cost and margin"))]
        constraints = [
            models.UniqueConstraint(fields=["series", "year", "seq"], name="one_quote_per_seq"),
        ]
        # The list's default order and each of its filters (status, customer, owner, dates) read
        # one index and stop after a page, however many quotes there are (bench_quote_list.py).
        # The customer index carries the owner so the owner filter's choices need no table read.
        indexes = [
            models.Index(fields=["status", "valid_until"]),
            models.Index(fields=["-year", "-seq"], name="quote_list_order_idx"),
            models.Index(fields=["status", "-year", "-seq"], name="quote_list_status_idx"),
            models.Index(
                fields=["customer", "-year", "-seq"],
                include=["owner"],
                name="quote_list_customer_idx",
            ),
            models.Index(fields=["owner", "-year", "-seq"], name="quote_list_owner_idx"),
            models.Index(fields=["created_at"], name="quote_list_created_idx"),
            models.Index(fields=["updated_at"], name="quote_list_updated_idx"),
        ]

    def __str__(self) -> str:
        return self.number

    def get_status_display(self) -> str:
        # Django's own builds a dict of every choice, hashing each lazy label, on every call:
        # a list page of 25 quotes paid for it 25 times.
        return _STATUS_LABELS.get(self.status, self.status)


_STATUS_LABELS = dict(QuoteStatus.choices)


class QuoteRevision(models.Model):
    """One version of the offer. Frozen (lines, prices, rate, tax, snapshots) once sent.

    Totals are computed from the lines while a draft (they can never be stale) and stored when
    the revision is frozen, so a sent document keeps its figures even if a later release
    changed how totals are computed.
    """

    quote = models.ForeignKey(Quote, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveSmallIntegerField(_("revision"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    frozen_at = models.DateTimeField(_("frozen"), null=True, blank=True)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)
    # The fingerprint of what was frozen (quoting.quotes.content_hash), stored with frozen_at: the
    # proposal PDF a customer reads, accepts and signs must have been rendered from exactly it.
    content_sha256 = models.CharField(
        _("content fingerprint"), max_length=80, blank=True, editable=False
    )

    # At most one conversion rate per revision, locked when first needed.
    fx_source_currency = models.CharField(_("converted from"), max_length=3, blank=True)
    fx_rate = models.DecimalField(
        _("exchange rate"), max_digits=14, decimal_places=6, null=True, blank=True
    )
    fx_rate_date = models.DateField(_("rate date"), null=True, blank=True)

    tax_percent = _percent(_("VAT %"))
    discount_percent = _percent(_("quote discount %"))

    design = models.ForeignKey(
        SavedDesign,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("chosen design"),
    )
    design_snapshot = models.JSONField(_("design snapshot"), null=True, blank=True)
    tco = models.ForeignKey(
        TcoScenario,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("TCO scenario"),
    )
    tco_snapshot = models.JSONField(_("TCO snapshot"), null=True, blank=True)
    # The job the TCO comparison assumes (a workload preset's key); empty when the comparison is
    # a TCO scenario chosen by hand, or was made before workloads could be chosen.
    workload = models.CharField(_("workload"), max_length=WORKLOAD_MAX_LENGTH, blank=True)
    # The TCO options (their names, the comparison's keys) the proposal shows, as the sales
    # engineer chose them; null: the default, every priced option and the quoted one
    # (quoting.quotes.services.snapshots.revision_tco_options).
    tco_options = models.JSONField(_("TCO options shown"), null=True, blank=True)
    # Renderings of the snapshots above, made once (quoting.quotes.services.snapshots): the design's
    # drawing (SVG, empty when none matches its figures) and the TCO charts (SVGs). A null
    # snapshot_version marks a revision made before they existed: filled on its first read.
    design_drawing = models.TextField(_("design drawing"), blank=True)
    design_drawings = models.JSONField(_("design drawing in each language"), null=True, blank=True)
    tco_charts = models.JSONField(_("TCO charts"), null=True, blank=True)
    # The proposal's appendix: the design's racks on the default site, their power table and
    # elevations in each language (quoting.designs.svg.racks.rack_appendix); null without a design.
    design_racks = models.JSONField(_("racks and power of the design"), null=True, blank=True)
    snapshot_version = models.PositiveSmallIntegerField(
        _("snapshot version"), null=True, blank=True
    )
    # What the design's bill of materials was worth at list prices when the quote was made from
    # it: the approval gate measures the whole quote against it, so lines of the design removed
    # or replaced by cheap free-text lines still count.
    design_list_value = _total(_("design list value"))

    subtotal = _total(_("subtotal"))
    discount_amount = _total(_("discount"))
    net = _total(_("net"))
    tax_amount = _total(_("VAT"))
    total = _total(_("total"))
    # The VAT per rate ([{vat_percent, net, tax}], highest rate first), stored with the totals.
    tax_breakdown = models.JSONField(_("VAT by rate"), null=True, blank=True)
    # When the customer pays: [{"label": "On order", "percent": "30.00"}, ...], percentages
    # summing to exactly 100 (services.quotes.payment_schedule_clean). A new quote takes the
    # company profile's default; null on revisions made before schedules, which print none.
    # A standard milestone is kept by its key (STANDARD_MILESTONES) and read in the reader's
    # language (milestone_label); one kept before in a language reads the same way.
    payment_schedule = models.JSONField(_("payment schedule"), null=True, blank=True)
    # Terms of this offer beyond the standard ones, printed as written: `additional_terms` in the
    # quote's language (English for a bilingual seller), `additional_terms_zh` in Chinese for
    # the Chinese proposal, share page and workbook (additional_terms_for).
    additional_terms = models.TextField(_("additional terms"), max_length=2000, blank=True)
    additional_terms_zh = models.TextField(
        _("additional terms (Chinese)"), max_length=2000, blank=True
    )
    # Frozen at the send from the catalog's lead times (selectors.revision_lead_time), so a later
    # catalog change never alters what a sent proposal promised. `lead_time_weeks`: the delivery
    # time the proposal prints, the longest lead time among the lines in the totals; null when
    # one of them has none (nothing is printed then). `lead_time_unknown`: the SKUs of those
    # lines, for the staff's note; null on a revision not sent, or sent before lead times.
    lead_time_weeks = models.PositiveSmallIntegerField(
        _("lead time (weeks)"), null=True, blank=True, editable=False
    )
    lead_time_unknown = models.JSONField(
        _("lead time unknown for"), null=True, blank=True, editable=False
    )
    # Frozen at the send (selectors.option_basis): what the lines that follow the option chosen
    # are priced on, so an option's figures never follow a later catalog or a design stored
    # again. `{"nodes": {"": 32, "Larger": 48}, "support": {"<sku>": {"percent": "10.00",
    # "least": "100.00"}}}`: each configuration's compute nodes ("" as quoted) and each
    # share-of-hardware support product's percent and least price. Null on a draft (priced on
    # the live catalog and designs) and on a revision sent before content version 7.
    option_basis = models.JSONField(
        _("what options are priced on"), null=True, blank=True, editable=False
    )

    class Meta:
        ordering = ["quote", "number"]
        verbose_name = _("quote revision")
        verbose_name_plural = _("quote revisions")
        constraints = [
            models.UniqueConstraint(fields=["quote", "number"], name="one_revision_number"),
            models.CheckConstraint(
                condition=Q(tax_percent__gte=0, tax_percent__lte=100),
                name="revision_tax_percent_range",
            ),
            models.CheckConstraint(
                condition=Q(discount_percent__gte=0, discount_percent__lte=100),
                name="revision_discount_percent_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.quote.number} {self.label}"

    @property
    def label(self) -> str:
        return f"R{self.number}"

    @property
    def is_frozen(self) -> bool:
        return self.frozen_at is not None

    @functools.cached_property
    def company_profile(self) -> CompanyProfile | None:
        """The seller's profile (its chop left out: only a signed copy prints it), read once
        for this revision object: a page or a document prints every support line's service area
        and the seller from the same revision, so it asks once, not once per line. Kept for the
        object's life (refresh_from_db does not clear it): a revision object lives for one
        request or one task, so an edit of the profile shows from the next one."""
        return CompanyProfile.objects.filter(pk=CompanyProfile.SINGLETON_PK).defer("chop").first()

    def additional_terms_for(self, language: str) -> str:
        """The additional terms a reader in `language` is shown: the text in their language,
        else the other one's (a term written once binds in either language; leaving it out
        would print an offer without it), with the language it is written in."""
        if language.startswith("zh"):
            return written_either(self.additional_terms_zh, self.additional_terms, CHINESE)
        return written_either(self.additional_terms, self.additional_terms_zh, ENGLISH)


class QuoteLine(models.Model):
    revision = models.ForeignKey(QuoteRevision, on_delete=models.CASCADE, related_name="lines")
    # Stable across revisions (copied with the line), so a diff can pair old and new lines.
    key = models.UUIDField(default=uuid.uuid4, editable=False)
    position = models.PositiveIntegerField(_("position"))
    section = models.CharField(
        _("section"), max_length=20, choices=Section.choices, default=Section.NETWORK
    )
    alternative_group = models.CharField(
        _("alternative"),
        max_length=100,
        blank=True,
        help_text=_(
            "Alternatives and their spares kits only: the option this line belongs to, e.g. "
            "'Better'."
        ),
    )
    kind = models.CharField(
        _("kind"), max_length=10, choices=LineKind.choices, default=LineKind.PRODUCT
    )
    # SET_NULL: the sku and description keep the line readable if the product is ever deleted.
    product = models.ForeignKey(
        Product, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    sku = models.CharField(_("SKU"), max_length=64, blank=True)
    description = models.CharField(_("description"), max_length=500)
    quantity = models.PositiveIntegerField(_("quantity"))
    unit_price = _money(_("unit price"), validators=[MinValueValidator(0)])
    # The catalog's price when the line was priced; kept when the unit price is set by hand, so
    # the approval gate sees what the customer pays against it. None on free-text lines.
    list_price = _money(_("list price"), null=True, blank=True, editable=False)
    discount_percent = _percent(_("discount %"))
    # What one unit costs the reseller, in the quote's currency: the price list's cost when the
    # line was priced (converted at the revision's locked rate), or set by a manager. None when
    # unknown (free text, a product with no cost): margins then leave the line out and say so.
    unit_cost = _money(_("unit cost"), null=True, blank=True, validators=[MinValueValidator(0)])
    role = models.CharField(
        _("role"),
        max_length=40,
        blank=True,
        help_text=_("From the design's bill of materials: leaf, spine..."),
    )
    price_source = models.CharField(_("price source"), max_length=300, blank=True)
    # Set when the line is made, never edited: what an alternative replaces (the chosen design's
    # lines) is told by it, not by the section, since a design's bill of materials may reach
    # beyond the network (a UFM host, servers, licences).
    origin = models.CharField(
        _("origin"), max_length=20, choices=LineOrigin.choices, blank=True, editable=False
    )
    # The VAT rate of this line (Chinese invoices charge 13 % on goods, 6 % on services): from
    # the rate table (quoting.customers.models.VatRate) for the customer's country and the
    # product's tax category when priced; a manager may override it, with a reason. None: the
    # revision's tax_percent applies (no table entry).
    vat_percent = models.DecimalField(
        _("VAT %"),
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
        validators=PERCENT_VALIDATORS,
    )
    vat_reason = models.CharField(_("reason for the VAT rate"), max_length=200, blank=True)
    # Support and licences are sold for a term: they start on the acceptance date (editable)
    # and come up for renewal at its end (quoting.quotes.services.renewals).
    term_months = models.PositiveSmallIntegerField(
        _("term (months)"), null=True, blank=True, validators=[MaxValueValidator(120)]
    )
    starts_on = models.DateField(_("term starts"), null=True, blank=True)
    # The last renewal reminder sent for this line (days before the end: 90, 60, 30).
    renewal_notified = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    # Alternatives only: the saved design the alternative was priced from, so a booked
    # alternative's installation pack lays out that design, not the quote's own.
    design = models.ForeignKey(
        SavedDesign,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("design of the alternative"),
    )

    class Meta:
        ordering = ["revision", "position"]
        verbose_name = _("quote line")
        verbose_name_plural = _("quote lines")
        constraints = [
            models.UniqueConstraint(fields=["revision", "key"], name="one_line_key_per_revision"),
            models.CheckConstraint(condition=Q(unit_price__gte=0), name="line_price_not_negative"),
            models.CheckConstraint(
                condition=Q(discount_percent__gte=0, discount_percent__lte=100),
                name="line_discount_percent_range",
            ),
            # An alternative's lines carry its group, and so does its spares kit (optional lines
            # sized from its bill of materials): offered only with that option.
            models.CheckConstraint(
                condition=Q(section="alternatives")
                | Q(alternative_group="")
                | Q(section="optional", origin="spares_kit"),
                name="only_alternatives_have_a_group",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.sku or self.description} x {self.quantity}"

    @property
    def description_shown(self) -> str:
        """The description in the active language: a catalog line's product has a Chinese name
        (the line keeps the English one it was made with); other lines read as they were typed."""
        from django.utils.translation import get_language

        chinese = self.product_id and (get_language() or "").startswith("zh")
        name = (chinese and self.product.name_zh) or ""
        kit = kit_of(self.role)
        if kit is not None and self.product_id:  # rebuilt in the reader's language
            return spares_kit_label(
                *kit,
                name=written_in(name, CHINESE) if name else written_in(self.product.name, ENGLISH),
            )
        if name:
            return self._with_service_area(written_in(name, CHINESE))
        if self.product_id:  # the catalog's English name, as the line was made with it
            return self._with_service_area(written_in(self.description, ENGLISH))
        return self.description

    def _with_service_area(self, name: WrittenIn) -> WrittenIn:
        """`name` with the company's service area after a support tier's name, on a draft or a
        revision sent under content version 6 or later; a revision sent before printed the
        catalog's name as it then was (with its city), and keeps printing it."""
        if self.product.category != Category.SUPPORT or not self.product.onsite_hours:
            return name
        revision = self.revision
        if revision.is_frozen:
            head = (revision.content_sha256 or "").partition(":")[0]
            if not (head.isdigit() and int(head) >= SERVICE_AREA_VERSION):
                return name
        return with_service_area(name, self.product, profile=revision.company_profile)


# The content version from which a sent revision prints the service area after its support
# tiers' names (quoting.quotes.content_hash: version 6 came with it).
SERVICE_AREA_VERSION = 6


def with_service_area(
    name: WrittenIn, product: Product, *, profile: CompanyProfile | None
) -> WrittenIn:
    """A support tier's name with the place its on-site time applies: the company `profile`'s
    service area in the active language, nothing where none is set. The catalog's names name no
    place (issue 26): the seller's area is the profile's, not the catalog's."""
    if product.category != Category.SUPPORT or not product.onsite_hours:
        return name
    language = translation.get_language() or ENGLISH
    area = profile.service_area_for(language) if profile else ""
    if not area:
        return name
    shown = translation.gettext("%(name)s (service area: %(area)s)") % {
        "name": name,
        "area": area,
    }
    return WrittenIn(shown, name.language if area.language == name.language else "")


# The usual milestones' names. Kept by these keys (the English msgid) and shown in the reader's
# language; a name typed otherwise is kept and shown as typed.
STANDARD_MILESTONES = (
    gettext_noop("On order"),
    gettext_noop("On delivery"),
    gettext_noop("On acceptance"),
    gettext_noop("On installation"),
)


@functools.cache
def _milestone_keys() -> dict[str, str]:
    """Every standard milestone's name in each language, and its key, to its key: built whole
    before anyone reads it (a dict filled in place could be read half-filled by another thread)."""
    keys: dict[str, str] = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            for key in STANDARD_MILESTONES:
                keys.setdefault(translation.gettext(key), key)
    return keys | {key: key for key in STANDARD_MILESTONES}


def milestone_key(label: str) -> str:
    """A milestone's name as a schedule keeps it: a standard milestone's name in any of the
    portal's languages ("下单时") becomes its key ("On order"); any other name stays as typed."""
    return _milestone_keys().get(label, label)


def milestone_label(label: str) -> str:
    """A kept milestone's name in the active language: a standard one translated, whichever
    shape it was kept in (its key, or its name in the language the quote was made in)."""
    key = milestone_key(label or "")
    if key in STANDARD_MILESTONES:
        return translation.gettext(key)
    return written_as_typed(label)  # as typed, in whichever language: `lang_marked` says so


def schedule_keys(schedule) -> list[dict]:
    """A schedule with its standard milestones by key: one kept in a language before compares
    equal to the same schedule kept by key since (no change, no new revision)."""
    return [m | {"label": milestone_key(m["label"])} for m in schedule or []]


def schedule_text_shown(text: str) -> str:
    """A schedule kept as one line of text by an audit event ("On order 30.00 %; ...") with its
    standard milestones in the active language; a text of another shape as kept."""
    parts = []
    for part in text.split("; "):
        match = re.fullmatch(r"(.+) (\S+ %)", part)
        if match is None:
            return text
        parts.append(f"{milestone_label(match[1])} {match[2]}")
    return "; ".join(parts)


def spares_kit_label(spare_class: str, percent, base: int, *, name: str) -> str:
    """A spares kit line as people read it: its class and the ratio that sized it, then the
    part (quoting.engine.spares)."""
    from django.utils.translation import gettext

    label = SparesClass(spare_class).label if spare_class in SparesClass.values else spare_class
    text = gettext("Spares kit: %(class)s (%(percent)s %% of %(base)s) — %(name)s") % {
        "class": label,
        "percent": f"{percent.normalize():f}",
        "base": base,
        "name": "\0" if isinstance(name, WrittenIn) else name,
    }
    if not isinstance(name, WrittenIn):
        return text
    # The name may be in another language than the label (a part without a Chinese name on a
    # Chinese page): kept apart, so that `lang_marked` marks it.
    before, _, after = text.partition("\0")
    return WrittenParts((before, name, after))


def choice_label(alternative: str, optional: int) -> str:
    """A configuration the share link offers, in the active language: the alternative it takes
    and how many optional items it adds ("alternative “Bigger” + 2 optional items")."""
    parts = []
    if alternative:
        parts.append(translation.gettext("alternative “%(name)s”") % {"name": alternative})
    if optional:
        parts.append(
            translation.ngettext("%(count)d optional item", "%(count)d optional items", optional)
            % {"count": optional}
        )
    return " + ".join(parts) or translation.gettext("as quoted")


def worst_choice_words(key, text: str) -> str:
    """An approval's worst configuration in the active language from its key
    (Approval.worst_choice_key); `text`, the requester's words, for a request kept before keys."""
    if not isinstance(key, dict):
        return text
    return choice_label(str(key.get("alternative") or ""), int(key.get("optional") or 0))


class ApprovalDecision(models.TextChoices):
    PENDING = "pending", _("Pending")
    APPROVED = "approved", _("Approved")
    REJECTED = "rejected", _("Rejected")
    WITHDRAWN = "withdrawn", _("Withdrawn (the quote was edited)")


class Approval(models.Model):
    """A request to send a revision beyond the sender's approval rule (ApprovalRule)."""

    revision = models.ForeignKey(QuoteRevision, on_delete=models.CASCADE, related_name="approvals")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("requested by"),
    )
    requested_at = models.DateTimeField(_("requested"), auto_now_add=True)
    # The largest discount asked for: what the manager actually approves.
    discount_percent = _percent(_("largest discount %"))
    # The lowest margin of any configuration the link offers (None: no cost known), the
    # configuration that is furthest beyond the sender's rule, and the role that decides.
    margin_percent = models.DecimalField(
        _("lowest margin %"), max_digits=7, decimal_places=2, null=True, blank=True
    )
    worst_choice = models.CharField(_("worst choice"), max_length=200, blank=True)
    # The same configuration as keys, {"alternative": name, "optional": count}, so the manager
    # reads it in their own language (worst_choice holds the requester's words; null on a
    # request made before this was kept, which reads as worst_choice).
    worst_choice_key = models.JSONField(null=True, blank=True, editable=False)
    required_role = models.CharField(_("decided by role"), max_length=40, blank=True)
    request_note = models.TextField(_("request note"), max_length=2000, blank=True)
    decision = models.CharField(
        _("decision"),
        max_length=10,
        choices=ApprovalDecision.choices,
        default=ApprovalDecision.PENDING,
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("decided by"),
    )
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)
    reason = models.TextField(_("reason"), max_length=2000, blank=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ["revision", "requested_at", "pk"]
        verbose_name = _("approval")
        verbose_name_plural = _("approvals")
        constraints = [
            models.UniqueConstraint(
                fields=["revision"],
                condition=Q(decision="pending"),
                name="one_pending_approval_per_revision",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.revision} {self.decision}"

    @property
    def worst_choice_shown(self) -> str:
        """The worst configuration in the active language; a request kept before as its text."""
        return worst_choice_words(self.worst_choice_key, self.worst_choice)


ROLE_CHOICES = [
    ("sales", _("Sales")),
    ("sales-manager", _("Sales manager")),
    ("director", _("Director")),
]


class ApprovalRule(models.Model):
    """What a role may send without approval, edited in the admin.

    A revision is within a rule when every configuration its link offers is no deeper below
    list than `max_discount_percent`, has a margin of at least `min_margin_percent` (when set
    and a cost is known) and, when `max_total` is set, totals no more than it in
    `max_total_currency`. A revision beyond its sender's rule goes to the lowest `level` whose
    rule covers it; beyond every rule, to the highest.
    """

    role = models.CharField(_("role"), max_length=40, choices=ROLE_CHOICES, unique=True)
    level = models.PositiveSmallIntegerField(
        _("level"), unique=True, help_text=_("Approvals go up: sales 1, manager 2, director 3.")
    )
    max_discount_percent = models.DecimalField(
        _("deepest discount below list %"),
        max_digits=5,
        decimal_places=2,
        validators=PERCENT_VALIDATORS,
    )
    min_margin_percent = models.DecimalField(
        _("lowest margin %"),
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(-100), MaxValueValidator(100)],
        help_text=_("Leave empty for no margin limit."),
    )
    max_total = models.DecimalField(
        _("largest total"),
        max_digits=TOTAL_DIGITS,
        decimal_places=MONEY_PLACES,
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
        help_text=_("Above this total (with VAT) a higher role decides; empty for no limit."),
    )
    max_total_currency = models.CharField(
        _("currency of the largest total"),
        max_length=3,
        blank=True,
        validators=[CURRENCY_VALIDATOR],
        help_text=_("Quotes in another currency are not limited by the total."),
    )

    class Meta:
        ordering = ["level"]
        verbose_name = _("approval rule")
        verbose_name_plural = _("approval rules")

    def __str__(self) -> str:
        return f"{self.get_role_display()}: {self.max_discount_percent} %"

    def clean(self) -> None:
        # A largest total binds quotes in its currency only: without one it would bind none.
        if self.max_total is not None and not self.max_total_currency:
            raise ValidationError(
                {"max_total_currency": _("Name the currency the largest total is in.")}
            )

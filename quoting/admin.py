"""Admin for support and data fixes; day-to-day work goes through the services (the admin
does not run the quote rules, so quotes, revisions and lines are read-only here)."""

import json

from django import forms
from django.contrib import admin
from django.utils.html import format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _

from quoting.customers.models import (
    Contact,
    Customer,
    ExportDestination,
    Project,
    Team,
    VatRate,
)
from quoting.customers.services import project_customer_check
from quoting.designs.models import FxRate, SavedDesign, TcoScenario
from quoting.errors import InvalidValue
from quoting.kept_texts import price_source_text
from quoting.quotes.display import event_detail_rows
from quoting.quotes.models import (
    Approval,
    ApprovalRule,
    Quote,
    QuoteEvent,
    QuoteLine,
    QuoteRevision,
)


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ["name"]
    search_fields = ["name"]
    filter_horizontal = ["members"]


class ContactInline(admin.TabularInline):
    model = Contact
    extra = 0


@admin.register(Customer)
class CustomerAdmin(admin.ModelAdmin):
    list_display = [
        "company",
        "industry",
        "region",
        "team",
        "owner",
        "default_currency",
        "updated_at",
    ]
    list_filter = ["team", "vat_zone", "language", "default_currency"]
    search_fields = ["company", "industry", "region"]
    list_select_related = ["team", "owner"]
    autocomplete_fields = ["team"]
    raw_id_fields = ["owner"]
    inlines = [ContactInline]


class ProjectAdminForm(forms.ModelForm):
    def clean_customer(self):
        customer = self.cleaned_data["customer"]
        if self.instance.pk is not None:
            stored = Project.objects.select_related("customer").get(pk=self.instance.pk)
            try:
                project_customer_check(project=stored, customer=customer)
            except InvalidValue as error:
                raise forms.ValidationError(error.message) from None
        return customer


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    form = ProjectAdminForm
    list_display = ["name", "customer", "owner", "updated_at"]
    search_fields = ["name", "customer__company"]
    list_select_related = ["customer", "owner"]
    raw_id_fields = ["customer", "owner"]


@admin.register(SavedDesign)
class SavedDesignAdmin(ReadOnlyAdmin):
    list_display = ["name", "project", "created_by", "created_at"]
    search_fields = ["name", "project__name", "project__customer__company"]
    list_select_related = ["project__customer", "created_by"]


@admin.register(TcoScenario)
class TcoScenarioAdmin(ReadOnlyAdmin):
    list_display = ["name", "project", "created_by", "created_at"]
    list_select_related = ["project__customer", "created_by"]


@admin.register(VatRate)
class VatRateAdmin(admin.ModelAdmin):
    """Rates per country and tax category: a line priced for a customer of that country takes
    the rate of its product's category; lines with no entry take the revision's VAT %."""

    list_display = ["country", "tax_category", "vat_percent"]
    list_filter = ["country", "tax_category"]


@admin.register(ExportDestination)
class ExportDestinationAdmin(admin.ModelAdmin):
    """Destinations whose quotes with classified items show staff the export-control note to
    acknowledge before sending (quoting.quotes.selectors.revision_export_note)."""

    list_display = ["country", "note"]
    search_fields = ["country", "note"]


@admin.register(ApprovalRule)
class ApprovalRuleAdmin(admin.ModelAdmin):
    """What each role may send without approval; beyond it, the lowest role whose rule covers
    the quote decides (quoting.quotes.selectors.revision_gate)."""

    list_display = [
        "role",
        "level",
        "max_discount_percent",
        "min_margin_percent",
        "max_total",
        "max_total_currency",
    ]


@admin.register(FxRate)
class FxRateAdmin(admin.ModelAdmin):
    list_display = ["source", "target", "rate", "as_of"]
    list_filter = ["source", "target"]
    date_hierarchy = "as_of"


class RevisionInline(ReadOnlyInline):
    model = QuoteRevision
    fields = ["number", "created_by", "sent_at", "discount_percent", "tax_percent", "total"]
    readonly_fields = fields


class EventInline(ReadOnlyInline):
    model = QuoteEvent
    fields = ["at", "actor", "verb", "details_shown", "details_json"]
    readonly_fields = fields
    show_change_link = False

    @admin.display(description=_("Details"))
    def details_shown(self, event: QuoteEvent) -> str:
        # The details as the quote's own audit trail words them, in the admin user's language;
        # the raw JSON (the API's keys and English values) stays beside them for a data fix.
        rows = event_detail_rows(event.verb, event.details, reason_message=event.reason_message)
        return format_html_join(mark_safe("<br>"), "{}: {}", rows)

    @admin.display(description=_("details as kept (JSON)"))
    def details_json(self, event: QuoteEvent) -> str:
        return json.dumps(event.details, ensure_ascii=False)


@admin.register(Quote)
class QuoteAdmin(ReadOnlyAdmin):
    list_display = [
        "number",
        "customer",
        "project",
        "owner",
        "status",
        "currency",
        "valid_until",
        "updated_at",
    ]
    list_filter = ["status", "currency", "year"]
    search_fields = ["number", "customer__company", "project__name"]
    list_select_related = ["customer", "project", "owner"]
    date_hierarchy = "created_at"
    inlines = [RevisionInline, EventInline]


class LineInline(ReadOnlyInline):
    model = QuoteLine
    fields = [
        "position",
        "section",
        "alternative_group",
        "sku",
        "description",
        "quantity",
        "unit_price",
        "discount_percent",
        "role",
        "price_source_shown",
    ]
    readonly_fields = fields
    show_change_link = False

    @admin.display(description=_("price source"))
    def price_source_shown(self, line: QuoteLine) -> str:
        # Kept in English (the API's); the reader's language here, old rows too.
        return price_source_text(line.price_source)


class ApprovalInline(ReadOnlyInline):
    model = Approval
    fields = [
        "requested_by",
        "requested_at",
        "discount_percent",
        "decision",
        "decided_by",
        "decided_at",
        "reason",
    ]
    readonly_fields = fields
    show_change_link = False


@admin.register(QuoteRevision)
class QuoteRevisionAdmin(ReadOnlyAdmin):
    list_display = ["__str__", "created_by", "created_at", "sent_at", "fx_rate", "total"]
    list_select_related = ["quote", "created_by"]
    search_fields = ["quote__number"]
    inlines = [LineInline, ApprovalInline]


@admin.register(Approval)
class ApprovalAdmin(ReadOnlyAdmin):
    list_display = [
        "revision",
        "requested_by",
        "discount_percent",
        "decision",
        "decided_by",
        "decided_at",
    ]
    list_filter = ["decision"]
    list_select_related = ["revision__quote", "requested_by", "decided_by"]

from django.contrib import admin, messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext_lazy as _

from catalog.forms import CatalogImportForm
from catalog.models import PriceList, PriceListItem, Product, ReplaceableUnit, SparesRatio
from catalog.services import (
    CatalogImportError,
    catalog_csv_text,
    catalog_export_csv,
    catalog_import_csv,
)


class PriceInline(admin.TabularInline):
    model = PriceListItem
    extra = 0
    autocomplete_fields = ["price_list"]
    fields = ["price_list", "list_price", "cost"]


class ReplaceableUnitInline(admin.TabularInline):
    """On a switch: the PSUs and fans it holds, which the spares kit's PSU/fan class counts."""

    model = ReplaceableUnit
    fk_name = "switch"
    extra = 0
    autocomplete_fields = ["unit"]
    fields = ["unit", "per_switch", "source"]


@admin.register(Product)
class ProductAdmin(admin.ModelAdmin):
    change_list_template = "admin/catalog/product/change_list.html"
    list_display = [
        "part_number",
        "name",
        "category",
        "generation",
        "lifecycle",
        "lead_time_weeks",
        "updated_at",
    ]
    list_filter = ["category", "generation", "protocol", "lifecycle"]
    search_fields = ["part_number", "name", "name_zh", "family", "export_classification"]
    inlines = [PriceInline, ReplaceableUnitInline]
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "part_number",
                    "name",
                    "name_zh",
                    "category",
                    "family",
                    "generation",
                    "protocol",
                    "lifecycle",
                    "unit",
                    "tax_category",
                    "pricing_basis",
                    "hardware_percent",
                    "response_hours",
                    "onsite_hours",
                    "spares_days",
                    "lead_time_weeks",
                    "description_en",
                    "description_zh",
                ]
            },
        ),
        (
            _("Ports and power"),
            {
                "fields": [
                    "port_count",
                    "port_speed_gbps",
                    "cage_type",
                    "cage_count",
                    "managed",
                    "rack_units",
                    "power_typical_w",
                    "power_max_w",
                    "weight_kg",
                    "uplink_port_count",
                    "uplink_speed_gbps",
                    "port_names",
                    "cooling",
                ]
            },
        ),
        (
            _("Optics and cables"),
            {
                "fields": [
                    "media",
                    "reach_m",
                    "length_m",
                    "form_factor",
                    "ports_per_module",
                    "breakout",
                ]
            },
        ),
        (_("Servers"), {"fields": ["gpu_model", "gpu_count", "gpu_peak_tflops"]}),
        (
            _("Export control"),
            {"fields": ["export_classification", "export_classification_source"]},
        ),
    ]

    def get_urls(self):
        return [
            path(
                "import-csv/",
                self.admin_site.admin_view(self.import_csv),
                name="catalog_product_import_csv",
            ),
            path(
                "export-csv/",
                self.admin_site.admin_view(self.export_csv),
                name="catalog_product_export_csv",
            ),
            *super().get_urls(),
        ]

    def import_csv(self, request):
        if not (self.has_add_permission(request) and self.has_change_permission(request)):
            return redirect("admin:catalog_product_changelist")
        errors = []
        form = CatalogImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            try:
                text = catalog_csv_text(form.cleaned_data["file"])
                result = catalog_import_csv(text=text)
            except CatalogImportError as exc:
                errors = exc.errors
            else:
                self.message_user(request, _("Catalog imported: %s.") % result, messages.SUCCESS)
                return redirect("admin:catalog_product_changelist")
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "form": form,
            "errors": errors,
            "title": _("Import products from CSV"),
            "export_url": reverse("admin:catalog_product_export_csv"),
        }
        return TemplateResponse(request, "admin/catalog/product/import_csv.html", context)

    def export_csv(self, request):
        response = HttpResponse(catalog_export_csv(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="catalog.csv"'
        return response


class PriceListItemInline(admin.TabularInline):
    model = PriceListItem
    extra = 0
    autocomplete_fields = ["product"]
    fields = ["product", "list_price", "cost"]


@admin.register(PriceList)
class PriceListAdmin(admin.ModelAdmin):
    list_display = ["name", "currency", "is_default", "is_reference", "valid_from", "valid_until"]
    list_filter = ["currency", "is_default", "is_reference"]
    search_fields = ["name"]
    inlines = [PriceListItemInline]


@admin.register(SparesRatio)
class SparesRatioAdmin(admin.ModelAdmin):
    list_display = ["spare_class", "percent"]
    list_editable = ["percent"]

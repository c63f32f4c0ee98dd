from django import forms
from django.utils.translation import gettext_lazy as _

from catalog.models import SPEC_FIELDS, Product
from quoting.engine.money import MONEY_MAX, MONEY_PLACES

# The largest CSV the import accepts; catalog.services checks it again while reading.
MAX_IMPORT_BYTES = 5 * 1024 * 1024

PRODUCT_CSV_FIELDS = (
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
    *SPEC_FIELDS,
    "description_en",
    "description_zh",
    "export_classification",
    "export_classification_source",
)


class ProductRowForm(forms.ModelForm):
    """One CSV row, validated exactly as the admin validates a product."""

    class Meta:
        model = Product
        fields = PRODUCT_CSV_FIELDS


class PriceCellForm(forms.Form):
    list_price = forms.DecimalField(
        min_value=0, max_value=MONEY_MAX, decimal_places=MONEY_PLACES, required=False
    )
    cost = forms.DecimalField(
        min_value=0, max_value=MONEY_MAX, decimal_places=MONEY_PLACES, required=False
    )

    def clean(self):
        data = super().clean()
        if data.get("cost") is not None and data.get("list_price") is None:
            raise forms.ValidationError(_("A cost needs a list price beside it."))
        return data


class CatalogImportForm(forms.Form):
    file = forms.FileField(
        label=_("CSV file"),
        help_text=_("UTF-8, the columns of an export. Nothing changes unless every row is valid."),
    )

    def clean_file(self):
        """Refused on its size before a byte is read: Django has already spooled a large upload
        to a temporary file, so it never sits in memory."""
        upload = self.cleaned_data["file"]
        if upload.size > MAX_IMPORT_BYTES:
            raise forms.ValidationError(
                _("The file is larger than %(mb)d MB: import it in parts.")
                % {"mb": MAX_IMPORT_BYTES // (1024 * 1024)}
            )
        return upload

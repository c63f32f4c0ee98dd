"""Forms of the quote builder. They check the shape of the input (a number is a number); the
services check the rules (a quantity from 0 to 1,000,000, a discount from 0 to 100 %)."""

from __future__ import annotations

import re

from django import forms
from django.utils.translation import gettext_lazy as _

from portal.widgets import IsoDateInput
from quoting.engine.tco.presets import WORKLOAD_PRESETS
from quoting.quotes.models import SECTION_ORDER, Section
from quoting.quotes.services.quotes import MAX_MILESTONES

EDITABLE_SECTIONS = [(s.value, s.label) for s in SECTION_ORDER if s != Section.ALTERNATIVES]


class VersionForm(forms.Form):
    """Every edit says which version of the quote the user was looking at."""

    expected_version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)


class LineForm(VersionForm):
    quantity = forms.IntegerField(label=_("Quantity"))
    discount_percent = forms.DecimalField(label=_("Discount %"), required=False)
    # The line's optional flag, i.e. whether it sits in the optional section. A checkbox sends
    # nothing when unticked: `optional_shown` says the row's form had the box at all.
    optional = forms.BooleanField(label=_("Optional"), required=False)
    optional_shown = forms.BooleanField(required=False, widget=forms.HiddenInput)


class TermsForm(VersionForm):
    discount_percent = forms.DecimalField(label=_("Quote discount %"))
    tax_percent = forms.DecimalField(label=_("VAT %"))
    valid_until = forms.DateField(label=_("Valid until"), widget=IsoDateInput)


class AddProductForm(VersionForm):
    sku = forms.CharField(label=_("Part number"), max_length=64)
    quantity = forms.IntegerField(label=_("Quantity"), initial=1)


class FreeTextForm(VersionForm):
    description = forms.CharField(label=_("Description"), max_length=500)
    quantity = forms.IntegerField(label=_("Quantity"), initial=1)
    unit_price = forms.DecimalField(label=_("Unit price"))
    section = forms.ChoiceField(
        label=_("Section"), choices=EDITABLE_SECTIONS, initial=Section.SERVICES
    )


class AlternativeForm(VersionForm):
    """Another saved design of the project, offered as a good / better / best option."""

    design = forms.ModelChoiceField(label=_("Design"), queryset=None)
    label = forms.CharField(
        label=_("Label"), max_length=100, help_text=_("For example “Better: 2:1 on Spectrum-4”.")
    )

    def __init__(self, *args, designs, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["design"].queryset = designs


class ActionForm(VersionForm):
    # The approval note, the manager's reason, or the customer's answer taken by phone.
    note = forms.CharField(label=_("Note"), max_length=2000, required=False)


class WorkloadForm(VersionForm):
    """The job the quote's TCO comparison assumes: one of the TCO engine's presets."""

    workload = forms.ChoiceField(
        label=_("TCO workload"),
        choices=[(key, _(preset.label)) for key, preset in WORKLOAD_PRESETS.items()],
    )


class PaymentTermsForm(VersionForm):
    """The revision's additional terms, in the quote's language and in Chinese; its milestones
    come in a MilestoneFormSet beside it."""

    additional_terms = forms.CharField(
        label=_("Additional terms"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Printed under the standard terms, as written: use the quote's language."),
    )
    additional_terms_zh = forms.CharField(
        label=_("Additional terms in Chinese"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_(
            "Printed instead in the Chinese proposal, share page and workbook; empty: they "
            "print the terms above."
        ),
    )


class MilestoneForm(forms.Form):
    """One payment milestone; a row left empty is no milestone."""

    label = forms.CharField(label=_("Milestone"), max_length=100, required=False)
    percent = forms.DecimalField(label=_("Percent"), required=False)

    def is_blank(self) -> bool:
        data = self.cleaned_data
        return not (data.get("label") or "").strip() and data.get("percent") is None


# Two empty rows to add milestones with, up to the services' limit (MAX_MILESTONES).
MilestoneFormSet = forms.formset_factory(
    MilestoneForm, extra=2, max_num=MAX_MILESTONES, absolute_max=MAX_MILESTONES, validate_max=True
)


def milestones_filled(formset) -> list[MilestoneForm]:
    """The rows of a valid MilestoneFormSet filled in, in order (empty rows are no milestones)."""
    return [form for form in formset.forms if not form.is_blank()]


def schedule_of(filled: list[MilestoneForm]) -> list[dict]:
    return [
        {"label": f.cleaned_data["label"], "percent": f.cleaned_data["percent"]} for f in filled
    ]


def milestone_error(filled: list[MilestoneForm], field: str | None, message: str) -> bool:
    """Put the services' `payment_schedule[i].label|percent` at the i-th row filled in; False
    when the error is not a milestone's (the sum, the count: the form says it above the rows)."""
    match = re.fullmatch(r"payment_schedule\[(\d+)\]\.(label|percent)", field or "")
    if match and int(match[1]) < len(filled):
        filled[int(match[1])].add_error(match[2], message)
        return True
    return False


class TcoOptionsForm(VersionForm):
    """The TCO options the proposal shows, chosen among the revision's comparison (names)."""

    tco_options = forms.MultipleChoiceField(
        label=_("Options the proposal shows"), widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args, names: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["tco_options"].choices = [(name, name) for name in names]

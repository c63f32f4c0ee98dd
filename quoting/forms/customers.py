"""Customer, contact and project forms of the browser pages."""

from __future__ import annotations

from dataclasses import asdict

from django import forms
from django.utils.translation import gettext_lazy as _

from quoting.engine.fabric import FabricRequirements
from quoting.forms.contract import form_fields
from quoting.forms.designs import NO_SWITCH_FOR_GENERATION
from quoting.models import Contact, Customer
from quoting.permissions import teams_for_filing
from quoting.services.designs import design_nic_generations


class CustomerForm(forms.ModelForm):
    class Meta:
        model = Customer
        fields = [
            "company",
            "team",
            "industry",
            "region",
            "vat_zone",
            "language",
            "default_currency",
            "notes",
        ]
        widgets = {"notes": forms.Textarea(attrs={"rows": 3})}

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        teams = teams_for_filing(user=user)
        self.fields["team"].queryset = teams
        if self.instance.pk is None and len(teams) == 1:
            self.fields["team"].initial = teams[0].pk


ContactFormSet = forms.inlineformset_factory(
    Customer,
    Contact,
    fields=["name", "title", "email", "phone"],
    extra=1,
    can_delete=True,
)


class ProjectForm(forms.Form):
    """A project and the cluster as the customer describes it. Those requirement fields are
    the engine's own (FabricRequirements: bounds, choices, labels), optional here."""

    REQUIREMENT_FIELDS = ("gpu_count", "nic_generation")

    name = forms.CharField(label=_("Project name"), max_length=200)
    notes = forms.CharField(
        label=_("Notes"), max_length=5000, required=False, widget=forms.Textarea(attrs={"rows": 3})
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        asked = form_fields(FabricRequirements, self.REQUIREMENT_FIELDS,
                            optional=frozenset(self.REQUIREMENT_FIELDS),
                            initial={"nic_generation": None})
        asked["gpu_count"].help_text = _(
            "The cluster as the customer describes it; the design page refines it.")
        nic = asked["nic_generation"]
        nic.choices = [("", "—"), *design_nic_generations()]  # not known yet; as designable
        nic.error_messages["invalid_choice"] = NO_SWITCH_FOR_GENERATION
        self.fields = {"name": self.fields["name"], **asked, "notes": self.fields["notes"]}

    def requirements(self) -> dict:
        """All the requirement fields (the rest at their defaults), so the design page can
        start from them as they are."""
        given = {k: self.cleaned_data[k] for k in ("gpu_count", "nic_generation")}
        given = {k: v for k, v in given.items() if v}
        return asdict(FabricRequirements(**given)) if given else {}

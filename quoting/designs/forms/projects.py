"""The project form: a name, notes and the cluster's first requirements (GPUs, NIC generation),
checked against what the catalog can design.
"""

from __future__ import annotations

from dataclasses import asdict

from django import forms
from django.utils.translation import gettext_lazy as _

from quoting.customers.models import PLAN_PARTS, Project, plan_fields
from quoting.designs.forms.contract import form_fields
from quoting.designs.forms.designs import NO_SWITCH_FOR_GENERATION
from quoting.designs.services.designs import design_nic_generations
from quoting.engine.fabric import FabricRequirements


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
        asked = form_fields(
            FabricRequirements,
            self.REQUIREMENT_FIELDS,
            optional=frozenset(self.REQUIREMENT_FIELDS),
            initial={"nic_generation": None},
        )
        asked["gpu_count"].help_text = _(
            "The cluster as the customer describes it; the design page refines it."
        )
        nic = asked["nic_generation"]
        nic.choices = [("", "—"), *design_nic_generations()]  # not known yet; as designable
        nic.error_messages["invalid_choice"] = NO_SWITCH_FOR_GENERATION
        # The parts of the plan, as on the project page (ProjectPlanForm), at the model's defaults.
        plan = forms.fields_for_model(Project, fields=plan_fields())
        self.fields = {
            "name": self.fields["name"],
            **asked,
            "notes": self.fields["notes"],
            **plan,
        }

    def plan(self) -> dict:
        return {name: self.cleaned_data[name] for name in plan_fields()}

    def requirements(self) -> dict:
        """All the requirement fields (the rest at their defaults), so the design page can
        start from them as they are."""
        given = {k: self.cleaned_data[k] for k in ("gpu_count", "nic_generation")}
        given = {k: v for k, v in given.items() if v}
        return asdict(FabricRequirements(**given)) if given else {}


class ProjectPlanForm(forms.ModelForm):
    """Which parts of the plan the customer asks for, each yes/no with a note (PLAN_PARTS)."""

    class Meta:
        model = Project
        fields = plan_fields()

    def parts(self) -> list[tuple[forms.BoundField, forms.BoundField]]:
        """(yes/no, note) per part, in the order of PLAN_PARTS."""
        return [(self[f"needs_{part}"], self[f"needs_{part}_note"]) for part, _label in PLAN_PARTS]

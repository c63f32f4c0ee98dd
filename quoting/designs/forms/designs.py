"""The design form of the browser page, built from FabricRequirements' field specs.

The API's serializer is built from the same specs (quoting/designs/api/designs.py), and the form's
clean() ends with the engine's own check, so the page and the API accept the same values.
"""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from catalog.models import Category, Product
from quoting.designs.forms.contract import add_engine_errors, form_fields
from quoting.designs.services.designs import design_nic_generations
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements
from quoting.engine.fabric.requirements import STORED_BEFORE_FIELDS, check_requirements
from quoting.engine.install import SITE_FIELDS, SiteInputs
from quoting.engine.install.site import RACK_POWER_PRESETS
from quoting.engine.tco.presets import DEFAULT_WORKLOAD, WORKLOAD_PRESETS

CURRENCY_CHOICES = [("CNY", "CNY"), ("USD", "USD")]
# The page's fields, in its order; "label" (the drawing's caption) is the API's only.
FORM_FIELDS = (
    "gpu_count",
    "server_count",
    "gpus_per_server",
    "server_part_number",
    "nics_per_server",
    "nic_generation",
    "family",
    "planes",
    "switch_part_number",
    "nic_part_number",
    "include_nics",
    "rail_optimized",
    "rack_scale_smallest",
    "oversubscription",
    "growth_gpus",
    "server_to_leaf",
    "leaf_to_spine",
    "spine_to_core",
    "subnet_manager",
    "inband_management",
    "inband_redundant",
    "outofband_management",
    "spares_percent",
    "storage_servers",
    "storage_ports_per_server",
    "storage_ports_per_storage_server",
    "storage_oversubscription",
    "storage_capacity_tb",
    "storage_read_gb_per_s",
    "storage_write_gb_per_s",
    "storage_server_tb",
    "storage_server_read_gb_per_s",
    "storage_server_write_gb_per_s",
)
# Bookmarked pages from before the storage fabric lack these: empty means the default.
OPTIONAL_FIELDS = frozenset(
    {
        "storage_servers",
        "storage_ports_per_server",
        "storage_ports_per_storage_server",
        "storage_oversubscription",
        "storage_capacity_tb",
        "storage_read_gb_per_s",
        "storage_write_gb_per_s",
        "storage_server_tb",
        "storage_server_read_gb_per_s",
        "storage_server_write_gb_per_s",
    }
)


NO_SWITCH_FOR_GENERATION = _(
    "No switch in the catalog runs %(value)s: choose one of the generations offered."
)


def _part_choices(*categories: str) -> list[tuple[str, str]]:
    parts = Product.objects.filter(category__in=categories).exclude(lifecycle="eol")
    return [("", _("Let the engine choose"))] + [
        (p.part_number, f"{p.part_number} · {p.display_name}")
        for p in parts.order_by("part_number")
    ]


_RequirementsForm = type(
    "_RequirementsForm",
    (forms.Form,),
    form_fields(
        FabricRequirements, FORM_FIELDS, optional=OPTIONAL_FIELDS, initial={"gpu_count": 256}
    ),
)


class DesignForm(_RequirementsForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["switch_part_number"].choices = _part_choices(Category.SWITCH)
        self.fields["nic_part_number"].choices = _part_choices(Category.ADAPTER, Category.DPU)
        generation = self.fields["nic_generation"]
        generation.choices = design_nic_generations()
        generation.error_messages["invalid_choice"] = NO_SWITCH_FOR_GENERATION
        self.fields["server_part_number"].choices = [
            ("", _("Not specified: one single-port module per NIC port")),
            *_part_choices(Category.SERVER)[1:],
        ]

    @classmethod
    def initial_data(cls) -> dict:
        """The form's defaults as submitted data, so a first visit shows a design at once."""
        form = cls()
        data = {}
        for name, field in form.fields.items():
            value = form.get_initial_for_field(field, name)
            if isinstance(field, forms.BooleanField):
                if value:
                    data[name] = "on"
            elif value is not None:
                data[name] = value
        return data

    def clean(self):
        data = super().clean()
        if not self.errors:  # the engine's check is the last word, on the same fields
            try:
                check_requirements(self.requirements())
            except InvalidInput as error:
                add_engine_errors(self, error.messages)
        return data

    def requirements(self) -> FabricRequirements:
        data = {k: v for k, v in self.cleaned_data.items() if v not in ("", None)}
        return FabricRequirements(**data)


class DesignSaveForm(forms.Form):
    """Keep the design on screen in one of the user's projects, with the job its TCO assumes."""

    project = forms.ModelChoiceField(
        label=_("Project"),
        queryset=None,
        error_messages={
            "invalid_choice": _(
                "You cannot save to this project: it is not one of the projects you can see. "
                "Choose one of yours."
            )
        },
    )
    name = forms.CharField(label=_("Design name"), max_length=200)
    workload = forms.ChoiceField(
        label=_("TCO workload"),
        initial=DEFAULT_WORKLOAD,
        required=False,
        choices=[(key, _(preset.label)) for key, preset in WORKLOAD_PRESETS.items()],
    )

    def __init__(self, *args, projects, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["project"].queryset = projects

    def clean_workload(self) -> str:
        return self.cleaned_data["workload"] or DEFAULT_WORKLOAD


def design_form_data(requirements: dict) -> dict:
    """Stored requirements (FabricRequirements as a dict) as the design form's submitted data;
    a field added since they were stored reads as the engine's behaviour then."""
    form = DesignForm()
    data = {}
    for name, value in (STORED_BEFORE_FIELDS | requirements).items():
        field = form.fields.get(name)
        if field is None or value is None:
            continue
        if isinstance(field, forms.BooleanField):
            if value:
                data[name] = "on"
        else:
            data[name] = value
    return data


# The select beside the rack power budget: a preset chosen there becomes the budget (the script
# fills the number at once; without it, site_form_data does on the next request).
RACK_POWER_PRESET = "rack_power_preset"
_PRESET_VALUES = frozenset(f"{kw:g}" for kw, _label in RACK_POWER_PRESETS)


def site_form_data(params) -> dict:
    """The site fields given in `params` (a query), with a rack power preset chosen there written
    into the budget: the page then shows the number it designs with, and links carry it alone."""
    data = {name: params[name] for name in SITE_FIELDS if params.get(name, "") not in ("", None)}
    preset = params.get(RACK_POWER_PRESET, "")
    if preset in _PRESET_VALUES:
        data["rack_power_kw"] = preset
    return data


class SiteForm(forms.Form):
    """The installation pack's site inputs from a query; empty fields take the defaults, the
    layout checks the rules across them. The preset select only fills the budget (it is never
    bound: site_form_data has turned it into the number)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields.update(form_fields(SiteInputs, SITE_FIELDS, optional=frozenset(SITE_FIELDS)))
        self.fields[RACK_POWER_PRESET] = forms.ChoiceField(
            label=_("Rack power preset"),
            required=False,
            choices=[("", _("Keep the budget entered"))]
            + [(f"{kw:g}", _(label)) for kw, label in RACK_POWER_PRESETS],
            help_text=_("Sets the power budget per rack."),
        )

    # The site inputs the design page shows (the install pack's name its devices and size their
    # servers elsewhere): the page has an error target beside each of these only.
    DESIGN_PAGE_FIELDS = (
        "rack_units",
        "rack_power_kw",
        RACK_POWER_PRESET,
        "servers_per_rack",
        "racks_per_row",
        "rows",
        "rack_pitch_m",
        "row_spacing_m",
        "cable_slack_m",
        "cable_route",
    )

    def design_page_fields(self) -> list:
        return [self[name] for name in self.DESIGN_PAGE_FIELDS]

    def off_page_errors(self) -> list[str]:
        """The errors of site inputs the design page has no field for (a query can carry them),
        each after its label: the page shows them in its error box."""
        return [
            f"{self[name].label}: {' '.join(errors)}"
            for name, errors in self.errors.items()
            if name in self.fields and name not in self.DESIGN_PAGE_FIELDS
        ]

    def site_values(self) -> dict:
        return {
            k: v
            for k, v in self.cleaned_data.items()
            if k != RACK_POWER_PRESET and v not in (None, "")
        }

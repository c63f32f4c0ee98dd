"""The design form of the browser page; the API's serializer mirrors it (quoting/api/designs.py)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from catalog.models import Category, Generation, Product
from quoting.engine.fabric import DISTANCE_CLASSES, FabricRequirements, distance_parse

FAMILY_CHOICES = [("infiniband", "InfiniBand"), ("ethernet", _("Ethernet (RoCE)"))]
SUBNET_MANAGER_CHOICES = [
    ("auto", _("Automatic")),
    ("on-switch", _("On a managed switch")),
    ("ufm-appliance", _("UFM appliances")),
    ("ufm-licence", _("UFM licences per endpoint")),
    ("opensm-host", _("OpenSM on customer hosts")),
]
NIC_GENERATIONS = [g for g in Generation.choices
                   if g[0] in {"HDR", "NDR200", "NDR", "XDR", "100GbE", "200GbE", "400GbE",
                               "800GbE"}]
CURRENCY_CHOICES = [("CNY", "CNY"), ("USD", "USD")]
DISTANCE_HELP = _("Metres, or one of: %s.") % ", ".join(DISTANCE_CLASSES)


class DistanceField(forms.CharField):
    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 20)
        kwargs.setdefault("help_text", DISTANCE_HELP)
        super().__init__(**kwargs)
        self.widget.attrs.update(list="distance-classes", autocomplete="off")

    def clean(self, value):
        value = super().clean(value)
        try:
            return distance_parse(value)
        except ValueError as exc:
            raise forms.ValidationError(str(exc).capitalize()) from exc


def _part_choices(*categories: str) -> list[tuple[str, str]]:
    parts = Product.objects.filter(category__in=categories).exclude(lifecycle="eol")
    return [("", _("Let the engine choose"))] + [
        (p.part_number, f"{p.part_number} · {p.name}") for p in parts.order_by("part_number")
    ]


class DesignForm(forms.Form):
    gpu_count = forms.IntegerField(label=_("GPUs"), min_value=1, max_value=1_000_000,
                                   required=False, initial=256)
    server_count = forms.IntegerField(label=_("or servers"), min_value=1, max_value=200_000,
                                      required=False)
    gpus_per_server = forms.IntegerField(label=_("GPUs per server"), min_value=1,
                                         max_value=64, initial=8)
    server_part_number = forms.ChoiceField(
        label=_("Server"), required=False,
        help_text=_("Its own network cages decide the host-side optics (a DGX takes twin-port "
                    "modules)."))
    nics_per_server = forms.IntegerField(
        label=_("Compute NICs per server"), min_value=1, max_value=64, required=False,
        help_text=_("Empty: one per GPU."))
    nic_generation = forms.ChoiceField(label=_("NIC generation"), choices=NIC_GENERATIONS,
                                       initial="NDR")
    family = forms.ChoiceField(label=_("Fabric"), choices=FAMILY_CHOICES, initial="infiniband")
    planes = forms.TypedChoiceField(label=_("Planes"), choices=[(1, "1"), (2, "2")], coerce=int,
                                    initial=1, help_text=_("Ethernet only."))
    switch_part_number = forms.ChoiceField(label=_("Switch"), required=False)
    nic_part_number = forms.ChoiceField(label=_("NIC"), required=False)
    include_nics = forms.BooleanField(label=_("Quote the NICs"), required=False)
    rail_optimized = forms.BooleanField(label=_("Rail-optimized"), required=False, initial=True)
    oversubscription = forms.FloatField(
        label=_("Oversubscription"), min_value=1, max_value=16, initial=1,
        help_text=_("1 is non-blocking; 2 means 2:1 at the leaf."))
    growth_gpus = forms.IntegerField(
        label=_("Growth target (GPUs)"), min_value=1, max_value=1_000_000, required=False,
        help_text=_("Spines are sized for it, so growing needs no re-cabling."))
    server_to_leaf = DistanceField(label=_("Server to leaf"), initial="same-row")
    leaf_to_spine = DistanceField(label=_("Leaf to spine"), initial="same-row")
    spine_to_core = DistanceField(label=_("Spine to core"), initial="across-hall")
    subnet_manager = forms.ChoiceField(label=_("Subnet manager"),
                                       choices=SUBNET_MANAGER_CHOICES, initial="auto")
    inband_management = forms.BooleanField(label=_("In-band management network"),
                                           required=False)
    outofband_management = forms.BooleanField(label=_("Out-of-band management network"),
                                              required=False)
    spares_percent = forms.FloatField(label=_("Spares (%)"), min_value=0, max_value=100,
                                      initial=0)
    storage_servers = forms.IntegerField(
        label=_("Storage servers"), min_value=0, max_value=100_000, required=False, initial=0,
        help_text=_("0: no separate storage fabric."))
    storage_ports_per_server = forms.IntegerField(
        label=_("Storage ports per compute server"), min_value=1, max_value=16, required=False,
        initial=1, help_text=_("e.g. one BlueField-3 or ConnectX port."))
    storage_ports_per_storage_server = forms.IntegerField(
        label=_("Ports per storage server"), min_value=1, max_value=16, required=False,
        initial=2)
    storage_oversubscription = forms.FloatField(
        label=_("Storage oversubscription"), min_value=1, max_value=16, required=False,
        initial=1)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["switch_part_number"].choices = _part_choices(Category.SWITCH)
        self.fields["nic_part_number"].choices = _part_choices(Category.ADAPTER, Category.DPU)
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
        if not self.errors and data.get("gpu_count") is None and data.get("server_count") is None:
            self.add_error("gpu_count", _("Give the number of GPUs or of servers."))
        return data

    def requirements(self) -> FabricRequirements:
        data = {k: v for k, v in self.cleaned_data.items() if v not in ("", None)}
        return FabricRequirements(**data)


class DesignSaveForm(forms.Form):
    """Keep the design on screen in one of the user's projects."""

    project = forms.ModelChoiceField(label=_("Project"), queryset=None)
    name = forms.CharField(label=_("Design name"), max_length=200)

    def __init__(self, *args, projects, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["project"].queryset = projects


def design_form_data(requirements: dict) -> dict:
    """Stored requirements (FabricRequirements as a dict) as the design form's submitted data."""
    form = DesignForm()
    data = {}
    for name, value in requirements.items():
        field = form.fields.get(name)
        if field is None or value is None:
            continue
        if isinstance(field, forms.BooleanField):
            if value:
                data[name] = "on"
        else:
            data[name] = value
    return data

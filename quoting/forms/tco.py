"""The TCO page's forms: a cluster, a workload, up to four fabric options and the costs.

The forms check each field's type and range and build the same JSON body the REST API takes, so
the engine's business checks (and their dotted field names) are the same for both; the engine's
errors are then put back beside the fields they name.
"""

from __future__ import annotations

import re
from decimal import Decimal

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from catalog.selectors import gpu_peak_tflops
from quoting.engine.money import MONEY_MAX
from quoting.engine.tco.presets import (
    MAX_OVERSUBSCRIPTION,
    MAX_SERVERS_PER_LEAF,
    TRANSPORTS,
    WORKLOAD_PRESETS,
)

FABRIC_ROWS = 4  # the page compares up to four options; the API takes up to eight
DEFAULT_PRESET = "llm_pretrain_7b"
WORKLOAD_FIELDS = (
    "params_billion",
    "active_params_billion",
    "tokens_per_node_per_step",
    "sharding",
    "overlap",
    "mfu",
    "cross_node_bytes_per_token",
)
COSTS_FIELDS = (
    "currency",
    "server_capex",
    "pue",
    "tariff_per_kwh",
    "gpu_hour_value",
    "life_years",
    "discount_rate",
    "support_percent",
)
SHARDING_CHOICES = [
    ("ddp", "DDP"),
    ("zero1", "ZeRO-1"),
    ("zero2", "ZeRO-2"),
    ("zero3", "ZeRO-3"),
    ("fsdp", "FSDP"),
]
CURRENCY_CHOICES = [("CNY", "CNY"), ("USD", "USD")]
DEFAULT_FABRICS = [
    {
        "name": _("8×400G InfiniBand"),
        "transport": "infiniband",
        "nics_per_node": 8,
        "nic_gbps": 400,
    },
    {"name": _("8×400G RoCE (tuned)"), "transport": "roce", "nics_per_node": 8, "nic_gbps": 400},
    {
        "name": _("8×400G RoCE (untuned)"),
        "transport": "roce_untuned",
        "nics_per_node": 8,
        "nic_gbps": 400,
    },
    {"name": _("2×100G RoCE"), "transport": "roce", "nics_per_node": 2, "nic_gbps": 100},
]
_FABRIC_PATH = re.compile(r"fabrics\[(\d+)\]\.(\w+)")


def _money(label, **kwargs) -> forms.DecimalField:
    return forms.DecimalField(
        label=label,
        min_value=0,
        max_value=MONEY_MAX,
        max_digits=18,
        decimal_places=4,
        required=False,
        **kwargs,
    )


class TcoForm(forms.Form):
    gpu = forms.ChoiceField(label=_("GPU"))
    nodes = forms.IntegerField(label=_("Nodes"), min_value=1, max_value=100_000, initial=32)
    gpus_per_node = forms.IntegerField(
        label=_("GPUs per node"), min_value=1, max_value=72, initial=8
    )
    preset = forms.ChoiceField(
        label=_("Workload preset"),
        required=False,
        initial=DEFAULT_PRESET,
        choices=[("", _("Custom"))] + [(k, p.label) for k, p in WORKLOAD_PRESETS.items()],
        help_text=_("Fills the workload fields; adjust them afterwards."),
    )
    params_billion = forms.FloatField(
        label=_("Parameters (billion)"), min_value=0.001, max_value=100_000
    )
    active_params_billion = forms.FloatField(
        label=_("Active parameters (billion)"),
        min_value=0.001,
        max_value=100_000,
        required=False,
        help_text=_("Mixture-of-experts: parameters used per token; empty: all."),
    )
    tokens_per_node_per_step = forms.IntegerField(
        label=_("Tokens per node per step"), min_value=1, max_value=10**9
    )
    sharding = forms.ChoiceField(label=_("Sharding"), choices=SHARDING_CHOICES)
    overlap = forms.FloatField(
        label=_("Overlap"),
        min_value=0,
        max_value=0.9,
        help_text=_("Share of gradient traffic hidden behind the backward pass, 0–0.9."),
    )
    mfu = forms.FloatField(
        label=_("Single-node MFU"),
        min_value=0.01,
        max_value=1,
        help_text=_("Model-FLOPs utilisation on one node, 0–1."),
    )
    cross_node_bytes_per_token = forms.FloatField(
        label=_("Cross-node bytes per token"),
        min_value=0,
        max_value=1e9,
        required=False,
        help_text=_("Tensor- or expert-parallel traffic that leaves the node; empty: none."),
    )
    currency = forms.ChoiceField(label=_("Currency"), choices=CURRENCY_CHOICES, initial="CNY")
    server_capex = _money(_("Server capex"), help_text=_("All servers; empty if not quoted."))
    pue = forms.DecimalField(
        label=_("PUE"), min_value=1, max_value=3, decimal_places=2, initial=Decimal("1.3")
    )
    tariff_per_kwh = _money(_("Tariff per kWh"), help_text=_("Empty: 0.70 CNY."))
    gpu_hour_value = _money(_("Value of a GPU-hour"), help_text=_("Empty: 12 CNY."))
    life_years = forms.IntegerField(label=_("Life (years)"), min_value=1, max_value=15, initial=5)
    discount_rate = forms.DecimalField(
        label=_("Discount rate"),
        min_value=0,
        max_value=1,
        decimal_places=4,
        initial=Decimal("0.08"),
        help_text=_("0.08 = 8 % a year."),
    )
    support_percent = forms.DecimalField(
        label=_("Support (% a year)"), min_value=0, max_value=100, decimal_places=2, initial=20
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        gpus = sorted(gpu_peak_tflops())
        self.fields["gpu"].choices = [(g, g) for g in gpus]
        self.fields["gpu"].initial = "H100" if "H100" in gpus else next(iter(gpus), None)
        for name, value in WORKLOAD_PRESETS[DEFAULT_PRESET].workload.items():
            self.fields[name].initial = value

    def clean(self):
        data = super().clean()
        # Outside CNY a tariff and a GPU-hour value mean nothing without their currency.
        if data.get("currency", "CNY") != "CNY":
            for name in ("tariff_per_kwh", "gpu_hour_value"):
                if data.get(name) is None and name not in self.errors:
                    self.add_error(name, _("Required when the currency is not CNY."))
        return data


class FabricOptionForm(forms.Form):
    """One fabric option; a row with an empty name is not compared."""

    name = forms.CharField(label=_("Name"), max_length=60, required=False)
    transport = forms.ChoiceField(
        label=_("Transport"),
        required=False,
        choices=[(key, t.label) for key, t in TRANSPORTS.items()],
    )
    nics_per_node = forms.IntegerField(
        label=_("NICs per node"), min_value=1, max_value=32, required=False
    )
    nic_gbps = forms.FloatField(label=_("NIC Gb/s"), min_value=1, max_value=3200, required=False)
    efficiency = forms.FloatField(
        label=_("Efficiency"),
        min_value=0.01,
        max_value=1,
        required=False,
        help_text=_("Achieved share of line rate; empty: the transport's default."),
    )
    measured_busbw_gbps = forms.FloatField(
        label=_("Measured busbw (GB/s)"),
        min_value=0.1,
        max_value=10_000,
        required=False,
        help_text=_("nccl-tests AllReduce busbw across this cluster; overrides the estimate."),
    )
    network_capex = _money(_("Network capex"), help_text=_("From the quote; empty: not priced."))
    network_opex_per_year = _money(
        _("Network licences per year"),
        help_text=_("Sold per year, such as UFM per-endpoint licences: paid every year."),
    )
    oversubscription = forms.FloatField(
        label=_("Oversubscription (r:1)"),
        min_value=1,
        max_value=MAX_OVERSUBSCRIPTION,
        required=False,
        help_text=_("Leaf to spine; slows jobs wider than one leaf. Empty: 1, non-blocking."),
    )
    servers_per_leaf = forms.IntegerField(
        label=_("Servers per leaf"),
        min_value=1,
        max_value=MAX_SERVERS_PER_LEAF,
        required=False,
        help_text=_("Servers under one leaf, or one rail group when rail-optimized. Empty: 32."),
    )

    def clean(self):
        data = super().clean()
        if data.get("name", "").strip():
            for name in ("transport", "nics_per_node", "nic_gbps"):
                if data.get(name) in (None, "") and name not in self.errors:
                    self.add_error(name, _("Required for a named option."))
        return data

    def as_option(self) -> dict | None:
        data = self.cleaned_data
        if not data["name"].strip():
            return None
        option = {k: data[k] for k in ("name", "transport", "nics_per_node", "nic_gbps")}
        for name in ("efficiency", "measured_busbw_gbps", "oversubscription", "servers_per_leaf"):
            if data[name] is not None:
                option[name] = data[name]
        for name in ("network_capex", "network_opex_per_year"):
            if data[name] is not None:
                option[name] = str(data[name])  # the engine reads str exactly
        return option


class TcoForms:
    """The main form and the fabric rows together, bound to posted data or to the defaults."""

    def __init__(self, data=None):
        data = data if data is not None else self.initial_data()
        self.form = TcoForm(data)
        self.fabrics = [FabricOptionForm(data, prefix=f"fabrics-{i}") for i in range(FABRIC_ROWS)]
        self.used_rows: list[int] = []  # engine index -> row index, for its "fabrics[i]" errors

    @classmethod
    def from_query(cls, query) -> TcoForms:
        """The defaults with the URL's values on top: how other pages open a prefilled page.

        A query that names any fabric row replaces the default rows instead of mixing in.
        """
        data = cls.initial_data()
        if any(key.startswith("fabrics-") for key in query):
            data = {k: v for k, v in data.items() if not k.startswith("fabrics-")}
        return cls(data | query.dict())

    @staticmethod
    def initial_data() -> dict:
        """The defaults as submitted data, so a first visit shows a full comparison at once."""
        form = TcoForm()
        data = {
            name: form.get_initial_for_field(field, name)
            for name, field in form.fields.items()
            if form.get_initial_for_field(field, name) is not None
        }
        for i, option in enumerate(DEFAULT_FABRICS):
            data |= {f"fabrics-{i}-{key}": str(value) for key, value in option.items()}
        return data

    def is_valid(self) -> bool:
        return all([self.form.is_valid(), *(f.is_valid() for f in self.fabrics)])

    def body(self) -> dict:
        """The REST API's request body (see quoting/api/tco.py)."""
        data = self.form.cleaned_data
        options = [f.as_option() for f in self.fabrics]
        self.used_rows = [i for i, option in enumerate(options) if option is not None]
        costs = {k: data[k] for k in COSTS_FIELDS if data[k] is not None}
        return {
            "gpu": data["gpu"],
            "nodes": data["nodes"],
            "gpus_per_node": data["gpus_per_node"],
            "workload": {k: data[k] for k in WORKLOAD_FIELDS if data[k] is not None},
            "fabrics": [option for option in options if option is not None],
            # Decimal as str: the engine parses it exactly, as it does JSON numbers.
            "costs": {k: str(v) if isinstance(v, Decimal) else v for k, v in costs.items()},
        }

    def add_engine_errors(self, errors: dict[str, list[str]]) -> None:
        """Put the engine's errors ("workload.overlap", "fabrics[1].nic_gbps") beside fields."""
        for path, messages in errors.items():
            form, field = self.form, path.rsplit(".", 1)[-1]
            match = _FABRIC_PATH.fullmatch(path)
            if match and int(match[1]) < len(self.used_rows):
                form, field = self.fabrics[self.used_rows[int(match[1])]], match[2]
            for message in messages:
                form.add_error(
                    field if field in form.fields else None, message[:1].upper() + message[1:]
                )


def tco_page_query(body: dict) -> str:
    """The TCO page's URL query that starts from this request body (see TcoForms.from_query)."""
    query = QueryDict(mutable=True)
    for key in ("gpu", "nodes", "gpus_per_node"):
        query[key] = body[key]
    for key, value in {**body.get("workload", {}), **body.get("costs", {})}.items():
        query[key] = value
    for i, option in enumerate(body["fabrics"][:FABRIC_ROWS]):
        for key, value in option.items():
            if key in FabricOptionForm.base_fields and value is not None:
                query[f"fabrics-{i}-{key}"] = value
    return query.urlencode()

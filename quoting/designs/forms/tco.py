"""The TCO page's forms: a cluster, a workload, up to four fabric options and the costs.

The forms check each field's type and range and build the same JSON body the REST API takes, so
the engine's business checks (and their dotted field names) are the same for both; the engine's
errors are then put back beside the fields they name.
"""

from __future__ import annotations

import re
from dataclasses import replace
from decimal import Decimal

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from catalog.selectors import gpu_peak_tflops, servers_with_power
from quoting.designs.forms.contract import engine_error_text, form_field, form_fields
from quoting.engine.contract import specs
from quoting.engine.tco.inputs import Costs, FabricOption, TcoRequest, Workload
from quoting.engine.tco.presets import CNY_PER_UNIT, DEFAULT_CURRENCY, WORKLOAD_PRESETS

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
FABRIC_FIELDS = (
    "name",
    "transport",
    "nics_per_node",
    "nic_gbps",
    "efficiency",
    "measured_busbw_gbps",
    "network_capex",
    "network_opex_per_year",
    "oversubscription",
    "servers_per_leaf",
)
# Empty on the page means the engine's default (or, for a tariff, the CNY one).
_OPTIONAL = frozenset({"cross_node_bytes_per_token", "server_capex"})
_NO_INITIAL = dict.fromkeys(_OPTIONAL)


def _cluster_fields() -> dict[str, forms.Field]:
    """The main form's fields from the engine's specs, in the page's order."""
    cluster = form_fields(
        TcoRequest, ("gpu", "nodes", "gpus_per_node"), initial={"nodes": 32, "gpus_per_node": 8}
    )
    preset = forms.ChoiceField(
        label=_("Workload preset"),
        required=False,
        initial=DEFAULT_PRESET,
        choices=[("", _("Custom"))] + [(k, _(p.label)) for k, p in WORKLOAD_PRESETS.items()],
        help_text=_("Fills the workload fields; adjust them afterwards."),
    )
    workload = form_fields(Workload, WORKLOAD_FIELDS, optional=_OPTIONAL, initial=_NO_INITIAL)
    # The page offers the currencies our price lists are kept in; the API takes any ISO code.
    currency = replace(specs(Costs)["currency"], kind="choice", choices=tuple(CURRENCY_CHOICES))
    costs = form_fields(Costs, COSTS_FIELDS, optional=_OPTIONAL, initial=_NO_INITIAL)
    costs["currency"] = form_field(currency, required=True, initial=DEFAULT_CURRENCY)
    return {**cluster, "preset": preset, **workload, **costs}


_TcoFields = type("_TcoFields", (forms.Form,), _cluster_fields())
_FabricFields = type(
    "_FabricFields",
    (forms.Form,),
    form_fields(
        FabricOption,
        FABRIC_FIELDS,
        optional=frozenset(FABRIC_FIELDS),
        initial=dict.fromkeys(FABRIC_FIELDS),
    ),
)


class TcoForm(_TcoFields):
    server = forms.ChoiceField(
        label=_("Server"),
        required=False,
        help_text=_(
            "Its catalog power is the servers' power in the energy cost. Empty: 8 kW per server "
            "assumed."
        ),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["server"].choices = [("", _("Not named"))] + [
            (part, f"{part} · {name}") for part, name in servers_with_power()
        ]
        gpus = sorted(gpu_peak_tflops())
        self.fields["gpu"].choices = [(g, g) for g in gpus]
        self.fields["gpu"].initial = "H100" if "H100" in gpus else next(iter(gpus), None)
        for name, value in WORKLOAD_PRESETS[DEFAULT_PRESET].workload.items():
            self.fields[name].initial = value

    def clean(self):
        data = super().clean()
        # A tariff and a GPU-hour value mean nothing without their currency: CNY has defaults,
        # USD takes them converted at the catalog's rate (Costs), another must state them.
        if data.get("currency", "CNY") not in (DEFAULT_CURRENCY, *CNY_PER_UNIT):
            for name in ("tariff_per_kwh", "gpu_hour_value"):
                if data.get(name) is None and name not in self.errors:
                    self.add_error(name, _("Required when the currency is not CNY."))
        return data


class FabricOptionForm(_FabricFields):
    """One fabric option; a row with an empty name is not compared."""

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
        """The REST API's request body (see quoting/designs/api/tco.py)."""
        data = self.form.cleaned_data
        options = [f.as_option() for f in self.fabrics]
        self.used_rows = [i for i, option in enumerate(options) if option is not None]
        costs = {k: data[k] for k in COSTS_FIELDS if data[k] is not None}
        body = {
            "gpu": data["gpu"],
            "nodes": data["nodes"],
            "gpus_per_node": data["gpus_per_node"],
            "workload": {k: data[k] for k in WORKLOAD_FIELDS if data[k] is not None},
            "fabrics": [option for option in options if option is not None],
            # Decimal as str: the engine parses it exactly, as it does JSON numbers.
            "costs": {k: str(v) if isinstance(v, Decimal) else v for k, v in costs.items()},
        }
        if data.get("server"):
            body["server"] = data["server"]
        return body

    def add_engine_errors(self, errors: dict[str, list[str]]) -> None:
        """Put the engine's errors ("workload.overlap", "fabrics[1].nic_gbps") beside fields."""
        for path, messages in errors.items():
            form, field = self.form, path.rsplit(".", 1)[-1]
            match = _FABRIC_PATH.fullmatch(path)
            if match and int(match[1]) < len(self.used_rows):
                form, field = self.fabrics[self.used_rows[int(match[1])]], match[2]
            for message in messages:
                form.add_error(field if field in form.fields else None, engine_error_text(message))


def tco_page_query(body: dict) -> str:
    """The TCO page's URL query that starts from this request body (see TcoForms.from_query)."""
    query = QueryDict(mutable=True)
    for key in ("gpu", "nodes", "gpus_per_node"):
        query[key] = body[key]
    if body.get("server"):
        query["server"] = body["server"]
    for key, value in {**body.get("workload", {}), **body.get("costs", {})}.items():
        query[key] = value
    for i, option in enumerate(body["fabrics"][:FABRIC_ROWS]):
        for key, value in option.items():
            if key in FabricOptionForm.base_fields and value is not None:
                query[f"fabrics-{i}-{key}"] = value
    return query.urlencode()

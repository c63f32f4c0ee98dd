"""One contract per engine: the engine's check, the page's form and the API's serializer give the
same answer for the same value, accepted or refused on the same field.

Each case is a change to a valid request and the fields it is refused on (none: accepted). The
engine is asked directly (check_requirements, TcoRequest.from_dict), the form as the page asks
it (bound to submitted strings, then the engine's errors put beside its fields), the serializer
as the API asks it (JSON values).
"""

from __future__ import annotations

import json
import re
from dataclasses import fields

import pytest
from django.core.serializers.json import DjangoJSONEncoder

from catalog.models import Generation
from quoting.designs.api.designs import DesignRequestSerializer
from quoting.designs.api.tco import TcoRequestSerializer, flat_errors
from quoting.designs.forms.designs import DesignForm
from quoting.designs.forms.tco import COSTS_FIELDS, WORKLOAD_FIELDS, TcoForms
from quoting.engine.contract import specs
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements
from quoting.engine.fabric.requirements import check_requirements
from quoting.engine.tco.inputs import Costs, FabricOption, TcoRequest, Workload
from quoting.engine.tco.presets import SHARDING_FACTORS

OFF_PAGE = "off the page"  # a case the page's form cannot send; the engine and the API agree


def _cases(cases: list[tuple]) -> list:
    """(change, refused_on[, OFF_PAGE]) as parameters with readable ids."""
    params = []
    for change, refused_on, *off in cases:
        label = ",".join(f"{k}={str(v)[:12]}" for k, v in change.items())
        params.append(pytest.param(change, refused_on, bool(off), id=label))
    return params


# --- The fabric design -------------------------------------------------------------------------

LONG_PART = "X" * 65
FABRIC_CASES = [
    ({"gpu_count": 1}, set()),
    ({"gpu_count": 1_000_000}, set()),
    ({"gpu_count": 0}, {"gpu_count"}),
    ({"gpu_count": 1_000_001}, {"gpu_count"}),
    ({"gpu_count": None}, {"gpu_count"}),
    ({"gpu_count": None, "server_count": 8}, set()),
    ({"gpu_count": None, "server_count": 200_001}, {"server_count"}),
    ({"gpu_count": 64, "server_count": 9}, {"gpu_count"}),
    ({"gpus_per_server": 64}, set()),
    # An NVL72 rack-scale system is one server of 72 GPUs and 72 compute ports.
    ({"gpus_per_server": 72}, set()),
    ({"gpus_per_server": 0}, {"gpus_per_server"}),
    ({"gpus_per_server": 73}, {"gpus_per_server"}),
    ({"nics_per_server": 72}, set()),
    ({"nics_per_server": 73}, {"nics_per_server"}),
    ({"nic_generation": "XDR"}, set()),
    ({"nic_generation": "EDR"}, {"nic_generation"}),
    ({"family": "ethernet", "nic_generation": "400GbE"}, set()),
    ({"family": "fibre-channel"}, {"family"}),
    ({"family": "ethernet", "nic_generation": "400GbE", "planes": 2}, set()),
    ({"planes": 2}, {"planes"}),
    ({"planes": 3}, {"planes"}),
    ({"oversubscription": 16}, set()),
    ({"oversubscription": 0.5}, {"oversubscription"}),
    ({"oversubscription": 16.5}, {"oversubscription"}),
    ({"growth_gpus": 128}, set()),
    ({"growth_gpus": 32}, {"growth_gpus"}),
    ({"growth_gpus": 1_000_001}, {"growth_gpus"}),
    ({"server_to_leaf": "same-rack"}, set()),
    ({"leaf_to_spine": 12.5}, set()),
    ({"spine_to_core": 10_000}, set()),
    ({"server_to_leaf": 0}, {"server_to_leaf"}),
    ({"leaf_to_spine": 10_001}, {"leaf_to_spine"}),
    ({"spine_to_core": "next-door"}, {"spine_to_core"}),
    ({"subnet_manager": "ufm-appliance"}, set()),
    ({"subnet_manager": "opensm"}, {"subnet_manager"}),
    (
        {"family": "ethernet", "nic_generation": "400GbE", "subnet_manager": "on-switch"},
        {"subnet_manager"},
    ),
    ({"spares_percent": 100}, set()),
    ({"spares_percent": -1}, {"spares_percent"}),
    ({"spares_percent": 101}, {"spares_percent"}),
    ({"storage_servers": 4}, set()),
    ({"storage_servers": -1}, {"storage_servers"}),
    ({"storage_servers": 100_001}, {"storage_servers"}),
    ({"storage_ports_per_server": 0}, set()),  # no storage fabric: nothing to connect
    ({"storage_servers": 4, "storage_ports_per_server": 0}, {"storage_ports_per_server"}),
    ({"storage_ports_per_server": 17}, {"storage_ports_per_server"}),
    ({"storage_ports_per_storage_server": 16}, set()),
    ({"storage_ports_per_storage_server": 17}, {"storage_ports_per_storage_server"}),
    ({"storage_oversubscription": 16}, set()),
    ({"storage_oversubscription": 0.9}, {"storage_oversubscription"}),
    ({"switch_part_number": None}, set()),
    ({"switch_part_number": LONG_PART}, {"switch_part_number"}),
    ({"nic_part_number": LONG_PART}, {"nic_part_number"}),
    ({"server_part_number": LONG_PART}, {"server_part_number"}),
    ({"include_nics": True, "rail_optimized": False, "inband_management": True}, set()),
    ({"label": "X" * 200}, set(), OFF_PAGE),  # the drawing's caption: the API's only
    ({"label": "X" * 201}, {"label"}, OFF_PAGE),
]
FABRIC_BASE = {"gpu_count": 64}


def _fabric_engine(values: dict) -> set[str]:
    try:
        check_requirements(FabricRequirements(**values))
    except InvalidInput as error:
        return set(error.errors)
    return set()


def _fabric_serializer(values: dict) -> set[str]:
    serializer = DesignRequestSerializer(data=values)
    return set() if serializer.is_valid() else set(serializer.errors)


def _fabric_form(values: dict) -> set[str]:
    data = DesignForm.initial_data()
    for name, value in values.items():
        if isinstance(value, bool):  # a checkbox: sent when ticked
            data.pop(name, None)
            if value:
                data[name] = "on"
        else:
            data[name] = "" if value is None else str(value)
    form = DesignForm(data)
    return set() if form.is_valid() else set(form.errors)


# The seed catalog: the form offers the NIC generations it can build (all those cases use).
@pytest.mark.parametrize(("change", "refused_on", "off_page"), _cases(FABRIC_CASES))
def test_the_fabric_engine_form_and_serializer_give_the_same_answer(
    seeded, change, refused_on, off_page
):
    values = FABRIC_BASE | change
    assert _fabric_engine(values) == refused_on
    assert _fabric_serializer(values) == refused_on
    if not off_page:
        assert _fabric_form(values) == refused_on


def test_every_fabric_requirement_has_a_spec():
    assert set(specs(FabricRequirements)) == {f.name for f in fields(FabricRequirements)}


def test_the_fabric_form_and_serializer_are_built_from_the_specs():
    form, serializer = DesignForm.base_fields, DesignRequestSerializer().fields
    for name, spec in specs(FabricRequirements).items():
        if spec.kind in ("int", "float"):
            assert getattr(serializer[name], "max_value", None) == spec.high, name
            if name in form:
                assert form[name].max_value == spec.high, name
        if name in form:
            assert str(form[name].label) == spec.label, name


def test_the_project_forms_cluster_fields_are_the_engines_own_and_optional(seeded):
    from quoting.designs.forms.projects import ProjectForm
    from quoting.designs.services.designs import design_nic_generations

    spec = specs(FabricRequirements)
    form = ProjectForm()
    assert form.fields["gpu_count"].max_value == spec["gpu_count"].high
    # The engine's generations, in its order, less those the catalog cannot build.
    offered = [v for v, _ in form.fields["nic_generation"].choices][1:]
    assert offered == [v for v, _ in design_nic_generations()]
    assert set(offered) < set(spec["nic_generation"].values)
    assert ProjectForm({"name": "P"}).is_valid()  # both may stay empty
    too_many = ProjectForm({"name": "P", "gpu_count": spec["gpu_count"].high + 1})
    assert "gpu_count" in too_many.errors
    assert "nic_generation" in ProjectForm({"name": "P", "nic_generation": "nonsense"}).errors


# --- The TCO -----------------------------------------------------------------------------------

GPUS = {"H100": 989.0}
TCO_CASES = [
    ({"nodes": 100_000}, set()),
    ({"nodes": 0}, {"nodes"}),
    ({"nodes": 100_001}, {"nodes"}),
    ({"gpus_per_node": 72}, set()),
    ({"gpus_per_node": 73}, {"gpus_per_node"}),
    ({"workload.params_billion": 0.5}, set()),
    ({"workload.params_billion": 0}, {"workload.params_billion"}),
    ({"workload.params_billion": 100_001}, {"workload.params_billion"}),
    ({"workload.tokens_per_node_per_step": 10**9}, set()),
    ({"workload.tokens_per_node_per_step": 0}, {"workload.tokens_per_node_per_step"}),
    ({"workload.sharding": "fsdp"}, set()),
    ({"workload.sharding": "zero4"}, {"workload.sharding"}),
    ({"workload.overlap": 0.9}, set()),
    ({"workload.overlap": 0.95}, {"workload.overlap"}),
    ({"workload.mfu": 0.005}, set()),  # the form and the API refused below 0.01
    ({"workload.mfu": 0}, {"workload.mfu"}),
    ({"workload.mfu": 1.1}, {"workload.mfu"}),
    ({"workload.active_params_billion": 1}, set()),
    ({"workload.active_params_billion": 0}, {"workload.active_params_billion"}),
    ({"workload.cross_node_bytes_per_token": 1e9}, set()),
    ({"workload.cross_node_bytes_per_token": -1}, {"workload.cross_node_bytes_per_token"}),
    ({"fabrics[0].name": "X" * 60}, set()),
    ({"fabrics[0].name": "X" * 61}, {"fabrics[0].name"}),
    ({"fabrics[0].transport": "tcp"}, set()),
    ({"fabrics[0].transport": "ethernet"}, {"fabrics[0].transport"}),
    ({"fabrics[0].nics_per_node": 72}, set()),
    ({"fabrics[0].nics_per_node": 73}, {"fabrics[0].nics_per_node"}),
    ({"fabrics[0].nic_gbps": 0.5}, set()),  # the form and the API refused below 1
    ({"fabrics[0].nic_gbps": 0}, {"fabrics[0].nic_gbps"}),
    ({"fabrics[0].nic_gbps": 3201}, {"fabrics[0].nic_gbps"}),
    ({"fabrics[0].efficiency": 1}, set()),
    ({"fabrics[0].efficiency": 0}, {"fabrics[0].efficiency"}),
    ({"fabrics[0].measured_busbw_gbps": 0.05}, set()),
    ({"fabrics[0].measured_busbw_gbps": 0}, {"fabrics[0].measured_busbw_gbps"}),
    ({"fabrics[0].network_capex": "999999999999.99"}, set()),
    ({"fabrics[0].network_capex": "1000000000000"}, {"fabrics[0].network_capex"}),
    ({"fabrics[0].network_capex": "-1"}, {"fabrics[0].network_capex"}),
    ({"fabrics[0].network_opex_per_year": "-1"}, {"fabrics[0].network_opex_per_year"}),
    # A quote's support lines; the page leaves it to the support percentage.
    ({"fabrics[0].support_per_year": "43200.00"}, set(), OFF_PAGE),
    ({"fabrics[0].support_per_year": "-1"}, {"fabrics[0].support_per_year"}, OFF_PAGE),
    ({"fabrics[0].oversubscription": 16}, set()),
    ({"fabrics[0].oversubscription": 0.5}, {"fabrics[0].oversubscription"}),
    ({"fabrics[0].servers_per_leaf": 1}, set()),
    ({"fabrics[0].servers_per_leaf": 0}, {"fabrics[0].servers_per_leaf"}),
    ({"fabrics[1].name": "8×400G InfiniBand"}, {"fabrics[1].name"}),  # row 0's name
    ({"costs.pue": "1"}, set()),
    ({"costs.pue": "0.5"}, {"costs.pue"}),  # the API took a PUE of 0
    ({"costs.pue": "3.1"}, {"costs.pue"}),
    ({"costs.life_years": 15}, set()),
    ({"costs.life_years": 16}, {"costs.life_years"}),
    ({"costs.discount_rate": "1"}, set()),
    ({"costs.discount_rate": "1.1"}, {"costs.discount_rate"}),
    ({"costs.support_percent": "101"}, {"costs.support_percent"}),
    ({"costs.tariff_per_kwh": "1000"}, set()),
    ({"costs.tariff_per_kwh": "1000.5"}, {"costs.tariff_per_kwh"}),
    ({"costs.gpu_hour_value": "1000000"}, set()),
    ({"costs.gpu_hour_value": "1000001"}, {"costs.gpu_hour_value"}),
    ({"costs.server_capex": "1000000000001"}, {"costs.server_capex"}),
    # USD takes the CNY defaults at the catalog's reference rate (issue 26); others state them.
    ({"costs.currency": "USD"}, set()),
    # The page offers the currencies of our price lists; the API takes any ISO code.
    ({"costs.currency": "EUR"}, {"costs.tariff_per_kwh", "costs.gpu_hour_value"}, OFF_PAGE),
    ({"costs.currency": "EURO"}, {"costs.currency"}, OFF_PAGE),
    ({"peak_tflops": 1e6}, set(), OFF_PAGE),  # API cap: 1e5
    ({"peak_tflops": 0.5}, set(), OFF_PAGE),
    ({"peak_tflops": 0}, {"peak_tflops"}, OFF_PAGE),
    ({"peak_tflops": 1e6 + 1}, {"peak_tflops"}, OFF_PAGE),
    ({"costs.availability": "1"}, set(), OFF_PAGE),
    ({"costs.availability": "0"}, {"costs.availability"}, OFF_PAGE),  # the API took 0
    ({"costs.server_power_kw": "1001"}, {"costs.server_power_kw"}, OFF_PAGE),
    ({"workload.bucket_mb": 0.5}, set(), OFF_PAGE),
    ({"workload.bytes_per_grad": 3}, {"workload.bytes_per_grad"}, OFF_PAGE),
]


@pytest.fixture
def gpus(monkeypatch):
    monkeypatch.setattr("quoting.designs.forms.tco.gpu_peak_tflops", lambda: GPUS)
    monkeypatch.setattr("quoting.designs.api.tco.gpu_peak_tflops", lambda: GPUS)


_ROW = re.compile(r"fabrics\[(\d)\]\.(\w+)")


def _form_data(change: dict) -> dict:
    data = TcoForms.initial_data()
    for path, value in change.items():
        row = _ROW.fullmatch(path)
        data[f"fabrics-{row[1]}-{row[2]}" if row else path.rsplit(".", 1)[-1]] = str(value)
    return data


def _body(change: dict) -> dict:
    """The page's default request as JSON, with the change."""
    forms = TcoForms(TcoForms.initial_data())
    assert forms.is_valid()
    body = json.loads(json.dumps(forms.body(), cls=DjangoJSONEncoder))
    for path, value in change.items():
        row = _ROW.fullmatch(path)
        if row:
            body["fabrics"][int(row[1])][row[2]] = value
        elif "." in path:
            section, name = path.split(".")
            body[section][name] = value
        else:
            body[path] = value
    return body


def _tco_engine(body: dict) -> set[str]:
    try:
        TcoRequest.from_dict(body, gpu_catalog=GPUS)
    except InvalidInput as error:
        return set(error.errors)
    return set()


def _tco_serializer(body: dict) -> set[str]:
    serializer = TcoRequestSerializer(data=body)
    return set() if serializer.is_valid() else set(flat_errors(serializer.errors))


def _tco_form(data: dict) -> set[str]:
    """As the page does: the forms, then the engine's errors beside the fields they name."""
    forms = TcoForms(data)
    if forms.is_valid():
        try:
            TcoRequest.from_dict(forms.body(), gpu_catalog=GPUS)
        except InvalidInput as error:
            forms.add_engine_errors(error.errors)
    refused = set()
    for name in forms.form.errors:
        section = (
            "workload." if name in WORKLOAD_FIELDS else "costs." if name in COSTS_FIELDS else ""
        )
        refused.add(section + name)
    for row, form in enumerate(forms.fabrics):
        refused |= {f"fabrics[{row}].{name}" for name in form.errors}
    return refused


@pytest.mark.django_db
@pytest.mark.parametrize(("change", "refused_on", "off_page"), _cases(TCO_CASES))
def test_the_tco_engine_form_and_serializer_give_the_same_answer(
    gpus, change, refused_on, off_page
):
    body = _body(change)
    assert _tco_engine(body) == refused_on
    assert _tco_serializer(body) == refused_on
    if not off_page:
        assert _tco_form(_form_data(change)) == refused_on


@pytest.mark.parametrize("cls", [Workload, FabricOption, Costs])
def test_every_tco_input_has_a_spec(cls):
    """Every field a caller gives; what the engine works out itself (init=False: the defaults
    Costs converted from CNY) is no input."""
    assert set(specs(cls)) == {f.name for f in fields(cls) if f.init}


def test_the_sharding_choices_are_the_models_sharding_factors():
    assert specs(Workload)["sharding"].values == tuple(SHARDING_FACTORS)


def test_the_nic_generations_offered_are_catalog_generations():
    # The engine cannot import the catalog's Django choices; they must not drift apart.
    assert set(specs(FabricRequirements)["nic_generation"].values) <= set(Generation.values)

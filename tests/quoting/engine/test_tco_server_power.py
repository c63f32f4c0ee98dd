"""The TCO powers a server it names from the catalog, not from one assumed 8 kW (issue 26).

A DGX B200 at 8 kW made its energy 27 % low: NVIDIA's DGX B200 User Guide ("Power
Specifications") gives 14.3 kW max, the catalog 11 kW typical; a DGX B300 is 12 kW typical in
the catalog (14.5 kW max; its figures are marked "verify" there, as NVIDIA's DGX B300 datasheet
was not at hand). The rule: the costs' stated figure, else the named catalog server's typical
power (its maximum when the catalog has no typical figure), else 8 kW assumed. The assumption
row says which, naming the part number.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from quoting.engine.catalog import ProductSpec
from quoting.engine.errors import InvalidInput
from quoting.engine.tco import TcoRequest, compute_tco
from quoting.engine.tco.assumptions import BASIS_CATALOG, BASIS_STATED, BASIS_TYPICAL
from quoting.engine.tco.model import HOURS_PER_YEAR, evaluate_options
from tests.quoting.engine.conftest import load_catalog

CATALOG_SERVERS = {p.part_number: p for p in load_catalog() if p.category == "server"}
# The GPU servers a TCO prices compute on; a server without GPUs (the UFM host) is not one.
SERVERS = {pn: p for pn, p in CATALOG_SERVERS.items() if p.gpu_count}
PUE, TARIFF = Decimal("1.3"), Decimal("0.7")  # the Costs defaults


def body(server: str = "", nodes: int = 1, **costs) -> dict:
    data = {
        "peak_tflops": 2250,
        "nodes": nodes,
        "gpus_per_node": 8,
        "workload": {"params_billion": 70, "tokens_per_node_per_step": 131_072},
        # no network power: the energy is the servers' alone
        "fabrics": [{"name": "IB", "transport": "infiniband", "nics_per_node": 8, "nic_gbps": 400}],
        "costs": costs,
    }
    return data | ({"server": server} if server else {})


def request(server: str = "", catalog=None, **kwargs) -> TcoRequest:
    catalog = SERVERS if catalog is None else catalog
    return TcoRequest.from_dict(body(server, **kwargs), server_catalog=catalog)


def energy(req: TcoRequest) -> Decimal:
    (option,) = evaluate_options(req)
    return option.annual_cost_breakdown.energy


def power_row(req: TcoRequest):
    (row,) = [a for a in compute_tco(req).assumptions if a.key == "costs.server_power_kw"]
    return row


def yearly_energy(kw: Decimal, nodes: int = 1) -> Decimal:
    return (nodes * kw * PUE * HOURS_PER_YEAR * TARIFF).quantize(Decimal("0.01"))


@pytest.mark.parametrize("part", sorted(p for p, s in SERVERS.items() if s.power_typical_w))
def test_a_named_catalog_server_is_powered_at_its_typical_figure(part):
    """energy = nodes x the catalog's typical kW x PUE x 8,760 h x tariff, for every server."""
    kw = Decimal(str(SERVERS[part].power_typical_w)) / 1000
    assert energy(request(part, nodes=4)) == yearly_energy(kw, nodes=4)


def test_a_dgx_b200_costs_its_11_kw_not_8():
    """One DGX B200 a year at PUE 1.3 and 0.70 CNY/kWh: 87,687.60 CNY at the catalog's 11 kW
    typical (NVIDIA DGX B200 User Guide: 14.3 kW max), where the assumed 8 kW said 63,772.80."""
    assert SERVERS["DGX-B200"].power_typical_w == 11_000
    assert energy(request("DGX-B200")) == Decimal("87687.60")
    assert energy(request()) == Decimal("63772.80")  # no server named: the old 8 kW


def test_a_dgx_b300_costs_its_12_kw_not_8():
    """DGX B300: 12 kW typical in the catalog (to verify against NVIDIA's datasheet), 95,659.20
    CNY a year; 8 kW was 33 % low."""
    assert energy(request("DGX-B300")) == Decimal("95659.20")


def test_the_assumption_names_the_catalog_part_and_reads_as_a_product_specification():
    row = power_row(request("DGX-B200"))
    assert row.value == Decimal("11") and row.unit == "kW"
    assert str(row.label) == "Server power at load: DGX-B200 typical, from the catalog"
    assert str(row.source) == "catalog DGX-B200: typical power"
    assert row.basis == BASIS_CATALOG


def test_no_server_named_is_the_8_kw_assumption_and_says_so():
    row = power_row(request())
    assert row.value == Decimal("8.0")
    assert str(row.label) == "Server power at load, assumed"
    assert row.basis == BASIS_TYPICAL


def test_a_stated_server_power_wins_over_the_catalog():
    req = request("DGX-B200", server_power_kw="9.5")
    assert energy(req) == yearly_energy(Decimal("9.5"))
    row = power_row(req)
    assert str(row.label) == "Server power at load" and row.basis == BASIS_STATED


def test_a_server_without_a_typical_figure_takes_its_maximum_and_says_so():
    only_max = replace(SERVERS["DGX-B200"], power_typical_w=None)
    req = request("DGX-B200", catalog={"DGX-B200": only_max})
    assert energy(req) == yearly_energy(Decimal("14.3"))
    assert "maximum" in str(power_row(req).label)


def test_a_server_without_any_power_figure_falls_back_to_the_assumption_and_names_it():
    bare = ProductSpec("NEW-SRV", "A new 8-GPU server", "server", gpu_model="B200", gpu_count=8)
    req = request("NEW-SRV", catalog={"NEW-SRV": bare})
    assert energy(req) == yearly_energy(Decimal("8.0"))
    row = power_row(req)
    assert str(row.label) == "Server power at load, assumed"
    assert str(row.source).startswith("NEW-SRV has no power figure in the catalog")
    assert row.basis == BASIS_TYPICAL


@pytest.mark.parametrize("server", ["NO-SUCH-SERVER", "MQM9790-NS2F"])
def test_a_server_the_catalog_does_not_hold_is_refused_by_name(server):
    with pytest.raises(InvalidInput) as caught:
        request(server)
    assert set(caught.value.errors) == {"server"}


def test_a_catalog_server_without_gpus_is_refused_as_the_tcos_server():
    ufm_host = next(pn for pn, p in CATALOG_SERVERS.items() if p.family == "UFM")
    with pytest.raises(InvalidInput) as caught:
        TcoRequest.from_dict(body(ufm_host), server_catalog=CATALOG_SERVERS)
    assert "has no GPUs: choose a GPU server" in caught.value.errors["server"][0]

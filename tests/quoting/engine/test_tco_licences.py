"""Network lines sold per year (UFM per-endpoint licences) in the TCO (issue 10 item 6).

They are paid every year of the horizon, in the N-year TCO and in the NPV, never once as capex.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from quoting.engine.tco import Costs, FabricOption, TcoRequest, Workload, compute_tco
from quoting.engine.tco.model import evaluate_options

LICENCES = Decimal("153600")  # 512 endpoints x 300 a year
WORKLOAD = Workload(params_billion=7, tokens_per_node_per_step=131_072)
BOUGHT = FabricOption("IB", "infiniband", 8, 400, network_capex=Decimal(5_000_000))


def results(life_years: int, discount_rate: str = "0.08"):
    licensed = replace(BOUGHT, name="IB with UFM", network_opex_per_year=LICENCES)
    costs = Costs(server_capex=Decimal(80_000_000), life_years=life_years,
                  discount_rate=Decimal(discount_rate))  # fmt: skip
    return evaluate_options(TcoRequest(989.0, 64, 8, WORKLOAD, (BOUGHT, licensed), costs))


@pytest.mark.parametrize("years", [1, 3, 5, 7])
def test_a_yearly_licence_is_paid_once_per_year_of_the_horizon(years):
    without, licensed = results(years)
    assert licensed.tco_n_years - without.tco_n_years == years * LICENCES
    assert licensed.annual_cost_breakdown.licences == LICENCES


def test_a_yearly_licence_is_not_capex_and_pays_no_support():
    without, licensed = results(5)
    assert licensed.capex == without.capex
    assert licensed.annual_cost_breakdown.capital == without.annual_cost_breakdown.capital
    assert licensed.annual_cost_breakdown.support == without.annual_cost_breakdown.support
    assert licensed.annual_cost - without.annual_cost == LICENCES


def test_the_npv_discounts_the_licence_of_every_year():
    without, licensed = results(5)
    discounted = sum(LICENCES * Decimal("1.08") ** -year for year in range(1, 6))
    assert without.npv - licensed.npv == pytest.approx(discounted, abs=Decimal("0.05"))

    without, licensed = results(4, discount_rate="0")
    assert without.npv - licensed.npv == 4 * LICENCES


def test_the_licence_is_printed_as_an_assumption_and_parsed_from_a_body():
    request = TcoRequest.from_dict({
        "peak_tflops": 989, "nodes": 64, "gpus_per_node": 8,
        "workload": {"params_billion": 7, "tokens_per_node_per_step": 131_072},
        "fabrics": [{"name": "IB", "transport": "infiniband", "nics_per_node": 8,
                     "nic_gbps": 400, "network_opex_per_year": "153600.00"}],
    })  # fmt: skip
    assert request.fabrics[0].network_opex_per_year == LICENCES
    keys = {a.key: a for a in compute_tco(request).assumptions}
    assert keys["fabric.IB.network_opex_per_year"].value == LICENCES

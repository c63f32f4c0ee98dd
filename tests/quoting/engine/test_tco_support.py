"""Support in the TCO (issue 22 item 6, tco-model §3).

An option that states its network support per year (a quote's support lines) pays exactly that,
not the support percentage of its network capex; the servers' support stays the percentage of
the server capex, apart, and the assumptions say which is priced and which is assumed.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.tco import Costs, FabricOption, TcoRequest, Workload, compute_tco
from quoting.engine.tco.assumptions import BASIS_PRICES, BASIS_TYPICAL
from quoting.engine.tco.model import evaluate_options

SUPPORT = Decimal("43200.00")  # one flat support contract a year
WORKLOAD = Workload(params_billion=7, tokens_per_node_per_step=131_072)
IB = FabricOption("IB", "infiniband", 8, 400, network_capex=Decimal("4428288.00"))
COSTS = Costs(server_capex=Decimal("29952000.00"))


def request(*fabrics: FabricOption, costs: Costs = COSTS) -> TcoRequest:
    return TcoRequest(989.0, 16, 8, WORKLOAD, fabrics, costs)


def assumption(result, key: str):
    return next(a for a in result.assumptions if a.key == key)


def test_a_stated_support_is_the_options_network_support_not_the_percentage():
    supported = replace(IB, name="IB supported", support_per_year=SUPPORT)
    assumed, priced = evaluate_options(request(IB, supported))

    assert priced.annual_cost_breakdown.support == SUPPORT
    assert assumed.annual_cost_breakdown.support == Decimal("885657.60")  # 20 % of 4,428,288
    # The servers' support is the percentage of their capex for both, apart from the network's.
    assert priced.annual_cost_breakdown.server_support == Decimal("5990400.00")
    assert assumed.annual_cost_breakdown.server_support == Decimal("5990400.00")
    assert assumed.annual_cost - priced.annual_cost == Decimal("885657.60") - SUPPORT


@pytest.mark.parametrize("years", [1, 5, 7])
def test_a_stated_support_is_paid_every_year_of_the_horizon_and_is_not_capex(years):
    costs = replace(COSTS, life_years=years)
    supported = replace(IB, name="IB supported", support_per_year=SUPPORT)
    unsupported = replace(IB, name="IB free support", support_per_year=Decimal(0))
    free, priced = evaluate_options(request(unsupported, supported, costs=costs))

    assert priced.capex == free.capex
    assert priced.tco_n_years - free.tco_n_years == years * SUPPORT


def test_support_of_zero_as_priced_is_zero_not_the_assumption():
    """A support line given away (a 100 % line discount) is support the customer does not pay."""
    (option,) = evaluate_options(request(replace(IB, support_per_year=Decimal(0))))
    assert option.annual_cost_breakdown.support == 0


def test_without_a_stated_support_the_percentage_is_labelled_an_assumption():
    result = compute_tco(request(IB))
    row = assumption(result, "costs.support_percent")

    assert str(row.label) == "Support per year, assumed"
    assert str(row.unit) == "% of hardware" and row.value == Decimal(20)
    assert row.basis == BASIS_TYPICAL
    assert not [a for a in result.assumptions if a.key.endswith(".support_per_year")]


def test_with_every_priced_option_stating_support_only_the_servers_support_is_assumed():
    commodity = FabricOption("2x100G", "roce", 2, 100)  # no design, no network capex
    result = compute_tco(request(replace(IB, support_per_year=SUPPORT), commodity))
    row = assumption(result, "costs.support_percent")
    stated = assumption(result, "fabric.IB.support_per_year")

    assert str(row.label) == "Server support per year, assumed"
    assert str(row.unit) == "% of server capex"
    assert str(stated.label) == "IB: network support per year, as priced"
    assert (stated.value, stated.unit, stated.basis) == (SUPPORT, "CNY", BASIS_PRICES)


def test_with_some_options_stating_support_the_rest_are_said_to_be_assumed():
    other = FabricOption("RoCE", "roce", 8, 400, network_capex=Decimal(1_658_592))
    result = compute_tco(request(replace(IB, support_per_year=SUPPORT), other))

    label = str(assumption(result, "costs.support_percent").label)
    assert label == "Support per year where none is priced, assumed"


def test_support_per_year_is_parsed_from_a_body_and_a_negative_one_refused():
    body = {
        "peak_tflops": 989, "nodes": 16, "gpus_per_node": 8,
        "workload": {"params_billion": 7, "tokens_per_node_per_step": 131_072},
        "fabrics": [{"name": "IB", "transport": "infiniband", "nics_per_node": 8,
                     "nic_gbps": 400, "support_per_year": "43200.00"}],
    }  # fmt: skip
    assert TcoRequest.from_dict(body).fabrics[0].support_per_year == SUPPORT
    body["fabrics"][0]["support_per_year"] = "-1"
    with pytest.raises(InvalidInput) as refused:
        TcoRequest.from_dict(body)
    assert list(refused.value.errors) == ["fabrics[0].support_per_year"]

"""Payback of a dearer fabric: its capex premium over the cheapest option, divided by what it
gains a year net of what it costs more a year (issue 26, tco-model §3).

Before issue 26 the premium was divided by the gross value of the compute it recovers, as if
the dearer network's own support, energy and licences were free: a 256-GPU H100 InfiniBand
design read 0.81 years where the net rule gives 0.98. A net gain of 0 or less never pays back,
and says so rather than printing a negative or infinite number of years.
"""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from quoting.engine.money import round_money
from quoting.engine.tco import TcoRequest, compute_tco
from quoting.engine.tco.model import evaluate_options, premium_payback

COSTS = {"server_capex": 8_000_000, "gpu_hour_value": 12}
CHEAP = {"name": "1x100G RoCE", "transport": "roce", "nics_per_node": 1, "nic_gbps": 100,
         "network_capex": "200000"}  # fmt: skip
IB = {"name": "8x400G IB", "transport": "infiniband", "nics_per_node": 8, "nic_gbps": 400,
      "network_capex": "1400000"}  # fmt: skip


# A reference build without a design: its network is not priced (no network_capex).
COMMODITY = {"name": "2x100G RoCE (commodity)", "transport": "roce", "nics_per_node": 2,
             "nic_gbps": 100}  # fmt: skip


def request(*fabrics: dict, costs: dict = COSTS) -> TcoRequest:
    return TcoRequest.from_dict(
        {
            "peak_tflops": 989,
            "nodes": 4,
            "gpus_per_node": 8,
            "workload": {"params_billion": 7, "tokens_per_node_per_step": 131_072},
            "fabrics": list(fabrics),
            "costs": costs,
        }
    )


def options(*fabrics: dict, costs: dict = COSTS):
    return evaluate_options(request(*fabrics, costs=costs))


def test_the_premium_is_divided_by_the_value_gained_less_its_own_yearly_costs():
    """A 1.2 M premium whose network draws 10 kW more (79,716 CNY a year at PUE 1.3 and
    0.70 CNY/kWh), is supported for 100,000 and licensed for 50,000 a year: all three are taken
    from the compute value it gains before the premium is divided by it."""
    dear = IB | {"network_power_w": 10_000, "support_per_year": "100000",
                 "network_opex_per_year": "50000"}  # fmt: skip
    best, cheap = options(dear, CHEAP | {"support_per_year": "0"})

    extra = best.annual_cost_breakdown.operating - cheap.annual_cost_breakdown.operating
    assert extra == Decimal("79716.00") + 100_000 + 50_000
    gained = (best.effective_gpu_hours_per_year - cheap.effective_gpu_hours_per_year) * 12
    assert best.payback_years == round_money(Decimal(1_200_000) / (gained - extra))
    assert best.payback_years > round_money(Decimal(1_200_000) / gained)
    assert not best.never_pays_back


def test_a_dearer_option_that_gains_nothing_never_pays_back():
    """Two fabrics that both hide all their traffic: the dearer gains no compute, so its premium
    is never paid back (before: left blank, like the cheapest option's)."""
    dear, cheap = options(IB, IB | {"name": "same, cheaper", "network_capex": "1000000"})
    assert dear.network_efficiency == cheap.network_efficiency
    assert dear.payback_years is None and dear.never_pays_back


def test_a_premium_whose_yearly_costs_eat_its_gain_never_pays_back():
    """The IB option gains compute, but 5 M a year of support on it leaves no net gain."""
    best, cheap = options(IB | {"support_per_year": "5000000"}, CHEAP)
    assert best.value_lost_per_year < cheap.value_lost_per_year  # it does gain compute
    assert best.payback_years is None and best.never_pays_back


def test_the_cheapest_option_has_no_premium_to_pay_back():
    _best, cheap = options(IB, CHEAP)
    assert cheap.payback_years is None and not cheap.never_pays_back


def test_an_unpriced_option_is_never_the_baseline_the_cheapest_priced_one_is():
    """Issue 27: the commodity build, not priced, has the lowest capex (servers alone). Measured
    against it, the IB premium would be its whole network. Against the cheapest priced option,
    1x100G RoCE, the IB payback is the same as with the commodity build left out."""
    ib, cheap, commodity = options(IB, CHEAP, COMMODITY)
    assert commodity.capex < cheap.capex  # what made it the baseline before
    without = options(IB, CHEAP)[0]
    assert ib.payback_years == without.payback_years and ib.payback_years is not None
    assert cheap.payback_years is None and not cheap.never_pays_back  # the baseline itself
    assert commodity.payback_years is None and not commodity.never_pays_back
    assert compute_tco(request(IB, CHEAP, COMMODITY)).payback_baseline == "1x100G RoCE"
    assert compute_tco(request(IB, CHEAP, COMMODITY)).as_dict()["payback_baseline"] == (
        "1x100G RoCE"
    )


def test_with_one_option_priced_it_is_the_baseline_and_no_payback_is_shown():
    ib, commodity = options(IB, COMMODITY)
    assert (ib.payback_years, ib.never_pays_back) == (None, False)
    assert (commodity.payback_years, commodity.never_pays_back) == (None, False)
    assert compute_tco(request(IB, COMMODITY)).payback_baseline == "8x400G IB"


def test_with_no_option_priced_there_is_no_baseline_and_no_payback():
    unpriced = [f | {"network_capex": "0"} for f in (IB, CHEAP)]  # 0 reads as empty
    results = options(*unpriced, COMMODITY)
    assert all(o.payback_years is None and not o.never_pays_back for o in results)
    assert compute_tco(request(*unpriced, COMMODITY)).payback_baseline is None


money = st.decimals(min_value=-(10**9), max_value=10**9, places=2, allow_nan=False)


@given(money, money, money)
def test_payback_is_a_positive_number_of_years_or_none_never_negative_or_infinite(
    premium, gained, extra
):
    years, never = premium_payback(premium=premium, gained=gained, extra_costs=extra)
    if premium <= 0:
        assert (years, never) == (None, False)
    elif gained - extra <= 0:
        assert (years, never) == (None, True)
    else:
        assert not never and years.is_finite() and years >= 0
        assert years == round_money(premium / (gained - extra))

"""Rules the TCO model keeps for every input, not just the published points (issue 4)."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from quoting.engine.tco import Costs, FabricOption, TcoRequest, Workload
from quoting.engine.tco.model import evaluate_options, fabric_step_time
from quoting.engine.tco.presets import SHARDING_FACTORS, TRANSPORTS

workloads = st.builds(
    Workload,
    params_billion=st.floats(0.1, 1000),
    tokens_per_node_per_step=st.integers(512, 4_000_000),
    sharding=st.sampled_from(sorted(SHARDING_FACTORS)),
    overlap=st.floats(0, 0.9),
    mfu=st.floats(0.05, 1),
    bytes_per_grad=st.sampled_from((1, 2, 4)),
    cross_node_bytes_per_token=st.sampled_from((0.0, 1e5, 2e6)),
)
fabrics = st.builds(
    FabricOption,
    name=st.just("option"),
    transport=st.sampled_from(sorted(TRANSPORTS)),
    nics_per_node=st.integers(1, 8),
    nic_gbps=st.sampled_from((10, 25, 100, 200, 400, 800)),
    efficiency=st.one_of(st.none(), st.floats(0.05, 1)),
)
money = st.decimals(min_value=0, max_value=10**9, places=2)
costs = st.builds(
    Costs,
    server_capex=money,
    services_capex=money,
    pue=st.decimals(1, 3, places=2),
    tariff_per_kwh=st.decimals(0, 5, places=3),
    life_years=st.integers(1, 15),
    discount_rate=st.decimals(0, 1, places=3),
    support_percent=st.decimals(0, 100, places=1),
    space_per_year=money,
    availability=st.decimals("0.01", 1, places=2),
    utilisation=st.decimals("0.01", 1, places=2),
    gpu_hour_value=st.decimals(0, 100, places=2),
)


def make(workload: Workload, *options: FabricOption, nodes: int = 16, costs=None) -> TcoRequest:
    return TcoRequest(
        peak_tflops=989.0,
        nodes=nodes,
        gpus_per_node=8,
        workload=workload,
        fabrics=options,
        costs=costs or Costs(),
    )


def efficiency(req: TcoRequest, option: FabricOption, nodes: int) -> float:
    return fabric_step_time(req, option, nodes=nodes).network_efficiency


@given(workloads, fabrics)
def test_a_single_node_is_always_fully_efficient(workload, option):
    assert efficiency(make(workload, option, nodes=1), option, 1) == 1.0


@given(workloads, fabrics, st.integers(2, 1024), st.integers(1, 4), st.floats(1, 8))
def test_more_bandwidth_never_lowers_efficiency(workload, option, nodes, more_nics, faster):
    better = replace(option, nics_per_node=option.nics_per_node * more_nics)
    better = replace(better, nic_gbps=option.nic_gbps * faster)

    base = efficiency(make(workload, option, nodes=nodes), option, nodes)
    assert efficiency(make(workload, better, nodes=nodes), better, nodes) >= base


@given(workloads, fabrics, st.integers(1, 1024), st.integers(1, 1024))
def test_more_nodes_at_the_same_tokens_per_node_never_raise_efficiency(workload, option, a, b):
    fewer, more = sorted((a, b))
    req = make(workload, option, nodes=fewer)
    assert efficiency(req, option, more) <= efficiency(req, option, fewer)


@settings(max_examples=50)
@given(workloads, fabrics, costs, st.integers(2, 256))
def test_lower_efficiency_at_the_same_cost_never_lowers_cost_per_effective_gpu_hour(
    workload, option, cost_inputs, nodes
):
    fast = replace(option, name="fast", nics_per_node=option.nics_per_node * 2)
    slow = replace(option, name="slow")
    fast_result, slow_result = evaluate_options(
        make(workload, fast, slow, nodes=nodes, costs=cost_inputs)
    )

    assert slow_result.network_efficiency <= fast_result.network_efficiency
    assert slow_result.cost_per_effective_gpu_hour >= fast_result.cost_per_effective_gpu_hour


@settings(max_examples=50)
@given(workloads, fabrics, fabrics, costs, money, st.integers(1, 256))
def test_money_is_decimal_and_never_negative(workload, first, second, cost_inputs, capex, nodes):
    options = (replace(first, name="a"), replace(second, name="b", network_capex=capex))
    for result in evaluate_options(make(workload, *options, nodes=nodes, costs=cost_inputs)):
        totals = (
            result.capex,
            result.annual_cost,
            *vars_of(result.annual_cost_breakdown),
            result.cost_per_effective_gpu_hour,
            result.value_lost_per_year,
            result.tco_n_years,
        )
        assert all(isinstance(t, Decimal) and t >= 0 for t in totals)
        assert isinstance(result.npv, Decimal)  # value minus cost: may rightly be negative
        assert result.payback_years is None or result.payback_years >= 0


def vars_of(breakdown) -> tuple[Decimal, ...]:
    return (
        breakdown.capital,
        breakdown.support,
        breakdown.server_support,
        breakdown.energy,
        breakdown.space,
    )

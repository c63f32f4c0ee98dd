"""Oversubscription between leaf and spine in the TCO (issue 10 item 6, tco-model §4 point 8).

A job spanning several leaves gets at most 1/r of the leaf's downlink bandwidth across the spine
layer for its cross-leaf traffic; a 1-leaf job is unaffected; 2:1 is never as efficient as 1:1
for a multi-leaf job. The loss is derived from the job's cross-leaf share, never a constant.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quoting.engine.errors import InvalidInput
from quoting.engine.tco import FabricOption, TcoRequest, Workload
from quoting.engine.tco.model import (
    cross_leaf_share,
    evaluate_options,
    fabric_step_time,
    oversubscription_slowdown,
)
from quoting.engine.tco.presets import SHARDING_FACTORS, TRANSPORTS

# Network-bound on purpose (small batch, no overlap), so the spine layer shows in efficiency.
HARD_JOB = Workload(params_billion=7, tokens_per_node_per_step=16_384, overlap=0.0)
IB = FabricOption("8x400G IB", "infiniband", 8, 400, servers_per_leaf=32)


def at(ratio: float, **changes) -> FabricOption:
    return replace(IB, name=f"{ratio}:1", oversubscription=ratio, **changes)


def efficiency(option: FabricOption, nodes: int, workload: Workload = HARD_JOB) -> float:
    request = TcoRequest(989.0, nodes, 8, workload, (option,))
    return fabric_step_time(request, option, nodes=nodes).network_efficiency


def test_a_2_to_1_leaf_is_less_efficient_than_1_to_1_for_a_job_spanning_several_leaves():
    """64 nodes over 32-server rail groups: two leaves per rail, half the peers off-leaf."""
    assert efficiency(at(2), 64) < efficiency(at(1), 64)


def test_a_job_under_one_leaf_is_unaffected_by_oversubscription():
    for ratio in (1, 2, 3, 16):
        assert efficiency(at(ratio), 32) == efficiency(at(1), 32)


def test_efficiency_falls_with_every_step_of_the_ratio_for_a_multi_leaf_job():
    ratios = [1, 1.5, 2, 3, 4, 8, 16]
    curve = [efficiency(at(r), 128) for r in ratios]
    assert curve == sorted(curve, reverse=True) and len(set(curve)) == len(curve)


def test_cross_leaf_traffic_gets_one_rth_of_the_downlink_bandwidth():
    """With one server per leaf every peer is off-leaf: the network time is exactly r times
    the non-blocking one. With 32 per leaf, 64 nodes send 32 of 63 peers' share off-leaf."""
    assert oversubscription_slowdown(at(3, servers_per_leaf=1), nodes=64) == 3
    assert cross_leaf_share(nodes=64, servers_per_leaf=32) == pytest.approx(32 / 63)
    assert oversubscription_slowdown(at(2), nodes=64) == pytest.approx(1 + 32 / 63)


def test_the_default_leaf_is_a_32_server_rail_group():
    default = FabricOption("2:1", "infiniband", 8, 400, oversubscription=2)
    assert oversubscription_slowdown(default, nodes=32) == 1
    assert oversubscription_slowdown(default, nodes=33) > 1


def test_1_to_1_2_to_1_and_3_to_1_options_no_longer_score_alike():
    request = TcoRequest(989.0, 128, 8, HARD_JOB, (at(1), at(2), at(3)))
    one, two, three = evaluate_options(request)
    assert one.network_efficiency > two.network_efficiency > three.network_efficiency
    assert one.predicted_busbw_gbytes > two.predicted_busbw_gbytes > three.predicted_busbw_gbytes
    assert (
        one.cost_per_effective_gpu_hour
        < two.cost_per_effective_gpu_hour
        < three.cost_per_effective_gpu_hour
    )


def test_a_measured_busbw_already_pays_the_oversubscription_of_the_quoted_cluster():
    """The same 300 GB/s measured across 128 nodes means the same thing at 1:1 and 2:1: the
    quoted size trains alike, and the 2:1 fabric would do better on a job under one leaf."""
    one = at(1, measured_busbw_gbps=300.0)
    two = at(2, measured_busbw_gbps=300.0)
    request = TcoRequest(989.0, 128, 8, HARD_JOB, (one, two))
    at_quote = [fabric_step_time(request, f, nodes=128).network_efficiency for f in (one, two)]
    in_leaf = [fabric_step_time(request, f, nodes=16).network_efficiency for f in (one, two)]

    assert at_quote[0] == pytest.approx(at_quote[1])
    assert in_leaf[1] > in_leaf[0]


workloads = st.builds(
    Workload,
    params_billion=st.floats(0.1, 1000),
    tokens_per_node_per_step=st.integers(512, 4_000_000),
    sharding=st.sampled_from(sorted(SHARDING_FACTORS)),
    overlap=st.floats(0, 0.9),
    mfu=st.floats(0.05, 1),
    cross_node_bytes_per_token=st.sampled_from((0.0, 1e5, 2e6)),
)
options = st.builds(
    FabricOption,
    name=st.just("option"),
    transport=st.sampled_from(sorted(TRANSPORTS)),
    nics_per_node=st.integers(1, 8),
    nic_gbps=st.sampled_from((25, 100, 200, 400, 800)),
    servers_per_leaf=st.one_of(st.none(), st.integers(1, 256)),
)


@given(workloads, options, st.integers(1, 1024), st.floats(1, 16), st.floats(1, 16))
def test_a_higher_ratio_never_raises_efficiency(workload, option, nodes, a, b):
    low, high = sorted((a, b))
    assert efficiency(replace(option, oversubscription=high), nodes, workload) <= efficiency(
        replace(option, oversubscription=low), nodes, workload
    )


@given(workloads, options, st.floats(1, 16), st.integers(1, 1024), st.integers(1, 1024))
def test_more_nodes_on_an_oversubscribed_fabric_never_raise_efficiency(
    workload, option, ratio, a, b
):
    fewer, more = sorted((a, b))
    option = replace(option, oversubscription=ratio)
    request = TcoRequest(989.0, fewer, 8, workload, (option,))
    assert (
        fabric_step_time(request, option, nodes=more).network_efficiency
        <= fabric_step_time(request, option, nodes=fewer).network_efficiency
    )


def body(**option) -> dict:
    return {
        "peak_tflops": 989,
        "nodes": 64,
        "gpus_per_node": 8,
        "workload": {"params_billion": 7, "tokens_per_node_per_step": 16_384},
        "fabrics": [{"name": "IB", "transport": "infiniband", "nics_per_node": 8,
                     "nic_gbps": 400} | option],
    }  # fmt: skip


@pytest.mark.parametrize("value", [0, 0.5, 17, "2", True])
def test_the_engine_refuses_a_ratio_outside_1_to_16_naming_the_field(value):
    with pytest.raises(InvalidInput) as caught:
        TcoRequest.from_dict(body(oversubscription=value))
    assert set(caught.value.errors) == {"fabrics[0].oversubscription"}


@pytest.mark.parametrize("value", [0, -1, 2.5, 100_001])
def test_the_engine_refuses_a_bad_servers_per_leaf(value):
    with pytest.raises(InvalidInput) as caught:
        TcoRequest.from_dict(body(servers_per_leaf=value))
    assert set(caught.value.errors) == {"fabrics[0].servers_per_leaf"}


def test_the_engine_takes_both_ends_of_the_ratio_range():
    for ratio in (1, 16):
        (option,) = TcoRequest.from_dict(body(oversubscription=ratio, servers_per_leaf=4)).fabrics
        assert (option.oversubscription, option.servers_per_leaf) == (ratio, 4)

"""A GPU-hour valued below its cost makes every NPV negative: the result says so, with the
figures, instead of leaving a buyer to read "NPV -172 M" unexplained. A value above the cost
says nothing."""

from __future__ import annotations

from decimal import Decimal

from quoting.engine.tco import TcoRequest, compute_tco

BODY = {
    "peak_tflops": 989.0,  # H100 SXM dense BF16
    "nodes": 32,
    "gpus_per_node": 8,
    "workload": {"params_billion": 7, "tokens_per_node_per_step": 131_072, "mfu": 0.45},
    "costs": {"server_capex": "96000000"},
    "fabrics": [
        {
            "name": "InfiniBand",
            "transport": "infiniband",
            "nics_per_node": 8,
            "nic_gbps": 400,
            "network_capex": "12000000",
            "network_power_w": 20000,
        },
        {
            "name": "RoCE",
            "transport": "roce",
            "nics_per_node": 8,
            "nic_gbps": 400,
            "network_capex": "9000000",
            "network_power_w": 18000,
        },
    ],
}


def result_for(value: str | None):
    body = {**BODY, "costs": {**BODY["costs"], **({"gpu_hour_value": value} if value else {})}}
    return compute_tco(TcoRequest.from_dict(body))


def test_a_value_below_the_cost_warns_with_both_figures():
    result = result_for(None)  # the 12 CNY default
    cheapest = min(o.cost_per_effective_gpu_hour for o in result.options)
    assert cheapest > Decimal(12)
    assert all(o.npv < 0 for o in result.options)
    [warning] = result.warnings
    text = str(warning)
    assert "(12.00 CNY)" in text and f"({cheapest:,.2f} CNY on the cheapest option)" in text
    assert result.as_dict()["warnings"] == [text]


def test_a_value_above_the_cost_says_nothing():
    result = result_for("60")
    assert min(o.cost_per_effective_gpu_hour for o in result.options) < Decimal(60)
    assert result.warnings == () and result.as_dict()["warnings"] == []

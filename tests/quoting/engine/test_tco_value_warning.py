"""A GPU-hour valued below its cost makes every NPV negative: the result says so, with the
figures, instead of leaving a buyer to read "NPV -172 M" unexplained. A value above the cost
says nothing."""

from __future__ import annotations

from decimal import Decimal

from quoting.engine.tco import TcoRequest, compute_tco
from quoting.engine.tco.presets import CNY_GPU_HOUR_VALUE, CNY_PER_USD, GPU_HOUR_VALUE_USD

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
    result = result_for("12")  # the default before issue 26
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


def test_the_default_value_of_a_gpu_hour_sits_above_its_cost_and_is_the_sourced_cloud_price():
    """49.54 CNY: AWS p5.48xlarge on demand, USD 6.88 per H100 GPU-hour, at 7.2 CNY to the
    dollar (presets.CNY_GPU_HOUR_VALUE). At the defaults an owned cluster's effective GPU-hour
    costs less, so the NPV reads as money earned, and nothing warns."""
    assert round(GPU_HOUR_VALUE_USD * CNY_PER_USD, 2) == CNY_GPU_HOUR_VALUE
    result = result_for(None)
    assert max(o.cost_per_effective_gpu_hour for o in result.options) < CNY_GPU_HOUR_VALUE
    assert result.warnings == ()
    assert all(o.npv > 0 for o in result.options)
    [row] = [a for a in result.assumptions if a.key == "costs.gpu_hour_value"]
    assert row.value == CNY_GPU_HOUR_VALUE and "p5.48xlarge" in str(row.source)

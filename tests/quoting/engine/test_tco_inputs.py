"""TcoRequest.from_dict: the REST body's one door. Every bad field is named with a dotted path."""

from __future__ import annotations

import copy
import csv
from decimal import Decimal
from pathlib import Path

import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.tco import TcoRequest

CATALOG_CSV = Path(__file__).resolve().parents[3] / "catalog" / "data" / "nvidia_catalog.csv"


def gpu_catalog() -> dict[str, float]:
    """What the caller builds from the catalog: GPU model -> peak dense BF16 TFLOP/s."""
    with CATALOG_CSV.open(newline="", encoding="utf-8") as handle:
        return {
            row["gpu_model"]: float(row["gpu_peak_tflops"])
            for row in csv.DictReader(handle)
            if row["category"] == "server" and row["gpu_model"]
        }


BODY = {
    "gpu": "H100",
    "nodes": 16,
    "gpus_per_node": 8,
    "workload": {
        "params_billion": 70,
        "tokens_per_node_per_step": 131072,
        "sharding": "fsdp",
        "overlap": 0.7,
        "mfu": 0.4,
    },
    "fabrics": [
        {"name": "IB", "transport": "infiniband", "nics_per_node": 8, "nic_gbps": 400},
        {
            "name": "RoCE",
            "transport": "roce",
            "nics_per_node": 8,
            "nic_gbps": 400,
            "measured_busbw_gbps": 360.5,
            "network_capex": "4200000.10",
            "network_power_w": 21000,
        },
    ],
    "costs": {"currency": "CNY", "server_capex": 64_000_000, "tariff_per_kwh": 0.61},
}


def parse(body: dict) -> TcoRequest:
    return TcoRequest.from_dict(body, gpu_catalog=gpu_catalog())


def errors_for(change) -> dict[str, list[str]]:
    body = copy.deepcopy(BODY)
    change(body)
    with pytest.raises(InvalidInput) as caught:
        parse(body)
    return caught.value.errors


def test_a_full_body_parses_with_the_gpu_resolved_through_the_catalog():
    req = parse(BODY)

    assert req.gpu == "H100" and req.peak_tflops == 989.0
    assert req.workload.sharding_factor == 1.5
    assert req.fabrics[1].measured_busbw_gbps == 360.5
    assert req.fabrics[1].network_capex == Decimal("4200000.10")
    assert req.costs.tariff_per_kwh == Decimal("0.61")  # JSON float, exact in Decimal
    assert req.costs.gpu_hour_value == Decimal("49.54")  # CNY default: H100 on demand


def test_peak_tflops_may_be_given_instead_of_a_gpu_name():
    body = copy.deepcopy(BODY)
    del body["gpu"]
    body["peak_tflops"] = 312
    assert TcoRequest.from_dict(body).peak_tflops == 312.0


def _set(path: str, value):
    def change(body: dict) -> None:
        *parents, leaf = path.split(".")
        target = body
        for key in parents:
            target = target[int(key)] if key.isdigit() else target[key]
        if value is _DELETE:
            del target[leaf]
        else:
            target[leaf] = value

    return change


_DELETE = object()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (_set("nodes", -4), "nodes"),
        (_set("nodes", 2.5), "nodes"),
        (_set("nodes", True), "nodes"),
        (_set("gpus_per_node", 0), "gpus_per_node"),
        (_set("gpu", "H900"), "gpu"),
        (_set("gpu", _DELETE), "gpu"),
        (_set("workload.overlap", 3), "workload.overlap"),
        (_set("workload.mfu", 0), "workload.mfu"),
        (_set("workload.params_billion", "seventy"), "workload.params_billion"),
        (_set("workload.tokens_per_node_per_step", _DELETE), "workload.tokens_per_node_per_step"),
        (_set("workload.sharding", "zero4"), "workload.sharding"),
        (_set("workload.bytes_per_grad", 3), "workload.bytes_per_grad"),
        (_set("workload.overlapp", 0.5), "workload.overlapp"),
        (_set("workload", _DELETE), "workload"),
        (_set("fabrics.1.transport", "omnipath"), "fabrics[1].transport"),
        (_set("fabrics.0.nics_per_node", -1), "fabrics[0].nics_per_node"),
        (_set("fabrics.0.nic_gbps", 0), "fabrics[0].nic_gbps"),
        (_set("fabrics.0.efficiency", 1.5), "fabrics[0].efficiency"),
        (_set("fabrics.1.name", "IB"), "fabrics[1].name"),
        (_set("fabrics.1.network_capex", -1), "fabrics[1].network_capex"),
        (_set("fabrics.1.network_capex", "lots"), "fabrics[1].network_capex"),
        (_set("fabrics", _DELETE), "fabrics"),
        (_set("fabrics", []), "fabrics"),
        (_set("costs.currency", "yuan"), "costs.currency"),
        (_set("costs.pue", 0.8), "costs.pue"),
        (_set("costs.availability", 0), "costs.availability"),
        (_set("costs.life_years", 0), "costs.life_years"),
        (_set("costs.support_percent", 250), "costs.support_percent"),
    ],
)
def test_bad_input_names_the_field(change, field):
    assert field in errors_for(change)


def test_more_than_eight_fabric_options_are_refused():
    options = [{**BODY["fabrics"][0], "name": f"IB {i}"} for i in range(9)]
    assert "fabrics" in errors_for(_set("fabrics", options))


def test_a_measured_busbw_needs_more_than_one_node():
    def one_node(body):
        body["nodes"] = 1

    assert "fabrics[1].measured_busbw_gbps" in errors_for(one_node)


def test_every_bad_field_is_reported_at_once():
    def many(body):
        body["nodes"] = -1
        body["workload"]["overlap"] = 3
        body["fabrics"][0]["transport"] = "tcp/ip"

    assert set(errors_for(many)) == {"nodes", "workload.overlap", "fabrics[0].transport"}


def test_a_body_that_is_not_an_object_is_refused():
    with pytest.raises(InvalidInput):
        TcoRequest.from_dict([1, 2, 3])

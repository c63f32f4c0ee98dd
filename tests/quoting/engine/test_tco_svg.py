"""TCO charts: valid XML, one series per fabric option, user text escaped."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from quoting.designs.svg.tco import cost_breakdown_chart, cost_per_hour_chart, efficiency_chart
from quoting.engine.tco import TcoRequest, compute_tco

SVG = "{http://www.w3.org/2000/svg}"
NAMES = ["8x400G IB", "RoCE <tuned> & fast", '2x100G "budget"']


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # noqa: S314 - our own output, and the test is that it parses


@pytest.fixture(scope="module")
def result():
    body = {
        "peak_tflops": 989,
        "nodes": 32,
        "gpus_per_node": 8,
        "workload": {"params_billion": 7, "tokens_per_node_per_step": 131072, "overlap": 0.5},
        "fabrics": [
            {
                "name": NAMES[0],
                "transport": "infiniband",
                "nics_per_node": 8,
                "nic_gbps": 400,
                "network_capex": 9_000_000,
            },
            {
                "name": NAMES[1],
                "transport": "roce",
                "nics_per_node": 8,
                "nic_gbps": 400,
                "network_capex": 7_000_000,
            },
            {
                "name": NAMES[2],
                "transport": "roce",
                "nics_per_node": 2,
                "nic_gbps": 100,
                "network_capex": 1_500_000,
            },
        ],
        "costs": {"server_capex": 80_000_000},
    }
    return compute_tco(TcoRequest.from_dict(body))


@pytest.mark.parametrize("chart", [efficiency_chart, cost_breakdown_chart, cost_per_hour_chart])
def test_chart_parses_as_svg_with_one_series_per_fabric(chart, result):
    root = parse(chart(result))

    assert root.tag == f"{SVG}svg"
    series = [g.get("data-name") for g in root.iter(f"{SVG}g") if g.get("class") == "series"]
    assert series == NAMES


def test_efficiency_lines_have_a_point_per_cluster_size(result):
    root = parse(efficiency_chart(result))
    lines = list(root.iter(f"{SVG}polyline"))

    assert len(lines) == len(NAMES)
    assert all(len(line.get("points").split()) == 11 for line in lines)  # 1 ... 1024 nodes


def test_cost_breakdown_stacks_five_components_per_option(result):
    """Capital, network support, server support (the servers are priced), energy, space."""
    root = parse(cost_breakdown_chart(result))
    for group in root.iter(f"{SVG}g"):
        assert len(group.findall(f"{SVG}rect")) == 5
    assert "Server support" in cost_breakdown_chart(result)


def test_yearly_licences_are_a_fifth_stacked_component_when_an_option_pays_them(result):
    body = {
        "peak_tflops": 989,
        "nodes": 64,
        "gpus_per_node": 8,
        "workload": {"params_billion": 7, "tokens_per_node_per_step": 131072},
        "fabrics": [
            {"name": "UFM", "transport": "infiniband", "nics_per_node": 8, "nic_gbps": 400,
             "network_opex_per_year": 1_105_920},
            {"name": "none", "transport": "roce", "nics_per_node": 8, "nic_gbps": 400},
        ],
    }  # fmt: skip
    licensed = compute_tco(TcoRequest.from_dict(body))
    root = parse(cost_breakdown_chart(licensed))
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") == "series"]

    assert [len(g.findall(f"{SVG}rect")) for g in groups] == [5, 5]
    assert "Licences (per year)" in cost_breakdown_chart(licensed)
    assert "Licences" not in cost_breakdown_chart(result)

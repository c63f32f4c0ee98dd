"""ufm-ndt.csv as the UFM NDT plugin's own parser reads it (topo_diff.parse_ndt_file in NVIDIA's
public ufm_sdk_3.0, plugins/UFM_NDT_Plugin): CI cannot download that code and we do not copy it,
so its rules are restated here. Each row's start and end ports must match one of the plugin's
patterns, the switch patterns of its shipped build/config/ndt.conf plus the host pattern the
README tells the operator to configure."""

from __future__ import annotations

import csv
import io
import re

import pytest

from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.install import SiteInputs, exports, plan_layout

# build/config/ndt.conf, [Validation] switch_patterns (the parser keeps any pattern's group 1).
SWITCH_PATTERNS = (
    r"^Port (\d+)$",
    r"(^Blade \d+_Port \d+/\d+$)",
    r"^Port (\d+/\d+/\d+$)",
    r"^Port (\d+/\d+/\d+/\d+$)",
    r"^Port (\S+/\d+/\d+$)",
    r"^Port (\S+/\d+/\d+/\d+$)",
    r"^Port (\S+)$",
)
# The keys parse_ndt_port looks up: a start device under one of three names, then these.
START_DEVICE_KEYS = ("#StartDevice", "#Fields:StartDevice", "StartDevice")
OTHER_KEYS = ("StartPort", "EndDevice", "EndPort")

DESIGNS = {
    "256 GPUs NDR": dict(gpu_count=256),
    "248 DGX H100 GPUs with UFM appliances": dict(
        gpu_count=248, server_part_number="DGX-H100", subnet_manager="ufm-appliance"
    ),
    "NDR200 split ports": dict(gpu_count=512, nic_generation="NDR200"),
    "16 DGX H100 at NDR200 on one switch (BasePOD)": dict(
        server_count=16, nic_generation="NDR200", server_part_number="DGX-H100"
    ),
    "UFM appliances and storage": dict(
        gpu_count=496, subnet_manager="ufm-appliance", storage_servers=4
    ),
    "72 DGX H100 GPUs on leaves of two rails, UFM appliances": dict(
        gpu_count=72, server_part_number="DGX-H100", subnet_manager="ufm-appliance"
    ),
}


def parsed_port(port: str) -> str:
    """What the plugin's parser makes of a port, or "" where it logs 'Failed to parse'."""
    found = ""
    for pattern in (*SWITCH_PATTERNS, exports.NDT_HOST_PATTERN):
        match = re.match(pattern, port)
        if match:
            found = match.group(1)
    return found


@pytest.fixture(params=list(DESIGNS), scope="module")
def layout(request, catalog):
    design = design_fabric(FabricRequirements(**DESIGNS[request.param]), catalog)
    return plan_layout(design, SiteInputs(), catalog)


def test_every_row_parses_with_the_plugins_rules_and_names_each_fabric_link_once(layout):
    rows = list(csv.DictReader(io.StringIO("".join(exports.ufm_ndt_csv(layout)))))
    assert rows
    header = list(rows[0])
    assert any(key in header for key in START_DEVICE_KEYS)
    assert all(key in header for key in OTHER_KEYS)
    links = set()
    for row in rows:
        start = row["#StartDevice"]
        for port in (row["StartPort"], row["EndPort"]):
            assert parsed_port(port), f"the plugin would fail to parse {port!r}"
        # Switch ends are front-panel numbers, a split lane as n/lane; never a cage name.
        for port in (row["StartPort"], row["EndPort"]):
            if port.startswith("Port "):
                assert re.fullmatch(r"Port \d+(/\d+)?", port)
            else:  # a host: its node description, as ibnetdiscover and UFM show it
                assert re.fullmatch(rf"{re.escape(start)} mlx5_\d+", port)
        links.add((start, row["StartPort"], row["EndDevice"], row["EndPort"]))
    fabric = [c for c in layout.cables if c.tier != "oob-management"]
    assert len(links) == len(rows) == len(fabric)


def test_a_dgx_host_port_is_named_as_the_dgx_names_it(catalog):
    design = design_fabric(FabricRequirements(gpu_count=64, server_part_number="DGX-H100"), catalog)
    layout = plan_layout(design, SiteInputs(), catalog)
    first = next(csv.DictReader(io.StringIO("".join(exports.ufm_ndt_csv(layout)))))
    assert first["StartPort"] == f"{first['#StartDevice']} mlx5_11"
    assert first["EndPort"] == "Port 1"


def test_the_readme_gives_the_host_pattern_to_configure_and_the_file_type(layout):
    readme = "".join(exports.readme_txt(layout))
    assert f"host_patterns: {exports.NDT_HOST_PATTERN}" in readme
    assert "switch_to_host" in readme

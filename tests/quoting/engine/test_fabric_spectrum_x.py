"""Two-plane Spectrum-X as NVIDIA builds it for B300-class servers (issue 10 item 5).

A ConnectX-8 SuperNIC's 800G OSFP cage runs 2 x 400GbE, one port to each plane, through one
twin-port module (NVIDIA DGX SuperPOD B300 Spectrum-4 Ethernet RA, "Network Fabrics": "each GPU
has 2x 400GbE connectivity through two different planes"; NVIDIA LinkX twin-port OSFP
connectivity scenarios, docs.nvidia.com/networking/display/MMA4Z00NS400T/Connectivity+Scenarios:
"to two switches at 400Gb/s"). Table rows are in test_fabric_reference_designs.py.
"""

from __future__ import annotations

from collections import Counter

import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, cable_schedule, design_fabric
from tests.quoting.engine.fabric_checks import bom_total, check_schedule

CX8 = "900-9X81E-00EX-ST0"
B300 = "HGX-B300-8GPU-SRV"
TWIN_FLAT_TOP = "980-9I51A-00NS00"  # flat-top twin-port 2 x 400G SR4
SPECTRUM_X = {"family": "ethernet", "nic_generation": "400GbE"}


def design(catalog, **fields):
    return design_fabric(FabricRequirements(**fields), catalog)


def test_a_b300_server_runs_two_400gbe_planes_through_one_cage_per_gpu(catalog):
    d = design(catalog, server_count=16, server_part_number=B300, planes=2, **SPECTRUM_X)
    assert d.nic.part_number == CX8 and d.host_cage_planes == 2
    assert d.endpoint_ports == 16 * 8 * 2
    # One flat-top twin-port module per ConnectX-8 cage, not one per plane.
    assert bom_total(d, TWIN_FLAT_TOP) == 16 * 8
    assert d.cables_by_tier()["server-leaf"] == 16 * 8
    assert any(a.startswith(f"Each {B300} cage runs 2 x 400G") for a in d.advice)
    check_schedule(d)


def test_each_cage_sends_its_first_port_to_plane_1_and_its_second_to_plane_2(catalog):
    d = design(catalog, server_count=4, server_part_number=B300, planes=2, **SPECTRUM_X)
    runs = [r for r in cable_schedule(d) if r.tier == "server-leaf" and r.a_device == "node-001"]
    by_port = {r.a_port: r.b_device for r in runs}
    assert len(by_port) == 16
    assert by_port["c3/1"].startswith("plane1-") and by_port["c3/2"].startswith("plane2-")
    assert {r.a_module for r in runs} == {TWIN_FLAT_TOP}
    assert Counter(p.split("/")[0] for p in by_port) == {f"c{n}": 2 for n in range(1, 9)}


def test_two_planes_without_a_server_default_to_the_connectx8_supernic(catalog):
    d = design(catalog, gpu_count=512, planes=2, include_nics=True, **SPECTRUM_X)
    assert d.nic.part_number == CX8
    assert bom_total(d, CX8) == 512  # one per GPU, serving both planes
    assert bom_total(d, category="dpu") == 0
    assert bom_total(d, TWIN_FLAT_TOP) == 512


def test_a_chosen_b3240_dpu_keeps_a_module_per_port(catalog):
    """A two-port card has a cage per plane: each port takes its own module."""
    d = design(catalog, gpu_count=64, planes=2, nic_part_number="900-9D3B6-00CN-AB0", **SPECTRUM_X)
    assert d.host_cage_planes == 1
    assert bom_total(d, d.host_media.host_module.part_number) == 64 * 2
    check_schedule(d)


def test_one_plane_keeps_the_b3140h_supernic(catalog):
    d = design(catalog, gpu_count=64, **SPECTRUM_X)
    assert d.nic.part_number == "900-9D3D4-00EN-HA0" and d.host_cage_planes == 1


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        # One 800G port per GPU: a single 400GbE plane does not use it whole.
        ({"server_part_number": B300}, "nic_generation"),
        # A one-port 400G SuperNIC cannot reach two planes.
        ({"planes": 2, "nic_part_number": "900-9D3D4-00EN-HA0"}, "nic_part_number"),
        # Sixteen ConnectX-8 ports do not fit a server with eight.
        ({"server_part_number": B300, "planes": 2, "nics_per_server": 9}, "planes"),
        # No flat-top twin-port module in the catalog reaches 80 m.
        ({"server_part_number": B300, "planes": 2, "server_to_leaf": 80}, "server_to_leaf"),
    ],
)
def test_what_the_connectx8_cannot_do_is_refused_on_its_field(catalog, fields, field):
    with pytest.raises(InvalidInput) as refused:
        design(catalog, server_count=16, **SPECTRUM_X, **fields)
    assert field in refused.value.errors


@pytest.mark.parametrize("ratio", [1, 2])
def test_leaf_spine_runs_at_800g_in_whole_sn5600_cages(catalog, ratio):
    """An SN5600 cage is one 800GbE port: each leaf sends whole cages to each spine, and the
    cable count is one per 800G leaf port."""
    d = design(catalog, server_count=128, planes=2, oversubscription=ratio, **SPECTRUM_X)
    t = d.topology
    assert t.links_per_leaf_per_spine % 2 == 0
    assert d.cables_by_tier()["leaf-spine"] == d.leaf_count * t.leaf_up // 2
    check_schedule(d)


def test_infiniband_cables_stay_one_per_400g_port(catalog):
    """Quantum-2 cages hold two 400G ports: NVIDIA's B200 table counts one cable per port."""
    d = design(catalog, server_count=64)
    assert d.cables_by_tier() == d.links_by_tier()


def test_a_dgx_b300_has_its_connectx8_built_in_so_none_are_quoted(catalog):
    d = design(
        catalog,
        server_count=8,
        server_part_number="DGX-B300",
        planes=2,
        include_nics=True,
        **SPECTRUM_X,
    )
    assert bom_total(d, CX8) == 0 and bom_total(d, TWIN_FLAT_TOP) == 64
    assert any("built in" in w for w in d.warnings)
    check_schedule(d)


def test_a_dgx_b300_on_xdr_keeps_one_800g_module_per_cage(catalog):
    d = design(catalog, server_count=8, server_part_number="DGX-B300", nic_generation="XDR")
    assert d.host_cage_planes == 1 and d.host_media.host_module.port_speed_gbps == 800
    assert bom_total(d, d.host_media.host_module.part_number) == 64

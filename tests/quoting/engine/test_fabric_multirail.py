"""Rule 5: with few servers one leaf carries several whole rails, and every rail stays on one leaf.

docs/fabric-design.md rule 5, from NVIDIA's rail-optimised designs: "With few servers, one leaf
may carry several whole rails (rail traffic still stays on one leaf): 16 HGX nodes x 8 rails fit
4 leaves of two rails each + 2 spines, not 8 + 2." Rule 4: "NIC i of every server goes to the
leaf of rail i ... Same-rail traffic is one switch hop." NVIDIA DGX SuperPOD Reference
Architecture (DGX B200), "DGX SuperPOD Architecture": a full scalable unit of 32 nodes has one
leaf per rail (8 leaves), which a leaf of two rails must not change.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from quoting.designs.svg.fabric import fabric_svg
from quoting.engine.fabric import FabricRequirements, cable_schedule, design_fabric
from quoting.engine.install import SiteInputs, plan_layout
from tests.quoting.engine.conftest import load_catalog
from tests.quoting.engine.fabric_checks import check_schedule

CATALOG = load_catalog()


def design(**fields):
    return design_fabric(FabricRequirements(**fields), CATALOG)


def rails_by_leaf(d) -> dict[str, set[str]]:
    """Each compute leaf's NICs (rails), read back from the cable schedule."""
    leaves = defaultdict(set)
    for run in cable_schedule(d):
        if run.tier == "server-leaf":
            leaves[run.b_device].add(run.a_port)
    return leaves


def leaves_by_rail(d) -> dict[str, set[str]]:
    rails = defaultdict(set)
    for run in cable_schedule(d):
        if run.tier == "server-leaf":
            rails[run.a_port].add(run.b_device)
    return rails


@pytest.mark.parametrize("gpus", [72, 128])
def test_72_to_128_hgx_gpus_take_four_leaves_of_two_rails_and_two_spines_not_eight(gpus):
    d = design(gpu_count=gpus)
    assert (d.leaf_count, d.spine_count, d.core_count) == (4, 2, 0)
    assert d.topology.rails_per_leaf == 2
    assert d.as_dict()["rails_per_leaf"] == 2
    assert {leaf: len(nics) for leaf, nics in rails_by_leaf(d).items()} == {
        "leaf-r1r2-01": 2,
        "leaf-r3r4-01": 2,
        "leaf-r5r6-01": 2,
        "leaf-r7r8-01": 2,
    }
    check_schedule(d)


def test_a_full_scalable_unit_of_32_servers_keeps_one_rail_per_leaf():
    d = design(gpu_count=256)
    assert (d.leaf_count, d.spine_count, d.topology.rails_per_leaf) == (8, 4, 1)
    assert d.as_dict()["rails_per_leaf"] == 1
    assert all(len(nics) == 1 for nics in rails_by_leaf(d).values())


def test_256_gpus_on_spectrum_x_take_four_sn5600_leaves_of_two_rails_not_eight_half_empty():
    d = design(gpu_count=256, family="ethernet", nic_generation="400GbE")
    assert d.topology.radix == 128  # SN5600: 64 x 800GbE run as 128 x 400GbE
    assert (d.leaf_count, d.spine_count, d.topology.rails_per_leaf) == (4, 2, 2)
    check_schedule(d)


@pytest.mark.parametrize(
    "fields",
    [
        dict(server_count=9),
        dict(server_count=12, nics_per_server=6),
        dict(server_count=20, nic_generation="NDR200"),
        dict(server_count=10, oversubscription=2),  # 42 ports down: four rails a leaf
        dict(server_count=30, nics_per_server=6, nic_generation="XDR"),
        dict(server_count=20, planes=2, family="ethernet", nic_generation="400GbE"),
    ],
)
def test_every_rail_lives_on_exactly_one_leaf_so_same_rail_traffic_is_one_hop(fields):
    d = design(**fields)
    t = d.topology
    assert t.tiers == 2 and t.rails_per_leaf > 1
    assert all(len(leaves) == 1 for leaves in leaves_by_rail(d).values())
    assert all(len(nics) == t.rails_per_leaf for nics in rails_by_leaf(d).values())
    # Each leaf takes every server, r ports each, in server order.
    for server in range(t.servers):
        for nic in range(t.rails):
            leaf, slot = t.leaf_of(server, nic)
            assert leaf == nic // t.rails_per_leaf
            assert slot == server * t.rails_per_leaf + nic % t.rails_per_leaf
    check_schedule(d)


def test_servers_added_up_to_the_growth_target_take_the_next_ports_and_none_is_recabled():
    today = design(gpu_count=72, growth_gpus=128).topology
    grown = design(gpu_count=128).topology
    assert today.rails_per_leaf == grown.rails_per_leaf == 2
    assert today.leaf_up == grown.leaf_up and today.spine_count == grown.spine_count
    assert today.headroom_servers >= 16
    assert all(
        today.leaf_of(s, n) == grown.leaf_of(s, n)
        for s in range(today.servers)
        for n in range(today.rails)
    )


def test_a_growth_target_past_leaves_of_two_rails_is_sized_with_one_rail_per_leaf():
    d = design(gpu_count=72, growth_gpus=256)
    assert d.topology.rails_per_leaf == 1
    assert (d.leaf_count, d.spine_count) == (8, 4)  # the spines of the full 32-server SU


def test_the_design_says_each_leaf_carries_two_whole_rails_and_shows_the_smaller_non_rail_one():
    d = design(gpu_count=72)
    flat = design(gpu_count=72, rail_optimized=False)
    assert (flat.leaf_count, flat.spine_count) == (3, 2)
    assert (
        "Each leaf carries 2 whole rails of all 9 servers: same-rail traffic stays one hop, "
        "on 4 leaves instead of one per rail." in d.advice
    )
    warning = next(w for w in d.warnings if "without rails needs" in w)
    assert "needs 6 switches (4 leaves + 2 spines)" in warning
    assert "without rails needs 5 (3 leaves + 2 spines)" in warning
    assert not any("without rails needs" in w for w in flat.warnings)
    assert not any("whole rails" in a for a in flat.advice)
    assert d.as_dict()["non_rail"] == {"leaf_count": 3, "spine_count": 2, "core_count": 0}
    assert flat.as_dict()["non_rail"] is None


def test_no_non_rail_warning_when_the_rail_design_is_as_small():
    d = design(gpu_count=128)
    assert d.leaf_count + d.spine_count == 6
    assert not any("without rails needs" in w for w in d.warnings)
    assert d.as_dict()["non_rail"] is None


def test_two_planes_count_both_designs_on_both_planes():
    fields = dict(server_count=20, family="ethernet", nic_generation="400GbE", planes=2)
    d = design(**fields)
    flat = design(**fields, rail_optimized=False)
    assert (d.leaf_count, d.spine_count, d.topology.rails_per_leaf) == (8, 4, 2)
    assert (flat.leaf_count, flat.spine_count) == (6, 4)
    warning = next(w for w in d.warnings if "without rails needs" in w)
    assert "needs 12 switches (8 leaves + 4 spines)" in warning
    assert "without rails needs 10 (6 leaves + 4 spines)" in warning


def test_ufm_appliances_that_do_not_fit_leaves_of_two_rails_take_one_rail_per_leaf():
    # 16 servers x 2 rails fill a leaf's 32 down ports: no port left for the appliances.
    d = design(gpu_count=128, switch_part_number="MQM9790-NS2F", subnet_manager="ufm-appliance")
    assert d.topology.rails_per_leaf == 1 and d.leaf_count == 8
    check_schedule(d)
    # 9 servers leave room: the appliances' ports go on the leaves of two rails.
    small = design(gpu_count=72, switch_part_number="MQM9790-NS2F", subnet_manager="ufm-appliance")
    assert small.topology.rails_per_leaf == 2 and small.leaf_count == 4
    check_schedule(small)


def test_racks_name_a_two_rail_leaf_for_its_rails_and_colour_each_cable_by_its_nic(catalog):
    layout = plan_layout(design(gpu_count=72), SiteInputs(), catalog)
    leaf = layout.devices["su1-leaf-r3r4"]
    assert leaf.role == "leaf" and leaf.rail is None  # several rails: no one colour
    cables = [c for c in layout.cables if c.tier == "server-leaf" and c.z_device == leaf.name]
    assert len(cables) == 18
    assert {c.rail for c in cables} == {3, 4}
    assert {c.a_port.split(":")[-1] for c in cables if c.rail == 3} == {"mlx5_2"}


def test_the_drawing_shows_one_rail_group_of_four_leaves_of_two_rails(catalog):
    svg = fabric_svg(design(gpu_count=72))
    assert "rail group 1" in svg and "4 leaves (2 whole rails each)" in svg
    assert "rail group 2" not in svg
    assert "node-001 … node-009" in svg

"""Rack-scale systems: a DGX GB200 (GB300) NVL72 is one catalog server, one whole rack.

What NVIDIA publishes, read on 2026-12-06 (catalog/data/SOURCES.md, "Rack-scale systems"):
- DGX GB200 User Guide, "Hardware": 18 compute trays of 4 GPUs, 9 NVLink switch trays; each
  tray's cluster network is 4 single-port ConnectX-7 400G OSFP NICs: 72 NDR ports per rack.
  NVLink joins the rack's 72 GPUs inside it, outside the InfiniBand compute fabric.
- DGX SuperPOD RA (DGX GB200), "DGX SuperPOD Architecture": a scalable unit is 8 DGX GB200
  racks (576 GPUs); the SuperPOD scales "up to and beyond 128 racks with 9216 GPUs"; hybrid
  liquid cooling. "Network Fabrics", "Compute Fabric": Figure 9 draws one full SU, rail-aligned;
  a count other than whole SUs gets the full SU's leaves and leaf-spine cables (rule 5c).
- Enterprise RA "NVL72 AI Factory", "System Hardware & Components": a GB300 NVL72 tray has 4
  ConnectX-8, the rack needs up to 142 kW.

NVIDIA publishes no switch and cable count table per SU for DGX GB200 or GB300 that we found
(searched again on 2026-12-07: the GB200 RA, RA-11338-001, has none on "DGX SuperPOD
Architecture", and no copy of "Network Fabrics" past the heading of Figure 9 was at hand; the
search record is in catalog/data/SOURCES.md, "Reference architectures"), so the switch counts
here are the engine's rules (docs/fabric-design.md, "Rack-scale systems"), asserted so that a
change to them is seen; where the ports equal a published table's, that table is the check.
"""

from __future__ import annotations

import csv

import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.fabric.topology import plan_topology
from quoting.engine.install import SiteInputs, exports, plan_layout
from quoting.engine.install.elevations import rack_elevations_svg
from quoting.engine.install.site import HIGH_DENSITY_RACK_KW
from tests.quoting.engine.fabric_checks import check_schedule

GB200 = "DGX-GB200-NVL72"
GB300 = "DGX-GB300-NVL72"
RACKS_PER_SU = 8  # DGX SuperPOD RA (DGX GB200), "DGX SuperPOD Architecture"
PORTS_PER_RACK = 18 * 4  # DGX GB200 User Guide: 18 trays x 4 ConnectX-7


def nvl72(catalog, racks: int, part_number: str = GB200, **fields):
    generation = "XDR" if part_number == GB300 else "NDR"
    return design_fabric(
        FabricRequirements(
            server_count=racks,
            gpus_per_server=72,
            nic_generation=generation,
            server_part_number=part_number,
            **fields,
        ),
        catalog,
    )


def test_an_nvl72_rack_is_one_server_of_72_gpus_and_72_compute_ports(catalog):
    rack = next(p for p in catalog if p.part_number == GB200)
    assert (rack.gpu_count, rack.port_count, rack.port_speed_gbps) == (72, PORTS_PER_RACK, 400)
    assert rack.rack_scale and rack.cooling == "liquid-rack"
    d = nvl72(catalog, 1)
    # NVLink is not the fabric: one rack puts its 72 NIC ports on the fabric, nothing more.
    assert d.endpoint_ports == PORTS_PER_RACK and d.gpu_count == 72


def test_an_nvl72_rack_is_asked_with_its_72_gpus(catalog):
    with pytest.raises(InvalidInput) as error:
        design_fabric(FabricRequirements(server_count=8, server_part_number=GB200), catalog)
    assert "72 GPUs" in str(error.value.messages["gpus_per_server"][0])


@pytest.mark.parametrize(
    ("sus", "switches", "links"),
    [
        (1, (18, 16, 0), (576, 576, 0)),
        (2, (36, 32, 0), (1152, 1152, 0)),
        (4, (72, 96, 48), (2304, 2304, 2592)),
        (8, (144, 192, 96), (4608, 4608, 5184)),
        (16, (288, 352, 216), (9216, 9216, 9504)),
    ],
)
def test_dgx_gb200_superpod_compute_fabric(catalog, sus, switches, links):
    """DGX SuperPOD RA (DGX GB200): 8 racks per SU, 72 ConnectX-7 NDR ports per rack (DGX GB200
    User Guide), so `sus x 576` node-leaf cables, on 64-port Quantum-2 switches; 16 SUs are the
    RA's 128 racks and 9,216 GPUs. Leaf, spine and core counts and the uplink cables are the
    engine's rules (no NVIDIA table found): one SU is 18 leaves of 4 rails, every leaf port
    used; past two SUs, rail groups of racks (rule 5b) in three tiers."""
    d = nvl72(catalog, sus * RACKS_PER_SU)
    links_by_tier = d.links_by_tier()
    got = (
        links_by_tier["server-leaf"],
        links_by_tier.get("leaf-spine", 0),
        links_by_tier.get("spine-core", 0),
    )
    assert got[0] == sus * RACKS_PER_SU * PORTS_PER_RACK == sus * 576
    assert (d.leaf_count, d.spine_count, d.core_count) == switches
    assert got == links
    assert d.topology.radix == 64 and d.gpu_count == sus * 576
    if sus <= 4:
        check_schedule(d)


# Rule 5c. NVIDIA DGX SuperPOD RA (DGX GB200, RA-11338-001), "Network Fabrics": "if a different
# node count is required ... the fabric should be designed to support the full SU, including
# leaf switches and leaf-spine cables, and leave the portion of the fabric unused where these
# nodes would be located" (docs.nvidia.com/dgx-superpod/
# reference-architecture-scalable-infrastructure-gb200/latest/network-fabrics.html).
@pytest.mark.parametrize(
    ("part_number", "su_switches", "su_trunk"),
    [(GB200, (18, 16, 0), 576), (GB300, (8, 4, 0), 576)],
)
@pytest.mark.parametrize("racks", range(1, RACKS_PER_SU))
def test_a_part_filled_scalable_unit_is_built_whole_with_the_missing_racks_ports_free(
    catalog, part_number, su_switches, su_trunk, racks
):
    """Rule 5c: 1 to 7 racks get the whole SU's leaves, spines and leaf-spine cables (the
    8-rack design's), their own 72 ports each cabled, and every leaf port of the racks still
    to come left free: the SU's 576 down ports less the racks' own."""
    d = nvl72(catalog, racks, part_number)
    assert (d.leaf_count, d.spine_count, d.core_count) == su_switches
    assert d.links_by_tier() == {"server-leaf": racks * PORTS_PER_RACK, "leaf-spine": su_trunk}
    assert d.topology.kept_servers == RACKS_PER_SU - racks
    leaf_ports = d.ports_by_tier()["leaf"]
    assert leaf_ports["free"] == (RACKS_PER_SU - racks) * PORTS_PER_RACK
    assert not d.ufm or not d.ufm.links  # UFM never takes a missing rack's port
    advice = " ".join(str(a) for a in d.advice)
    assert f"this fabric is built for 8 racks: {su_switches[0]} leaves" in advice
    assert f"the leaf ports of the {RACKS_PER_SU - racks} racks still to come" in advice
    check_schedule(d)


# Rule 5d (ours): the smallest fabric for the racks asked, shown beside the whole unit.
@pytest.mark.parametrize(
    ("racks", "smallest", "trunk", "moved"),
    [
        (1, (3, 2, 0), 72, 68),  # 72 ports need 3 leaves of 32 down; 72 uplinks, 2 spines
        (2, (6, 3, 0), 144, 140),
        (4, (9, 8, 0), 288, 284),
        (7, (18, 10, 0), 540, 0),  # rail groups of 8 racks already: only the uplinks move
        (8, (18, 16, 0), 576, 0),  # a whole unit: one build
    ],
)
def test_the_racks_asked_get_the_smallest_non_blocking_fabric_beside_the_whole_unit(
    catalog, racks, smallest, trunk, moved
):
    """Rule 5d: asked for, the racks get the fewest leaves and spines that keep every rail's
    ports non-blocking; each build names the other, with what growing from the smallest to
    the whole unit adds and re-cables. The whole unit stays the default (rule 5c)."""
    whole, small = nvl72(catalog, racks), nvl72(catalog, racks, rack_scale_smallest=True)
    assert (whole.leaf_count, whole.spine_count, whole.core_count) == (18, 16, 0)
    assert whole.links_by_tier()["leaf-spine"] == 576
    assert (small.leaf_count, small.spine_count, small.core_count) == smallest
    assert small.links_by_tier()["leaf-spine"] == trunk
    assert small.links_by_tier()["server-leaf"] == racks * PORTS_PER_RACK
    assert small.topology.kept_servers == 0 and small.oversubscription <= 1
    t = small.topology
    assert all(e <= t.leaf_up for n, e in t.leaf_fill() if n)  # every leaf non-blocking
    check_schedule(small)
    if racks == RACKS_PER_SU:
        assert whole.rack_scale_other is None and small.rack_scale_other is None
        return
    beside, grow = whole.rack_scale_other, small.rack_scale_other
    assert not beside.whole_units and grow.whole_units and grow.racks == RACKS_PER_SU
    assert (beside.leaf_count, beside.spine_count, beside.core_count) == smallest
    assert (grow.leaf_count, grow.spine_count, grow.leaf_spine_links) == (18, 16, 576)
    for other in (beside, grow):
        assert other.added_switches == 34 - sum(smallest)
        assert other.added_leaf_spine_links == 576 - trunk
        assert (other.moved_host_links, other.moved_trunk_links) == (moved, trunk)
    note = f"re-cables {moved} of the racks' {racks * PORTS_PER_RACK} ports and {trunk} leaf-"
    assert any(note in a for a in small.advice) and any(note in a for a in whole.advice)


def test_one_or_two_gb300_racks_fit_one_xdr_switch(catalog):
    """Rule 5d on a 144-port Quantum-X800: two racks' 144 ports are one switch."""
    for racks in (1, 2):
        d = nvl72(catalog, racks, GB300, rack_scale_smallest=True)
        assert (d.leaf_count, d.spine_count, d.topology.tiers) == (1, 0, 1)
        assert any("the fabric for 8 racks is 8 leaves and 4 spines" in a for a in d.advice)
        check_schedule(d)
    whole = nvl72(catalog, 1, GB300)
    assert any("for the racks asked (1) is one switch" in a for a in whole.advice)


@pytest.mark.parametrize("racks", [9, 12, 15])
def test_past_one_scalable_unit_the_racks_are_built_in_whole_units_too(catalog, racks):
    """Rule 5c at two SUs: 9 to 15 racks get the 16-rack design's switches and trunk."""
    whole = nvl72(catalog, 16)
    d = nvl72(catalog, racks)
    assert (d.leaf_count, d.spine_count, d.core_count) == (
        whole.leaf_count,
        whole.spine_count,
        whole.core_count,
    )
    assert d.links_by_tier()["leaf-spine"] == whole.links_by_tier()["leaf-spine"]
    assert d.links_by_tier()["server-leaf"] == racks * PORTS_PER_RACK
    if racks == 9:
        check_schedule(d)


def test_whole_scalable_units_are_for_rack_scale_systems_only(catalog):
    """Rule 5c is NVIDIA's for racks of 72 GPUs: 5 DGX H100 keep the fabric they need."""
    d = design_fabric(FabricRequirements(server_count=5, server_part_number="DGX-H100"), catalog)
    assert d.topology.kept_servers == 0 and d.endpoint_ports == 40


def test_ufm_appliances_that_find_no_room_in_whole_units_get_the_racks_as_asked(catalog):
    """Two SUs of GB200 racks fill every leaf port (rule 5b keeps none for UFM), so UFM
    appliances cannot be cabled into them: 9 racks are then built as asked, and the design
    says why and what to change."""
    d = nvl72(catalog, 9, subnet_manager="ufm-appliance")
    assert d.topology.kept_servers == 0
    assert d.links_by_tier()["server-leaf"] == 9 * PORTS_PER_RACK and d.ufm.links
    assert any(
        "fabric built for 16 racks" in w and "built for the 9 racks asked" in w for w in d.warnings
    ), d.warnings
    check_schedule(d)


@pytest.mark.parametrize("sus", [1, 2, 4, 16])
def test_port_i_of_every_rack_of_a_rail_group_lands_on_one_leaf(catalog, sus):
    """Rail-optimised across the SU (DGX SuperPOD RA, DGX GB200, "Compute Fabric"): GPU i of
    every rack of a rail group is one switch hop from GPU i of the others."""
    t = nvl72(catalog, sus * RACKS_PER_SU).topology
    for first in range(0, t.servers, t.group_servers):
        group = range(first, min(first + t.group_servers, t.servers))
        for port in range(PORTS_PER_RACK):
            assert len({t.leaf_of(rack, port)[0] for rack in group}) == 1
    if sus == 1:  # the whole SU is the rail group: 8 racks x 4 rails fill every leaf
        assert (t.group_servers, t.rails_per_leaf, t.leaf_down) == (8, 4, 32)


@pytest.mark.parametrize(
    ("racks", "leaves", "spines", "links"), [(8, 8, 4, 576), (144, 144, 72, 10368)]
)
def test_gb300_nvl72_on_quantum_x800_has_nvidias_xdr_counts_for_the_same_ports(
    catalog, racks, leaves, spines, links
):
    """The same endpoint count on the same switch as rows of NVIDIA's DGX B300 XDR SuperPOD
    table (RA-11339-001, Table 3 "Example Compute Fabric Components for DGX SuperPOD Counts":
    1 SU, 576 ports: 8 leaves, 4 spines, 576 + 576 cables; 18 SUs, 10,368 ports: 144 leaves,
    72 spines) give its counts: 8 GB300 racks are 576 XDR ports (4 ConnectX-8 per tray,
    Enterprise RA "NVL72 AI Factory"), 144 racks 10,368."""
    d = nvl72(catalog, racks, GB300)
    assert d.topology.radix == 144 and d.endpoint_ports == racks * PORTS_PER_RACK
    assert (d.leaf_count, d.spine_count, d.core_count) == (leaves, spines, 0)
    assert d.links_by_tier() == {"server-leaf": links, "leaf-spine": links}
    if racks <= 8:
        check_schedule(d)


def test_a_server_wider_than_a_pod_is_built_in_rail_groups_of_several_rails_per_leaf():
    """Rule 5b: 72 rails cannot each have a leaf in a 32-leaf pod; 32 such servers on 64-port
    switches become rail groups of 4 servers on 9 leaves of 8 rails, in three tiers."""
    t = plan_topology(
        radix=64,
        ports_per_cage=2,
        split=1,
        rails=72,
        rail_optimized=True,
        ratio=1,
        servers=32,
        target_servers=32,
    )
    assert (t.tiers, t.rails_per_leaf, t.group_leaves, t.group_servers) == (3, 8, 9, 4)
    assert t.leaves_per_pod % t.group_leaves == 0  # whole rail groups in a pod
    slots = {t.leaf_of(s, nic) for s in range(32) for nic in range(72)}
    assert len(slots) == 32 * 72  # no leaf port taken twice


@pytest.mark.parametrize("servers", [8, 64, 127, 256, 512, 2048])
def test_narrower_servers_never_take_rail_groups_of_several_rails(servers):
    """Rule 5b is for servers wider than a pod only: an 8-rail server keeps rule 4 (several
    rails per leaf only when the whole cluster is one rail group)."""
    t = plan_topology(
        radix=64,
        ports_per_cage=2,
        split=1,
        rails=8,
        rail_optimized=True,
        ratio=1,
        servers=servers,
        target_servers=servers,
    )
    assert t.rails_per_leaf == 1 or t.leaf_count == t.group_leaves


def test_the_design_says_a_rack_is_liquid_cooled_and_how_many_make_a_scalable_unit(catalog):
    advice = [str(a) for a in nvl72(catalog, 16).advice]
    assert any(
        "DGX-GB200-NVL72 is a liquid-cooled rack of its own, up to 120 kW" in a
        and "joins 16 racks, 16 racks per scalable unit" in a
        for a in advice
    ), advice
    groups = [str(a) for a in nvl72(catalog, 32).advice]
    assert any("joins 32 racks, 4 racks per scalable unit" in a for a in groups), groups
    assert any("of the 4 servers of its rail group" in a for a in groups), groups


@pytest.mark.parametrize("budget_kw", [None, HIGH_DENSITY_RACK_KW])
def test_an_nvl72_rack_is_a_rack_of_its_own_outside_the_air_cooled_budget(
    catalog, budget_kw, tmp_path
):
    """A 120 kW rack is not refused by a 12 kW (or 40 kW) IDC budget: it brings its own power
    shelves and liquid cooling. Each takes a compute rack of its own, listed as liquid-cooled
    with its power; the leaf racks keep the site's budget."""
    site = SiteInputs() if budget_kw is None else SiteInputs(rack_power_kw=budget_kw)
    layout = plan_layout(nvl72(catalog, RACKS_PER_SU), site, catalog)
    compute = [r for r in layout.racks if r.kind == "compute"]
    assert len(compute) == RACKS_PER_SU and layout.servers_per_rack == 1
    for rack in compute:
        assert rack.own_power and rack.cooling == "liquid-rack"
        assert [layout.devices[d].part for d in rack.devices] == [GB200]
        assert rack.max_kw >= 120 and not rack.over_budget(site.rack_power_kw)
        assert layout.devices[rack.devices[0]].units == site.rack_units
    network = [r for r in layout.racks if r.kind == "network"]
    assert network and not any(r.own_power for r in network)
    assert all(r.max_kw <= site.rack_power_kw for r in network)
    assert not any("budget" in w for w in layout.warnings)

    rows = list(csv.DictReader("".join(exports.racks_csv(layout)).splitlines()))
    liquid = [r for r in rows if r["cooling"] == "liquid"]
    assert len(liquid) == RACKS_PER_SU
    assert all(r["budget_kw"] == "" and r["over_budget"] == "no" for r in liquid)
    assert all(float(r["max_kw"]) >= 120 for r in liquid)
    assert {r["cooling"] for r in rows if r["kind"] == "network"} == {"air"}
    svg = "".join(rack_elevations_svg(layout))
    assert svg.count("kW max, liquid-cooled, own power") == RACKS_PER_SU


def test_an_air_cooled_server_is_still_held_to_the_rack_budget(catalog):
    design = design_fabric(
        FabricRequirements(server_count=4, server_part_number="DGX-B200"), catalog
    )
    with pytest.raises(InvalidInput) as error:
        plan_layout(design, SiteInputs(), catalog)
    assert "rack_power_kw" in error.value.messages


def test_a_rack_scale_system_is_one_per_rack(catalog):
    with pytest.raises(InvalidInput) as error:
        plan_layout(nvl72(catalog, RACKS_PER_SU), SiteInputs(servers_per_rack=2), catalog)
    assert "one per rack" in str(error.value.messages["servers_per_rack"][0])

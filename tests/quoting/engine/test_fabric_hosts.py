"""Servers decide the host side; UFM appliances are cabled (issue 10 items 2 and 3).

Rule 9 of docs/fabric-design.md: an HGX server takes one single-port flat-top OSFP module per
ConnectX-7 port; a DGX H100/H200/B200 serves its 8 ConnectX-7 ports through 4 OSFP cages and
takes 4 flat-top twin-port modules (980-9I51A-00NS00) per system.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, cable_schedule, design_fabric
from tests.quoting.engine.conftest import load_catalog
from tests.quoting.engine.fabric_checks import bom_total, check_schedule

CATALOG = load_catalog()
DGX_MODULE = "980-9I51A-00NS00"  # flat-top twin-port 2 x 400G SR4
HGX_MODULE = "MMA4Z00-NS400"  # flat-top single-port 400G SR4


def design(**fields):
    return design_fabric(FabricRequirements(**fields), CATALOG)


def invalid(**fields) -> dict[str, list[str]]:
    with pytest.raises(InvalidInput) as caught:
        design(**fields)
    return caught.value.errors


# --- servers ------------------------------------------------------------------------------------


@pytest.mark.parametrize("server", ["DGX-H100", "DGX-H200", "DGX-B200"])
def test_a_dgx_takes_four_twin_port_flat_top_modules_per_node_not_eight_single_port(server):
    """NVIDIA DGX SuperPOD RA (DGX H100), "Network Fabrics", Figure 4: "The compute fabric ports
    in the middle use a two-port transceiver to access all eight GPUs"
    (docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100/latest/
    network-fabrics.html); the GB200 RA's network-fabrics page says the same of the DGX B200
    CPU tray. DGX H200 shares the DGX H100 chassis (our catalog row; verify)."""
    d = design(gpu_count=256, server_part_number=server)
    assert bom_total(d, DGX_MODULE) == 32 * 4
    assert bom_total(d, HGX_MODULE) == 0
    # One fibre per NIC port still, and the switch side is unchanged.
    assert bom_total(d, "MFP7E10-N030") == 256 + 256
    assert d.as_dict()["server_sku"] == server
    check_schedule(d)


def test_the_dgx_cable_schedule_names_each_nic_by_its_cage_and_port():
    d = design(gpu_count=256, server_part_number="DGX-H100")
    node1 = [r for r in cable_schedule(d) if r.a_device == "node-001"]
    assert [r.a_port for r in node1] == [
        "c1/1",
        "c1/2",
        "c2/1",
        "c2/2",
        "c3/1",
        "c3/2",
        "c4/1",
        "c4/2",
    ]
    assert {r.a_module for r in node1} == {DGX_MODULE}
    # The two ports of one DGX cage go to two rails: two different leaves.
    assert node1[0].b_device != node1[1].b_device
    check_schedule(d)


@pytest.mark.parametrize("server", ["HGX-H100-8GPU-SRV", "HGX-H200-8GPU-SRV"])
@pytest.mark.parametrize("gpus", [64, 256, 1024])
def test_an_hgx_server_quotes_exactly_what_the_default_does(server, gpus):
    plain = design(gpu_count=gpus)
    hgx = design(gpu_count=gpus, server_part_number=server)
    assert hgx.bom == plain.bom
    assert bom_total(hgx, HGX_MODULE) == gpus
    assert list(cable_schedule(hgx)) == list(cable_schedule(plain))
    assert {**hgx.as_dict(), "server_sku": None} == plain.as_dict()


def test_the_default_without_a_server_keeps_single_port_host_modules():
    d = design(gpu_count=256)
    assert d.server is None and d.as_dict()["server_sku"] is None
    assert bom_total(d, HGX_MODULE) == 256 and bom_total(d, DGX_MODULE) == 0


def test_a_b300_class_server_runs_xdr_with_single_port_800g_host_modules():
    d = design(gpu_count=64, server_part_number="HGX-B300-8GPU-SRV", nic_generation="XDR")
    assert d.switch.generation == "XDR" and d.host_media.host_module.port_speed_gbps == 800
    assert bom_total(d, d.host_media.host_module.part_number) == 64
    check_schedule(d)


@pytest.mark.parametrize(
    "fields, field, words",
    [
        ({"server_part_number": "HGX-B300-8GPU-SRV"}, "nic_generation", "XDR"),
        ({"server_part_number": "DGX-H100", "nic_generation": "XDR"}, "nic_generation", "NDR"),
        ({"server_part_number": "DGX-B300", "nic_generation": "NDR200"}, "nic_generation", "XDR"),
        ({"server_part_number": "DGX-H100", "gpus_per_server": 4}, "gpus_per_server", "8 GPUs"),
        ({"server_part_number": "DGX-H100", "nics_per_server": 9}, "nics_per_server", "8"),
        ({"server_part_number": "NOPE-1"}, "server_part_number", "not a catalog server"),
        ({"server_part_number": "MQM9700-NS2F"}, "server_part_number", "not a catalog server"),
        ({"server_part_number": "DGX-H100", "server_to_leaf": 80}, "server_to_leaf", "flat-top"),
        (
            {"server_part_number": "DGX-H100", "family": "ethernet", "nic_generation": "100GbE"},
            "nic_generation",
            "400G",
        ),
    ],
)
def test_a_server_that_does_not_fit_the_request_is_refused_on_the_field_at_fault(
    fields, field, words
):
    errors = invalid(gpu_count=64, **fields)
    assert field in errors and words in " ".join(errors[field])


def test_a_dgx_on_400gbe_ethernet_keeps_its_twin_port_modules():
    d = design(
        gpu_count=64, server_part_number="DGX-H100", family="ethernet", nic_generation="400GbE"
    )
    assert bom_total(d, DGX_MODULE) == 8 * 4
    check_schedule(d)


def test_a_dgx_has_its_nics_built_in_so_none_are_quoted():
    d = design(gpu_count=64, server_part_number="DGX-H100", include_nics=True)
    assert bom_total(d, category="adapter") == 0
    assert any("built in" in w for w in d.warnings)
    hgx = design(gpu_count=64, server_part_number="HGX-H100-8GPU-SRV", include_nics=True)
    assert bom_total(hgx, "MCX75310AAS-NEAT") == 64


def test_a_chosen_nic_must_have_the_servers_cage():
    errors = invalid(
        gpu_count=64,
        server_part_number="HGX-H100-8GPU-SRV",
        nic_generation="NDR200",
        nic_part_number="MCX755106AS-HEAT",
    )
    assert "QSFP112" in " ".join(errors["nic_part_number"])


def test_the_server_is_a_requirement_that_round_trips_as_a_dict():
    req = FabricRequirements(gpu_count=64, server_part_number="DGX-B200")
    assert FabricRequirements(**asdict(req)) == req


# --- UFM appliances -----------------------------------------------------------------------------


def ufm_runs(d):
    return [r for r in cable_schedule(d) if r.tier == "ufm-leaf"]


def test_ufm_appliances_take_leaf_ports_with_their_cables_and_optics():
    # OpenSM's hosts are the customer's and uncabled: the fabric without UFM ports (UFM
    # licences now cable their hosts too).
    licence = design(gpu_count=248, server_part_number="DGX-H100", subnet_manager="opensm-host")
    d = design(gpu_count=248, server_part_number="DGX-H100", subnet_manager="ufm-appliance")
    appliances, ports = 2, 2  # the catalog's UFM-APPLIANCE-3.1 states two fabric ports
    links = appliances * ports
    assert bom_total(d, "UFM-APPLIANCE-3.1") == appliances
    assert d.links_by_tier()["ufm-leaf"] == links
    # Ports used count them at the leaves; nothing else changes.
    assert d.ports_by_tier()["leaf"]["used"] == licence.ports_by_tier()["leaf"]["used"] + links
    assert d.ports_by_tier()["leaf"]["free"] == licence.ports_by_tier()["leaf"]["free"] - links
    # BOM: a single-port module at each appliance port and a fibre per link; the leaf side
    # shares the twin-port module of the cage whose other port serves the 31st node.
    ufm_lines = {b.sku: b.quantity for b in d.bom if b.role == "ufm-leaf"}
    assert ufm_lines == {HGX_MODULE: links, "MFP7E10-N030": links}
    runs = ufm_runs(d)
    assert sorted((r.a_device, r.a_port) for r in runs) == [
        ("ufm-01", "p1"),
        ("ufm-01", "p2"),
        ("ufm-02", "p1"),
        ("ufm-02", "p2"),
    ]
    # Master and standby hang off different leaves, each link on its own leaf here.
    assert len({r.b_device for r in runs}) == links
    assert {r.b_port for r in runs} == {"16/2"}  # the 32nd node slot
    assert d.as_dict()["ufm_appliances"] == {
        "appliances": 2,
        "device": "UFM-APPLIANCE-3.1",
        "host_nic": "",
        "ports_per_appliance": 2,
        "links": 4,
        "media": "multimode",
        "cable": "MFP7E10-N030",
    }
    check_schedule(d)


def test_ufm_links_in_an_empty_cage_bring_their_own_switch_module():
    d = design(gpu_count=128, switch_part_number="MQM9790-NS2F", subnet_manager="ufm-appliance")
    # 16 servers per rail leaf fill 8 cages; the UFM ports open a new cage on four leaves.
    assert {b.sku: b.quantity for b in d.bom if b.role == "ufm-leaf"} == {
        "MMA4Z00-NS": 4,
        HGX_MODULE: 4,
        "MFP7E10-N030": 4,
    }
    check_schedule(d)


def test_ufm_links_follow_copper_when_the_servers_are_in_the_rack():
    d = design(gpu_count=248, subnet_manager="ufm-appliance", server_to_leaf="same-rack")
    # The splitter already in the 32nd slot's cage carries the UFM link: no new cable.
    assert d.ufm.media.kind == "dac" and d.ufm.new_cages == 0
    assert all(r.cable_part.startswith("MCP7Y00") for r in ufm_runs(d))
    check_schedule(d)


def leaf_down_ports_used(d) -> Counter:
    """Ports each leaf gives to servers and UFM appliances, read from the cable schedule."""
    return Counter(r.b_device for r in cable_schedule(d) if r.tier in ("server-leaf", "ufm-leaf"))


@pytest.mark.parametrize("ratio", [1, 2, 3])
@pytest.mark.parametrize("servers", [10, 16, 24, 31])
def test_a_leafs_uplinks_count_its_ufm_ports_as_used_down_ports(servers, ratio):
    """16 servers at 2:1 on QM9790: every rail leaf has 16 servers and 8 uplinks would do; the
    leaves that also take a UFM port have 17 down ports in use, which 2:1 needs 9 uplinks for.
    The uplink count follows the busiest leaf including its UFM ports. A leaf of several whole
    rails (rule 5) has a port per rail of each server, and fewer leaves share the UFM ports."""
    d = design(
        server_count=servers,
        switch_part_number="MQM9790-NS2F",
        subnet_manager="ufm-appliance",
        oversubscription=ratio,
    )
    used = leaf_down_ports_used(d)
    # The servers' ports on the busiest leaf and its share of the 4 UFM ports: one each on
    # 4 or 8 leaves, two each on 2 leaves of four rails.
    ufm_ports = -(-len(d.ufm.links) // d.leaf_count)
    assert max(used.values()) == servers * d.topology.rails_per_leaf + ufm_ports
    assert max(used.values()) <= d.topology.leaf_up * ratio
    assert d.topology.reserved_down == ufm_ports
    check_schedule(d)


def test_at_2_to_1_a_ufm_port_on_a_full_budget_leaf_costs_a_ninth_uplink():
    """16 uplinks serve 16 servers on a leaf of two rails at 2:1, all to one spine (4 leaves x 16
    = 64 ports). A leaf that also takes a UFM port uses 33 down ports, which 2:1 needs 17
    uplinks for: 4 x 17 links do not fit one 64-port spine, so two spines take 9 links from
    each leaf."""
    licence = design(
        server_count=16,
        switch_part_number="MQM9790-NS2F",
        oversubscription=2,
        subnet_manager="ufm-licence",
    )
    d = design(
        server_count=16,
        switch_part_number="MQM9790-NS2F",
        oversubscription=2,
        subnet_manager="ufm-appliance",
    )
    assert (licence.leaf_count, licence.spine_count, licence.topology.leaf_up) == (4, 1, 16)
    assert (d.leaf_count, d.spine_count, d.topology.leaf_up) == (4, 2, 18)
    assert d.oversubscription <= 2


def test_full_leaves_leave_no_room_for_ufm_appliances_and_say_what_to_do():
    errors = invalid(
        gpu_count=256, switch_part_number="MQM9790-NS2F", subnet_manager="ufm-appliance"
    )
    assert "31 nodes" in " ".join(errors["subnet_manager"])


def test_the_next_step_of_a_ufm_design_is_still_counted():
    d = design(gpu_count=248, subnet_manager="ufm-appliance")
    assert d.next_step is not None
    assert not any("largest fabric" in w for w in d.warnings)


def test_a_storage_fabric_gets_its_own_cabled_ufm_appliances():
    d = design(gpu_count=248, subnet_manager="ufm-appliance", storage_servers=6)
    assert d.storage.ufm is not None and bom_total(d, "UFM-APPLIANCE-3.1") == 4
    check_schedule(d.storage)
    tiers = Counter(r.tier for r in cable_schedule(d))
    assert tiers["ufm-leaf"] == 4 and tiers["storage ufm-leaf"] == 4


def test_the_ufm_licence_line_says_it_is_for_one_year():
    d = design(gpu_count=384)
    (line,) = [b for b in d.bom if b.sku == "UFM-ENT-LIC-EP"]
    assert "1 year" in line.name and line.quantity == 384


# --- NVIDIA's reference design ------------------------------------------------------------------


def test_the_h100_superpod_31_node_su_has_252_node_and_ufm_cables():
    """NVIDIA DGX SuperPOD with DGX H100, RA-11333-001, "Network Fabrics", Table 4 (compute
    fabric component count), https://docs.nvidia.com/dgx-superpod/reference-architecture-
    scalable-infrastructure-h100/latest/network-fabrics.html: 1 SU = 31 nodes, 248 GPUs,
    8 leaves, 4 spines, 252 "Compute and UFM" cables, 256 spine-leaf cables; footnote 1: a
    32-node SU design with one DGX slot given to UFM. 252 - 248 = 4 UFM cables, as two
    appliances (HA) x two ports here (the RA's Table 7 lists UFM Appliance 3.1; how many of its
    ports are cabled per appliance the RA does not say in what we could read: verify).
    The spine count and leaf-spine cables are the topology's (issue 10 item 1): see the next
    test."""
    d = design(gpu_count=248, server_part_number="DGX-H100", subnet_manager="ufm-appliance")
    links = d.links_by_tier()
    assert d.topology.servers == 31 and d.gpu_count == 248 and d.leaf_count == 8
    assert links["server-leaf"] + links["ufm-leaf"] == 252
    assert bom_total(d, DGX_MODULE) == 31 * 4
    check_schedule(d)


def test_the_h100_superpod_31_node_su_has_four_spines_and_256_leaf_spine_cables():
    """Same source as above: 4 spines and 256 spine-leaf cables for the 31-node SU."""
    d = design(gpu_count=248, server_part_number="DGX-H100", subnet_manager="ufm-appliance")
    assert d.spine_count == 4 and d.links_by_tier()["leaf-spine"] == 256


# --- properties ---------------------------------------------------------------------------------


@st.composite
def requests(draw) -> FabricRequirements:
    server = draw(st.sampled_from([None, "DGX-H100", "DGX-B200", "HGX-H100-8GPU-SRV"]))
    servers = draw(st.integers(1, 100))
    return FabricRequirements(
        server_count=servers,
        server_part_number=server,
        nics_per_server=draw(st.sampled_from([None, 2, 4, 8])),
        rail_optimized=draw(st.booleans()),
        oversubscription=draw(st.sampled_from([1, 2])),
        switch_part_number=draw(st.sampled_from([None, "MQM9790-NS2F", "MQM9700-NS2F"])),
        nic_generation=draw(st.sampled_from(["NDR", "NDR", "NDR200"])),
        subnet_manager=draw(st.sampled_from(["ufm-appliance", "ufm-appliance", "auto"])),
        server_to_leaf=draw(st.sampled_from(["same-rack", "same-row", 3, 45])),
        spares_percent=draw(st.sampled_from([0, 5])),
        growth_gpus=draw(st.sampled_from([None, 8 * (servers + 40)])),
    )


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_servers_and_ufm_keep_every_port_used_once_within_the_radix_and_match_the_bom(req):
    try:
        d = design_fabric(req, CATALOG)
    except InvalidInput as refusal:
        assert refusal.errors and all(refusal.errors.values())
        return
    check_schedule(d)
    if d.ufm:
        assert d.ports_by_tier()["leaf"]["used"] >= len(d.ufm.links) + d.endpoint_ports // 2
    if d.server and d.server.ports_per_cage > 1:
        assert bom_total(d, DGX_MODULE) == d.topology.servers * -(-d.topology.rails // 2)

"""The fabric rules of docs/fabric-design.md, the seed's reference designs first."""

from __future__ import annotations

import csv
import io

import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, cable_schedule_csv, design_fabric, parts
from quoting.engine.messages import message
from tests.quoting.engine.fabric_checks import bom_total, check_schedule


def design(catalog, **fields):
    return design_fabric(FabricRequirements(**fields), catalog)


def invalid(catalog, **fields) -> dict[str, list[str]]:
    with pytest.raises(InvalidInput) as caught:
        design(catalog, **fields)
    return caught.value.errors


# --- the seed's university design --------------------------------------------------------------


@pytest.fixture
def university(catalog):
    return design(
        catalog, gpu_count=256, switch_part_number="MQM9790-NS2F", subnet_manager="on-switch"
    )


def test_256_gpu_ports_need_eight_leaves_and_four_spines(university):
    d = university.as_dict()
    assert (d["tiers"], d["leaf_count"], d["spine_count"], d["core_count"]) == (2, 8, 4, 0)
    assert d["links_per_leaf_per_spine"] == 8
    assert d["ports"] == {"used": 768, "free": 0}
    assert sum(d["links"].values()) == 512
    assert d["oversubscription"] == 1.0
    assert d["max_hops"] == 3


def test_256_all_optical_ports_need_384_twin_256_host_modules_and_512_fibres(university):
    assert bom_total(university, "MMA4Z00-NS") == 384
    assert bom_total(university, "MMA4Z00-NS400") == 256
    assert bom_total(university, category="cable") == 512
    check_schedule(university)


def test_unmanaged_spines_give_way_to_two_managed_ones_for_an_on_switch_subnet_manager(university):
    spines = {b.sku: b.quantity for b in university.bom if b.role == "spine"}
    assert spines == {"MQM9790-NS2F": 2, "MQM9700-NS2F": 2}
    assert university.subnet_manager == "on-switch"


def test_a_full_design_says_growing_needs_recabling_and_what_512_gpus_cost(university):
    assert "This design is full: growing needs re-cabling." in university.warnings
    step = university.next_step
    assert (step.gpus, step.leaf_count, step.spine_count) == (512, 16, 8)
    assert step.added_switches == 12  # 8 more leaves and 4 more spines


def test_warnings_and_advice_are_plain_english_strings_in_the_dict(university):
    d = university.as_dict()
    assert "This design is full: growing needs re-cabling." in d["warnings"]
    assert all(type(line) is str for line in d["warnings"] + d["advice"])
    assert d["warnings"] == [str(m) for m in university.warning_messages]
    assert d["advice"] == [str(m) for m in university.advice_messages]
    nested = message("Storage fabric: {warning}", warning=message("{sku} is end of life.", sku="X"))
    assert str(nested) == "Storage fabric: X is end of life."


# --- the seed's securities case ------------------------------------------------------------------


def test_two_qm9790_spines_serve_at_most_128_gpu_ports(catalog):
    d = design(catalog, gpu_count=128, switch_part_number="MQM9790-NS2F")
    assert (d.topology.tiers, d.spine_count) == (2, 2)
    assert d.headroom_gpus == 128
    assert design(catalog, gpu_count=136, switch_part_number="MQM9790-NS2F").spine_count > 2


def test_unmanaged_switches_get_a_subnet_manager_added(catalog):
    # 15 servers leave leaf ports for the UFM hosts: UFM licences with their hosts.
    d = design(catalog, gpu_count=120, switch_part_number="MQM9790-NS2F")
    assert bom_total(d, "UFM-ENT-LIC-EP") == 120 and bom_total(d, "UFM-HOST-1U") == 2
    assert any("unmanaged: a subnet manager was added" in w for w in d.warnings)
    # 16 fill their leaves: no UFM without hosts, two managed switches run it instead.
    full = design(catalog, gpu_count=128, switch_part_number="MQM9790-NS2F")
    assert bom_total(full, "UFM-ENT-LIC-EP") == 0
    assert (full.sm_switch.part_number, full.sm_switch_count) == ("MQM9700-NS2F", 2)


def test_the_securities_design_states_its_next_step_in_counts(catalog):
    d = design(catalog, gpu_count=128, switch_part_number="MQM9790-NS2F")
    # 16 servers: 4 leaves of two whole rails + 2 spines; the next step is a full rail group of
    # 32 servers, one rail per leaf: 8 leaves + 4 spines.
    assert (d.leaf_count, d.spine_count) == (4, 2)
    step = d.next_step
    assert (step.gpus, step.leaf_count, step.spine_count) == (256, 8, 4)
    assert (step.added_switches, step.added_transceivers, step.added_cables) == (6, 320, 256)


# --- tiers ---------------------------------------------------------------------------------------


def test_64_ports_fit_one_64_port_switch(catalog):
    d = design(catalog, gpu_count=64)
    assert (d.topology.tiers, d.leaf_count, d.spine_count) == (1, 1, 0)
    assert d.as_dict()["max_hops"] == 1


def test_2048_ports_is_the_two_tier_limit_of_64_port_switches(catalog):
    assert design(catalog, gpu_count=2048).topology.tiers == 2
    assert design(catalog, gpu_count=2056).topology.tiers == 3


def test_4096_gpus_on_qm9700_need_a_core(catalog):
    d = design(catalog, gpu_count=4096, switch_part_number="MQM9700-NS2F")
    assert d.topology.tiers == 3 and d.core_count > 0
    assert d.as_dict()["max_hops"] == 5
    check_schedule(d)


def test_qm9700_reaches_65536_endpoints_non_blocking_and_no_further(catalog):
    d = design(catalog, gpu_count=65536, switch_part_number="MQM9700-NS2F")
    assert (d.leaf_count, d.spine_count, d.core_count) == (2048, 2048, 1024)
    errors = invalid(catalog, gpu_count=65544, switch_part_number="MQM9700-NS2F")
    assert "three tiers" in errors["gpu_count"][0]


def test_spine_count_is_rounded_up_to_a_divisor_of_the_uplinks(catalog):
    d = design(catalog, gpu_count=768)  # 3 rail groups, 24 leaves of 32 uplinks
    assert d.leaf_count == 24
    assert d.spine_count == 16  # plain division gives 12, not a divisor of 32
    assert d.topology.links_per_leaf_per_spine == 2


def test_without_rails_leaves_fill_one_after_another(catalog):
    d = design(catalog, gpu_count=96, rail_optimized=False)
    assert d.leaf_count == 3
    check_schedule(d)


# --- oversubscription ----------------------------------------------------------------------------


def test_two_to_one_gives_more_down_ports_and_fewer_spines(catalog):
    blocking = design(catalog, gpu_count=1344, oversubscription=2)
    flat = design(catalog, gpu_count=1344)
    # 22 uplinks, not the bare ceil(42 / 2) = 21: 22 = 11 spines x 2 links, where 21 (prime)
    # needed 21 spines of one link each.
    assert blocking.topology.leaf_down == 42 and blocking.topology.leaf_up == 22
    assert (blocking.leaf_count, blocking.spine_count) == (32, 11)
    assert blocking.leaf_count < flat.leaf_count and blocking.spine_count < flat.spine_count
    assert blocking.as_dict()["oversubscription"] == 1.91
    check_schedule(blocking)


def test_achieved_oversubscription_is_reported_for_part_filled_leaves(catalog):
    d = design(catalog, gpu_count=256, oversubscription=3)  # 32 servers on 48-port rails
    # ceil(32 / 3) = 11 uplinks is a prime: 12 = 2 spines x 6 links cables evenly.
    assert (d.topology.leaf_up, d.spine_count) == (12, 2)
    assert d.as_dict()["oversubscription"] == 2.67


# --- growth --------------------------------------------------------------------------------------


def test_a_growth_target_pre_provisions_spines(catalog):
    d = design(catalog, gpu_count=256, growth_gpus=512)
    assert (d.leaf_count, d.spine_count) == (8, 8)
    assert d.pre_provisioned.spines == 4
    assert any("pre-provisioned for 512 GPUs" in w for w in d.warnings)
    assert d.headroom_gpus == 512
    check_schedule(d)


def test_growth_beyond_two_tiers_pre_provisions_the_core(catalog):
    d = design(catalog, gpu_count=4096, growth_gpus=8192)
    assert d.core_count == 2 * design(catalog, gpu_count=4096).core_count
    assert d.headroom_gpus == 8192


def test_a_growth_target_below_the_current_size_is_refused(catalog):
    assert (
        "below the current size"
        in invalid(catalog, gpu_count=256, growth_gpus=128)["growth_gpus"][0]
    )


def test_a_growth_target_beyond_three_tiers_names_the_growth_field(catalog):
    assert "growth_gpus" in invalid(catalog, gpu_count=256, growth_gpus=70000)


# --- subnet manager ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "choice", ["auto", "on-switch", "ufm-appliance", "ufm-licence", "opensm-host"]
)
def test_every_infiniband_design_has_a_subnet_manager(catalog, choice):
    # UFM appliances take leaf ports: NVIDIA's SU leaves the 32nd node slot to them (31 nodes).
    gpus = 248 if choice == "ufm-appliance" else 256
    d = design(catalog, gpu_count=gpus, switch_part_number="MQM9790-NS2F", subnet_manager=choice)
    assert d.subnet_manager in ("on-switch", "ufm-appliance", "ufm-licence", "opensm-host")
    has_item = bom_total(d, category="software") or d.sm_switch or d.switch.managed
    assert has_item or any("OpenSM" in w for w in d.warnings)


def test_large_fabrics_get_ufm_automatically(catalog):
    # 48 servers leave leaf ports for the UFM hosts (full leaves: test_ufm_licences_need_hosts).
    d = design(catalog, gpu_count=384)
    assert d.subnet_manager == "ufm-licence" and bom_total(d, "UFM-ENT-LIC-EP") == 384


def test_small_fabrics_pick_a_managed_switch_and_run_the_manager_on_it(catalog):
    d = design(catalog, gpu_count=128)
    assert d.switch.managed and d.subnet_manager == "on-switch"
    assert bom_total(d, category="software") == 0


def test_ethernet_has_no_subnet_manager(catalog):
    d = design(catalog, gpu_count=256, family="ethernet", nic_generation="400GbE")
    assert d.subnet_manager == "" and bom_total(d, category="software") == 0
    assert "subnet_manager" in invalid(
        catalog,
        gpu_count=256,
        family="ethernet",
        nic_generation="400GbE",
        subnet_manager="ufm-licence",
    )


# --- media and optics ----------------------------------------------------------------------------


def test_same_rack_host_links_use_copper_splitters_instead_of_optics(catalog):
    d = design(catalog, gpu_count=256, server_to_leaf="same-rack")
    assert bom_total(d, "MCP7Y00-N002") == 128  # one per leaf cage: two NICs each
    assert bom_total(d, "MMA4Z00-NS400") == 0
    check_schedule(d)


def test_switch_to_switch_copper_joins_whole_cages(catalog):
    d = design(catalog, gpu_count=256, leaf_to_spine="same-rack")
    assert d.trunk_media.kind == "dac" and bom_total(d, "MCP4Y10-N002") == 128
    check_schedule(d)


def test_across_the_hall_switch_links_go_single_mode(catalog):
    d = design(catalog, gpu_count=256, leaf_to_spine="across-hall")
    assert d.trunk_media.kind == "singlemode"
    assert d.trunk_media.switch_module.reach_m >= 100
    assert d.trunk_media.cable.length_m == 100


def test_fibre_length_class_is_the_shortest_that_covers_the_run(catalog):
    assert design(catalog, gpu_count=256, server_to_leaf=12).host_media.cable.length_m == 15


def test_ndr200_hosts_share_switch_ports_through_splitter_fibres(catalog):
    d = design(catalog, gpu_count=512, nic_generation="NDR200")
    assert d.topology.split == 2 and d.leaf_count == 8
    assert bom_total(d, "MFP7E20-N030") == 256
    check_schedule(d)


def test_hdr_uses_dac_then_aoc(catalog):
    d = design(
        catalog,
        gpu_count=160,
        nic_generation="HDR",
        server_to_leaf="same-rack",
        leaf_to_spine="same-row",
    )
    assert d.switch.generation == "HDR"
    assert (d.host_media.kind, d.trunk_media.kind) == ("dac", "aoc")
    assert bom_total(d, category="transceiver") == 0
    check_schedule(d)


def test_no_catalog_optic_for_the_distance_is_refused_naming_the_field(catalog):
    # HDR's longest catalog optic is the 100 m SR4 MMA1T00-HS.
    errors = invalid(catalog, gpu_count=160, nic_generation="HDR", leaf_to_spine=150)
    assert "150 m" in errors["leaf_to_spine"][0]


def test_power_adds_switches_and_optics(university):
    optics = 384 * 15 + 256 * 8.5
    switches = 10 * 640 + 2 * 747
    assert university.power_typical_w == pytest.approx(switches + optics)
    assert university.rack_units == 12


def test_bandwidth_figures(university):
    assert university.injection_gbps == 256 * 400
    assert university.bisection_gbps == 256 * 400 // 2


def test_ethernet_two_planes_double_the_switches(catalog):
    one = design(catalog, gpu_count=512, family="ethernet", nic_generation="400GbE")
    two = design(catalog, gpu_count=512, family="ethernet", nic_generation="400GbE", planes=2)
    assert two.leaf_count == 2 * one.leaf_count and two.endpoint_ports == 1024
    assert parts.plane_ports(two.nic, 400, 2) == 2  # a port to each plane
    check_schedule(two)


# --- extras in the BOM ---------------------------------------------------------------------------


def test_nics_are_in_the_bom_only_when_asked(catalog):
    assert bom_total(design(catalog, gpu_count=64), "MCX75310AAS-NEAT") == 0
    assert bom_total(design(catalog, gpu_count=64, include_nics=True), "MCX75310AAS-NEAT") == 64


def test_spares_round_up_per_part(catalog):
    d = design(catalog, gpu_count=256, spares_percent=5)
    spares = {b.sku: b.quantity for b in d.bom if b.role == "spare"}
    assert spares["MQM9700-NS2F"] == 1  # 12 switches x 5% = 0.6
    assert spares["MMA4Z00-NS"] == 20  # 384 x 5% = 19.2


def test_management_networks_are_counted(catalog):
    # Single in-band switches, as every design saved before the MLAG pairs (test_inband_mlag.py).
    d = design(
        catalog,
        gpu_count=256,
        inband_management=True,
        inband_redundant=False,
        outofband_management=True,
    )
    assert d.management.inband_switches == 1 and d.management.inband_cables == 32
    assert d.management.outofband_switches == 1  # 32 BMCs + 12 switches + 1 in-band switch
    assert bom_total(d, "920-9N302-00F7-0C2") == 1 and bom_total(d, "920-9N110-00F1-0C0") == 1
    # One quoted Cat6A patch cord per management port: 32 BMCs, 12 fabric switches, the in-band
    # switch and the management switch itself; same-row runs take the 30 m class.
    assert d.management.outofband_cables == 46 == bom_total(d, "CAT6A-PATCH-030")
    check_schedule(d)
    # Every management cable is quoted now (changed on purpose, #26): 32 in-band cables at the
    # same-row class's 30 m, an AOC (passive copper reaches 5 m), and no warning left.
    assert bom_total(d, "MFA1A00-C030") == 32
    assert not any("Management cabling is not in the catalog" in w for w in d.warnings)


def test_the_in_band_pair_takes_two_out_of_band_ports(catalog):
    d = design(catalog, gpu_count=256, inband_management=True, outofband_management=True)
    assert d.management.inband_switches == 2 and d.management.inband_cables == 2 * 32 + 2
    # 32 BMCs, 12 fabric switches, the 2 in-band switches and the management switch itself.
    assert d.management.outofband_cables == 47 == bom_total(d, "CAT6A-PATCH-030")
    # 64 server ports at 30 m and the peer link's 2 at the same-rack 2 m (changed on purpose, #26).
    assert bom_total(d, "MFA1A00-C030") == 64 and bom_total(d, "MCP1600-C002") == 2
    assert not any("Management cabling is not in the catalog" in w for w in d.warnings)


@pytest.mark.parametrize("servers", [30, 31, 40, 62, 93])
def test_management_ports_count_ufm_appliances_and_never_overflow_the_switches(catalog, servers):
    d = design(
        catalog, server_count=servers, subnet_manager="ufm-appliance", outofband_management=True
    )
    m = d.management
    switches = d.leaf_count + d.spine_count + d.core_count
    assert m.outofband_cables == servers + switches + d.ufm.appliances + m.outofband_switches
    assert m.outofband_cables <= 48 * m.outofband_switches  # the SN2201's 48 RJ45 ports
    assert m.outofband_cables > 48 * (m.outofband_switches - 1)  # and no switch too many


def test_without_patch_cords_in_the_catalog_the_management_cables_are_reported(catalog):
    no_cords = [p for p in catalog if p.media != "twisted-pair"]
    d = design(no_cords, gpu_count=256, outofband_management=True)
    assert not any(
        line.category == "cable" and line.role == "out-of-band management" for line in d.bom
    )
    assert any("45 RJ45 patch cords to quote separately" in w for w in d.warnings)


def test_gpu_counts_that_are_not_whole_servers_are_rounded_up_and_said(catalog):
    d = design(catalog, gpu_count=100)
    assert d.topology.servers == 13
    assert any("designed for 104 GPUs" in w for w in d.warnings)


def test_one_server_gets_the_nvlink_advice(catalog):
    assert "NVLink" in design(catalog, gpu_count=8).advice[0]


def test_json_contract_keys(university):
    keys = {
        "tiers",
        "node_count",
        "endpoint_ports",
        "switch_sku",
        "leaf_count",
        "spine_count",
        "core_count",
        "ports",
        "links_per_leaf_per_spine",
        "oversubscription",
        "bom",
        "power_w",
        "rack_units",
        "bisection_gbps",
        "max_hops",
        "warnings",
    }
    d = university.as_dict()
    assert keys <= d.keys()
    assert set(d["ports"]) == {"used", "free"} and set(d["power_w"]) == {"typical", "max"}
    assert all({"sku", "category", "quantity", "role"} <= row.keys() for row in d["bom"])


def test_cable_schedule_csv_lists_every_link_with_readable_names(university):
    rows = list(csv.DictReader(io.StringIO(cable_schedule_csv(university))))
    assert len(rows) == 512
    assert rows[0]["a_device"] == "node-001" and rows[0]["b_device"] == "leaf-r1-01"
    assert {r["b_device"] for r in rows if r["tier"] == "leaf-spine"} == {
        "spine-01",
        "spine-02",
        "spine-03",
        "spine-04",
    }
    assert rows[-1]["length_m"] == "30.0"


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"gpu_count": 0}, "gpu_count"),
        ({"gpu_count": -8}, "gpu_count"),
        ({}, "gpu_count"),
        ({"gpu_count": 16, "server_count": 3}, "gpu_count"),
        ({"gpu_count": 16, "gpus_per_server": 0}, "gpus_per_server"),
        ({"gpu_count": 16, "nics_per_server": 0}, "nics_per_server"),
        ({"gpu_count": 16, "family": "token-ring"}, "family"),
        ({"gpu_count": 16, "planes": 2}, "planes"),
        ({"gpu_count": 16, "oversubscription": 0.5}, "oversubscription"),
        ({"gpu_count": 16, "server_to_leaf": "next-door"}, "server_to_leaf"),
        ({"gpu_count": 16, "leaf_to_spine": -3}, "leaf_to_spine"),
        ({"gpu_count": 16, "subnet_manager": "none"}, "subnet_manager"),
        ({"gpu_count": 16, "spares_percent": 150}, "spares_percent"),
        ({"gpu_count": 16, "nic_generation": "FDR"}, "nic_generation"),
        ({"gpu_count": 16, "switch_part_number": "NOPE-1"}, "switch_part_number"),
        ({"gpu_count": 16, "switch_part_number": "MCX75310AAS-NEAT"}, "switch_part_number"),
        ({"gpu_count": 16, "switch_part_number": "920-9N42F-00RI-7C0"}, "switch_part_number"),
        (
            {"gpu_count": 16, "nic_generation": "HDR", "switch_part_number": "MQM9700-NS2F"},
            "nic_generation",
        ),
        ({"gpu_count": 16, "nic_part_number": "MCX653105A-HDAT"}, "nic_part_number"),
        ({"gpu_count": 16, "nic_part_number": "MMA4Z00-NS"}, "nic_part_number"),
        ({"gpu_count": True}, "gpu_count"),
    ],
)
def test_invalid_requests_name_the_field(catalog, fields, field):
    errors = invalid(catalog, **fields)
    assert field in errors and all(errors[field])

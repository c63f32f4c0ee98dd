"""UFM licences come with the hosts UFM runs on, quoted and cabled, whenever a leaf port is free.

NVIDIA UFM Enterprise User Manual, "UFM Overview" > "Fabric Topology with UFM": UFM is
host-based, a UFM Server and a UFM HA Server; "Installation Notes" > "Bare Metal Deployment
Requirements": an x86_64 host with a ConnectX HCA on the fabric. NVIDIA's DGX H100 SuperPOD
reference architecture ("Compute fabric") gives UFM the 32nd node slot of each leaf in a
31-server scalable unit. So a ufm-licence design quotes the catalog's UFM host server twice
(master and standby), each with one InfiniBand NIC of the fabric's generation, cabled into free
leaf ports as the UFM appliances are (tier ufm-leaf). A fabric with no leaf port free quotes no
licence: its switches run the subnet manager, and the warning says why and what UFM would add
(test_ufm_licences_need_hosts.py); it is never given a rail group, nor refused, for two hosts."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, cable_schedule, design_fabric
from quoting.engine.install import SiteInputs, plan_layout
from quoting.engine.install.pack import pack_zip_chunks
from tests.quoting.engine.fabric_checks import bom_total, check_schedule

HOST = "UFM-HOST-1U"
LICENCE = "UFM-ENT-LIC-EP"
NOT_QUOTED = "UFM is not quoted: its licences come only with the two hosts UFM runs on"


def licence_design(catalog, **asked):
    asked.setdefault("nic_generation", "NDR")
    return design_fabric(FabricRequirements(subnet_manager="ufm-licence", **asked), catalog)


def subnet_manager_lines(design) -> dict[str, int]:
    return {line.sku: line.quantity for line in design.bom if line.role == "subnet manager"}


def ufm_runs(design):
    return [run for run in cable_schedule(design) if run.tier == "ufm-leaf"]


def test_384_gpus_quote_two_hosts_with_their_nics_and_cable_them_into_two_leaf_ports(catalog):
    # 48 servers in a 64-port rail-optimised fabric: each rail leaf has 16 ports free.
    design = licence_design(catalog, gpu_count=384)
    assert subnet_manager_lines(design) == {
        LICENCE: design.endpoint_ports,
        HOST: 2,
        "MCX75310AAS-NEAT": 2,  # the catalog's single-port NDR ConnectX-7
    }
    assert design.links_by_tier()["ufm-leaf"] == 2
    runs = ufm_runs(design)
    assert sorted((r.a_device, r.a_port) for r in runs) == [("ufm-01", "p1"), ("ufm-02", "p1")]
    # Master and standby on different leaves.
    assert len({r.b_device for r in runs}) == 2
    assert not any(NOT_QUOTED in str(w) for w in design.warnings)
    check_schedule(design)


def test_the_hosts_add_what_they_cost_and_nothing_else(catalog):
    licences = licence_design(catalog, gpu_count=384)
    opensm = design_fabric(
        FabricRequirements(gpu_count=384, nic_generation="NDR", subnet_manager="opensm-host"),
        catalog,
    )
    # The same switches: two free leaf ports do not change the fabric.
    assert (licences.leaf_count, licences.spine_count) == (opensm.leaf_count, opensm.spine_count)
    assert bom_total(licences, category="switch") == bom_total(opensm, category="switch")
    host = next(p for p in catalog if p.part_number == HOST)
    assert licences.rack_units == opensm.rack_units + 2 * host.rack_units


# 2,048 GPUs are over the switches' 2,048 nodes: UFM is quoted there, its hosts uncabled
# (test_switch_subnet_manager_node_limit.py).
@pytest.mark.parametrize("gpus", [512, 1024])
def test_a_full_rail_optimised_fabric_quotes_no_licence_and_says_how_to_free_a_port(catalog, gpus):
    design = licence_design(catalog, gpu_count=gpus)
    # Every leaf port is a server's: no hosts, no rail group added for them, no refusal, and
    # no licence for a UFM with nowhere to run.
    assert subnet_manager_lines(design) == {} and design.subnet_manager == "on-switch"
    assert design.ufm is None and "ufm-leaf" not in design.links_by_tier()
    assert design.leaf_count == gpus // 32
    warning = next(str(w) for w in design.warnings if NOT_QUOTED in str(w))
    assert "No leaf port is free for the UFM hosts: design 31 servers in a scalable unit of 32" in (
        warning
    )


def test_one_server_slot_left_free_has_the_hosts_quoted(catalog):
    # The warning's fix, taken: 63 servers (31 in the second scalable unit of 32).
    design = licence_design(catalog, server_count=63)
    assert subnet_manager_lines(design)[HOST] == 2 and len(ufm_runs(design)) == 2
    assert design.leaf_count == 16


def test_hosts_that_would_take_more_spines_are_left_out_saying_so(catalog):
    # Not rail-optimised, 512 GPUs fill 16 leaves: a 17th leaf for two hosts would need 16
    # spines instead of 8.
    design = licence_design(catalog, gpu_count=512, rail_optimized=False)
    assert subnet_manager_lines(design) == {}
    assert design.ufm is None and (design.leaf_count, design.spine_count) == (16, 8)
    warning = next(str(w) for w in design.warnings if NOT_QUOTED in str(w))
    assert (
        "Cabling the UFM hosts would add 9 to the 24 switches designed "
        "(leaves +1, spines +8, core +0)" in warning
    )


@pytest.mark.parametrize(
    ("generation", "nic"),
    [("NDR", "MCX75310AAS-NEAT"), ("HDR", "MCX653105A-HDAT"), ("XDR", "900-9X81E-00EX-ST0")],
)
def test_the_hosts_nic_and_links_are_of_the_fabrics_generation(catalog, generation, nic):
    design = licence_design(catalog, gpu_count=384, nic_generation=generation)
    assert design.ufm is not None and design.ufm.nic.part_number == nic
    assert design.ufm.nic.generation == design.switch.generation == generation
    # Its optics (or AOC) are of the generation; a passive fibre serves several generations.
    by_part = {p.part_number: p for p in catalog}
    link_parts = [by_part[line.sku] for line in design.bom if line.role == "ufm-leaf"]
    active = [p for p in link_parts if p.category == "transceiver" or p.media == "aoc"]
    assert active and {p.generation for p in active} == {generation}
    check_schedule(design)


def test_without_a_ufm_host_in_the_catalog_no_licence_is_quoted_and_the_warning_names_it(catalog):
    no_host = [p for p in catalog if p.part_number != HOST]
    design = licence_design(no_host, gpu_count=384, nic_generation="HDR")
    assert subnet_manager_lines(design) == {} and design.subnet_manager == "on-switch"
    assert [(line.sku, line.quantity) for line in design.ufm_option] == [(LICENCE, 384)]
    warning = next(str(w) for w in design.warnings if NOT_QUOTED in str(w))
    assert "no UFM host with an InfiniBand NIC for HDR fabrics" in warning


def test_automatic_ufm_quotes_the_hosts_too(catalog):
    design = design_fabric(FabricRequirements(gpu_count=384, nic_generation="NDR"), catalog)
    assert design.subnet_manager == "ufm-licence"
    assert subnet_manager_lines(design)[HOST] == 2


def test_the_install_pack_and_cable_schedule_list_the_hosts(catalog):
    design = licence_design(catalog, gpu_count=384, outofband_management=True)
    layout = plan_layout(design, SiteInputs(), catalog)
    hosts = [d for d in layout.devices.values() if d.role == "ufm"]
    assert [(d.name, d.part) for d in hosts] == [("ufm-01", HOST), ("ufm-02", HOST)]
    files = zipfile.ZipFile(io.BytesIO(b"".join(pack_zip_chunks(layout))))
    schedule = list(csv.DictReader(io.StringIO(files.read("cable-schedule.csv").decode())))
    ufm_rows = [r for r in schedule if r["tier"] == "ufm-leaf"]
    assert sorted(r["a_device"] for r in ufm_rows) == ["ufm-01", "ufm-02"]
    # Their BMCs are on the out-of-band network like a server's.
    management = [
        r for r in schedule if r["tier"] != "ufm-leaf" and "ufm-0" in r["a_device"] + r["z_device"]
    ]
    assert len(management) == 2


# --- rack-scale systems (NVL72): whole racks fill the leaves --------------------------------------
# DGX SuperPOD RA (DGX GB200): a scalable unit is 8 racks of 72 ConnectX-7 ports, 576 ports on
# 18 leaves of 32 down ports: no leaf port is left for UFM. The engine keeps NVIDIA's unit, quotes
# no UFM licence (the switches run the subnet manager) and says why, rather than dropping a rack
# (72 GPUs) or adding switches.

GB200, GB300 = "DGX-GB200-NVL72", "DGX-GB300-NVL72"
FEWER_SERVERS = "design fewer servers"


def nvl72_licences(catalog, racks, part_number=GB200, **asked):
    return licence_design(
        catalog,
        server_count=racks,
        gpus_per_server=72,
        server_part_number=part_number,
        nic_generation="XDR" if part_number == GB300 else "NDR",
        **asked,
    )


@pytest.mark.parametrize(("racks", "switches"), [(8, (18, 16, 0)), (16, (36, 32, 0))])
def test_full_nvl72_scalable_units_keep_nvidias_leaves_and_quote_no_hostless_licence(
    catalog, racks, switches
):
    design = nvl72_licences(catalog, racks)

    assert subnet_manager_lines(design) == {} and design.subnet_manager == "on-switch"
    assert (LICENCE, racks * 72) in [(line.sku, line.quantity) for line in design.ufm_option]
    assert design.ufm is None and "ufm-leaf" not in design.links_by_tier()
    assert (design.leaf_count, design.spine_count, design.core_count) == switches
    warning = next(str(w) for w in design.warnings if NOT_QUOTED in str(w))
    assert (
        f"No leaf port is kept for the UFM hosts: the {racks} racks' {racks * 72} compute ports "
        "fill the leaves rack by rack"
    ) in warning
    assert "a whole rack's 72 ports" in warning
    # Not the advice for servers of 8 ports: a rack fewer is 72 GPUs fewer.
    assert "scalable unit of 32" not in warning and FEWER_SERVERS not in warning


def test_nvl72_racks_whose_hosts_would_take_a_spine_are_not_told_to_drop_a_rack(catalog):
    # 16 GB300 racks leave leaf ports free in their rail group of 18, but the hosts' ports
    # would push the leaves' uplinks onto one more spine.
    design = nvl72_licences(catalog, 16, GB300)

    assert subnet_manager_lines(design) == {}
    warning = next(str(w) for w in design.warnings if NOT_QUOTED in str(w))
    assert "Cabling the UFM hosts would add 1 to the" in warning
    assert "the engine adds no switches for two hosts" in warning
    assert FEWER_SERVERS not in warning


def test_a_part_filled_nvl72_unit_keeps_its_free_leaf_ports_for_the_racks_to_come(catalog):
    # DGX SuperPOD GB200 RA, "Network Fabrics": a part-filled scalable unit is built whole and
    # the missing racks' ports left unused (rule 5c), so the hosts are not cabled into them.
    design = nvl72_licences(catalog, 7)

    assert subnet_manager_lines(design) == {}
    assert design.ufm is None and "ufm-leaf" not in design.links_by_tier()
    warning = next(str(w) for w in design.warnings if NOT_QUOTED in str(w))
    assert "kept for the racks still to come (1 of the scalable unit's 8)" in warning
    assert "more switches" not in warning and FEWER_SERVERS not in warning


def test_ufm_appliances_with_no_room_among_nvl72_racks_are_refused_saying_why(catalog):
    with pytest.raises(InvalidInput) as refused:
        design_fabric(
            FabricRequirements(
                server_count=16,
                gpus_per_server=72,
                server_part_number=GB200,
                nic_generation="NDR",
                subnet_manager="ufm-appliance",
            ),
            catalog,
        )

    assert list(refused.value.messages) == ["subnet_manager"]
    text = str(refused.value.messages["subnet_manager"][0])
    assert "No leaf port is free for the UFM appliances: the 16 racks' 1152 compute ports" in text
    assert "Choose UFM licences" in text

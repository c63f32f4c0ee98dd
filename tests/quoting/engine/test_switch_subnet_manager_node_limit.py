"""The switches' own subnet manager runs fabrics of up to 2,048 nodes; a larger fabric gets UFM.

NVIDIA MLNX-OS User Manual v3.12.2200 LTS, "Subnet Manager": "The embedded SM on the MLNX-OS
can be used to manage fabrics up to 2048 nodes". Our rule (the manual does not say what a node
is): one node per endpoint port and per switch. 256 servers of 8 NDR GPUs are 2,048 endpoint
ports and 96 switches: 2,144 nodes. Their leaves have no port for UFM's two hosts, yet "no UFM"
is no valid build there, and NVIDIA's own SuperPOD tables build such full units (DGX B200: 256
DGX on 64 leaves and 32 spines). So UFM is quoted, licences, two hosts and their NICs, the
hosts not cabled, and the warning names the size that cables them, as NVIDIA's SuperPOD gives
UFM a server slot (127 DGX in 128). The engine adds no switch tier for two hosts. A host that
is bought is racked and powered: the installation pack racks the two as it racks cabled UFM
hosts, with no fabric cable for them and a note that their ports still need leaf ports."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest

from quoting.designs.services.packs import pack_translate
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.install import SiteInputs, plan_layout
from quoting.engine.install.pack import pack_zip_chunks

LICENCE, HOST, NIC = "UFM-ENT-LIC-EP", "UFM-HOST-1U", "MCX75310AAS-NEAT"
SERVERS = [pytest.param(None, id="HGX"), pytest.param("DGX-H100", id="DGX")]
# GPUs asked: (switches, nodes: endpoints + switches, the size named that cables the hosts).
OVER_THE_LIMIT = {
    2048: ((64, 32, 0), 2048 + 96, 255),
    4096: ((128, 128, 64), 4096 + 320, 511),
}
UNCABLED = "UFM is quoted, its two hosts not cabled"


def designed(catalog, **asked):
    return design_fabric(FabricRequirements(nic_generation="NDR", **asked), catalog)


def subnet_manager_lines(design) -> dict[str, int]:
    return {line.sku: line.quantity for line in design.bom if line.role == "subnet manager"}


@pytest.mark.parametrize("server", SERVERS)
@pytest.mark.parametrize("gpus", OVER_THE_LIMIT)
@pytest.mark.parametrize("subnet_manager", ["auto", "ufm-licence"])
def test_a_full_fabric_over_2048_nodes_quotes_ufm_and_names_the_size_that_cables_it(
    catalog, server, gpus, subnet_manager
):
    switches, nodes, servers = OVER_THE_LIMIT[gpus]
    design = designed(
        catalog, gpu_count=gpus, server_part_number=server, subnet_manager=subnet_manager
    )

    assert (design.leaf_count, design.spine_count, design.core_count) == switches
    assert design.subnet_manager == "ufm-licence" and design.sm_switch is None
    assert subnet_manager_lines(design) == {LICENCE: gpus, HOST: 2, NIC: 2}
    assert design.ufm.links == () and "ufm-leaf" not in design.links_by_tier()
    assert design.ufm_option == ()  # in the BOM, not beside it
    (warning,) = [str(w) for w in design.warnings if UNCABLED in str(w)]
    assert f"this fabric has {nodes} InfiniBand nodes ({gpus} endpoint ports" in warning
    assert "more than the 2048 the switches' own subnet manager runs" in warning
    assert f"design {servers} servers ({servers * 8} GPUs) to have them cabled" in warning
    assert not any("UFM is not quoted" in str(w) for w in design.warnings)


@pytest.mark.parametrize("server", SERVERS)
@pytest.mark.parametrize("gpus", OVER_THE_LIMIT)
def test_the_size_named_cables_the_two_hosts(catalog, server, gpus):
    _switches, _nodes, servers = OVER_THE_LIMIT[gpus]
    design = designed(catalog, server_count=servers, server_part_number=server)

    assert design.subnet_manager == "ufm-licence" and design.ufm is not None
    assert subnet_manager_lines(design) == {LICENCE: servers * 8, HOST: 2, NIC: 2}
    assert design.links_by_tier()["ufm-leaf"] == 2
    assert not any(UNCABLED in str(w) for w in design.warnings)


@pytest.mark.parametrize("server", SERVERS)
@pytest.mark.parametrize("gpus", [1984, 2048, 4096])
def test_the_switches_subnet_manager_asked_over_2048_nodes_is_refused(catalog, server, gpus):
    # 1,984 GPUs leave UFM a port, but 1,984 endpoints and 96 switches are 2,080 nodes.
    with pytest.raises(InvalidInput) as refused:
        designed(catalog, gpu_count=gpus, server_part_number=server, subnet_manager="on-switch")
    (text,) = refused.value.errors["subnet_manager"]
    assert "choose UFM licences, a UFM appliance or an OpenSM host" in text


def test_under_the_limit_the_switches_still_run_it(catalog):
    # 1,024 endpoints and 48 switches: 1,072 nodes.
    design = designed(catalog, gpu_count=1024, subnet_manager="on-switch")
    assert design.subnet_manager == "on-switch"
    design = designed(catalog, gpu_count=1024, subnet_manager="ufm-licence")
    assert design.subnet_manager == "on-switch" and design.ufm_option


def test_an_opensm_host_is_not_held_to_the_switches_limit(catalog):
    design = designed(catalog, gpu_count=2048, subnet_manager="opensm-host")
    assert design.subnet_manager == "opensm-host"


def test_ethernet_has_no_subnet_manager_and_no_ufm_option(catalog):
    design = design_fabric(
        FabricRequirements(gpu_count=4096, family="ethernet", nic_generation="400GbE"), catalog
    )
    assert design.subnet_manager == "" and design.ufm_option == ()
    assert subnet_manager_lines(design) == {}


def test_the_growth_step_is_still_counted_when_its_switches_could_not_run_it(catalog):
    # 1,024 GPUs on the switches' subnet manager (1,072 nodes) step to 1,280 GPUs; 1,536 GPUs
    # (1,536 + 72 nodes) step to 2,304 GPUs in whole units, too many nodes for the switches.
    # The step counts switches and cables all the same.
    design = designed(catalog, gpu_count=1536, subnet_manager="on-switch")
    assert design.next_step is not None and design.next_step.gpus == 2304
    assert not any("largest fabric" in str(w) for w in design.warnings)


def pack_files(layout, language: str) -> dict[str, str]:
    chunks = pack_zip_chunks(layout, translate=pack_translate(language))
    files = zipfile.ZipFile(io.BytesIO(b"".join(chunks)))
    return {name: files.read(name).decode() for name in ("README.txt", "racks.csv")} | {
        "rack-elevations.svg": files.read("rack-elevations.svg").decode(),
        "cable-schedule.csv": files.read("cable-schedule.csv").decode(),
    }


def network_power_w(racks_csv: str) -> float:
    return sum(float(r["network_typical_w"]) for r in csv.DictReader(io.StringIO(racks_csv)))


NOTE = {
    "en": (
        "ufm-01, ufm-02 (UFM-HOST-1U) are racked and powered like any UFM host, but their 2 "
        "InfiniBand ports (one MCX75310AAS-NEAT each) still need leaf ports",
        "design 255 servers (2040 GPUs) to have them cabled",
    ),
    "zh-hans": (
        "ufm-01、ufm-02（UFM-HOST-1U）与其他 UFM 主机一样上架并供电，但其 2 个 InfiniBand 端口"
        "（每台一块 MCX75310AAS-NEAT）仍需叶交换机端口",
        "请设计 255 台服务器（2040 个 GPU），主机即可接线",
    ),
}


@pytest.mark.parametrize("language", NOTE)
def test_uncabled_ufm_hosts_are_racked_and_powered_with_no_fabric_cable_and_a_note(
    catalog, language
):
    # The same fabric with OpenSM on customer hosts differs by the two UFM hosts alone.
    ufm = designed(catalog, gpu_count=2048)
    opensm = designed(catalog, gpu_count=2048, subnet_manager="opensm-host")
    host = next(p for p in catalog if p.part_number == HOST)
    assert ufm.rack_units == opensm.rack_units + 2 * host.rack_units
    assert ufm.power_typical_w == opensm.power_typical_w + 2 * host.power_typical_w
    assert ufm.power_max_w == opensm.power_max_w + 2 * host.power_max_w

    layout = plan_layout(ufm, SiteInputs(), catalog)
    hosts = [(d.name, d.part) for d in layout.devices.values() if d.role == "ufm"]
    assert hosts == [("ufm-01", HOST), ("ufm-02", HOST)]
    files = pack_files(layout, language)
    racked = [r["devices"] for r in csv.DictReader(io.StringIO(files["racks.csv"]))]
    assert sum(f"ufm-0{n} ({HOST})" in devices for devices in racked for n in (1, 2)) == 2
    assert "ufm-01" in files["rack-elevations.svg"] and "ufm-02" in files["rack-elevations.svg"]
    opensm_racks = pack_files(plan_layout(opensm, SiteInputs(), catalog), "en")["racks.csv"]
    hosts_w = 2 * host.power_typical_w
    assert network_power_w(files["racks.csv"]) == network_power_w(opensm_racks) + hosts_w

    schedule = list(csv.DictReader(io.StringIO(files["cable-schedule.csv"])))
    assert not [r for r in schedule if "ufm" in r["a_device"] + r["z_device"] + r["tier"]]
    readme = " ".join(files["README.txt"].split("\n"))
    assert all(part in readme for part in NOTE[language])


# --- one rule for "UFM is required", on what is built -------------------------------------------
# A part-filled unit of GB200 racks is built whole (rule 5c): 25 racks of 72 ports are 1,800
# endpoint ports on the unit's 216 switches, 2,016 nodes, which the switches' subnet manager
# runs; the planned 32 racks are 2,520 nodes, which it would not.
GB200 = "DGX-GB200-NVL72"
REQUIRED = "UFM is effectively required"
GROWTH = "growing to it needs UFM or an OpenSM host"


def gb200_racks(catalog, racks, **asked):
    return designed(
        catalog, server_count=racks, gpus_per_server=72, server_part_number=GB200, **asked
    )


def test_a_part_filled_unit_the_switches_run_is_not_told_ufm_is_required_but_warned_of_growth(
    catalog,
):
    design = gb200_racks(catalog, 25)
    assert design.subnet_manager == "on-switch"
    warnings = [str(w) for w in design.warnings]
    assert not any(REQUIRED in w for w in warnings)
    (growth,) = [w for w in warnings if GROWTH in w]
    assert "runs the 2016 InfiniBand nodes built (up to 2048" in growth
    assert "the full scalable unit planned has 2520 (2304 endpoint ports)" in growth


def test_a_part_filled_unit_over_the_limit_gets_ufm_and_no_growth_warning(catalog):
    design = gb200_racks(catalog, 26)
    assert design.subnet_manager == "ufm-licence"
    assert not any(GROWTH in str(w) or REQUIRED in str(w) for w in design.warnings)


def test_a_whole_unit_under_the_limit_has_no_growth_warning(catalog):
    design = gb200_racks(catalog, 24)
    assert not any(GROWTH in str(w) or REQUIRED in str(w) for w in design.warnings)


@pytest.mark.parametrize(("gpus", "nodes"), [(1984, 2080), (2048, 2144)])
def test_an_opensm_host_over_the_limit_is_told_ufm_is_required_counting_nodes(catalog, gpus, nodes):
    design = designed(catalog, gpu_count=gpus, subnet_manager="opensm-host")
    (required,) = [str(w) for w in design.warnings if REQUIRED in str(w)]
    assert f"this fabric has {nodes} InfiniBand nodes, more than the 2048" in required


def test_under_the_limit_ufm_is_recommended_for_the_endpoints_built(catalog):
    design = designed(catalog, gpu_count=1024, subnet_manager="opensm-host")
    assert not any(REQUIRED in str(w) for w in design.warnings)
    assert "UFM is recommended from a few hundred endpoints; this fabric has 1024." in [
        str(w) for w in design.warnings
    ]


# --- what the UFM hosts' leaf port would cost a non-rail fabric ----------------------------------
# Not rail-optimised, 2,048 NDR GPUs fill 64 leaves on 32 spines, as many leaves as a 64-port
# spine takes: a 65th leaf for the hosts makes three tiers, which the planner builds cheapest as
# 5 pods of 16 spines (80) under 40 core switches. 65 + 80 + 40 = 185 switches, 89 more than the
# 96 designed: the warning says so tier by tier, never as a total that reads like the fabric's.
@pytest.mark.parametrize(
    ("gpus", "designed_switches", "added", "by_tier"),
    [
        (2048, 96, 89, "leaves +1, spines +48, core +40: a third switch tier"),
        (4096, 320, 33, "leaves +1, spines +16, core +16"),
    ],
)
def test_a_non_rail_fabric_names_the_switches_the_hosts_would_add_tier_by_tier(
    catalog, gpus, designed_switches, added, by_tier
):
    design = designed(catalog, gpu_count=gpus, rail_optimized=False)
    assert design.leaf_count + design.spine_count + design.core_count == designed_switches
    (warning,) = [str(w) for w in design.warnings if UNCABLED in str(w)]
    assert (
        f"Cabling the UFM hosts would add {added} to the {designed_switches} switches designed "
        f"({by_tier})" in warning
    )


def test_over_the_limit_without_a_ufm_host_in_the_catalog_the_licences_say_so(catalog):
    # The licences are quoted (the fabric cannot do without UFM), but no host is: the warning
    # must not say "its two hosts not cabled" of hosts that are not there.
    without = [p for p in catalog if p.part_number != HOST]
    design = designed(without, gpu_count=2048)
    assert subnet_manager_lines(design) == {LICENCE: 2048}
    assert any("UFM licences are quoted without their hosts" in w for w in design.warnings)
    assert not any("its two hosts not cabled" in w for w in design.warnings)

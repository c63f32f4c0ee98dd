"""UFM licences are quoted only with the hosts UFM runs on, quoted and cabled.

NVIDIA UFM Enterprise User Manual, "Fabric Topology with UFM": UFM is host-based, a UFM Server
and a UFM HA Server on the fabric. NVIDIA's DGX H100 SuperPOD RA ("Network Fabrics", Table 4)
counts "Compute and UFM" cables on the leaves: 252 for 31 DGX (248 GPUs), 1,020 for 127 DGX;
a full SU of 32 has no leaf port left. Our rule, as NVIDIA publishes none for whole SUs: a
fabric whose leaves have no port for the hosts quotes no licence; its managed switches run the
subnet manager (MLNX-OS User Manual, "Subnet Manager": up to 2048 nodes, without adaptive
routing or SHARP), and the warning says why and lists the UFM option (licences, hosts, NICs)
priced beside. "auto" follows the same rule from 300 endpoints. On NDR (64-port QM97x0) 256,
512, 1,024 and 2,048 GPUs fill their leaves (2,048 is over the switches' 2,048 nodes: UFM is
quoted there, its hosts uncabled); on XDR (144-port leaves) every size has room."""

from __future__ import annotations

import pytest

from quoting.engine.fabric import FabricRequirements, cable_schedule, design_fabric
from quoting.engine.install import SiteInputs, plan_layout
from tests.quoting.engine.fabric_checks import check_schedule

LICENCE, HOST = "UFM-ENT-LIC-EP", "UFM-HOST-1U"
NIC = {"NDR": "MCX75310AAS-NEAT", "XDR": "900-9X81E-00EX-ST0"}
NOT_QUOTED = "UFM is not quoted: its licences come only with the two hosts UFM runs on"
# Servers per generation: HGX (the NIC's own cages) and DGX (twin-port cages).
SERVERS = {"NDR": (None, "DGX-H100"), "XDR": ("HGX-B300-8GPU-SRV", "DGX-B300")}
# GPUs: (leaves, spines), whether the leaves keep a port for each UFM host.
SIZES = {
    "NDR": {
        248: ((8, 4), True),
        256: ((8, 4), False),
        384: ((16, 8), True),
        512: ((16, 8), False),
        1024: ((32, 16), False),
        # 2,048 NDR GPUs: 2,144 nodes are too many for the switches' subnet manager, so UFM
        # is quoted with its hosts uncabled (test_switch_subnet_manager_node_limit.py).
    },
    "XDR": {
        248: ((4, 2), True),
        256: ((4, 2), True),
        384: ((8, 3), True),
        512: ((8, 4), True),
        1024: ((16, 8), True),
        2048: ((32, 18), True),
    },
}
CASES = [
    pytest.param(generation, server, gpus, id=f"{generation}-{server or 'HGX'}-{gpus}")
    for generation, servers in SERVERS.items()
    for server in servers
    for gpus in SIZES[generation]
]


def designed(catalog, generation, server, gpus, subnet_manager):
    return design_fabric(
        FabricRequirements(
            gpu_count=gpus,
            nic_generation=generation,
            server_part_number=server,
            subnet_manager=subnet_manager,
        ),
        catalog,
    )


def subnet_manager_lines(design) -> dict[str, int]:
    return {line.sku: line.quantity for line in design.bom if line.role == "subnet manager"}


def hosts_cabled(design) -> list[tuple[str, str]]:
    return sorted(
        (run.a_device, run.b_device) for run in cable_schedule(design) if run.tier == "ufm-leaf"
    )


@pytest.mark.parametrize(("generation", "server", "gpus"), CASES)
def test_ufm_licences_come_with_two_cabled_hosts_or_not_at_all(catalog, generation, server, gpus):
    design = designed(catalog, generation, server, gpus, "ufm-licence")
    (leaves, spines), room = SIZES[generation][gpus]

    assert (design.leaf_count, design.spine_count, design.core_count) == (leaves, spines, 0)
    warned = [w for w in design.warnings if NOT_QUOTED in w]
    if room:
        assert design.subnet_manager == "ufm-licence"
        assert subnet_manager_lines(design) == {LICENCE: gpus, HOST: 2, NIC[generation]: 2}
        cabled = hosts_cabled(design)
        assert [host for host, _ in cabled] == ["ufm-01", "ufm-02"]
        assert len({leaf for _, leaf in cabled}) == 2  # master and standby on two leaves
        assert design.links_by_tier()["ufm-leaf"] == 2
        assert not warned and design.ufm_option == ()
    else:
        assert design.subnet_manager == "on-switch"
        assert subnet_manager_lines(design) == {} and design.ufm is None
        assert hosts_cabled(design) == [] and "ufm-leaf" not in design.links_by_tier()
        assert [(line.sku, line.quantity) for line in design.ufm_option] == [
            (LICENCE, gpus),
            (HOST, 2),
            (NIC[generation], 2),
        ]
        (warning,) = warned
        assert f"The UFM option, priced beside the design: {gpus} x {LICENCE}, 2 x {HOST}" in (
            warning
        )
        assert "design 31 servers in a scalable unit of 32" in warning
        assert "without UFM's adaptive routing, SHARP and congestion control" in warning
    check_schedule(design)


@pytest.mark.parametrize(("generation", "server", "gpus"), CASES)
def test_auto_follows_the_rule_from_a_few_hundred_endpoints(catalog, generation, server, gpus):
    design = designed(catalog, generation, server, gpus, "auto")
    _switches, room = SIZES[generation][gpus]
    licences = subnet_manager_lines(design).get(LICENCE, 0)

    if gpus < 300:
        # Below UFM's few hundred endpoints a managed switch runs it, as before.
        assert design.subnet_manager == "on-switch" and design.ufm_option == ()
    elif room:
        assert design.subnet_manager == "ufm-licence" and licences == gpus
        assert subnet_manager_lines(design)[HOST] == 2 and len(hosts_cabled(design)) == 2
    else:
        assert design.subnet_manager == "on-switch" and licences == 0
        assert design.ufm_option and any(NOT_QUOTED in w for w in design.warnings)
        # The switches' subnet manager needs managed switches: the unmanaged QM9790 fabric
        # has two managed QM9700 at its top tier.
        assert design.switch.managed or design.sm_switch_count == 2
        # Its own warning says why: no second "UFM is recommended" warning beside it.
        assert not any("UFM is recommended" in w for w in design.warnings)


def test_the_ufm_option_is_in_the_designs_figures(catalog):
    design = designed(catalog, "NDR", None, 512, "auto")
    assert design.as_dict()["ufm_option"] == [
        {"sku": line.sku, "quantity": line.quantity, "name": line.name}
        for line in design.ufm_option
    ]
    assert [row["sku"] for row in design.as_dict()["ufm_option"]] == [LICENCE, HOST, NIC["NDR"]]


@pytest.mark.parametrize(
    ("generation", "server", "gpus", "hosts"),
    [("NDR", "DGX-H100", 256, []), ("XDR", "DGX-B300", 256, ["ufm-01", "ufm-02"])],
)
def test_the_installation_pack_racks_the_hosts_only_when_quoted(
    catalog, generation, server, gpus, hosts
):
    design = designed(catalog, generation, server, gpus, "ufm-licence")
    # A DGX B300 draws 14.5 kW: the high-density rack budget.
    layout = plan_layout(design, SiteInputs(rack_power_kw=40), catalog)
    assert sorted(d.name for d in layout.devices.values() if d.role == "ufm") == hosts

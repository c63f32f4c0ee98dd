"""NVIDIA's DGX BasePOD: 2 to 16 DGX on Quantum-2 QM9700, at NDR200 and at NDR400.

Source: NVIDIA DGX BasePOD: The Infrastructure Foundation for Enterprise AI, Reference
Architecture Featuring NVIDIA DGX B200, H200 and H100 Systems (RA-11127-001; V5, 2025-08-06, as
the page's version is listed), "Reference Architectures", https://docs.nvidia.com/dgx-basepod/
reference-architecture-infrastructure-foundation-enterprise-ai/latest/reference-architectures.html
read on 2026-12-07:
- "DGX BasePOD with NDR400 Compute Fabric", Table 1 "DGX BasePOD Components": compute nodes
  (2-8) DGX B200, H100 or H200 with NDR400 InfiniBand networking; compute fabric "NVIDIA Quantum
  QM9700 NDR400 Gbps InfiniBand switch"; management and storage fabric "NVIDIA SN4600C
  switches"; OOB management fabric "NVIDIA SN2201 switches". Figure 13: "eight compute
  connections from each node running at NDR400".
- "DGX BasePOD with NDR200 Compute Fabric", Table 5 "DGX BasePOD Components": compute nodes
  (2-16) with NDR200 InfiniBand networking, the same switches. Figure 20 ("DGX BasePOD with up to
  16 systems with NDR200"): "eight compute connections from each node running at NDR200".
- Both: "five dual-socket x86 servers for system management" (two Base Command Manager head
  nodes, three for services), outside the compute fabric.

How NDR200 reaches a QM9700 port, from NVIDIA's LinkX specifications: "Linking Twin-port
transceivers with 1:2 fiber splitter cables to 400G transceivers automatically creates 200Gb/s
transceivers" (MMA4Z00-NS, Overview), and a twin-port switch module with 1:2 splitter fibres
(MFP7E20) "creates links to four 200Gb/s ConnectX-7/OSFP adapter cards" (MMA4Z00-NS400-T,
Connectivity Scenarios), https://docs.nvidia.com/networking/display/800GMMA4Z00NS/Overview and
https://docs.nvidia.com/networking/display/MMA4Z00NS400T/Connectivity+Scenarios .

The RA's switch and cable counts per node count ("Switches and Cables", after Table 5) were not in
any copy we could read (the search record is in catalog/data/SOURCES.md), so every count below
that is not one of the rows above is the engine's rule, with its arithmetic: a QM9700 has 64 NDR
ports in 32 twin-port OSFP cages (rule 1); a 1:2 splitter fibre gives each switch port two NDR200
host ports (rules 1, 10), so one switch takes 64 x 2 = 128 NDR200 ports, 16 DGX x 8 (rule 2), and
64 NDR400 ports, 8 DGX x 8; a DGX's four twin-port cages take one flat-top twin-port module each
(rule 9).
"""

from __future__ import annotations

import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.fabric.cabling import cable_schedule
from tests.quoting.engine.fabric_checks import check_schedule

SWITCH_MODULE = "MMA4Z00-NS"  # finned twin-port SR4, switch side
DGX_MODULE = "980-9I51A-00NS00"  # flat-top twin-port SR4, DGX side
SPLITTER = "MFP7E20"  # multimode 1:2 splitter fibre, one per switch port
STRAIGHT = "MFP7E10"  # multimode straight fibre, one per 400G link
SN4600C = "920-9N302-00F7-0C2"  # Table 1 / Table 5: management and storage fabric
SN2201 = "920-9N110-00F1-0C0"  # Table 1 / Table 5: OOB management fabric


def basepod(catalog, nodes: int, server: str = "DGX-H100", **fields):
    req = FabricRequirements(
        server_count=nodes, nic_generation="NDR200", server_part_number=server, **fields
    )
    return design_fabric(req, catalog)


def bom(design, prefix: str, role: str = "server-leaf") -> int:
    return sum(
        line.quantity for line in design.bom if line.sku.startswith(prefix) and line.role == role
    )


# NVIDIA's rows: (table, compute generation, nodes). Table 1 is NDR400 with 2-8 DGX, Table 5 is
# NDR200 with 2-16 DGX; every node count in each range is a row of NVIDIA's design.
RA_ROWS = [
    pytest.param("Table 1", "NDR", nodes, id=f"RA-11127-T1-NDR400-{nodes}xDGX")
    for nodes in range(2, 9)
] + [
    pytest.param("Table 5", "NDR200", nodes, id=f"RA-11127-T5-NDR200-{nodes}xDGX")
    for nodes in range(2, 17)
]


@pytest.mark.parametrize("server", ["DGX-H100", "DGX-H200", "DGX-B200"])
@pytest.mark.parametrize(("table", "generation", "nodes"), RA_ROWS)
def test_a_basepod_is_one_qm9700_with_eight_compute_links_per_dgx(
    catalog, server, table, generation, nodes
):
    """NVIDIA's DGX BasePOD (RA-11127-001), the row's table: `nodes` DGX B200, H200 or H100 with
    eight compute connections each (NDR400 in Table 1 / Figure 13, NDR200 in Table 5 / Figure
    20) on a QM9700 compute fabric. One switch is the engine's rule 2: nodes x 8 <= 64 ports x
    the split (2 at NDR200), every row of both tables fits one QM9700."""
    d = design_fabric(
        FabricRequirements(
            server_count=nodes, nic_generation=generation, server_part_number=server
        ),
        catalog,
    )
    assert (d.leaf_count, d.spine_count, d.core_count) == (1, 0, 0)
    assert d.switch.part_number.startswith("MQM9700")
    assert d.links_by_tier() == {"server-leaf": nodes * 8}
    speed = 200 if generation == "NDR200" else 400
    assert d.as_dict()["injection_gbps"] == nodes * 8 * speed
    assert d.subnet_manager == "on-switch" and d.switch.managed
    check_schedule(d)


@pytest.mark.parametrize("server", ["DGX-H100", "DGX-B200"])
@pytest.mark.parametrize(
    ("nodes", "switch_ports", "switch_modules", "dgx_modules"),
    [
        # links = nodes x 8 NDR200 ports; switch ports = links / 2 (one splitter fibre each);
        # switch modules = links / 4 (a twin-port module with two splitters serves four
        # NDR200 ports, MMA4Z00-NS400-T); DGX modules = nodes x 4 cages.
        pytest.param(nodes, nodes * 4, nodes * 2, nodes * 4, id=f"T5-{nodes}xDGX")
        for nodes in (2, 4, 8, 16)
    ],
)
def test_at_ndr200_each_switch_port_takes_a_splitter_fibre_to_two_dgx_ports(
    catalog, server, nodes, switch_ports, switch_modules, dgx_modules
):
    """Table 5's NDR200 links on the switch side, as NVIDIA's LinkX specifications cable them: a
    1:2 splitter fibre (MFP7E20) per switch port, two per twin-port switch module, four NDR200
    ports per module. The counts are the engine's (rules 9, 10), not the RA's table."""
    d = basepod(catalog, nodes, server)
    assert d.topology.split == 2
    assert d.ports_by_tier()["leaf"]["used"] == switch_ports
    assert bom(d, SPLITTER) == switch_ports
    assert bom(d, SWITCH_MODULE) == switch_modules
    assert bom(d, DGX_MODULE) == dgx_modules


@pytest.mark.parametrize("nodes", [2, 4, 8])
def test_at_ndr400_each_dgx_port_takes_a_straight_fibre(catalog, nodes):
    """Table 1's NDR400 links: one straight fibre per link, a twin-port module in each switch
    cage and in each DGX cage (engine rules 9, 10; MMA4Z00-NS, Overview: two MPO-12/APC
    connectors, one 400G link each)."""
    d = design_fabric(
        FabricRequirements(server_count=nodes, nic_generation="NDR", server_part_number="DGX-H100"),
        catalog,
    )
    assert d.topology.split == 1
    assert bom(d, STRAIGHT) == nodes * 8
    assert bom(d, SWITCH_MODULE) == nodes * 4
    assert bom(d, DGX_MODULE) == nodes * 4


@pytest.mark.parametrize(("generation", "nodes"), [("NDR", 8), ("NDR200", 16)])
def test_a_basepod_s_management_and_oob_fabrics_are_the_ra_s_switch_models(
    catalog, generation, nodes
):
    """Table 1 / Table 5: the management and storage fabric is SN4600C, the OOB management
    fabric SN2201. The engine picks the same models (its widest 100GbE and 1GbE switches).

    Counts: NVIDIA's BasePOD deployment guide ("Network Deployment", https://docs.nvidia.com/
    dgx-basepod/deployment-guide-dgx-basepod/latest/network-deploy.html) runs two SN4600C in
    MLAG with "each headnode / K8s node / DGX ... dual homed to the SN4600C switches via bond
    interface", the pair joined by a peer link of two ports ("Switch Configurations": swp57,
    swp58). The engine builds the same: two SN4600C, two in-band cables per DGX and the peer
    link's two (test_inband_mlag.py). The one SN2201 is the engine's count (one RJ45 per BMC and
    switch)."""
    d = design_fabric(
        FabricRequirements(
            server_count=nodes,
            nic_generation=generation,
            server_part_number="DGX-H100",
            inband_management=True,
            outofband_management=True,
        ),
        catalog,
    )
    assert bom(d, SN4600C, "in-band management") == d.management.inband_switches == 2
    assert d.management.inband_cables == 2 * nodes + 2
    assert d.management.inband_peer_cables == 2
    assert bom(d, SN2201, "out-of-band management") == d.management.outofband_switches == 1
    names = {p.part_number: p.name for p in catalog}
    assert "SN4600C" in names[SN4600C] and "SN2201" in names[SN2201]


def test_each_splitter_fibre_joins_one_switch_port_to_both_ports_of_one_dgx_cage(catalog):
    """On one switch a DGX's eight NDR200 ports fill four switch ports in order, so each splitter
    fibre's two legs end in the two ports of one DGX cage (the engine's cabling, rule 9)."""
    d = basepod(catalog, 4)
    legs: dict[str, set[tuple[str, str]]] = {}
    for run in cable_schedule(d):
        assert run.cable_part.startswith(SPLITTER)
        assert (run.a_module, run.b_module) == (DGX_MODULE, SWITCH_MODULE)
        node_cage = (run.a_device, run.a_port.split("/")[0])
        legs.setdefault(run.cable_id, set()).add(node_cage)
    assert len(legs) == 4 * 4
    assert all(len(ends) == 1 for ends in legs.values())


def test_a_dgx_at_ndr200_beside_its_switch_still_takes_optics_not_copper(catalog):
    """A copper splitter would need both host ports of a switch cage on one DGX cage, and a
    switch cage serves four NDR200 ports: the DGX's links stay optical (rule 9), on the shortest
    splitter fibre that reaches the run (rule 10)."""
    d = basepod(catalog, 2, server_to_leaf="same-rack")
    assert d.host_media.optical and d.host_media.cable.part_number == f"{SPLITTER}-N003"
    assert bom(d, DGX_MODULE) == 2 * 4


def test_past_16_dgx_the_basepod_grows_into_leaves_of_two_rails_and_spines(catalog):
    """The engine's rules 3-5 beyond one switch: 17 DGX x 8 = 136 NDR200 ports do not fit
    64 x 2. Each leaf carries two whole rails, 17 x 2 = 34 NDR200 ports on 17 switch ports
    down; 34 x 200G needs 17 x 400G up, rounded to 18 so that both spines get 9 links each:
    4 leaves + 2 spines, 72 leaf-spine links."""
    d = basepod(catalog, 17)
    assert (d.leaf_count, d.spine_count) == (4, 2)
    assert d.topology.rails_per_leaf == 2 and d.topology.leaf_up == 18
    assert d.links_by_tier() == {"server-leaf": 136, "leaf-spine": 72}
    assert bom(d, SPLITTER) == 4 * 17
    check_schedule(d)


def test_a_full_16_dgx_basepod_says_growing_needs_re_cabling(catalog):
    d = basepod(catalog, 16)
    assert d.ports_by_tier()["leaf"]["free"] == 0
    assert any("re-cabling" in w for w in d.warnings)


def test_a_dgx_b300_has_xdr_ports_and_is_refused_at_ndr200(catalog):
    """The DGX B300's ConnectX-8 cages run XDR (or 400GbE), not NDR200 (rule 9)."""
    with pytest.raises(InvalidInput) as refused:
        basepod(catalog, 4, "DGX-B300")
    assert "XDR" in " ".join(str(m) for m in refused.value.errors["nic_generation"])

"""NVIDIA's public DGX SuperPOD compute fabrics, reproduced switch for switch and link for link.

Only rows read in NVIDIA's own tables (or stated in docs/fabric-design.md from NVIDIA's RA) are
asserted; every design is also checked link by link (no port used twice, none over the radix,
whole links). UFM appliance ports and DGX host optics are another test's business.
"""

from __future__ import annotations

import pytest

from quoting.engine.fabric import FabricRequirements, design_fabric
from tests.quoting.engine.fabric_checks import check_schedule


def compute_fabric(catalog, nodes: int, **fields):
    d = design_fabric(FabricRequirements(server_count=nodes, **fields), catalog)
    links = d.links_by_tier()
    return (
        (d.leaf_count, d.spine_count, d.core_count),
        (links["server-leaf"], links.get("leaf-spine", 0), links.get("spine-core", 0)),
        d,
    )


@pytest.mark.parametrize(
    ("sus", "nodes", "leaves", "spines"),
    [(1, 31, 8, 4), (3, 95, 24, 16)],
)
def test_dgx_h100_superpod(catalog, sus, nodes, leaves, spines):
    """NVIDIA DGX SuperPOD: Next Generation Scalable Infrastructure for AI Leadership, Reference
    Architecture featuring DGX H100 systems (RA-11333-001),
    https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100/
    latest/ , as quoted in docs/fabric-design.md rule 5: one SU of 31 DGX H100 (the 32nd slot
    goes to UFM) is 8 leaves + 4 spines with 32 uplinks per leaf; a 3-SU SuperPOD has 16 spines.
    The 3-SU node count (95 = 3 x 32 - 1) is ours: 93 to 96 nodes give the same switches."""
    switches, links, d = compute_fabric(catalog, nodes, nic_generation="NDR")
    assert switches == (leaves, spines, 0)
    assert d.topology.leaf_up == 32
    assert links[:2] == (nodes * 8, leaves * 32)
    check_schedule(d)


@pytest.mark.parametrize(
    ("sus", "nodes", "switches", "links"),
    [
        (2, 64, (16, 8, 0), (512, 512, 0)),
        (4, 128, (32, 16, 0), (1024, 1024, 0)),
        (8, 256, (64, 32, 0), (2048, 2048, 0)),
        (16, 512, (128, 128, 64), (4096, 4096, 4096)),
        (32, 1024, (256, 256, 128), (8192, 8192, 8192)),
        (64, 2048, (512, 512, 256), (16384, 16384, 16384)),
    ],
)
def test_dgx_b200_superpod(catalog, sus, nodes, switches, links):
    """Rows of NVIDIA's DGX B200 SuperPOD table (SU count, nodes, leaf/spine/core switches,
    node-leaf/leaf-spine/spine-core cables), NDR 400G on 64-port Quantum-2 switches.
    Source: NVIDIA DGX SuperPOD Reference Architecture, DGX B200 systems, "DGX SuperPOD
    Architecture", https://docs.nvidia.com/dgx-superpod/
    reference-architecture-scalable-infrastructure-b200/latest/dgx-superpod-architecture.html"""
    got_switches, got_links, d = compute_fabric(catalog, nodes, nic_generation="NDR")
    assert (got_switches, got_links) == (switches, links)
    assert d.topology.radix == 64
    if nodes <= 512:  # the link list of the largest rows is the same shape, only longer
        check_schedule(d)


@pytest.mark.parametrize(
    ("sus", "nodes", "leaves", "spines", "links"),
    [
        (1, 72, 8, 4, 576),
        (2, 144, 16, 8, 1152),
        (4, 288, 32, 18, 2304),
        (8, 576, 64, 36, 4608),
        # The table's GPU column says 9,216 for this row; 1,296 nodes x 8 is 10,368, which is
        # what its cable columns count.
        (18, 1296, 144, 72, 10368),
    ],
)
def test_dgx_b300_quantum_x800_superpod(catalog, sus, nodes, leaves, spines, links):
    """Rows of NVIDIA's DGX B300 XDR SuperPOD table: 72 DGX B300 per SU, XDR 800G on 144-port
    Quantum-X800 Q3400 switches, two tiers up to 18 SUs.
    Source: NVIDIA SuperPOD with DGX B300 Systems, NVIDIA Quantum-X800 InfiniBand switching and
    AC Power Reference Architecture (RA-11339-001), Table 3 "Example Compute Fabric Components
    for DGX SuperPOD Counts", https://docs.nvidia.com/dgx-superpod/reference-architecture/
    scalable-infrastructure-b300-xdr/latest/dgx-superpod-architecture.html"""
    switches, got_links, d = compute_fabric(catalog, nodes, nic_generation="XDR")
    assert d.topology.radix == 144
    assert switches == (leaves, spines, 0)
    assert got_links == (links, links, 0)
    if nodes <= 288:
        check_schedule(d)


B300_SPECTRUM_X_RA = (
    "NVIDIA SuperPOD DGX B300 Systems, Spectrum-4 Ethernet and DC Busbar Power Reference "
    "Architecture, https://docs.nvidia.com/dgx-superpod/reference-architecture/"
    "scalable-infrastructure-b300/latest/network-fabrics.html"
)


@pytest.mark.parametrize("server", ["DGX-B300", None, "HGX-B300-8GPU-SRV"])
@pytest.mark.parametrize(
    ("sus", "nodes", "leaves", "spines", "node_leaf_cables", "leaf_spine_cables"),
    [
        (1, 64, 16, 8, 512, 512),
        (2, 128, 32, 16, 1024, 1024),
        (4, 256, 64, 32, 2048, 2048),
        (8, 512, 128, 64, 4096, 4096),
    ],
)
def test_dgx_b300_spectrum_x_superpod(
    catalog, server, sus, nodes, leaves, spines, node_leaf_cables, leaf_spine_cables
):
    """Rows of NVIDIA's DGX B300 Spectrum-X SuperPOD table (SU count, leaf and spine switches,
    node-to-leaf and leaf-to-spine cables): 64 rail-aligned nodes per SU, a twin-planar compute
    fabric of SN5600 leaves and spines, "each GPU has 2x 400GbE connectivity through two different
    planes". Source: NVIDIA SuperPOD DGX B300 Systems, Spectrum-4 Ethernet RA, "Network Fabrics"
    (Compute Fabric) and Table 3, https://docs.nvidia.com/dgx-superpod/reference-architecture/
    scalable-infrastructure-b300/latest/network-fabrics.html .

    NVIDIA counts cables by cage: one per GPU (a ConnectX-8's 800G OSFP cage runs 2 x 400GbE, one
    port to each plane, through one module) and one per 800G SN5600 leaf-to-spine port. The
    engine's 400G links are twice that, and every twin-port module takes two fibres (NVIDIA
    MMS4X00-NM application overview: "Twin-Port transceivers require ordering two fibers")."""
    d = design_fabric(
        FabricRequirements(
            server_count=nodes,
            family="ethernet",
            nic_generation="400GbE",
            planes=2,
            server_part_number=server,
        ),
        catalog,
    )
    assert (d.leaf_count, d.spine_count, d.core_count) == (leaves, spines, 0)
    assert d.nic.family == "ConnectX-8" and d.host_cage_planes == 2
    assert d.cables_by_tier() == {
        "server-leaf": node_leaf_cables,
        "leaf-spine": leaf_spine_cables,
    }
    assert d.links_by_tier() == {
        "server-leaf": 2 * node_leaf_cables,
        "leaf-spine": 2 * leaf_spine_cables,
    }
    # SN5600 ports as the RA splits them: an 800G cage carries two GPUs' 400G ports down, or one
    # 800G cable up to one spine cage.
    assert d.switch.port_count == 128 and d.switch.ports_per_cage == 2
    assert d.topology.links_per_leaf_per_spine % 2 == 0
    # BOM optics: a twin-port module in every switch cage, one flat-top module per GPU's cage.
    host, trunk = d.host_media, d.trunk_media
    assert host.switch_module.ports_per_module == 2 and trunk.switch_module.ports_per_module == 2
    assert host.host_module.ports_per_module == 2 and host.host_module.form_factor == "flat-top"
    assert role_total(d, "server-leaf", host.switch_module.part_number) == node_leaf_cables
    assert role_total(d, "server-leaf", host.host_module.part_number) == nodes * 8
    assert role_total(d, "server-leaf", host.cable.part_number) == 2 * node_leaf_cables
    assert role_total(d, "leaf-spine", trunk.switch_module.part_number) == 2 * leaf_spine_cables
    assert role_total(d, "leaf-spine", trunk.cable.part_number) == 2 * leaf_spine_cables
    assert d.as_dict()["cables"] == d.cables_by_tier()
    if sus <= 2:
        check_schedule(d)


def role_total(d, role: str, sku: str) -> int:
    return sum(b.quantity for b in d.bom if b.role == role and b.sku == sku)

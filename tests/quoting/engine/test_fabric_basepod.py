"""NVIDIA's DGX BasePOD with an NDR200 compute fabric: 2 to 16 DGX on Quantum-2 QM9700.

Source: NVIDIA DGX BasePOD: The Infrastructure Foundation for Enterprise AI, Reference
Architecture featuring DGX B200, H200 and H100 systems, "Reference Architectures", section
"DGX BasePOD with NDR200 Compute Fabric", Table 5 (DGX BasePOD Components: compute nodes 2-16,
DGX B200, H200 or H100 with NDR200 InfiniBand; compute fabric QM9700) and Figure 20 ("DGX
BasePOD with up to 16 systems with NDR200": eight compute connections from each node running at
NDR200), https://docs.nvidia.com/dgx-basepod/
reference-architecture-infrastructure-foundation-enterprise-ai/latest/reference-architectures.html

Those rows are what is asserted from NVIDIA. The RA's switch and cable counts per node count
were not in the sources we could read, so every count below is the engine's rule, with its
arithmetic: a QM9700 has 64 NDR ports in 32 twin-port OSFP cages (rule 1); a 1:2 splitter fibre
(MFP7E20) gives each switch port two NDR200 host ports (rules 1, 10), so one switch takes
64 x 2 = 128 NDR200 ports, 16 DGX x 8 (rule 2); a DGX's four twin-port cages take one flat-top
twin-port module each, as at NDR (rule 9).
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


def basepod(catalog, nodes: int, server: str = "DGX-H100", **fields):
    req = FabricRequirements(
        server_count=nodes, nic_generation="NDR200", server_part_number=server, **fields
    )
    return design_fabric(req, catalog)


def bom(design, prefix: str, role: str = "server-leaf") -> int:
    return sum(
        line.quantity for line in design.bom if line.sku.startswith(prefix) and line.role == role
    )


@pytest.mark.parametrize("server", ["DGX-H100", "DGX-H200", "DGX-B200"])
@pytest.mark.parametrize(
    ("nodes", "switch_ports", "switch_modules", "dgx_modules"),
    [
        # links = nodes x 8 NDR200 ports; switch ports = links / 2 (one splitter fibre each);
        # switch modules = switch ports / 2 (twin-port cages); DGX modules = nodes x 4 cages.
        (2, 8, 4, 8),
        (4, 16, 8, 16),
        (8, 32, 16, 32),
        (16, 64, 32, 64),
    ],
)
def test_a_basepod_of_2_to_16_dgx_at_ndr200_is_one_qm9700_with_a_splitter_per_switch_port(
    catalog, server, nodes, switch_ports, switch_modules, dgx_modules
):
    """Table 5 of NVIDIA's DGX BasePOD RA (NDR200 compute fabric): 2-16 DGX B200, H200 or H100
    with eight NDR200 compute connections each, on QM9700 switches. One switch is the engine's
    rule 2: nodes x 8 NDR200 ports <= 64 ports x 2."""
    d = basepod(catalog, nodes, server)
    assert (d.leaf_count, d.spine_count, d.core_count) == (1, 0, 0)
    assert d.switch.part_number.startswith("MQM9700") and d.topology.split == 2
    assert d.links_by_tier() == {"server-leaf": nodes * 8}
    assert d.ports_by_tier()["leaf"]["used"] == switch_ports
    assert bom(d, SPLITTER) == switch_ports
    assert bom(d, SWITCH_MODULE) == switch_modules
    assert bom(d, DGX_MODULE) == dgx_modules
    assert d.as_dict()["injection_gbps"] == nodes * 8 * 200
    assert d.subnet_manager == "on-switch" and d.switch.managed
    check_schedule(d)


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

"""UFM appliances get leaf ports however many servers fill the leaves.

NVIDIA's DGX H100 SuperPOD reference architecture ("Compute fabric": a scalable unit is 31 DGX
and UFM, the 32nd node slot of each leaf given to UFM) cables the UFM appliances into leaf ports
like servers; the NVIDIA UFM Enterprise Appliance user guide ("High availability") runs them as
a master and a standby pair. A fabric whose servers fill every leaf port (a storage fabric is
never rail-optimised) gets one more leaf for the appliances, counted, priced and cabled."""

from __future__ import annotations

import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, design_fabric
from tests.quoting.engine.fabric_checks import bom_total, check_schedule


def _leaf_switches(design) -> int:
    return bom_total(design, design.switch.part_number)


@pytest.mark.parametrize("storage_servers", range(1, 65))
def test_every_storage_server_count_gets_its_appliances_cabled(catalog, storage_servers):
    design = design_fabric(
        FabricRequirements(
            gpu_count=248,
            rail_optimized=True,
            subnet_manager="ufm-appliance",
            storage_servers=storage_servers,
        ),
        catalog,
    )
    storage = design.storage
    ufm = storage.ufm
    assert ufm is not None and ufm.appliances == 2
    assert len(ufm.links) == ufm.appliances * ufm.ports_per_appliance
    down_ports = -(-storage.endpoint_ports // storage.topology.split) + len(ufm.links)
    assert storage.leaf_count * storage.topology.leaf_down >= down_ports
    # Every switch the storage fabric plans is one the BOM buys, and the link list agrees.
    switches = storage.leaf_count + storage.spine_count + storage.core_count
    assert _leaf_switches(storage) == switches
    check_schedule(storage)


def test_storage_servers_filling_the_leaves_get_one_more_leaf(catalog):
    # 31 DGX x 1 storage port + 16 storage servers x 2 ports = 63 ports: one 64-port switch
    # would leave one port, the two appliances take four.
    fewer = design_fabric(
        FabricRequirements(gpu_count=248, subnet_manager="ufm-appliance", storage_servers=14),
        catalog,
    ).storage
    filled = design_fabric(
        FabricRequirements(gpu_count=248, subnet_manager="ufm-appliance", storage_servers=16),
        catalog,
    ).storage
    assert fewer.topology.tiers == 1 and fewer.endpoint_ports + len(fewer.ufm.links) <= 64
    assert filled.endpoint_ports + len(filled.ufm.links) > filled.topology.radix
    assert filled.topology.tiers == 2
    busiest = max(e for _, e in filled.topology.leaf_fill())
    assert filled.leaf_count > -(-filled.endpoint_ports // busiest)
    # The appliances' leaf sends its uplinks like every leaf: the spines count its ports.
    assert filled.ports_by_tier()["leaf"]["used"] == (
        filled.endpoint_ports + len(filled.ufm.links) + filled.leaf_count * filled.topology.leaf_up
    )


def test_a_flat_compute_fabric_whose_servers_fill_the_leaves_gets_a_leaf_for_ufm(catalog):
    # 32 DGX x 8 ports = 256 ports on 32-down-port leaves: 8 full leaves and a ninth for UFM.
    design = design_fabric(
        FabricRequirements(gpu_count=256, rail_optimized=False, subnet_manager="ufm-appliance"),
        catalog,
    )
    assert design.leaf_count == 256 // design.topology.leaf_down + 1
    assert {leaf for leaf, _ in design.ufm.links} == {design.leaf_count - 1}
    assert _leaf_switches(design) == design.leaf_count + design.spine_count
    check_schedule(design)


def test_a_rail_optimised_fabric_full_of_servers_still_says_to_leave_a_slot(catalog):
    # A leaf more would be a whole rail group of eight: NVIDIA's SU keeps a node slot instead.
    with pytest.raises(InvalidInput) as refused:
        design_fabric(
            FabricRequirements(gpu_count=256, rail_optimized=True, subnet_manager="ufm-appliance"),
            catalog,
        )
    assert "31 nodes in a 32-node scalable unit" in str(refused.value.messages["subnet_manager"][0])


def test_the_leaf_kept_for_ufm_is_not_counted_as_growth(catalog):
    # 33 servers fill the ninth leaf only partly: its spines are today's, none pre-provisioned.
    design = design_fabric(
        FabricRequirements(
            gpu_count=256, growth_gpus=264, rail_optimized=False, subnet_manager="ufm-appliance"
        ),
        catalog,
    )
    assert design.pre_provisioned.spines == 0 and design.pre_provisioned.leaf_spine_links == 0


def test_the_growth_target_keeps_the_appliances_leaf_ports(catalog):
    # At 64 servers the 16 server leaves are full again: the spines take a seventeenth leaf.
    design = design_fabric(
        FabricRequirements(
            gpu_count=256, growth_gpus=512, rail_optimized=False, subnet_manager="ufm-appliance"
        ),
        catalog,
    )
    t = design.topology
    target_leaves = 512 // t.leaf_down + 1
    assert t.spine_count * t.radix >= target_leaves * t.leaf_up

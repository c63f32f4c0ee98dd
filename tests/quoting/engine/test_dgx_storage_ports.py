"""A DGX's storage ports are QSFP112, not its compute fabric's OSFP cages: the storage fabric
quotes single-port QSFP112 modules at the host end.

Sources: DGX H100/H200 user guide, "Network Modules" (two dual-port ConnectX-7 QSFP112 cards
for storage and in-band management); DGX B200 user guide (two dual-port BlueField-3 QSFP112
DPUs); DGX SuperPOD (H100) reference architecture, bill of materials: 980-9I693-00NS00
(MMA1Z00-NS400, 400G QSFP112 multimode) for the storage fabric's host end."""

from __future__ import annotations

import pytest

from quoting.engine.fabric import FabricRequirements, design_fabric


def storage_host_modules(design) -> dict[str, int]:
    return {
        line.sku: line.quantity
        for line in design.bom
        if line.role == "storage server-leaf" and line.category == "transceiver"
    }


@pytest.mark.parametrize("server", ["DGX-H100", "DGX-H200", "DGX-B200"])
def test_a_dgx_storage_fabric_takes_qsfp112_modules_at_the_host(catalog, server):
    design = design_fabric(
        FabricRequirements(gpu_count=256, server_part_number=server, storage_servers=8), catalog
    )
    modules = storage_host_modules(design)
    # One per storage endpoint port: the DGX's and, on the same fabric, the storage servers'.
    assert modules.get("MMA1Z00-NS400") == design.storage.topology.endpoints
    assert "MMA4Z00-NS400" not in modules  # the OSFP host module fits no DGX storage port
    assert design.storage.nic.cage_type == "QSFP112"


def test_an_hgx_storage_fabric_keeps_the_fabrics_nic(catalog):
    design = design_fabric(FabricRequirements(gpu_count=256, storage_servers=8), catalog)
    assert "MMA4Z00-NS400" in storage_host_modules(design)
    assert design.storage.nic.cage_type == "OSFP"

"""A UFM appliance is cabled only into a fabric of its own generation.

The catalog's UFM Enterprise appliance (UFM-APPLIANCE-3.1) has two 400G OSFP ConnectX-7 ports
(NVIDIA UFM Enterprise Appliance 3.1 user guide, "Specifications"): NDR links. An XDR fabric
(Quantum-X800) or an HDR one (Quantum QM8700) cannot take them as its own links, so the design
refuses the appliance there, at the subnet manager field, and says what to choose instead."""

from __future__ import annotations

import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, design_fabric


@pytest.mark.parametrize("generation", ["XDR", "HDR"])
def test_an_appliance_of_another_generation_is_refused_with_what_to_choose(catalog, generation):
    requirements = FabricRequirements(
        gpu_count=248, nic_generation=generation, subnet_manager="ufm-appliance"
    )
    with pytest.raises(InvalidInput) as refused:
        design_fabric(requirements, catalog)
    text = str(refused.value.messages["subnet_manager"][0])
    assert f"no UFM appliance for {generation} fabrics (UFM-APPLIANCE-3.1 (NDR))" in text
    assert "UFM licences or an OpenSM host" in text


@pytest.mark.parametrize("generation", ["NDR", "NDR200"])
def test_an_ndr_fabric_takes_the_ndr_appliance_on_ndr_links(catalog, generation):
    design = design_fabric(
        FabricRequirements(
            gpu_count=248, nic_generation=generation, subnet_manager="ufm-appliance"
        ),
        catalog,
    )
    assert {line.sku for line in design.bom if line.role == "subnet manager"} == {
        "UFM-APPLIANCE-3.1"
    }
    assert design.ufm is not None and design.ufm.media.cable.generation in ("NDR", None)


def test_xdr_with_ufm_licences_still_designs(catalog):
    design = design_fabric(
        FabricRequirements(gpu_count=248, nic_generation="XDR", subnet_manager="ufm-licence"),
        catalog,
    )
    assert design.subnet_manager == "ufm-licence"
    # No NDR appliance: the UFM hosts licences now bring are cabled on XDR links of their own
    # NIC (tests/quoting/engine/test_ufm_hosts_quoted.py).
    assert "UFM-APPLIANCE-3.1" not in {line.sku for line in design.bom}
    assert design.ufm is not None and design.ufm.nic.generation == "XDR"
    assert design.ufm.media.host_module.generation == "XDR"

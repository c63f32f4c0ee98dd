"""UFM licences name the hosts they need and the quote does not hold.

NVIDIA UFM Enterprise User Manual, "UFM Overview" > "Fabric Topology with UFM": UFM is
host-based, installed on a UFM Server with a second, UFM HA Server for high availability;
"Installation Notes" > "Bare Metal Deployment Requirements": an x86_64 host with a ConnectX HCA
on the fabric. A per-endpoint licence is not that host: a design quoting
the licences alone says, as it does for OpenSM, that the two hosts are the customer's and are
not in the bill of materials. 512 GPUs fill every leaf port of their rail-optimised fabric, so
no host is quoted there; a fabric with a free leaf port quotes and cables them
(test_ufm_hosts_quoted.py)."""

from __future__ import annotations

import pytest

from quoting.engine.fabric import FabricRequirements, design_fabric

HOSTS_WARNING = "UFM licences only: UFM runs on 2 customer hosts"


def _warned(design) -> bool:
    return any(HOSTS_WARNING in str(w) for w in design.warnings)


def test_ufm_licences_say_the_two_hosts_are_not_in_the_bom(catalog):
    design = design_fabric(
        FabricRequirements(gpu_count=512, nic_generation="NDR", subnet_manager="ufm-licence"),
        catalog,
    )
    assert _warned(design)
    # What the quote holds for UFM: the per-endpoint licences, one per endpoint, nothing else.
    licence = next(p for p in catalog if p.family == "UFM" and p.unit == "endpoint")
    subnet_manager = [line for line in design.bom if line.role == "subnet manager"]
    assert [(line.sku, line.quantity) for line in subnet_manager] == [
        (licence.part_number, design.endpoint_ports)
    ]


def test_automatic_ufm_from_a_few_hundred_endpoints_says_so_too(catalog):
    design = design_fabric(FabricRequirements(gpu_count=512, nic_generation="NDR"), catalog)
    assert design.subnet_manager == "ufm-licence"
    assert _warned(design)


@pytest.mark.parametrize("subnet_manager", ["ufm-appliance", "on-switch", "opensm-host"])
def test_other_subnet_managers_do_not_speak_of_ufm_hosts(catalog, subnet_manager):
    design = design_fabric(
        FabricRequirements(gpu_count=248, nic_generation="NDR", subnet_manager=subnet_manager),
        catalog,
    )
    assert not _warned(design)

"""The rack power budget sizes the hall, and the hall the cables (issue 26): the default site is a
typical Chinese IDC rack, where 127 DGX H100 need one rack each and longer leaf-spine fibres
than on 40 kW racks.

NVIDIA DGX H100 User Guide, "Power Specifications": 10.2 kW max per system. NVIDIA DGX
SuperPOD reference architecture (DGX H100): 32 systems per scalable unit, leaves at the SU.
"""

from __future__ import annotations

from collections import Counter

import pytest

from quoting.engine.fabric import FabricRequirements
from quoting.engine.install import SiteInputs, design_on_site, plan_layout
from quoting.engine.install.site import HIGH_DENSITY_RACK_KW, check_site

DGX_H100_SERVERS = 127


def on_site(catalog, site: SiteInputs):
    requirements = FabricRequirements(gpu_count=DGX_H100_SERVERS * 8, server_part_number="DGX-H100")
    design = design_on_site(requirements, catalog, site)
    return design, plan_layout(design, site, catalog)


def leaf_spine_classes(design, catalog) -> Counter:
    length = {p.part_number: p.length_m for p in catalog}
    return Counter(
        {
            length[line.sku]: line.quantity
            for line in design.bom
            if line.role == "leaf-spine" and line.category == "cable"
        }
    )


def test_the_default_rack_powers_one_dgx_h100_and_not_two(catalog):
    site = SiteInputs()
    server = next(p for p in catalog if p.part_number == "DGX-H100")
    server_kw = server.power_max_w / 1000
    assert server_kw <= site.rack_power_kw < 2 * server_kw
    check_site(site, server_units=server.rack_units, server_max_kw=server_kw)  # no error


def test_127_dgx_h100_on_the_default_racks_take_a_rack_each_and_longer_fibres(catalog):
    idc, idc_layout = on_site(catalog, SiteInputs())
    dense, dense_layout = on_site(catalog, SiteInputs(rack_power_kw=HIGH_DENSITY_RACK_KW))

    def compute_racks(layout):
        return sum(rack.kind == "compute" for rack in layout.racks)

    assert compute_racks(idc_layout) == DGX_H100_SERVERS
    assert dense_layout.servers_per_rack == 3  # 40 kW: three of 10.2 kW, racks a third as many
    assert compute_racks(dense_layout) < compute_racks(idc_layout) / 2
    # The longer hall stretches the leaf-spine runs past 30 m: the quote at 40 kW would buy
    # fibres too short for this site.
    assert idc.lengths.longest("leaf-spine") > 30 >= dense.lengths.longest("leaf-spine")
    assert max(leaf_spine_classes(idc, catalog)) > 30 >= max(leaf_spine_classes(dense, catalog))
    assert idc.measured and "leaf-spine" in idc.measured


@pytest.mark.parametrize("budget", [12, 40])
def test_every_rack_of_the_default_layout_keeps_within_its_budget(catalog, budget):
    _, layout = on_site(catalog, SiteInputs(rack_power_kw=budget))
    assert all(rack.max_kw <= budget + 1e-9 for rack in layout.racks)
    assert not any("kW budget" in warning for warning in layout.warnings)

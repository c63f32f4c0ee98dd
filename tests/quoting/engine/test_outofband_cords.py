"""Out-of-band patch cords bought at the lengths the site's layout measures, as the pack lays them.

Each device's management port (a server's BMC, a switch's mgmt0) takes one RJ45 patch cord to the
management switch placed among the racks it serves (install/management.py). The BOM buys each
cord at the shortest catalog length that covers its routed run, so the BOM and the pack's cable
schedule agree cord for cord; a Cat6A channel reaches 100 m (TIA-568.2-D), which every cord
here stays well within.
"""

from __future__ import annotations

from collections import Counter

import pytest

from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.fabric.parts import pick_patch_cord
from quoting.engine.install import SiteInputs, design_on_site, plan_layout

OOB_ROLE = "out-of-band management"
OOB_TIER = "oob-management"

SITES = {
    "default site": SiteInputs(),
    "raised floor": SiteInputs(cable_route="raised-floor", cable_slack_m=0.3),
}


def bom_cords(design) -> Counter:
    return Counter(
        {
            line.sku: line.quantity
            for line in design.bom
            if line.role == OOB_ROLE and line.category == "cable"
        }
    )


@pytest.fixture(params=list(SITES))
def laid_out(request, catalog):
    site = SITES[request.param]
    design = design_on_site(
        FabricRequirements(gpu_count=256, outofband_management=True), catalog, site
    )
    return design, plan_layout(design, site, catalog)


def test_out_of_band_cords_in_the_bom_are_the_lengths_the_pack_measures(laid_out):
    design, layout = laid_out
    cords = [c for c in layout.cables if c.tier == OOB_TIER]
    assert len(cords) == design.management.outofband_cables
    assert Counter(c.part for c in cords) == bom_cords(design)


def test_each_cord_is_the_shortest_catalog_length_that_covers_its_run(laid_out, catalog):
    _design, layout = laid_out
    for cable in (c for c in layout.cables if c.tier == OOB_TIER):
        assert cable.part == pick_patch_cord(catalog, cable.length_m).part_number
        assert cable.length_m <= cable.quoted_m == cable.length_class_m


def test_a_design_on_a_site_buys_cords_of_several_lengths_and_assumes_none(laid_out):
    design, _layout = laid_out
    assert len(bom_cords(design)) > 1
    assert not any("Out-of-band patch cords are quoted at" in a for a in design.advice)


def test_without_a_site_every_cord_is_the_server_to_leaf_distance_and_the_design_says_so(
    catalog,
):
    design = design_fabric(FabricRequirements(gpu_count=256, outofband_management=True), catalog)
    cord = pick_patch_cord(catalog, 30)  # server_to_leaf "same-row": 30 m (requirements.py)
    assert bom_cords(design) == Counter({cord.part_number: design.management.outofband_cables})
    assert any(
        a.startswith("Out-of-band patch cords are quoted at 30 m each") for a in design.advice
    )

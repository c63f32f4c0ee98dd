"""In-band management cables quoted per run: one NVIDIA LinkX 100GbE QSFP28 cable for each server
in-band port and each MLAG peer-link cable, DAC where passive copper reaches, AOC beyond, at the
run's length as the site's layout routes it (else the server-to-leaf class, and a rack's run for
the peer link), so the BOM and the installation pack's cable schedule agree part for part.

Sources (catalog/data/SOURCES.md, "100GbE in-band cables"): the MCP1600-C passive copper
family in 0.5, 1, 1.5, 2, 2.5, 3 and 5 m (NVIDIA's SONiC test suite lists MCP1600-C00A ...
MCP1600-C005E26L among its copper cables; 5 m is passive copper's 100GbE reach, IEEE 802.3
100GBASE-CR4), and the MFA1A00-C active optical family (NVIDIA's "MFA1A00-xxxx 100Gb/s QSFP28
MMF Active Optical Cable Product Specifications"; MFA1A00-C003, -C005, -C010 in the same
suite's optical cables). The pair and its peer link: NVIDIA DGX BasePOD deployment guide
(test_inband_mlag.py).
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.fabric.parts import pick_inband_cable
from quoting.engine.install import SiteInputs, design_on_site, plan_layout
from quoting.engine.install.inband import TIER

ROLE = "in-band management"
SN4600C = "920-9N302-00F7-0C2"


def requirements(nodes: int, **fields) -> FabricRequirements:
    return FabricRequirements(
        server_count=nodes, server_part_number="DGX-H100", inband_management=True, **fields
    )


def quoted(design) -> Counter:
    return Counter(
        {b.sku: b.quantity for b in design.bom if b.role == ROLE and b.category == "cable"}
    )


def sn4600c(catalog):
    return next(p for p in catalog if p.part_number == SN4600C)


def test_the_catalog_sells_nvidia_s_100gbe_dac_lengths_up_to_passive_reach_and_aocs_beyond(
    catalog,
):
    cables = {
        p.part_number: p for p in catalog if p.cage_type == "QSFP28" and p.port_speed_gbps == 100
    }
    dac = {p.length_m for p in cables.values() if p.media == "dac"}
    aoc = {p.length_m for p in cables.values() if p.media == "aoc"}
    assert dac == {0.5, 1, 1.5, 2, 2.5, 3, 5}  # MCP1600-C00A ... MCP1600-C005
    assert aoc == {3, 5, 10, 15, 20, 30, 50}  # MFA1A00-C003 ... MFA1A00-C050
    assert all(n.startswith("MCP1600-C0") for n, p in cables.items() if p.media == "dac")
    assert all(n.startswith("MFA1A00-C0") for n, p in cables.items() if p.media == "aoc")
    assert cables["MCP1600-C01A"].length_m == 1.5 and cables["MFA1A00-C050"].length_m == 50


@pytest.mark.parametrize(
    ("run", "part"),
    [
        (0.4, "MCP1600-C00A"),
        (2.0, "MCP1600-C002"),
        (4.2, "MCP1600-C005"),  # passive copper to its 5 m reach
        (5.1, "MFA1A00-C010"),  # beyond it, an AOC (the 5 m AOC does not reach either)
        (30.0, "MFA1A00-C030"),
        (50.0, "MFA1A00-C050"),
        (50.1, None),  # no catalog cable reaches: left to quote separately, never too short
    ],
)
def test_each_run_takes_dac_where_it_reaches_and_the_shortest_aoc_beyond(catalog, run, part):
    cable = pick_inband_cable(catalog, sn4600c(catalog), run)
    assert (cable.part_number if cable else None) == part


def test_16_dgx_without_a_site_quote_34_cables_32_server_ports_and_the_peer_link(catalog):
    d = design_fabric(requirements(16), catalog)
    assert d.management.inband_cables == 34
    # Server ports at the same-row server-to-leaf class (30 m), the peer link within a rack (2 m).
    assert quoted(d) == {"MFA1A00-C030": 32, "MCP1600-C002": 2}
    assert not any("in-band 100GbE" in w for w in d.warnings)
    assert any(
        "30 m for each server port" in a and "2 m for each MLAG peer link" in a for a in d.advice
    )


def test_a_single_switch_quotes_one_cable_per_server_and_no_peer_link(catalog):
    d = design_fabric(requirements(16, inband_redundant=False), catalog)
    assert quoted(d) == {"MFA1A00-C030": 16}
    assert any("30 m each" in a for a in d.advice)


def test_a_given_server_to_leaf_distance_picks_copper_within_its_reach(catalog):
    d = design_fabric(requirements(16, server_to_leaf="same-rack"), catalog)
    assert quoted(d) == {"MCP1600-C002": 34}


@pytest.fixture(scope="module")
def designed_on_site(catalog):
    """(design, layout) of `servers` DGX on the default site, each size designed once."""
    made = {}

    def of(servers: int):
        if servers not in made:
            site = SiteInputs()
            design = design_on_site(requirements(servers), catalog, site)
            made[servers] = design, plan_layout(design, site, catalog)
        return made[servers]

    return of


@pytest.fixture(params=[16, 256], ids=["16 DGX", "256 DGX"])
def on_site(request, designed_on_site):
    return designed_on_site(request.param)


def test_the_pack_names_for_each_run_the_part_the_bom_quotes(on_site, catalog):
    design, layout = on_site
    runs = [c for c in layout.cables if c.tier == TIER]
    assert len(runs) == design.management.inband_cables
    assert Counter(c.part for c in runs if c.part) == quoted(design)
    switch = sn4600c(catalog)
    for cable in runs:
        expected = pick_inband_cable(catalog, switch, cable.length_m)
        assert cable.part == (expected.part_number if expected else "")
        if cable.part:
            assert cable.length_m <= cable.quoted_m
    peer = [c for c in runs if c.a_port.startswith("p")]
    # A pair's switches stand one after the other: a peer link within copper's reach is a DAC
    # (a pair split across two racks gets its measured run's AOC).
    assert peer and all(c.media == "dac" for c in peer if c.length_m <= 5)


def test_16_dgx_on_the_default_site_quote_every_run(designed_on_site):
    design, _layout = designed_on_site(16)
    assert sum(quoted(design).values()) == 34
    assert not any("in-band" in w for w in design.warnings)


def test_256_dgx_runs_beyond_the_longest_aoc_are_named_not_quoted_too_short(designed_on_site):
    design, layout = designed_on_site(256)
    runs = [c for c in layout.cables if c.tier == TIER]
    beyond = [c for c in runs if c.length_m > 50]
    assert beyond and all(c.part == "" for c in beyond)
    assert sum(quoted(design).values()) == len(runs) - len(beyond) == 522 - len(beyond)
    assert any(
        f"Management cabling is not in the catalog: {len(beyond)} in-band 100GbE cables to "
        "quote separately." == w
        for w in design.warnings
    )
    assert any(
        "longer than the longest in-band cable in the catalog (50 m)" in w for w in design.warnings
    )


def test_without_100gbe_cables_in_the_catalog_the_warning_names_only_the_in_band_cables(catalog):
    without = [p for p in catalog if not (p.cage_type == "QSFP28" and p.category == "cable")]
    d = design_fabric(requirements(16, outofband_management=True), without)
    assert not quoted(d)
    assert (
        "Management cabling is not in the catalog: 34 in-band 100GbE cables to quote separately."
        in d.warnings
    )
    assert not any("RJ45" in w for w in d.warnings)  # the patch cords are quoted


def test_a_design_saved_before_the_cables_were_quoted_keeps_its_pack_without_parts(catalog):
    without = [p for p in catalog if not (p.cage_type == "QSFP28" and p.category == "cable")]
    old = design_fabric(requirements(16), without)
    layout = plan_layout(old, SiteInputs(), catalog)  # today's catalog, the saved BOM
    assert {c.part for c in layout.cables if c.tier == TIER} == {""}


def test_an_end_of_life_cable_is_not_picked(catalog):
    retired = [
        dataclasses.replace(p, lifecycle="eol") if p.part_number == "MCP1600-C002" else p
        for p in catalog
    ]
    assert pick_inband_cable(retired, sn4600c(catalog), 2.0).part_number == "MCP1600-C02A"

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

Beyond the longest AOC, as the fabric's trunks: an MMS1C10-CM (100GbE QSFP28 PSM4 single-mode,
500 m) at each end and one MFP7E30 single-mode MPO-12/APC fibre of the run's length class.
NVIDIA's Cable Management Guidelines ("Transceivers and Cable Connectors") give PSM4 modules, as
the DR4 ones MFP7E30 serves, a single-mode MPO/APC connector taking a female MPO/APC single-mode
patch cable (catalog/data/SOURCES.md, "100GbE in-band optics").
"""

from __future__ import annotations

import csv
import dataclasses
import io
from collections import Counter

import pytest

from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.fabric.parts import longest_inband_run, pick_inband_media
from quoting.engine.install import SiteInputs, design_on_site, plan_layout
from quoting.engine.install.exports import NOT_RACKED, bom_by_rack_csv, cable_schedule_csv
from quoting.engine.install.inband import TIER

ROLE = "in-band management"
SN4600C = "920-9N302-00F7-0C2"
PSM4 = "MMS1C10-CM"


def requirements(nodes: int, **fields) -> FabricRequirements:
    return FabricRequirements(
        server_count=nodes, server_part_number="DGX-H100", inband_management=True, **fields
    )


def quoted(design, category: str = "cable") -> Counter:
    return Counter(
        {b.sku: b.quantity for b in design.bom if b.role == ROLE and b.category == category}
    )


def without_psm4(catalog):
    """The catalog before the in-band optics (catalog/0021)."""
    return [p for p in catalog if p.part_number != PSM4]


def cable_part(catalog, run: float) -> str | None:
    media = pick_inband_media(catalog, sn4600c(catalog), run)
    return media.cable.part_number if media else None


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
        (50.1, "MFP7E30-N100"),  # beyond the longest AOC, a fibre between two modules
        (100.0, "MFP7E30-N100"),
        (120.0, "MFP7E30-N150"),
        (500.0, "MFP7E30-N500"),
        (500.1, None),  # beyond the module's reach: left to quote separately, never too short
    ],
)
def test_each_run_takes_dac_where_it_reaches_the_shortest_aoc_beyond_then_optics(
    catalog, run, part
):
    assert cable_part(catalog, run) == part


@pytest.mark.parametrize("run", [50.1, 61.3, 120.0])
def test_a_run_beyond_the_longest_aoc_is_two_modules_and_one_fibre_of_their_connector(catalog, run):
    media = pick_inband_media(catalog, sn4600c(catalog), run)
    assert media.optical and media.kind == "singlemode" and media.links_per_cable == 1
    # One module in each end's port: the switch's QSFP28, the server's QSFP112 takes it.
    assert media.switch_module.part_number == media.host_module.part_number == PSM4
    module, fibre = media.switch_module, media.cable
    assert (module.cage_type, module.port_speed_gbps, module.reach_m) == ("QSFP28", 100, 500)
    # PSM4's MPO/APC takes the APC single-mode fibre of the DR4 optics, long enough for the run
    # and the shortest length class that is.
    assert fibre.part_number.startswith("MFP7E30-") and "MPO-12/APC" in fibre.name
    assert (fibre.media, fibre.reach_m, fibre.breakout) == ("singlemode", 500, 1)
    assert fibre.length_m >= run
    assert not any(
        p.part_number.startswith("MFP7E30-") and run <= p.length_m < fibre.length_m for p in catalog
    )


def test_no_in_band_module_is_paired_with_a_fibre_of_another_connector(catalog):
    """A UPC module never gets the APC multimode fibres (MFP7E10), nor a duplex LC one."""
    switch = sn4600c(catalog)
    fibres = set()
    for run in range(51, 501, 7):
        media = pick_inband_media(catalog, switch, run)
        assert media.switch_module.part_number == PSM4
        fibres.add(media.cable.part_number)
    assert fibres and all(f.startswith("MFP7E30-") for f in fibres)


def test_the_longest_in_band_run_is_where_the_module_and_its_fibres_stop(catalog):
    switch = sn4600c(catalog)
    assert longest_inband_run(catalog, switch) == 500
    assert longest_inband_run(without_psm4(catalog), switch) == 50  # the longest AOC


def test_runs_beyond_the_longest_aoc_are_quoted_two_modules_and_a_fibre_each(catalog):
    # HGX servers: a DGX's compute cages take no 60 m optics from this catalog.
    far = FabricRequirements(
        server_count=16,
        server_part_number="HGX-H100-8GPU-SRV",
        inband_management=True,
        server_to_leaf=60.0,
    )
    d = design_fabric(far, catalog)
    # 32 server ports at 60 m on optics; the peer link within a rack on copper.
    assert quoted(d) == {"MFP7E30-N100": 32, "MCP1600-C002": 2}
    assert quoted(d, "transceiver") == {PSM4: 64}
    assert not any("in-band" in w for w in d.warnings)
    # The modules draw power, as the fabric's.
    before = design_fabric(far, without_psm4(catalog))
    assert not quoted(before, "transceiver")
    module = next(p for p in catalog if p.part_number == PSM4)
    assert d.power_typical_w - before.power_typical_w == pytest.approx(64 * module.power_typical_w)
    assert d.power_max_w - before.power_max_w == pytest.approx(64 * module.power_max_w)


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
    """(design, layout) of `servers` DGX on the default site, each size designed once; the
    catalog before the in-band optics too."""
    made = {}

    def of(servers: int, optics: bool = True):
        if (servers, optics) not in made:
            site = SiteInputs()
            parts = catalog if optics else without_psm4(catalog)
            design = design_on_site(requirements(servers), parts, site)
            made[servers, optics] = design, plan_layout(design, site, catalog)
        return made[servers, optics]

    return of


@pytest.fixture(params=[16, 256], ids=["16 DGX", "256 DGX"])
def on_site(request, designed_on_site):
    return designed_on_site(request.param)


def test_the_pack_names_for_each_run_the_part_the_bom_quotes(on_site, catalog):
    design, layout = on_site
    runs = [c for c in layout.cables if c.tier == TIER]
    assert len(runs) == design.management.inband_cables
    assert Counter(c.part for c in runs) == quoted(design)  # every run has its part
    switch = sn4600c(catalog)
    for cable in runs:
        expected = pick_inband_media(catalog, switch, cable.length_m)
        assert (cable.part, cable.media) == (expected.cable.part_number, expected.kind)
        assert cable.length_m <= cable.quoted_m
    peer = [c for c in runs if c.a_port.startswith("p")]
    # A pair's switches stand one after the other: a peer link within copper's reach is a DAC
    # (a pair split across two racks gets its measured run's AOC).
    assert peer and all(c.media == "dac" for c in peer if c.length_m <= 5)


def test_the_pack_places_each_in_band_module_the_bom_quotes_in_the_rack_of_its_port(
    designed_on_site,
):
    design, layout = designed_on_site(256)
    optical = [c for c in layout.cables if c.tier == TIER and c.media == "singlemode"]
    placed = sum(rack.parts[PSM4] for rack in layout.racks)
    assert placed == 2 * len(optical) == quoted(design, "transceiver")[PSM4] == 172
    # One at each end: in the server's rack and in the in-band switch's.
    for cable in optical[:5]:
        assert layout.rack_of(cable.a_device).parts[PSM4]
        assert layout.rack_of(cable.z_device).parts[PSM4]
    # Their power is in those racks' network power, which adds up to the design's.
    assert sum(r.network_typical_w for r in layout.racks) == pytest.approx(design.power_typical_w)
    assert sum(r.network_max_w for r in layout.racks) == pytest.approx(design.power_max_w)


def test_the_pack_files_show_the_long_runs_on_fibre_and_pick_what_the_bom_quotes(
    designed_on_site,
):
    design, layout = designed_on_site(256)
    schedule = list(csv.DictReader(io.StringIO("".join(cable_schedule_csv(layout)))))
    inband = [row for row in schedule if row["tier"] == TIER]
    assert Counter(row["media"] for row in inband if row["part"] == "MFP7E30-N100") == {
        "singlemode": 86
    }
    assert all(row["part"] for row in inband)
    picked, unracked = Counter(), []
    for row in csv.DictReader(io.StringIO("".join(bom_by_rack_csv(layout)))):
        picked[row["sku"]] += int(row["quantity"])
        if row["rack"] == NOT_RACKED:
            unracked.append(row["sku"])
    # Every in-band part, whatever else the fabric uses it for (its trunks' MFP7E30 too), is
    # picked in a rack as often as the BOM quotes it.
    bom = Counter()
    for line in design.bom:
        bom[line.sku] += line.quantity
    for sku in quoted(design) + quoted(design, "transceiver"):
        assert picked[sku] == bom[sku], sku
        assert sku not in unracked, sku


def test_16_dgx_on_the_default_site_quote_every_run(designed_on_site):
    design, _layout = designed_on_site(16)
    assert sum(quoted(design).values()) == 34
    assert not quoted(design, "transceiver")  # every run within the AOCs' reach
    assert not any("in-band" in w for w in design.warnings)


def test_256_dgx_on_the_default_site_quote_every_run_runs_beyond_the_aocs_on_optics(
    designed_on_site,
):
    design, layout = designed_on_site(256)
    runs = [c for c in layout.cables if c.tier == TIER]
    beyond = [c for c in runs if c.length_m > 50]
    assert len(beyond) == 86 and max(c.length_m for c in beyond) < 100
    assert {c.part for c in beyond} == {"MFP7E30-N100"}
    assert sum(quoted(design).values()) == len(runs) == 522
    assert quoted(design, "transceiver") == {PSM4: 2 * 86}
    assert not any("in-band" in w for w in design.warnings)


def test_without_in_band_optics_the_runs_beyond_the_aocs_are_named_with_what_to_add(
    designed_on_site,
):
    design, layout = designed_on_site(256, optics=False)
    runs = [c for c in layout.cables if c.tier == TIER]
    beyond = [c for c in runs if c.length_m > 50]
    # A design saved before the optics keeps its pack: those runs without a part.
    assert beyond and all(c.part == "" for c in beyond)
    assert sum(quoted(design).values()) == 522 - len(beyond) == 436
    assert (
        f"Management cabling is not in the catalog: {len(beyond)} in-band 100GbE cables to "
        "quote separately." in design.warnings
    )
    farthest = max(c.length_m for c in beyond)
    assert (
        f"{len(beyond)} in-band management runs are longer than the catalog's in-band cables and "
        f"optics reach (50 m), up to {farthest:g} m: they are not quoted. A catalog manager can "
        "add a 100GbE QSFP28 transceiver that reaches them with a fibre made for its connector "
        f"(at least {farthest:g} m long); otherwise check the installation pack's lengths."
        in design.warnings
    )


def test_without_100gbe_cables_in_the_catalog_the_warning_names_only_the_in_band_cables(catalog):
    without = [
        p for p in without_psm4(catalog) if not (p.cage_type == "QSFP28" and p.category == "cable")
    ]
    d = design_fabric(requirements(16, outofband_management=True), without)
    assert not quoted(d)
    assert (
        "Management cabling is not in the catalog: 34 in-band 100GbE cables to quote separately."
        in d.warnings
    )
    assert not any("RJ45" in w for w in d.warnings)  # the patch cords are quoted


def test_a_design_saved_before_the_cables_were_quoted_keeps_its_pack_without_parts(catalog):
    without = [
        p for p in without_psm4(catalog) if not (p.cage_type == "QSFP28" and p.category == "cable")
    ]
    old = design_fabric(requirements(16), without)
    layout = plan_layout(old, SiteInputs(), catalog)  # today's catalog, the saved BOM
    assert {c.part for c in layout.cables if c.tier == TIER} == {""}


def test_an_end_of_life_cable_is_not_picked(catalog):
    retired = [
        dataclasses.replace(p, lifecycle="eol") if p.part_number == "MCP1600-C002" else p
        for p in catalog
    ]
    assert cable_part(retired, 2.0) == "MCP1600-C02A"
    retired = [
        dataclasses.replace(p, lifecycle="eol") if p.part_number == PSM4 else p for p in retired
    ]
    assert cable_part(retired, 60.0) is None

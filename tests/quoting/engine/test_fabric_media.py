"""Rule 10, media by reach: the cheapest catalog media that covers each run, for every generation,
and the Spectrum-X host side as NVIDIA builds it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, design_fabric, parts
from quoting.engine.install import SiteInputs, design_on_site
from tests.quoting.engine.fabric_checks import bom_total, check_schedule

SUPERNIC = "900-9D3D4-00EN-HA0"  # BlueField-3 B3140H


def design(catalog, **fields):
    return design_fabric(FabricRequirements(**fields), catalog)


def refused(catalog, **fields) -> dict[str, list[str]]:
    with pytest.raises(InvalidInput) as caught:
        design(catalog, **fields)
    return caught.value.errors


# --- HDR -----------------------------------------------------------------------------------------


# Issue 26: the seed once paired MMA1T00-HS with "HDR fibres" MC2609130-050/-100, a number known
# as a 40GbE QSFP to 4 x SFP+ copper breakout. MMA1T00-HS takes a female MPO/UPC multimode patch
# cable (NVIDIA Cable Management Guidelines and FAQ, "Transceivers and Cable Connectors",
# https://docs.nvidia.com/networking/display/cablemanagfaq/cable+and+connector+definitions) and
# no NVIDIA part number for it was found (catalog/data/SOURCES.md): these runs are refused now
# instead of quoting a wrong part (they quoted SR4 optics over MC2609130 before).
HDR_FIBRE_GAP = "the catalog has no HDR multimode fibre made for that module's connector"


@pytest.mark.parametrize("metres", [31, 50, 100])
@pytest.mark.parametrize("field", ["server_to_leaf", "leaf_to_spine"])
def test_hdr_runs_past_the_longest_aoc_are_refused_the_catalog_has_no_hdr_fibre(
    catalog, metres, field
):
    """MFS1S00 HDR AOCs stop at 30 m in the catalog; the MMA1T00-HS SR4 module reaches 100 m
    (NVIDIA MMA1T00-HS product specifications) but the catalog sells no MPO-12/UPC fibre for it."""
    errors = refused(catalog, gpu_count=256, nic_generation="HDR", **{field: metres})
    assert list(errors) == [field]
    text = errors[field][0]
    links = "server-to-leaf links" if field == "server_to_leaf" else "switch-to-switch links"
    assert f"HDR {links} of {metres} m" in text
    assert "MMA1T00-HS" in text and HDR_FIBRE_GAP in text
    # Where the catalog's HDR cables stop, and what a catalog manager can add to quote the run.
    assert "longer than the catalog's longest HDR cable for them (MFS1S00-H030, 30 m)" in text
    wanted = (
        f"add that fibre (at least {metres} m long) or a longer HDR cable (at least {metres} m)"
    )
    assert wanted in text
    assert "otherwise plan runs within 30 m" in text


def test_without_any_hdr_cable_the_refusal_asks_for_the_fibre_alone(catalog):
    """A catalog with no HDR cable for the links has no longest cable to name."""
    no_hdr_cables = [p for p in catalog if not (p.category == "cable" and p.generation == "HDR")]
    errors = refused(no_hdr_cables, gpu_count=256, nic_generation="HDR", server_to_leaf=50)
    assert errors == {
        "server_to_leaf": [
            "HDR server-to-leaf links of 50 m need optics (MMA1T00-HS, 100 m), and the catalog "
            "has no HDR multimode fibre made for that module's connector, so no part can be "
            "quoted for them. A catalog manager can add that fibre (at least 50 m long); "
            "otherwise plan runs the catalog's HDR cables reach."
        ]
    }


def test_hdr_past_the_aoc_still_designs_once_the_catalog_has_an_hdr_fibre(catalog):
    """The refusal is the catalog's gap, not a rule: a fibre of the module's class (multimode,
    100 m reach) added by a catalog manager is quoted with SR4 optics at once."""
    aoc = parts.find_part(catalog, "MFS1S00-H030")
    fibre = replace(
        aoc,
        part_number="HDR-MPO-UPC-050",
        name="HDR multimode fibre, MPO-12/UPC, 50 m",
        media="multimode",
        reach_m=100,
        length_m=50,
        cage_type="",
        port_speed_gbps=None,
    )
    d = design([*catalog, fibre], gpu_count=256, nic_generation="HDR", leaf_to_spine=50)
    assert d.trunk_media.kind == "multimode"
    assert d.trunk_media.switch_module.part_number == "MMA1T00-HS"
    assert d.trunk_media.cable.part_number == "HDR-MPO-UPC-050"
    check_schedule(d)


def test_no_hdr_design_quotes_mc2609130_at_any_distance(catalog):
    assert not [p for p in catalog if p.part_number.startswith("MC2609130")]
    for metres in ("same-rack", "same-row", 30):
        d = design(
            catalog,
            gpu_count=1024,
            nic_generation="HDR",
            server_to_leaf=metres,
            leaf_to_spine=metres,
            spine_to_core=metres,
        )
        assert not [line for line in d.bom if line.sku.startswith("MC2609130")]
        assert bom_total(d, "MMA1T00-HS") == 0


def test_4096_hdr_gpus_on_the_default_site_are_refused_at_their_measured_spine_core_run(catalog):
    """Before issue 26 this design quoted 2,656 MC2609130 (2,048 x -050, 608 x -100) for its
    spine-core runs over 30 m. The measured run keeps the catalog-gap message (not "allow more
    racks per row": no layout gives HDR a fibre)."""
    with pytest.raises(InvalidInput) as caught:
        design_on_site(
            FabricRequirements(gpu_count=4096, nic_generation="HDR"),
            catalog,
            SiteInputs(rack_power_kw=40),
        )
    errors = caught.value.errors
    assert list(errors) == ["spine_to_core"]
    assert HDR_FIBRE_GAP in errors["spine_to_core"][0]
    assert "HDR switch-to-switch links of " in errors["spine_to_core"][0]


def test_1024_hdr_gpus_on_the_default_12_kw_site_are_refused_at_their_39_5_m_spine_core_run(
    catalog,
):
    """No NVIDIA document at hand names an HDR part for 30-100 m (catalog/data/SOURCES.md, "HDR
    multimode fibre": the MFS1S00-H050/-H100 numbers were seen only in third-party pages, and
    MMA1T00-HS's MPO-12/UPC fibre has no NVIDIA number). On 12 kW racks the spine-core runs
    measure 39.5 m, past MFS1S00-H030: the design is refused, naming the run, the longest HDR
    cable and what to add, not quoted on a guessed part."""
    with pytest.raises(InvalidInput) as caught:
        design_on_site(
            FabricRequirements(gpu_count=1024, nic_generation="HDR"), catalog, SiteInputs()
        )
    assert list(caught.value.errors) == ["spine_to_core"]
    assert caught.value.errors["spine_to_core"] == [
        "HDR switch-to-switch links of 39.5 m are longer than the catalog's longest HDR cable "
        "for them (MFS1S00-H030, 30 m) and need optics (MMA1T00-HS, 100 m), and the catalog has "
        "no HDR multimode fibre made for that module's connector, so no part can be quoted for "
        "them. A catalog manager can add that fibre (at least 39.5 m long) or a longer HDR cable "
        "(at least 39.5 m); otherwise plan runs within 30 m."
    ]


@pytest.mark.parametrize("field", ["server_to_leaf", "leaf_to_spine"])
def test_an_hdr_run_past_the_sr4_modules_reach_is_refused_as_no_catalog_part(catalog, field):
    """Past MMA1T00-HS's 100 m no fibre would help: the plain "no catalog part" error."""
    errors = refused(catalog, gpu_count=256, nic_generation="HDR", **{field: 150})
    assert list(errors) == [field]
    assert errors[field][0].startswith("no catalog cable or optic reaches 150 m for HDR ")
    assert HDR_FIBRE_GAP not in errors[field][0]


def test_an_hdr_core_measured_within_aoc_reach_is_not_refused_for_its_usual_class(catalog):
    """Spine to core left empty is planned at across-hall (100 m), which would need the missing
    fibre; on a site it is planned within the row and its measured runs decide: 1,024 HDR GPUs on
    the default site measure within 30 m and are quoted on AOCs, as before issue 26."""
    d = design_on_site(
        FabricRequirements(gpu_count=1024, nic_generation="HDR"),
        catalog,
        SiteInputs(rack_power_kw=40),
    )
    assert d.topology.tiers == 3
    assert d.requirements.spine_to_core is None
    assert bom_total(d, category="transceiver") == 0
    assert not [line for line in d.bom if line.sku.startswith("MC2609130")]
    check_schedule(d)


def test_hdr_within_aoc_reach_keeps_the_cheaper_aoc(catalog):
    d = design(catalog, gpu_count=256, nic_generation="HDR", server_to_leaf=20)
    assert d.host_media.kind == "aoc" and d.host_media.cable.part_number == "MFS1S00-H020"
    assert d.host_media.host_module is None


# --- NDR / 400GbE switch to switch ---------------------------------------------------------------


def test_a_300_m_trunk_takes_the_500_m_dr4_module_and_a_300_m_single_mode_fibre(catalog):
    d = design(catalog, gpu_count=256, leaf_to_spine=300)
    assert d.trunk_media.switch_module.part_number == "MMS4X00-NM"
    assert d.trunk_media.cable.media == "singlemode" and d.trunk_media.cable.length_m >= 300
    assert d.trunk_media.cable.part_number == "MFP7E30-N300"
    check_schedule(d)


def test_a_100_m_trunk_keeps_the_cheaper_100_m_dr4_module(catalog):
    d = design(catalog, gpu_count=256, leaf_to_spine=100)
    assert d.trunk_media.switch_module.part_number == "MMS4X00-NS"


def test_a_1500_m_trunk_takes_fr4_with_duplex_lc_fibre_never_mpo(catalog):
    """MMS4X50-NM is 2 x FR4 over duplex LC connectors (NVIDIA MMS4X50-NM product
    specifications); MPO-12 fibres are for the DR4 modules."""
    d = design(catalog, gpu_count=256, leaf_to_spine=1500)
    assert d.trunk_media.switch_module.part_number == "MMS4X50-NM"
    assert d.trunk_media.cable.part_number == "FIB-OS2-LCLC-2000"
    assert "duplex LC" in d.trunk_media.cable.name
    check_schedule(d)


@pytest.mark.parametrize("metres", [10, 100, 150, 400, 500, 501, 999, 2000])
def test_fr4_is_only_ever_paired_with_duplex_lc_and_dr4_only_with_mpo(catalog, metres):
    media = design(catalog, gpu_count=256, leaf_to_spine=metres).trunk_media
    if media.kind != "singlemode":
        return
    fr4 = media.switch_module.part_number == "MMS4X50-NM"
    assert ("duplex LC" in media.cable.name) == fr4
    assert ("MPO-12" in media.cable.name) == (not fr4)


@pytest.mark.parametrize("field", ["server_to_leaf", "leaf_to_spine", "spine_to_core"])
def test_a_run_longer_than_anything_in_the_catalog_is_refused_naming_its_field(catalog, field):
    gpus = 4096 if field == "spine_to_core" else 256  # three tiers need a core
    errors = refused(catalog, gpu_count=gpus, switch_part_number="MQM9700-NS2F", **{field: 2500})
    assert list(errors) == [field]
    assert "2500 m" in errors[field][0]


@pytest.mark.parametrize("metres", [1, 2.5, 12, 31, 51, 120, 151, 260, 700, 1200])
def test_every_cable_is_the_shortest_catalog_length_of_its_kind_that_covers_the_run(
    catalog, metres
):
    d = design(catalog, gpu_count=256, server_to_leaf=min(metres, 50), leaf_to_spine=metres)
    for media, run in ((d.host_media, min(metres, 50)), (d.trunk_media, metres)):
        cable = media.cable
        same_kind = [
            p.length_m
            for p in catalog
            if p.category == "cable"
            and p.media == cable.media
            and p.breakout == cable.breakout
            and p.cage_type == cable.cage_type
            and p.reach_m == cable.reach_m
            and p.port_speed_gbps == cable.port_speed_gbps
            and p.length_m >= run
        ]
        assert cable.length_m == min(same_kind)


# Modules whose fibre the catalog knowingly lacks: MMA1T00-HS's MPO-12/UPC multimode fibre has
# no NVIDIA part number at hand (issue 26, catalog/data/SOURCES.md); its runs are refused.
FIBRE_NOT_IN_CATALOG = {"MMA1T00-HS"}


def test_every_catalog_module_has_fibre_made_for_its_connector(catalog):
    """A transceiver that no fibre serves could never be quoted (as HDR's SR4 cannot, until its
    fibre is added: then this list must shrink)."""
    unserved = {
        module.part_number
        for module in catalog
        if module.category == "transceiver"
        and module.lifecycle != "eol"
        and parts._fibre(catalog, module, 1, 1) is None
    }
    assert unserved == FIBRE_NOT_IN_CATALOG


# --- QSFP112 NICs and Spectrum-X -----------------------------------------------------------------


def test_a_qsfp112_nic_two_metres_away_takes_the_osfp_to_two_qsfp112_dac(catalog):
    """MCP7Y10: twin-port OSFP to 2 x 400G QSFP112 passive splitter, 1-3 m, for ConnectX-7/QSFP112
    and BlueField-3 (NVIDIA MCP7Y10-Nxxx product specifications)."""
    d = design(
        catalog, gpu_count=256, nic_part_number="900-9D3B6-00CN-AB0", server_to_leaf="same-rack"
    )
    assert d.host_media.kind == "dac" and d.host_media.cable.part_number == "MCP7Y10-N002"
    assert bom_total(d, "MCP7Y10-N002") == 128  # one per switch cage: two NIC ports each
    assert bom_total(d, "MMA1Z00-NS400") == 0
    check_schedule(d)


def test_spectrum_x_defaults_to_the_b3140h_supernic_not_a_dpu(catalog):
    """NVIDIA's Spectrum-X platform pairs Spectrum switches with the BlueField-3 SuperNIC; the
    Enterprise RA for HGX connects each GPU through its SuperNIC (docs.nvidia.com/
    enterprise-reference-architectures/hgx-ai-factory-h100-h200-b200, Network Logical
    Architecture); 900-9D3D4-00EN-HA0 is the B3140H (NVIDIA BlueField-3 User Guide, Port
    Configurations)."""
    d = design(
        catalog, gpu_count=256, family="ethernet", nic_generation="400GbE", include_nics=True
    )
    assert d.nic.part_number == SUPERNIC
    assert d.nic.category == "adapter" and "SuperNIC" in d.nic.name
    assert bom_total(d, SUPERNIC) == 256
    assert bom_total(d, category="dpu") == 0


def test_infiniband_keeps_the_connectx7_and_never_takes_the_ethernet_supernic(catalog):
    assert design(catalog, gpu_count=256).nic.part_number == "MCX75310AAS-NEAT"
    errors = refused(catalog, gpu_count=256, nic_part_number=SUPERNIC)
    assert "nic_part_number" in errors


def test_spectrum_x_hgx_h100_256_gpus_one_cable_per_gpu_port_and_sn5600_cages_split_in_two(
    catalog,
):
    """32 HGX H100 servers, 8 x 400GbE B3140H each, rail-optimized on SN5600. NVIDIA LinkX:
    an SN5600 OSFP cage carries two 400G ports through one twin-port module (LinkX 100G-PAM4
    user guide, 400Gb/s Rate); the RA cables each GPU's SuperNIC port once. Switch counts are
    left to the topology rules: no public Spectrum-X table for this size could be confirmed."""
    d = design(catalog, gpu_count=256, family="ethernet", nic_generation="400GbE")
    gpu_ports = 256
    assert d.endpoint_ports == gpu_ports
    assert d.switch.port_count == 128 and d.switch.ports_per_cage == 2  # 64 x 800G as 128 x 400G
    host = [b for b in d.bom if b.role == "server-leaf"]
    assert sum(b.quantity for b in host if b.category == "cable") == gpu_ports
    assert bom_total(d, "MMA1Z00-NS400") == gpu_ports  # one QSFP112 module per SuperNIC
    switch_modules = sum(b.quantity for b in host if b.sku == "MMA4Z00-NS")
    assert switch_modules == gpu_ports // 2  # one twin-port module per two GPU ports
    links = d.links_by_tier()
    assert bom_total(d, category="cable") == links["server-leaf"] + links["leaf-spine"]
    check_schedule(d)


# --- XDR ------------------------------------------------------------------------------------------


def test_xdr_in_the_same_rack_uses_copper_not_a_100_m_fibre(catalog):
    """NVIDIA's XDR line: linear active copper for short links, single-mode optics beyond; no
    multimode, AOC or passive DAC at 200G-PAM4 (docs.nvidia.com/networking/display/
    800g200gpam4list)."""
    d = design(
        catalog,
        gpu_count=576,
        nic_generation="XDR",
        server_to_leaf="same-rack",
        leaf_to_spine="same-rack",
    )
    assert d.host_media.kind == "acc" and d.host_media.cable.length_m == 2
    assert d.trunk_media.kind == "acc" and d.trunk_media.cable.length_m == 2
    assert bom_total(d, category="transceiver") == 0
    check_schedule(d)


@pytest.mark.parametrize(("metres", "length"), [(30, 30), (100, 100), (300, 300)])
def test_xdr_optics_use_the_shared_single_mode_fibre_by_length_class(catalog, metres, length):
    """The same single-mode straight fibres serve XDR and NDR (NVIDIA 800g200gpam4list)."""
    d = design(catalog, gpu_count=576, nic_generation="XDR", leaf_to_spine=metres)
    assert d.trunk_media.kind == "singlemode"
    assert d.trunk_media.cable.part_number == f"MFP7E30-N{length:03d}"


# --- splitters and active copper ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("nic", "cable"),
    [("MCX75310AAS-HEAT", "MCP7Y50-N002"), ("MCX755106AS-HEAT", "MCP7Y40-N002")],
)
def test_ndr200_hosts_in_the_rack_take_a_one_to_four_copper_splitter(catalog, nic, cable):
    """MCP7Y50 (4 x 200G OSFP) and MCP7Y40 (4 x 200G QSFP112) split one twin-port switch cage
    four ways (NVIDIA MCP7Y50 and MCP7Y10 product specifications, use cases)."""
    d = design(
        catalog, gpu_count=256, nic_generation="NDR200", nic_part_number=nic, server_to_leaf=2
    )
    assert d.host_media.cable.part_number == cable and d.host_media.links_per_cable == 4
    assert bom_total(d, cable) == 256 // 4
    check_schedule(d)


def test_a_supernic_in_the_next_rack_takes_active_copper_before_optics(catalog):
    """Active copper splitters reach 4-5 m (NVIDIA MCA7J60 product specifications: QSFP112 ends
    on the MCA7J65)."""
    d = design(catalog, gpu_count=256, family="ethernet", nic_generation="400GbE", server_to_leaf=5)
    assert d.host_media.kind == "acc" and d.host_media.cable.part_number == "MCA7J65-N005"
    assert bom_total(d, "MMA1Z00-NS400") == 0

"""The BOM's cables are measured on the site's rack layout, and the pack's cables are the BOM's.

The design measures runs by group (rack pairs, leaf cages), never cable by cable; the pack
routes every leg. Both must buy the same parts in the same numbers, and no leg may be longer
than the cable bought for it.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.install import SiteInputs, design_on_site, plan_layout

RAISED_FLOOR = SiteInputs(cable_route="raised-floor", cable_slack_m=0.3)

SIZES = {
    "256 GPUs IB, two tiers": dict(gpu_count=256),
    "256 GPUs IB on a raised floor (copper mixed in)": dict(gpu_count=256, site=RAISED_FLOOR),
    "1,024 GPUs IB, two tiers": dict(gpu_count=1024),
    "1,024 GPUs Ethernet": dict(gpu_count=1024, family="ethernet", nic_generation="400GbE"),
    "1,024 GPUs Ethernet, raised floor": dict(
        gpu_count=1024, family="ethernet", nic_generation="400GbE", site=RAISED_FLOOR
    ),
    "4,096 GPUs IB, three tiers": dict(gpu_count=4096),
    "4,096 GPUs Ethernet, two planes, B300": dict(
        gpu_count=4096,
        family="ethernet",
        nic_generation="400GbE",
        planes=2,
        server_part_number="DGX-B300",
        site=SiteInputs(rack_power_kw=40),  # a 14.5 kW server: not on the 12 kW IDC rack
    ),
    "1,024 GPUs Ethernet, three tiers sized for 16,384": dict(
        gpu_count=1024, growth_gpus=16384, family="ethernet", nic_generation="400GbE"
    ),
    "992 GPUs IB with storage, UFM and management": dict(
        gpu_count=992,
        storage_servers=16,
        subnet_manager="ufm-appliance",
        inband_management=True,
        outofband_management=True,
    ),
    "496 GPUs IB, UFM on a raised floor (shared cages keep optics)": dict(
        gpu_count=496, subnet_manager="ufm-appliance", site=RAISED_FLOOR
    ),
    "512 GPUs NDR200 split ports, raised floor": dict(
        gpu_count=512, nic_generation="NDR200", site=RAISED_FLOOR
    ),
    "512 GPUs DGX H100": dict(gpu_count=512, server_part_number="DGX-H100"),
    "16 DGX H100 at NDR200 (BasePOD), raised floor": dict(
        server_count=16, nic_generation="NDR200", server_part_number="DGX-H100", site=RAISED_FLOOR
    ),
    "17 DGX B200 at NDR200, two tiers": dict(
        server_count=17,
        nic_generation="NDR200",
        server_part_number="DGX-B200",
        site=SiteInputs(rack_power_kw=40),  # a 14.3 kW server: not on the 12 kW IDC rack
    ),
    "512 GPUs not rail-optimized, raised floor": dict(
        gpu_count=512, rail_optimized=False, site=RAISED_FLOOR
    ),
    "2,048 GPUs IB, one link per switch pair, rows 6 m apart (trunk modules per cage)": dict(
        gpu_count=2048, growth_gpus=65536, site=SiteInputs(racks_per_row=4, row_spacing_m=6)
    ),
}

_BUILT: dict[str, tuple] = {}


@pytest.fixture(params=list(SIZES))
def built(request, catalog):
    if request.param not in _BUILT:
        fields = dict(SIZES[request.param])
        site = fields.pop("site", SiteInputs())
        design = design_on_site(FabricRequirements(**fields), catalog, site)
        _BUILT[request.param] = (design, plan_layout(design, site, catalog))
    return _BUILT[request.param]


def bom_counts(design, category: str) -> Counter:
    counted = Counter()
    for line in design.bom:
        if line.category == category and line.role != "spare":
            counted[line.sku] += line.quantity
    return counted


def test_the_pack_buys_the_boms_cables_part_for_part_and_count_for_count(built):
    design, layout = built
    cables = defaultdict(set)
    for cable in layout.cables:
        # An in-band run no catalog cable reaches has no part: quoted separately, not in the BOM.
        if cable.tier != "inband-management" or cable.part:
            cables[cable.part].add(cable.base_id)
    assert {part: len(ids) for part, ids in cables.items()} == dict(bom_counts(design, "cable"))


def test_the_pack_racks_the_boms_transceivers_part_for_part(built, catalog):
    design, layout = built
    modules = {p.part_number for p in catalog if p.category == "transceiver"}
    racked = Counter()
    for rack in layout.racks:
        racked.update({part: n for part, n in rack.parts.items() if part in modules})
    assert racked == bom_counts(design, "transceiver")


def test_no_leg_is_longer_than_the_cable_bought_for_it(built):
    design, layout = built
    assert design.measured, "the tiers follow the layout"
    quoted = [c for c in layout.cables if c.tier != "inband-management"]  # in-band: no part
    assert all(c.length_m <= c.quoted_m for c in quoted)
    assert not any("longer than the quoted cable" in w for w in layout.warnings)


def test_copper_only_where_its_reach_covers_the_run_and_one_media_per_cage(built, catalog):
    design, layout = built
    by_sku = {p.part_number: p for p in catalog}
    media_of_cage = defaultdict(set)
    for cable in layout.cables:
        if cable.media in ("dac", "acc", "aoc"):
            assert cable.length_m <= by_sku[cable.part].length_m
        if cable.tier.removeprefix("storage ") in ("server-leaf", "ufm-leaf"):
            port = cable.z_port
            cage = port if port.startswith("p") else port.split("/")[0]
            media_of_cage[cable.z_device, cage].add(cable.media)
    assert all(len(media) == 1 for media in media_of_cage.values())


def test_the_university_reference_design_still_holds_on_the_default_site(catalog):
    """docs/fabric-design.md: 8 leaves + 4 spines, all optics: 384 switch twin-port modules,
    256 host modules and 512 fibres (now of the lengths the racks need)."""
    design = design_on_site(
        FabricRequirements(
            gpu_count=256, switch_part_number="MQM9790-NS2F", subnet_manager="on-switch"
        ),
        catalog,
        SiteInputs(),
    )
    assert (design.leaf_count, design.spine_count) == (8, 4)
    modules = bom_counts(design, "transceiver")
    assert (modules["MMA4Z00-NS"], modules["MMA4Z00-NS400"]) == (384, 256)
    fibres = bom_counts(design, "cable")
    assert sum(fibres.values()) == 512 and all(sku.startswith("MFP7E10-") for sku in fibres)
    assert len(fibres) > 1, "several length classes, each run at its own"


def test_a_raised_floor_puts_copper_on_the_short_runs_and_optics_on_the_long(catalog):
    overhead = design_on_site(FabricRequirements(gpu_count=256), catalog, SiteInputs())
    raised = design_on_site(FabricRequirements(gpu_count=256), catalog, RAISED_FLOOR)
    assert {"dac", "acc"} <= {m.kind for m in raised.measured["server-leaf"].media_by_run.values()}
    assert {m.kind for m in overhead.measured["server-leaf"].media_by_run.values()} == {"multimode"}
    assert sum(bom_counts(raised, "transceiver").values()) < sum(
        bom_counts(overhead, "transceiver").values()
    )
    # A splitter serves a cage (two hosts), a fibre one port: the tier's cables as bought.
    assert (
        raised.cables_by_tier()["server-leaf"]
        == sum(
            line.quantity
            for line in raised.bom
            if line.role == "server-leaf" and line.category == "cable"
        )
        < 256
    )


@pytest.mark.parametrize(
    "change",
    [
        dict(row_spacing_m=12),
        dict(rack_pitch_m=1.2),
        dict(cable_slack_m=6),
        dict(servers_per_rack=1),
    ],
)
def test_site_inputs_change_the_cables_bought(catalog, change):
    def fibre_metres(site):
        design = design_on_site(FabricRequirements(gpu_count=256), catalog, site)
        lengths = {p.part_number: p.length_m for p in catalog}
        return sum(lengths[sku] * n for sku, n in bom_counts(design, "cable").items())

    # On 40 kW racks of three servers, so that one server per rack is a change.
    assert fibre_metres(SiteInputs(rack_power_kw=40, **change)) > fibre_metres(
        SiteInputs(rack_power_kw=40)
    )


def test_a_distance_given_plans_the_tier_as_before(catalog):
    design = design_on_site(
        FabricRequirements(gpu_count=256, server_to_leaf="same-row"), catalog, SiteInputs()
    )
    host = [line for line in design.bom if line.role == "server-leaf" and line.category == "cable"]
    assert [(line.sku, line.quantity) for line in host] == [("MFP7E10-N030", 256)]
    assert "server-leaf" not in design.measured and "leaf-spine" in design.measured
    assert design.as_dict()["media"]["server-leaf"]["measured"] is False


def test_the_engine_alone_plans_the_usual_distances_and_measures_nothing(catalog):
    planned = design_fabric(FabricRequirements(gpu_count=256), catalog)
    assert planned.measured is None and planned.as_dict()["site"] is None
    assert bom_counts(planned, "cable") == {"MFP7E10-N030": 512}  # same-row, both tiers


def test_the_design_keeps_the_site_it_was_measured_on(catalog):
    site = SiteInputs(rack_pitch_m=0.8, cable_route="raised-floor")
    summary = design_on_site(FabricRequirements(gpu_count=64), catalog, site).as_dict()
    assert summary["site"]["rack_pitch_m"] == 0.8
    assert summary["site"]["cable_route"] == "raised-floor"
    assert all("measured" in media for media in summary["media"].values())


def test_a_measured_run_no_part_reaches_names_the_site(catalog):
    with pytest.raises(InvalidInput) as error:
        design_on_site(
            FabricRequirements(gpu_count=1024),
            catalog,
            SiteInputs(row_spacing_m=50, racks_per_row=1),
        )
    text = " ".join(str(m) for messages in error.value.messages.values() for m in messages)
    assert "rack layout" in text and "racks per row" in text

"""Switch-to-switch media chosen per cage from the measured runs, not once for the tier.

docs/fabric-design.md rule 10 ("choose media per run, not per tier: one 120 m run must not turn
16,000 short trunks into 500 m optics") and rule 9 (both ports of a twin-port module use the
same fibre type). NVIDIA MMS4X00-NS (2 x 400G DR4 single-mode, 100 m) and MMS4X00-NM (2 x 400G
DR4 single-mode, 500 m) product documents: both are twin-port OSFP modules on MPO-12/APC
single-mode fibres, so the 500 m model is needed only in a cage one of whose runs exceeds 100 m.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from quoting.engine.fabric import FabricRequirements, cable_schedule
from quoting.engine.install import SiteInputs, design_on_site
from tests.quoting.engine.fabric_checks import check_schedule

TRUNK_TIERS = ("leaf-spine", "spine-core")

DESIGNS = {
    # 16 SUs of DGX B300 on two Spectrum-X planes: one link per leaf-spine pair.
    # 40 kW racks: on the 12 kW default a DGX B300 (14.5 kW) has no rack, and the 2,048-GPU
    # hall grows runs beyond 500 m, where the whole tier is FR4 (another fibre) by rule.
    "16-SU Spectrum-X DGX B300, 40 kW racks": (
        dict(
            server_count=1024,
            family="ethernet",
            nic_generation="400GbE",
            planes=2,
            server_part_number="DGX-B300",
        ),
        SiteInputs(rack_power_kw=40),
    ),
    # One link per leaf-spine pair and per spine-core pair, rows far enough apart that some
    # runs need single-mode optics and a few the 500 m ones.
    "2,048 GPUs IB sized for 65,536, rows 6 m apart": (
        dict(gpu_count=2048, growth_gpus=65536),
        SiteInputs(racks_per_row=4, row_spacing_m=6, rack_power_kw=40),
    ),
}

_BUILT: dict[str, object] = {}


@pytest.fixture(params=list(DESIGNS))
def design(request, catalog):
    if request.param not in _BUILT:
        fields, site = DESIGNS[request.param]
        _BUILT[request.param] = design_on_site(FabricRequirements(**fields), catalog, site)
    return _BUILT[request.param]


def trunk_cages(design) -> dict[tuple[str, str, str], tuple[float, set[str]]]:
    """(tier, switch, cage) -> (the longest run through the cage, the modules the schedule puts
    in it), read from the cable schedule and the layout's runs."""
    longest: dict[tuple[str, str, str], float] = defaultdict(float)
    modules: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for run in cable_schedule(design):
        if run.tier not in TRUNK_TIERS:
            continue
        metres = design.lengths.between(run.a_device, run.b_device)
        for device, port, module in (
            (run.a_device, run.a_port, run.a_module),
            (run.b_device, run.b_port, run.b_module),
        ):
            key = (run.tier, device, port.split("/")[0])
            longest[key] = max(longest[key], metres)
            modules[key].add(module)
    return {key: (longest[key], modules[key]) for key in longest}


def test_the_designs_have_cages_joining_two_switch_pairs_and_runs_beyond_100_m(design):
    t = design.topology
    assert t.links_per_leaf_per_spine % t.ports_per_cage
    assert any(metres > 100 for metres, _ in trunk_cages(design).values())


def test_each_trunk_cage_has_one_module_of_the_shortest_reach_its_longest_run_needs(
    design, catalog
):
    by_sku = {p.part_number: p for p in catalog}
    for (tier, _device, _cage), (longest, modules) in trunk_cages(design).items():
        assert len(modules) == 1, "one module serves both ports of a cage (rule 9)"
        module = by_sku[modules.pop()]
        assert module.reach_m >= longest
        shorter = [
            p
            for p in catalog
            if p.category == "transceiver"
            and p.media == module.media
            and p.cage_type == module.cage_type
            and p.ports_per_module == module.ports_per_module
            and p.form_factor == module.form_factor
            and p.lifecycle == "active"
            and longest <= p.reach_m < module.reach_m
        ]
        assert not shorter, f"{tier}: {module.part_number} where {shorter[0].part_number} reaches"


def test_a_long_run_buys_the_long_reach_module_for_its_own_two_cages_only(design):
    """The BOM counts each module by the cages that need it: the 500 m modules are the cages
    with a run beyond 100 m, at most two per such run."""
    cages = trunk_cages(design)
    long_cages = Counter(tier for (tier, _, _), (metres, _) in cages.items() if metres > 100)
    long_runs = Counter(
        run.tier
        for run in cable_schedule(design)
        if run.tier in TRUNK_TIERS and design.lengths.between(run.a_device, run.b_device) > 100
    )
    for tier in TRUNK_TIERS:
        bought = {
            line.sku: line.quantity
            for line in design.bom
            if line.role == tier and line.category == "transceiver"
        }
        if not bought:
            continue
        assert sum(bought.values()) == sum(1 for key in cages if key[0] == tier)
        assert bought.get("MMS4X00-NM", 0) == long_cages[tier] <= 2 * long_runs[tier]
        if long_cages[tier]:  # the tier is single-mode: its other cages keep the 100 m model
            assert (
                bought["MMS4X00-NS"] == sum(1 for key in cages if key[0] == tier) - long_cages[tier]
            )


def test_every_trunk_link_keeps_one_fibre_type_at_both_ends(design, catalog):
    """A link's two modules differ in reach at most: the tier keeps its fibre type."""
    by_sku = {p.part_number: p for p in catalog}
    for tier in TRUNK_TIERS:
        kinds = {
            (by_sku[run.a_module].media, by_sku[run.b_module].media, run.media)
            for run in cable_schedule(design)
            if run.tier == tier
        }
        assert len(kinds) <= 1 and all(len(set(k)) == 1 for k in kinds)


def test_the_schedule_and_the_bom_agree_module_for_module(design):
    check_schedule(design)

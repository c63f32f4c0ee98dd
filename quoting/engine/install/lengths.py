"""A design on a site: its devices placed in racks, its runs measured by group, its BOM bought
for them (quoting/engine/fabric/lengths.py says how the groups are counted).

No fabric cable leg is routed here: a rack pair's run is computed once, and links are counted
per rack pair (trunks) or per leaf (host ports and cages, once per rail group and leaf rack when
rails are optimized), so designing 16,384 GPUs on a site stays in milliseconds. Out-of-band
patch cords, one per device, are routed each to its management switch, and in-band cables each
to its in-band switch (or across an MLAG pair's peer link), as the pack routes them.
The installation pack routes every leg on the same placement (plan_layout) and buys it with the
same part.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, replace

from quoting.engine.catalog import ProductSpec
from quoting.engine.fabric.cabling import _Names, _StorageNames
from quoting.engine.fabric.design import FabricDesign, design_fabric, design_measured
from quoting.engine.fabric.lengths import (
    CAGES,
    COPPER,
    FIBRE,
    MODULES,
    FabricLengths,
    host_cages,
    leaf_hosts,
    trunk_cages,
)
from quoting.engine.fabric.parts import MissingFibre
from quoting.engine.fabric.requirements import UNMEASURED_DISTANCES, FabricRequirements
from quoting.engine.install.inband import inband_runs
from quoting.engine.install.layout import place_devices, route_length, routed_m
from quoting.engine.install.management import management_runs, place_management_switches
from quoting.engine.install.site import U_METRES, SiteInputs


def design_on_site(
    requirements: FabricRequirements, catalog: list[ProductSpec], site: SiteInputs
) -> FabricDesign:
    """Design the fabric, place it on the site and buy its cables for the measured runs.
    Raises InvalidInput naming a requirement or site field."""
    return design_placed(_planned(requirements, catalog), catalog, site)


def design_placed(
    planned: FabricDesign, catalog: list[ProductSpec], site: SiteInputs
) -> FabricDesign:
    """A design already planned (design_fabric, or a rack-scale design's other build) placed on
    the site, its cables bought for the measured runs. Raises InvalidInput naming a site field
    or a run the catalog cannot serve."""
    if all(getattr(planned.requirements, name) is not None for name in UNMEASURED_DISTANCES):
        # Every distance given: nothing to measure; the site is kept for the pack.
        return design_measured(
            planned, catalog, FabricLengths(_not_placed, _not_placed, site=asdict(site))
        )
    return design_measured(planned, catalog, measure_runs(planned, site, catalog))


def _planned(requirements: FabricRequirements, catalog: list[ProductSpec]) -> FabricDesign:
    """The design to place. A distance left to be measured is planned at its tier's usual class
    (spine to core: across-hall, 100 m); when the catalog lacks the fibre that class needs (HDR's
    SR4 fibre), it is planned within the same row instead: the measured runs decide, and a run
    the catalog cannot serve is refused then, at its measured length."""
    try:
        return design_fabric(requirements, catalog)
    except MissingFibre as gap:
        unmeasured = [
            name
            for name in gap.errors
            if name in UNMEASURED_DISTANCES and getattr(requirements, name) is None
        ]
        if not unmeasured:
            raise
        trial = replace(requirements, **dict.fromkeys(unmeasured, "same-row"))
        return replace(design_fabric(trial, catalog), requirements=requirements)


def _not_placed(*_args):
    raise LookupError("nothing was measured: every distance was given")


def measure_runs(
    design: FabricDesign, site: SiteInputs, catalog: list[ProductSpec]
) -> FabricLengths:
    """The runs of the design's links on the site, by group (no cable legs)."""
    layout, rename, _ = place_devices(design, site, catalog)
    racks, devices = layout.racks, layout.devices
    low = [math.inf] * len(racks)
    high = [-math.inf] * len(racks)
    for d in devices.values():
        z = (d.u - 1 + d.units / 2) * U_METRES
        low[d.rack], high[d.rack] = min(low[d.rack], z), max(high[d.rack], z)
    pairs: dict[tuple[int, int], float] = {}
    # Between racks the run is longest from the devices furthest from the cable way: the
    # lowest under an overhead tray, the highest over a raised floor's void.
    far = low if site.cable_route == "overhead" else high
    where = [(rack.position, rack.row) for rack in racks]
    pitch, spacing = site.rack_pitch_m, site.row_spacing_m

    def pair_m(a: int, b: int) -> float:
        """The longest run between any device of rack a and any of rack b."""
        key = (a, b) if a <= b else (b, a)
        found = pairs.get(key)
        if found is None:
            if a == b:  # the two ends furthest apart
                found = routed_m(site, True, 0.0, low[a], high[a])
            else:
                (pa, ra), (pb, rb) = where[a], where[b]
                floor = abs(pa - pb) * pitch + abs(ra - rb) * spacing
                found = routed_m(site, False, floor, far[a], far[b])
            pairs[key] = found
        return found

    def rack_of(name: str) -> int:
        return devices[rename.get(name, name)].rack

    site_values = asdict(site)
    lengths = FabricLengths(rack_of, pair_m, site=site_values)
    if layout.management:  # the out-of-band switches where the pack puts them
        place_management_switches(layout, *layout.management)
        lengths.oob_m = Counter(metres for *_, metres in management_runs(layout))
    # The in-band cables, each routed as the pack routes it (install/inband.py).
    lengths.inband_m = Counter(
        route_length(layout, a.name, z.name) for a, _, z, _ in inband_runs(layout)
    )
    _count(design, [_Names(design, p) for p in range(1, design.planes + 1)], lengths)
    if design.storage is not None:
        lengths.storage = FabricLengths(rack_of, pair_m, site=site_values)
        _count(design.storage, [_StorageNames(design)], lengths.storage)
    return lengths


def _count(fd: FabricDesign, planes: list[_Names], lengths: FabricLengths) -> None:
    """Cables by length per tier and unit, over every plane of one fabric."""
    t, rack_of, pair_m = fd.topology, lengths.rack_of, lengths.pair_m
    counted = {
        (tier, unit): Counter()
        for tier in ("server-leaf", "leaf-spine", "spine-core")
        for unit in (FIBRE, COPPER, MODULES)
    }
    counted["server-leaf", CAGES] = Counter()
    host_rack = [rack_of(planes[0].host(s, 0)[0]) for s in range(t.servers)]

    def cages_of(names: _Names, leaf: int, leaf_rack: int):
        if t.rail_optimized and t.tiers > 1:  # a rail group's servers, in slot order
            first = leaf // t.group_leaves * t.group_servers
            group = host_rack[first : first + t.group_servers]
            racks = [rack for rack in group for _ in range(t.rails_per_leaf)]
        else:
            racks = [host_rack[s] for s, _ in leaf_hosts(t, leaf)]
        return host_cages(t, racks, leaf_rack, pair_m)

    for names in planes:
        units: dict[tuple[int, int], Counter] = {}
        leaves: Counter = Counter()
        for leaf in range(t.leaf_count):
            leaf_rack = rack_of(names.leaf(leaf))
            # A rail group's leaves see the same servers in the same slots.
            key = (leaf // t.group_leaves if t.rail_optimized and t.tiers > 1 else leaf, leaf_rack)
            if key not in units:
                units[key] = Counter(cages_of(names, leaf, leaf_rack))
            leaves[key] += 1
        for key, count in leaves.items():
            for cage, cages in units[key].items():
                counted["server-leaf", CAGES][cage] += cages * count
        if t.tiers > 1:
            _count_trunks(t, names, rack_of, pair_m, counted)
    for (ports, _), cages in counted["server-leaf", CAGES].items():
        counted["server-leaf", COPPER][max(ports)] += cages
        for run in ports:
            counted["server-leaf", FIBRE][run] += cages
    lengths.cables = {key: c for key, c in counted.items() if c}
    first = planes[0]
    lengths.leaf_cages = lambda leaf: cages_of(first, leaf, rack_of(first.leaf(leaf)))
    if fd.ufm is not None:
        names = planes[0]
        leaf_racks = [rack_of(names.leaf(leaf)) for leaf in range(t.leaf_count)]
        lengths.ufm_m = {
            (appliance, leaf): pair_m(rack_of(names.ufm(appliance)), leaf_racks[leaf])
            for appliance in range(fd.ufm.appliances)
            for leaf in range(t.leaf_count)
        }


def _count_trunks(t, names: _Names, rack_of, pair_m, counted) -> None:
    """Leaf-spine links per (leaf rack, spine rack) of each pod; spine-core links per (spine
    rack, core rack) of each core group: every link of a rack pair is as long as its longest."""
    ppc = t.ports_per_cage
    leaves = Counter(
        (leaf // t.leaves_per_pod, rack_of(names.leaf(leaf))) for leaf in range(t.leaf_count)
    )
    spines = {}
    for pod in range(t.pods):
        for spine in range(t.spines_per_pod):
            spines[pod, spine] = rack_of(names.spine(pod, spine))
    per_pod: dict[int, Counter] = {}
    for (pod, _), rack in spines.items():
        per_pod.setdefault(pod, Counter())[rack] += 1
    lpp = t.links_per_leaf_per_spine
    for (pod, leaf_rack), leaf_count in leaves.items():
        for spine_rack, spine_count in per_pod[pod].items():
            run, links = pair_m(leaf_rack, spine_rack), leaf_count * spine_count * lpp
            counted["leaf-spine", FIBRE][run] += links
            if lpp % ppc == 0:
                counted["leaf-spine", COPPER][run] += links // ppc
    if lpp % ppc:
        _count_leaf_spine_cages(t, names, rack_of, pair_m, counted["leaf-spine", MODULES])
    if t.tiers < 3:
        return
    lpc = t.links_per_spine_per_core
    groups = Counter(
        (spine // t.spines_per_core_group, rack) for (_, spine), rack in spines.items()
    )
    cores: dict[int, Counter] = {}
    for core in range(t.core_count):
        cores.setdefault(core // t.core_per_plane, Counter())[rack_of(names.core(core))] += 1
    for (group, spine_rack), spine_count in groups.items():
        for core_rack, core_count in cores.get(group, Counter()).items():
            run, links = pair_m(spine_rack, core_rack), spine_count * core_count * lpc
            counted["spine-core", FIBRE][run] += links
            if lpc % ppc == 0:
                counted["spine-core", COPPER][run] += links // ppc
    if lpc % ppc:
        _count_spine_core_cages(t, names, rack_of, pair_m, counted["spine-core", MODULES])


# Where a switch pair's links do not fill whole cages, a cage joins two switch pairs: its module
# is chosen for the longer of its runs, so the cages are counted by that run, at both ends.


def _count_leaf_spine_cages(t, names: _Names, rack_of, pair_m, counted: Counter) -> None:
    """Each leaf's uplink cages and each spine's downlink cages by their longest run; leaves
    (spines) of one pod in the same rack have the same runs, so each rack is measured once."""
    ppc, lpp, up = t.ports_per_cage, t.links_per_leaf_per_spine, t.leaf_up_start
    for pod in range(t.pods):
        first = pod * t.leaves_per_pod
        leaf_racks = [
            rack_of(names.leaf(leaf))
            for leaf in range(first, min(first + t.leaves_per_pod, t.leaf_count))
        ]
        spine_racks = [rack_of(names.spine(pod, spine)) for spine in range(t.spines_per_pod)]
        ends = (
            (leaf_racks, spine_racks, up),  # a leaf's uplinks, spine by spine
            (spine_racks, leaf_racks, 0),  # a spine's downlinks, leaf by leaf of the pod
        )
        for own_racks, far_racks, start in ends:
            for rack, switches in Counter(own_racks).items():
                runs = {
                    start + far * lpp + link: pair_m(rack, far_rack)
                    for far, far_rack in enumerate(far_racks)
                    for link in range(lpp)
                }
                for run in trunk_cages(runs, ppc).values():
                    counted[run] += switches


def _count_spine_core_cages(t, names: _Names, rack_of, pair_m, counted: Counter) -> None:
    """Each spine's uplink cages and each core's downlink cages by their longest run."""
    ppc, lpc, up = t.ports_per_cage, t.links_per_spine_per_core, t.spine_up_start
    core_racks = [rack_of(names.core(core)) for core in range(t.core_count)]
    core_runs: dict[int, dict[int, float]] = {}
    for pod in range(t.pods):
        for spine in range(t.spines_per_pod):
            spine_rack, runs = rack_of(names.spine(pod, spine)), {}
            for core_switch in range(t.core_per_plane):
                core, core_port = t.core_of(pod, spine, core_switch)
                run = pair_m(spine_rack, core_racks[core])
                for link in range(lpc):
                    runs[up + core_switch * lpc + link] = run
                    core_runs.setdefault(core, {})[core_port + link] = run
            counted.update(trunk_cages(runs, ppc).values())
    for runs in core_runs.values():
        counted.update(trunk_cages(runs, ppc).values())

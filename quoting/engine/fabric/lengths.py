"""Cable lengths measured on a site's rack layout, by group, for the BOM and the cable schedule.

The layout (quoting/engine/install) places every device; here a design reads what it needs of
it without routing a single cable leg: the rack of each device, and the longest run between two
racks (between their extreme devices), so every link between two racks gets the part that
covers the longest of them. Host links are grouped as the parts are bought: a fibre per switch
port (a splitter fibre serves both NDR200 hosts of a port), a copper cable per switch cage; trunk
links per rack pair, and their switch cages by the longest run of each (`trunk_cages`): a twin-port
module serves both ports of its cage. The BOM counts these groups (`cables`), the cable schedule
looks each link's group up with the same functions, so the two agree part for part.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from quoting.engine.catalog import ProductSpec
from quoting.engine.fabric.parts import Media
from quoting.engine.fabric.topology import Topology

# A cable unit: what one bought cable serves.
FIBRE = "fibre"  # one switch port (optics: a fibre per port)
COPPER = "copper"  # one switch cage (copper and AOC: a cable per cage)
CAGES = "cages"  # host tier: {(each port's run, endpoints): cages}, for media chosen per cage
MODULES = "modules"  # trunk tiers: {a cage's longest run: switch cages}, both ends counted

# A leaf cage as the host tier buys it: the run of each of its ports, and its endpoints.
CageRuns = tuple[tuple[float, ...], int]


@dataclass(slots=True)
class MeasuredTier:
    """What a measured tier bought: the media of each run (per cage on the host side, per rack
    pair on trunks) and the cable of each (media, run)."""

    media_by_run: dict[float, Media] = field(default_factory=dict)
    part_by_run: dict[tuple[str, float], ProductSpec] = field(default_factory=dict)
    # Host cages that must keep the tier's own media (a UFM port shares them): (leaf, cage).
    forced: frozenset[tuple[int, int]] = frozenset()
    # Trunk tiers whose cages join several switch pairs: the module of a cage, by its longest run.
    module_by_run: dict[float, ProductSpec] = field(default_factory=dict)

    def part(self, media: Media, run: float) -> ProductSpec:
        return self.part_by_run[media.cable.part_number, run]


@dataclass(slots=True)
class FabricLengths:
    """The measured runs of one fabric (the compute fabric's planes, or the storage fabric)."""

    rack_of: Callable[[str], int]  # a cable-schedule device name -> its rack
    pair_m: Callable[[int, int], float]  # the longest run between two racks
    # (tier, FIBRE or COPPER) -> {length in m: cables}; ("server-leaf", CAGES) -> {CageRuns:
    # cages}; (trunk tier, MODULES) -> {a cage's longest run: cages}. UFM links are counted by
    # the design.
    cables: dict[tuple[str, str], Counter] = field(default_factory=dict)
    # The CageRuns of each cage of a (first-plane) leaf: a UFM port may share one.
    leaf_cages: Callable[[int], list[CageRuns]] | None = None
    # (UFM appliance, leaf) -> run; the appliances' ports take whichever leaves the design picks.
    ufm_m: dict[tuple[int, int], float] = field(default_factory=dict)
    # {run: management ports}: each device to its out-of-band switch, as the pack routes it.
    oob_m: Counter = field(default_factory=Counter)
    # {run: in-band cables}: server ports and MLAG peer links, as the pack routes them.
    inband_m: Counter = field(default_factory=Counter)
    site: dict[str, Any] = field(default_factory=dict)  # the site inputs measured on
    storage: FabricLengths | None = None  # the storage fabric's, on the same layout

    def between(self, a: str, b: str) -> float:
        return self.pair_m(self.rack_of(a), self.rack_of(b))

    def longest(self, tier: str) -> float | None:
        if tier == "ufm-leaf":
            return max(self.ufm_m.values(), default=None)
        counted = self.cables.get((tier, FIBRE))
        return max(counted) if counted else None


def leaf_hosts(t: Topology, leaf: int) -> list[tuple[int, int]]:
    """(server, NIC) on each endpoint slot of a leaf, in slot order (the inverse of leaf_of)."""
    if t.tiers == 1:
        return [(s, n) for s in range(t.servers) for n in range(t.rails)]
    cap = t.leaf_capacity
    if t.rail_optimized:
        first = leaf // t.group_leaves * t.group_servers
        servers = range(first, min(first + t.group_servers, t.servers))
        return [(s, nic) for s in servers for nic in t.leaf_rails(leaf)]
    start = leaf * cap
    return [divmod(e, t.rails) for e in range(start, min(start + cap, t.endpoints))]


def host_cages(
    t: Topology, host_racks: list[int], leaf_rack: int, pair_m: Callable[[int, int], float]
) -> list[CageRuns]:
    """Each cage of one leaf: the longest run of each of its ports (a splitter fibre serves
    both NDR200 hosts of a port) and its endpoints, from the racks of the leaf's endpoints in
    slot order. A copper cable serves the whole cage, so it covers the cage's longest port."""
    by_rack: dict[int, float] = {}  # a rack's servers come in a row: one run per rack
    runs = []
    for rack in host_racks:
        run = by_rack.get(rack)
        if run is None:
            run = by_rack[rack] = pair_m(rack, leaf_rack)
        runs.append(run)
    split, ppc = t.split, t.ports_per_cage
    per_cage = split * ppc
    return [
        (
            tuple(max(runs[p : p + split]) for p in range(c, min(c + per_cage, len(runs)), split)),
            min(per_cage, len(runs) - c),
        )
        for c in range(0, len(runs), per_cage)
    ]


def trunk_cages(runs_by_port: dict[int, float], ports_per_cage: int) -> dict[int, float]:
    """{cage: its longest run} of one switch's trunk ports ({port: run}): the cage's module
    serves both of its ports, so it must reach the longer (rule 9: one fibre type per module)."""
    cages: dict[int, float] = {}
    for port, run in runs_by_port.items():
        cage = port // ports_per_cage
        cages[cage] = max(cages.get(cage, 0.0), run)
    return cages


def ufm_runs(
    links: tuple[tuple[int, int], ...],
    ports_per_appliance: int,
    ports_per_cage: int,
    lengths: FabricLengths,
    unit: str,
) -> list[float]:
    """Each UFM link's cable length: its own run for a fibre, the longest of its leaf cage's
    UFM links for a copper cable (UFM copper never shares a server's cage when measured)."""
    runs = [
        lengths.ufm_m[index // ports_per_appliance, leaf]
        for index, (leaf, _port) in enumerate(links)
    ]
    if unit == FIBRE:
        return runs
    cage_max: dict[tuple[int, int], float] = {}
    for (leaf, port), run in zip(links, runs, strict=True):
        key = (leaf, port // ports_per_cage)
        cage_max[key] = max(cage_max.get(key, 0.0), run)
    return [cage_max[leaf, port // ports_per_cage] for leaf, port in links]


def ufm_cables(
    links: tuple[tuple[int, int], ...],
    ports_per_appliance: int,
    ports_per_cage: int,
    lengths: FabricLengths,
    unit: str,
) -> Counter:
    """{length: cables} of the UFM links: one per link (fibre) or per leaf cage (copper)."""
    runs = ufm_runs(links, ports_per_appliance, ports_per_cage, lengths, unit)
    if unit == FIBRE:
        return Counter(runs)
    per_cage = {
        (leaf, port // ports_per_cage): run for (leaf, port), run in zip(links, runs, strict=True)
    }
    return Counter(per_cage.values())

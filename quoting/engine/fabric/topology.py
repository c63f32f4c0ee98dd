"""Switch counts and port maps of a one-, two- or three-tier fat tree, by arithmetic only.

Rules 1-7 of docs/fabric-design.md. A rail-optimised leaf carries one rail of a rail group, or,
when every server fits one leaf several times over, several whole rails (rails_per_leaf): each
rail still lives on exactly one leaf, so same-rail traffic stays one hop. Nothing here loops
over links: the search for the fewest switches walks uplink, spine, pod and core-group counts
(a few thousand at most), so a 100,000-GPU fabric is planned in about a millisecond; the cable
schedule walks the same maps lazily.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from fractions import Fraction

from quoting.engine.errors import InvalidInput
from quoting.engine.messages import gettext_noop, message


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def cage_aligned(port: int, ports_per_cage: int) -> int:
    """First port of the next free cage: both ports of a twin-port module must use the same media,
    so downlinks (often copper) and uplinks (often fibre) never share a cage."""
    return ceil_div(port, ports_per_cage) * ports_per_cage


@functools.cache
def divisors(number: int) -> tuple[int, ...]:
    return tuple(d for d in range(1, number + 1) if number % d == 0)


def largest_divisor_at_most(number: int, limit: int) -> int:
    """0 when no divisor of `number` is that small (limit < 1)."""
    return max((d for d in divisors(number) if d <= limit), default=0)


@dataclass(frozen=True, slots=True)
class Topology:
    tiers: int
    radix: int  # ports per switch at the switch's port speed
    ports_per_cage: int
    split: int  # endpoints per switch port: 2 when NDR200 hosts share a 400G port
    rails: int  # NIC ports per server (per plane)
    rail_optimized: bool
    ratio: Fraction  # oversubscription asked for
    servers: int
    leaf_down: int  # switch ports a leaf can give to servers
    leaf_up: int  # uplinks cabled on every leaf (0 in one tier)
    leaf_count: int
    leaves_per_pod: int  # leaf slots of a pod (three tiers); every leaf in two tiers
    pods: int
    spines_per_pod: int
    links_per_leaf_per_spine: int
    spine_up: int  # uplinks per spine to the core (three tiers)
    core_per_plane: int  # core switches of one core group: every spine of the group meets each
    links_per_spine_per_core: int
    headroom_servers: int  # servers the fabric takes before anything must be re-cabled
    step_servers: int  # servers in one building block (a rail group, or one leaf)
    # Rule 6: spine positions (spine j of every pod) that share one core group; 1 gives each
    # position a core group of its own.
    spines_per_core_group: int = 1
    # Rule 3, "say which": an oversubscribed design whose leaves keep the 1:1 port split (and
    # leave ports free) because that needs fewer switches than the r:1 split.
    one_to_one_split: bool = False
    # Down ports of the busiest leaf given to other devices (UFM appliances), counted in its
    # uplinks at the asked oversubscription like a server's.
    reserved_down: int = 0
    # Rule 5: whole rails one rail-optimised leaf carries; more than 1 only when the whole
    # cluster (and its growth target) is one rail group, so every rail is still on one leaf.
    rails_per_leaf: int = 1
    # Servers' worth of leaf slots planned after the servers and left empty, with their leaves
    # and leaf-spine links: the rest of a rack-scale system's scalable unit, which NVIDIA's
    # DGX SuperPOD builds whole for a part-filled one (rule 5c). Never cabled to a host.
    kept_servers: int = 0

    # --- the leaf port map --------------------------------------------------------------------
    @property
    def leaf_capacity(self) -> int:
        """Endpoints one leaf takes: also the servers of a rail group."""
        return self.leaf_down * self.split

    @property
    def endpoints(self) -> int:
        return self.servers * self.rails

    @property
    def planned_endpoints(self) -> int:
        """Endpoint ports the fabric is planned for: the servers' and the kept slots'."""
        return (self.servers + self.kept_servers) * self.rails

    def with_kept(self) -> Topology:
        """The same fabric with its kept slots filled: what a leaf has free for anything else
        (a UFM port) once the scalable unit is complete."""
        if not self.kept_servers:
            return self
        return replace(self, servers=self.servers + self.kept_servers, kept_servers=0)

    @property
    def group_leaves(self) -> int:
        """Leaves of a rail group (rail-optimised): one per rail, or per rails_per_leaf rails."""
        return self.rails // self.rails_per_leaf

    @property
    def group_servers(self) -> int:
        """Servers of a rail group (rail-optimised): each has rails_per_leaf ports on a leaf."""
        return self.leaf_capacity // self.rails_per_leaf

    def leaf_rails(self, leaf: int) -> range:
        """The rails (0-based NIC indices) a rail-optimised leaf carries."""
        first = leaf % self.group_leaves * self.rails_per_leaf
        return range(first, first + self.rails_per_leaf)

    @property
    def leaf_up_start(self) -> int:
        return cage_aligned(self.leaf_down, self.ports_per_cage) if self.tiers > 1 else 0

    def leaf_of(self, server: int, nic: int) -> tuple[int, int]:
        """(leaf index, endpoint slot on that leaf) of a server's NIC, all 0-based (rule 4).
        A leaf of several rails takes each server's ports in turn (server 0's rails, then
        server 1's), so a server added later takes the next ports and none is re-cabled."""
        if self.tiers == 1:
            return 0, server * self.rails + nic
        if self.rail_optimized:
            group, in_group = divmod(server, self.group_servers)
            rail_leaf, rail_in_leaf = divmod(nic, self.rails_per_leaf)
            return (
                group * self.group_leaves + rail_leaf,
                in_group * self.rails_per_leaf + rail_in_leaf,
            )
        return divmod(server * self.rails + nic, self.leaf_capacity)

    @property
    def leaf_split(self) -> str | None:
        """Rule 3, "say which": "1:1" when the leaves keep the 1:1 split with ports left free,
        else the asked "r:1"; None for one switch."""
        if self.tiers == 1:
            return None
        return "1:1" if self.one_to_one_split else f"{float(self.ratio):g}:1"

    def leaf_fill(self) -> list[tuple[int, int]]:
        """[(leaves, endpoints on each)]: every leaf is full but those of the last block."""
        if self.tiers == 1:
            return [(1, self.endpoints)]
        if self.rail_optimized:
            full, rest = divmod(self.servers, self.group_servers)
            fill = [(full * self.group_leaves, self.group_servers * self.rails_per_leaf)]
            return fill + [(self.group_leaves, rest * self.rails_per_leaf)] if rest else fill
        full, rest = divmod(self.endpoints, self.leaf_capacity)
        return [(full, self.leaf_capacity)] + ([(1, rest)] if rest else [])

    # --- spines and core ----------------------------------------------------------------------
    @property
    def spine_count(self) -> int:
        return self.pods * self.spines_per_pod

    @property
    def core_groups(self) -> int:
        return self.spines_per_pod // self.spines_per_core_group if self.tiers == 3 else 0

    @property
    def core_count(self) -> int:
        return self.core_groups * self.core_per_plane

    @property
    def core_ports_per_pod(self) -> int:
        """Ports each core of a group gives one pod: a link bundle per spine of the group."""
        return self.spines_per_core_group * self.links_per_spine_per_core

    def core_of(self, pod: int, spine: int, core_switch: int) -> tuple[int, int]:
        """(core index, its first port for this spine) of the `core_switch`-th core that spine
        `spine` of pod `pod` reaches, all 0-based."""
        group, position = divmod(spine, self.spines_per_core_group)
        first_port = (pod * self.spines_per_core_group + position) * self.links_per_spine_per_core
        return group * self.core_per_plane + core_switch, first_port

    @property
    def spine_down(self) -> int:
        """Leaf-facing ports of a spine with its pod full."""
        return self.leaves_per_pod * self.links_per_leaf_per_spine

    @property
    def spine_up_start(self) -> int:
        return cage_aligned(self.spine_down, self.ports_per_cage)

    def pod_fill(self) -> list[tuple[int, int]]:
        """[(pods, leaves in each)]: the last pod may be part-filled, its spines are all there."""
        if self.tiers < 2:
            return []
        full, rest = divmod(self.leaf_count, self.leaves_per_pod)
        return [(full, self.leaves_per_pod)] + ([(1, rest)] if rest else [])

    @property
    def max_hops(self) -> int:
        return 2 * self.tiers - 1


def leaf_down_ports(radix: int, ports_per_cage: int, ratio: Fraction) -> int:
    """Rule 3: the ports a leaf gives to servers at r:1, down = floor(k.r/(r+1))."""
    down = radix // 2 if ratio == 1 else math.floor(radix * ratio / (ratio + 1))
    if cage_aligned(down, ports_per_cage) + math.ceil(down / ratio) > radix:
        down -= down % ports_per_cage  # keep the uplinks in whole cages of their own
    return down


@dataclass(frozen=True, slots=True)
class _LeafLayer:
    """One way to split the leaf ports, and the leaf layer it gives today and at the target."""

    down: int
    one_to_one: bool
    now: int  # leaves today
    target: int  # leaves at the growth target
    up_min: int  # uplinks the busiest leaf of the target needs at the asked oversubscription
    up_max: int  # free ports after the down ports' cages
    rails_per_leaf: int = 1
    # Rule 5b: several rail groups of leaves with several rails each (a server wider than a pod)
    multi_group: bool = False


@functools.cache
def _core_grouping(spines_per_pod: int, spine_up: int, ports_per_pod: int) -> tuple[int, int]:
    """Rule 6: (spine positions per core group, links per spine per core) that give the fewest
    cores, each core giving every pod at most `ports_per_pod` ports. Cores are
    (spines_per_pod / positions) x (spine_up / links), so the product is made as large as fits;
    on a tie the smaller group keeps each position on cores of its own."""
    best = (0, 0)
    for positions in divisors(spines_per_pod):
        links = largest_divisor_at_most(spine_up, ports_per_pod // positions)
        if positions * links > best[0] * best[1]:
            best = (positions, links)
    return best


@dataclass(frozen=True, slots=True)
class _Ask:
    """What plan_topology is asked: the switch's ports, the servers' NICs, the growth target."""

    radix: int
    ports_per_cage: int
    split: int
    rails: int
    rail_optimized: bool
    ratio: Fraction
    servers: int
    target_servers: int
    reserved_down: int

    def common(self) -> dict:
        """The Topology fields taken as asked."""
        return dict(
            radix=self.radix,
            ports_per_cage=self.ports_per_cage,
            split=self.split,
            rails=self.rails,
            rail_optimized=self.rail_optimized,
            ratio=self.ratio,
            servers=self.servers,
            reserved_down=self.reserved_down,
        )

    @property
    def asked_down(self) -> int:
        return leaf_down_ports(self.radix, self.ports_per_cage, self.ratio)

    def block_of(self, down: int) -> int:
        """Servers per growth step: a rail group, or one leaf."""
        if self.rail_optimized:
            return down * self.split
        return max(1, down * self.split // self.rails)


@functools.lru_cache(maxsize=4096)
def plan_topology(
    *,
    radix: int,
    ports_per_cage: int,
    split: int,
    rails: int,
    rail_optimized: bool,
    ratio: Fraction,
    servers: int,
    target_servers: int,
    reserved_down: int = 0,
) -> Topology:
    """Plan for `servers` now with spines and core sized for `target_servers` (rule 7): the fewest
    switches today, every leaf sending the same whole number of links to every spine and every
    spine to every core of its group (rules 5 and 6)."""
    ask = _Ask(
        radix,
        ports_per_cage,
        split,
        rails,
        rail_optimized,
        ratio,
        servers,
        target_servers,
        reserved_down,
    )
    # Rule 2: one switch when every endpoint port fits on it.
    if target_servers * rails <= radix * split:
        return _one_switch(ask)
    layers = _leaf_layers(ask)
    two_tiers = _two_tiers(ask, layers)
    return two_tiers if two_tiers is not None else _three_tiers(ask, layers)


def _one_switch(ask: _Ask) -> Topology:
    return Topology(
        tiers=1,
        leaf_down=ask.radix,
        leaf_up=0,
        leaf_count=1,
        leaves_per_pod=1,
        pods=0,
        spines_per_pod=0,
        links_per_leaf_per_spine=0,
        spine_up=0,
        core_per_plane=0,
        links_per_spine_per_core=0,
        headroom_servers=ask.radix * ask.split // ask.rails,
        step_servers=ask.block_of(ask.asked_down),
        **ask.common(),
    )


def _leaf_layers(ask: _Ask) -> list[_LeafLayer]:
    """Rule 3: the r:1 split, or the 1:1 split with ports left free, whichever needs fewer
    switches (the searches weigh both); rule 5: each with leaves of several whole rails too."""
    asked_down = ask.asked_down
    splits = [(asked_down, False)]
    if ask.radix // 2 != asked_down:
        splits.append((ask.radix // 2, True))
    layers = [
        _leaf_layer(ask, down, one_to_one, rails_per_leaf)
        for down, one_to_one in splits
        for rails_per_leaf in _rails_per_leaf_choices(ask, down)
    ]
    return layers + [
        _leaf_layer(ask, down, one_to_one, rails_per_leaf, multi_group=True)
        for down, one_to_one in splits
        for rails_per_leaf in _wide_rails_per_leaf(ask, down)
        if rails_per_leaf not in _rails_per_leaf_choices(ask, down)
    ]


def _rails_per_leaf_choices(ask: _Ask, down: int) -> list[int]:
    """Rule 5: 1, and every other divisor r of the rails with which one leaf takes r whole rails
    of every server of the growth target (and the ports kept for UFM): the cluster is then one
    rail group whose every rail is on one leaf. A target past that is sized as one rail per
    leaf, as it would be built."""
    if not ask.rail_optimized:
        return [1]
    return [
        r
        for r in divisors(ask.rails)
        if r == 1 or ceil_div(ask.target_servers * r, ask.split) + ask.reserved_down <= down
    ]


def _wide_rails_per_leaf(ask: _Ask, down: int) -> list[int]:
    """Rule 5b: a server with more rails than a pod has leaf slots (an NVL72 rack's 72 compute
    ports against the 32 leaves of a 64-port pod) is rail-optimised in rail groups of leaves
    that each carry r whole rails of the group's servers: every divisor r whose group of
    rails / r leaves fits a pod. Narrower servers never need it. Not offered with leaf ports
    kept for UFM: a leaf full of whole servers has none, and more leaves for two UFM ports are
    not worth it (the UFM hosts are left out, an appliance is refused)."""
    if not ask.rail_optimized or ask.rails <= ask.radix // 2 or ask.reserved_down:
        return []
    return [
        r
        for r in divisors(ask.rails)
        if r > 1 and ask.rails // r <= ask.radix // 2 and r <= down * ask.split
    ]


def _leaves_for(ask: _Ask, capacity: int, server_count: int, rails_per_leaf: int = 1) -> int:
    if ask.rail_optimized:
        group_servers = capacity // rails_per_leaf
        return ceil_div(server_count, group_servers) * (ask.rails // rails_per_leaf)
    return ceil_div(server_count * ask.rails, capacity)


def _leaf_layer(
    ask: _Ask, down: int, one_to_one: bool, rails_per_leaf: int = 1, multi_group: bool = False
) -> _LeafLayer:
    capacity = down * ask.split
    # Uplinks follow the busiest leaf, not the leaf's capacity: a part-filled rail group
    # needs fewer spines, and a growth target is how to pay for empty ports up front.
    target = ask.target_servers
    on_leaf = target * rails_per_leaf if ask.rail_optimized else target * ask.rails
    busiest = min(on_leaf, capacity)
    busiest_ports = min(
        ceil_div(busiest, ask.split) + ask.reserved_down, cage_aligned(down, ask.ports_per_cage)
    )
    return _LeafLayer(
        down=down,
        one_to_one=one_to_one,
        now=_leaves_for(ask, capacity, ask.servers, rails_per_leaf),
        target=_leaves_for(ask, capacity, ask.target_servers, rails_per_leaf),
        up_min=math.ceil(busiest_ports / ask.ratio),
        up_max=ask.radix - cage_aligned(down, ask.ports_per_cage),
        rails_per_leaf=rails_per_leaf,
        multi_group=multi_group,
    )


def _headroom_servers(ask: _Ask, layer: _LeafLayer, up: int, shape: dict[str, int]) -> int:
    """Servers the fabric takes before re-cabling: the leaves the spines (two tiers) or the
    cores (three tiers) have room for, each filled as cabled; leaves of several rails take
    only their own rail group (one more server past it splits a rail over two leaves)."""
    per_leaf_now = min(layer.down, math.floor(up * ask.ratio)) * ask.split  # endpoints as cabled
    if layer.rails_per_leaf > 1 and not layer.multi_group:
        return per_leaf_now // layer.rails_per_leaf
    links = shape["links_per_leaf_per_spine"]
    if shape["tiers"] == 2:
        room = ask.radix // links  # leaves the spines take
    else:
        room = ask.radix // (shape["spines_per_core_group"] * shape["links_per_spine_per_core"])
        room *= shape["leaves_per_pod"]  # pods the cores take
    if ask.rail_optimized:
        group_leaves = ask.rails // layer.rails_per_leaf
        return room // group_leaves * (per_leaf_now // layer.rails_per_leaf)
    return room * per_leaf_now // ask.rails


def _built(ask: _Ask, layer: _LeafLayer, up: int, **shape: int) -> Topology:
    return Topology(
        leaf_down=layer.down,
        leaf_up=up,
        leaf_count=layer.now,
        headroom_servers=_headroom_servers(ask, layer, up, shape),
        step_servers=ask.block_of(layer.down) // (layer.rails_per_leaf if layer.multi_group else 1),
        one_to_one_split=layer.one_to_one,
        rails_per_leaf=layer.rails_per_leaf,
        **shape,
        **ask.common(),
    )


def _two_tiers(ask: _Ask, layers: list[_LeafLayer]) -> Topology | None:
    """Rule 5, two tiers: u uplinks per leaf, s spines, l = u / s links to each; the leaves of
    the target must fit every spine (target leaves x l <= k). For a given l the fewest spines
    is s = ceil(u_min / l); ties go to fewer leaf-spine links (fewer optics), then to the asked
    split, then to fewer rails per leaf. None when no two-tier fabric holds the target."""
    best: tuple | None = None
    for layer in layers:
        if layer.target > ask.radix:
            continue
        for links in range(1, ask.radix // layer.target + 1):
            spines = ceil_div(layer.up_min, links)
            if spines * links > layer.up_max:
                continue
            key = (
                layer.now + spines,
                layer.now * spines * links,
                layer.one_to_one,
                layer.rails_per_leaf,
            )
            if best is None or key < best[0]:
                best = (key, layer, spines, links)
    if best is None:
        return None
    _, layer, spines, links = best
    return _built(
        ask,
        layer,
        spines * links,
        tiers=2,
        leaves_per_pod=layer.now,
        pods=1,
        spines_per_pod=spines,
        links_per_leaf_per_spine=links,
        spine_up=0,
        core_per_plane=0,
        links_per_spine_per_core=0,
    )


def _three_tiers(ask: _Ask, layers: list[_LeafLayer]) -> Topology:
    """Rule 6, three tiers: pods of P leaf slots (whole rail groups) under s spines with P.l
    ports down and as many up (spines stay non-blocking); spine positions grouped onto cores
    so that every spine meets every core of its group with m links and no core gives a pod
    more than k / pods ports. Minimise leaves + spines today + cores for the target."""
    best: tuple | None = None
    # Leaves of several rails are one rail group, which two tiers always hold, unless the
    # server is wider than a pod (rule 5b): then pods hold whole groups of such leaves.
    for layer in (layer for layer in layers if layer.rails_per_leaf == 1 or layer.multi_group):
        step = ask.rails // layer.rails_per_leaf if ask.rail_optimized else 1
        for pod in range(step, ask.radix // 2 + 1, step):
            if 2 <= ceil_div(layer.target, pod) <= ask.radix:
                best = _best_pod_shape(ask, layer, pod, best)
    if best is None:
        raise _beyond_three_tiers(ask)
    _, layer, pod, spines, links, positions, core_links = best
    spine_up = pod * links
    return _built(
        ask,
        layer,
        spines * links,
        tiers=3,
        leaves_per_pod=pod,
        pods=ceil_div(layer.now, pod),
        spines_per_pod=spines,
        links_per_leaf_per_spine=links,
        spine_up=spine_up,
        core_per_plane=spine_up // core_links,
        links_per_spine_per_core=core_links,
        spines_per_core_group=positions,
    )


def _best_pod_shape(ask: _Ask, layer: _LeafLayer, pod: int, best: tuple | None) -> tuple | None:
    """The search of _three_tiers for pods of `pod` leaf slots: every links-per-spine the spine
    ports allow, and spine counts from the fewest up; `best` if nothing beats it."""
    pods_target = ceil_div(layer.target, pod)
    pods_now = ceil_div(layer.now, pod)
    links = 1
    while cage_aligned(pod * links, ask.ports_per_cage) + pod * links <= ask.radix:
        spine_up = pod * links
        for spines in range(ceil_div(layer.up_min, links), layer.up_max // links + 1):
            fewest_cores = ceil_div(pods_target * spines * spine_up, ask.radix)
            if best and layer.now + pods_now * spines + fewest_cores > best[0][0]:
                break  # more spines only add switches from here on
            positions, core_links = _core_grouping(spines, spine_up, ask.radix // pods_target)
            cores = spines // positions * (spine_up // core_links)
            key = (
                layer.now + pods_now * spines + cores,
                layer.now * spines * links + pods_now * spines * spine_up,
                layer.one_to_one,
                -pod,  # then larger pods: more traffic stays below the core
            )
            if best is None or key < best[0]:
                best = (key, layer, pod, spines, links, positions, core_links)
        links += 1
    return best


def _beyond_three_tiers(ask: _Ask) -> InvalidInput:
    """Why no three-tier fabric fits: a rail group too wide for a pod, or too many servers."""
    radix, rails = ask.radix, ask.rails
    if ask.rail_optimized and rails > radix // 2:
        return InvalidInput.field(
            "nics_per_server",
            message(
                gettext_noop(
                    "a rail group of {rails} leaves does not fit in a pod of {pod} leaves: use "
                    "fewer rails or turn rail optimization off."
                ),
                rails=rails,
                pod=radix // 2,
            ),
        )
    slots = radix // 2 // rails * rails if ask.rail_optimized else radix // 2
    capacity = ask.asked_down * ask.split
    leaves = radix * slots
    limit = leaves // rails * capacity if ask.rail_optimized else leaves * capacity // rails
    too_big_field = "growth_gpus" if ask.target_servers > ask.servers else "gpu_count"
    return InvalidInput.field(
        too_big_field,
        message(
            gettext_noop(
                "beyond three tiers of {radix}-port switches: at most {limit} servers ({ports} "
                "endpoint ports) at {ratio}:1; use a larger switch or more oversubscription."
            ),
            radix=radix,
            limit=limit,
            ports=limit * rails,
            ratio=ask.ratio,
        ),
    )

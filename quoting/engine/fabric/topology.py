"""Switch counts and port maps of a one-, two- or three-tier fat tree, by arithmetic only.

Rules 1-7 of docs/fabric-design.md. Nothing here loops over links, so a 100,000-GPU fabric is
planned in microseconds; the cable schedule walks the same maps lazily.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from quoting.engine.errors import InvalidInput


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def cage_aligned(port: int, ports_per_cage: int) -> int:
    """First port of the next free cage: both ports of a twin-port module must use the same media,
    so downlinks (often copper) and uplinks (often fibre) never share a cage."""
    return ceil_div(port, ports_per_cage) * ports_per_cage


def smallest_divisor_at_least(number: int, minimum: int) -> int:
    """Rule 5: round a switch count up to a divisor of the links each lower switch sends up."""
    return next(d for d in range(max(1, minimum), number + 1) if number % d == 0)


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
    core_per_plane: int  # core switches reached by the spines of one pod position
    links_per_spine_per_core: int
    headroom_servers: int  # servers the fabric takes before anything must be re-cabled
    step_servers: int  # servers in one building block (a rail group, or one leaf)

    # --- the leaf port map --------------------------------------------------------------------
    @property
    def leaf_capacity(self) -> int:
        """Endpoints one leaf takes: also the servers of a rail group."""
        return self.leaf_down * self.split

    @property
    def endpoints(self) -> int:
        return self.servers * self.rails

    @property
    def leaf_up_start(self) -> int:
        return cage_aligned(self.leaf_down, self.ports_per_cage) if self.tiers > 1 else 0

    def leaf_of(self, server: int, nic: int) -> tuple[int, int]:
        """(leaf index, endpoint slot on that leaf) of a server's NIC, all 0-based (rule 4)."""
        if self.tiers == 1:
            return 0, server * self.rails + nic
        if self.rail_optimized:
            group, slot = divmod(server, self.leaf_capacity)
            return group * self.rails + nic, slot
        return divmod(server * self.rails + nic, self.leaf_capacity)

    def leaf_fill(self) -> list[tuple[int, int]]:
        """[(leaves, endpoints on each)]: every leaf is full but those of the last block."""
        if self.tiers == 1:
            return [(1, self.endpoints)]
        if self.rail_optimized:
            full, rest = divmod(self.servers, self.leaf_capacity)
            fill = [(full * self.rails, self.leaf_capacity)]
            return fill + [(self.rails, rest)] if rest else fill
        full, rest = divmod(self.endpoints, self.leaf_capacity)
        return [(full, self.leaf_capacity)] + ([(1, rest)] if rest else [])

    # --- spines and core ----------------------------------------------------------------------
    @property
    def spine_count(self) -> int:
        return self.pods * self.spines_per_pod

    @property
    def core_count(self) -> int:
        return self.spines_per_pod * self.core_per_plane if self.tiers == 3 else 0

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
) -> Topology:
    """Plan for `servers` now with spines and core sized for `target_servers` (rule 7)."""
    too_big_field = "growth_gpus" if target_servers > servers else "gpu_count"
    common = dict(
        radix=radix,
        ports_per_cage=ports_per_cage,
        split=split,
        rails=rails,
        rail_optimized=rail_optimized,
        ratio=ratio,
        servers=servers,
    )
    # Rule 3: the leaf's down/up split for r:1.
    down = radix // 2 if ratio == 1 else math.floor(radix * ratio / (ratio + 1))
    if cage_aligned(down, ports_per_cage) + math.ceil(down / ratio) > radix:
        down -= down % ports_per_cage  # keep the uplinks in whole cages of their own
    capacity = down * split
    block = capacity if rail_optimized else max(1, capacity // rails)  # servers per growth step

    # Rule 2: one switch when every endpoint port fits on it.
    if target_servers * rails <= radix * split:
        return Topology(
            tiers=1,
            leaf_down=radix,
            leaf_up=0,
            leaf_count=1,
            leaves_per_pod=1,
            pods=0,
            spines_per_pod=0,
            links_per_leaf_per_spine=0,
            spine_up=0,
            core_per_plane=0,
            links_per_spine_per_core=0,
            headroom_servers=radix * split // rails,
            step_servers=block,
            **common,
        )

    def leaves_for(server_count: int) -> int:
        if rail_optimized:
            return ceil_div(server_count, capacity) * rails
        return ceil_div(server_count * rails, capacity)

    def busiest_leaf(server_count: int) -> int:
        # Uplinks follow the busiest leaf, not the leaf's capacity: a part-filled rail group
        # needs fewer spines, and a growth target is how to pay for empty ports up front.
        return min(server_count if rail_optimized else server_count * rails, capacity)

    leaf_count = leaves_for(servers)
    target_leaves = leaves_for(target_servers)
    up = math.ceil(ceil_div(busiest_leaf(target_servers), split) / ratio)
    per_leaf_now = min(down, math.floor(up * ratio)) * split  # endpoints a leaf takes as cabled

    def servers_on(leaves: int) -> int:
        if rail_optimized:
            return leaves // rails * per_leaf_now
        return leaves * per_leaf_now // rails

    if target_leaves <= radix:  # rule 3: each spine port meets one leaf at least
        spines = smallest_divisor_at_least(up, ceil_div(target_leaves * up, radix))
        links = up // spines
        return Topology(
            tiers=2,
            leaf_down=down,
            leaf_up=up,
            leaf_count=leaf_count,
            leaves_per_pod=leaf_count,
            pods=1,
            spines_per_pod=spines,
            links_per_leaf_per_spine=links,
            spine_up=0,
            core_per_plane=0,
            links_per_spine_per_core=0,
            headroom_servers=servers_on(radix // links),
            step_servers=block,
            **common,
        )

    # Rule 6: pods of k/2 leaf slots (whole rail groups) under spines with k/2 down, k/2 up.
    slots = radix // 2 // rails * rails if rail_optimized else radix // 2
    if slots == 0:
        raise InvalidInput.field(
            "nics_per_server",
            f"a rail group of {rails} leaves does not fit in a pod of {radix // 2} leaves: "
            "use fewer rails or turn rail optimization off.",
        )
    pods_now, pods_target = ceil_div(leaf_count, slots), ceil_div(target_leaves, slots)
    if pods_target > radix:
        limit = servers_on(radix * slots)
        raise InvalidInput.field(
            too_big_field,
            f"beyond three tiers of {radix}-port switches: at most {limit} servers "
            f"({limit * rails} endpoint ports) at {ratio}:1; use a larger switch or more "
            "oversubscription.",
        )
    spines_per_pod = smallest_divisor_at_least(up, ceil_div(slots * up, radix // 2))
    links = up // spines_per_pod
    spine_up = slots * links  # spines stay non-blocking: as many links up as down
    core_per_plane = smallest_divisor_at_least(spine_up, ceil_div(pods_target * spine_up, radix))
    core_links = spine_up // core_per_plane
    return Topology(
        tiers=3,
        leaf_down=down,
        leaf_up=up,
        leaf_count=leaf_count,
        leaves_per_pod=slots,
        pods=pods_now,
        spines_per_pod=spines_per_pod,
        links_per_leaf_per_spine=links,
        spine_up=spine_up,
        core_per_plane=core_per_plane,
        links_per_spine_per_core=core_links,
        headroom_servers=servers_on(radix // core_links * slots),
        step_servers=block,
        **common,
    )

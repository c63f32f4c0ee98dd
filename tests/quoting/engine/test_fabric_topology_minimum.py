"""Rules 3, 5, 6 and 7: the fewest switches that cable evenly, checked against a brute force.

The brute force below enumerates every leaf split, uplink count, spine count, pod size and core
grouping the rules allow, written from docs/fabric-design.md without calling the engine's search;
rail-optimised leaves may carry r whole rails (rule 5: "with few servers, one leaf may carry
several whole rails") where r divides the rails per server and the servers of the growth target
times r fit the leaf's down ports.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.fabric.topology import plan_topology
from tests.quoting.engine.conftest import load_catalog
from tests.quoting.engine.fabric_checks import check_schedule

CATALOG = load_catalog()


def design(**fields):
    return design_fabric(FabricRequirements(**fields), CATALOG)


def switches(d) -> int:
    return d.leaf_count + d.spine_count + d.core_count


# --- the examples -----------------------------------------------------------------------


def test_31_nodes_take_32_uplinks_and_four_spines_as_nvidia_builds_it():
    d = design(gpu_count=248)
    assert (d.leaf_count, d.spine_count, d.topology.leaf_up) == (8, 4, 32)
    assert d.topology.links_per_leaf_per_spine == 8
    check_schedule(d)


def test_the_seed_256_gpu_case_still_gives_eight_leaves_four_spines_and_eight_links():
    d = design(gpu_count=256)
    assert (d.leaf_count, d.spine_count, d.topology.links_per_leaf_per_spine) == (8, 4, 8)


@pytest.mark.parametrize(
    ("gpus", "leaves", "spines"),
    [(88, 4, 2), (104, 4, 2), (136, 8, 3), (152, 8, 3), (184, 8, 3), (232, 8, 4)],
)
def test_part_filled_rail_groups_no_longer_give_prime_spine_counts(gpus, leaves, spines):
    # Before: 11, 13, 17, 19, 23 and 29 spines of one link each. Up to 16 servers, a leaf
    # takes two whole rails (rule 5): 4 leaves.
    d = design(gpu_count=gpus)
    assert (d.leaf_count, d.spine_count) == (leaves, spines)
    check_schedule(d)


def test_71_xdr_nodes_need_four_spines_not_71():
    # 8 leaves x 72 uplinks = 576 ports: four 144-port spines are the radix bound (two would
    # need 288 ports each).
    d = design(server_count=71, nic_generation="XDR")
    assert (d.topology.radix, d.leaf_count, d.spine_count) == (144, 8, 4)
    assert d.topology.links_per_leaf_per_spine == 18


def test_two_to_one_never_needs_more_switches_than_one_to_one():
    blocking = design(gpu_count=1024, oversubscription=2)
    flat = design(gpu_count=1024)
    assert (flat.leaf_count, flat.spine_count) == (32, 16)
    # The 1:1 split with 16 of its 32 uplinks cabled beats the 42/22 split (32 + 11).
    assert (blocking.leaf_count, blocking.spine_count) == (32, 8)
    assert blocking.topology.one_to_one_split
    assert blocking.as_dict()["leaf_split"] == "1:1"
    assert blocking.as_dict()["oversubscription"] == 2.0
    assert any("keep the 1:1 split" in a for a in blocking.advice)
    check_schedule(blocking)


def test_the_asked_split_is_reported_when_it_is_the_one_used():
    d = design(gpu_count=1344, oversubscription=2)
    assert d.as_dict()["leaf_split"] == "2:1" and not d.topology.one_to_one_split


def test_rail_optimisation_that_forces_a_third_tier_says_so_with_both_counts():
    rail = design(gpu_count=3146, nics_per_server=5)
    flat = design(gpu_count=3146, nics_per_server=5, rail_optimized=False)
    assert rail.topology.tiers == 3 and flat.topology.tiers == 2
    assert switches(flat) == 94
    assert switches(rail) < 225  # the old per-position core sizing
    warning = next(w for w in rail.warnings if "third tier" in w)
    assert f"{switches(rail)} switches in three tiers" in warning
    assert "needs 94" in warning and "rail optimization off" in warning
    assert not any("third tier" in w for w in flat.warnings)


def test_grouped_core_positions_cable_evenly_with_no_port_used_twice():
    d = design(gpu_count=3146, nics_per_server=5)
    assert d.topology.spines_per_core_group > 1
    check_schedule(d)


def test_three_tiers_reach_the_port_lower_bound_on_cores():
    d = design(gpu_count=2056)  # 72 leaves: one more rail group than two tiers take
    t = d.topology
    assert t.tiers == 3
    assert d.core_count >= math.ceil(d.spine_count * t.spine_up / t.radix)
    assert switches(d) < 232  # 72 + 96 + 64 before: pods of 32 leaf slots
    check_schedule(d)


# --- growth (item 7) ----------------------------------------------------------------------------


def test_a_growth_target_equal_to_the_server_rounded_size_is_accepted():
    d = design(gpu_count=250, growth_gpus=250)  # 32 servers either way
    assert d.gpu_count == 256 and d.pre_provisioned is None
    assert design(gpu_count=250, growth_gpus=256).pre_provisioned is None


def test_a_growth_target_below_the_server_rounded_size_is_still_refused():
    with pytest.raises(InvalidInput) as caught:
        design(gpu_count=250, growth_gpus=248)  # 31 servers < 32
    assert "below the current size" in caught.value.errors["growth_gpus"][0]


# --- brute force --------------------------------------------------------------------------------


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _cages(ports: int, per_cage: int) -> int:
    return -(-ports // per_cage) * per_cage


def brute_minimum(
    *, k: int, ppc: int, rails: int, rail: bool, ratio: Fraction, servers: int, target: int
) -> tuple[int, int]:
    """(tiers, switches today) of the smallest even cabling, by enumeration."""
    if target * rails <= k:
        return 1, 1
    asked = k // 2 if ratio == 1 else math.floor(k * ratio / (ratio + 1))
    if _cages(asked, ppc) + math.ceil(asked / ratio) > k:
        asked -= asked % ppc
    layers, several_rails = [], []
    for down in {asked, k // 2}:

        def leaves(n: int, down: int = down) -> int:
            return -(-n // down) * rails if rail else -(-n * rails // down)

        busiest = min(target if rail else target * rails, down)
        layers.append(
            (leaves(servers), leaves(target), math.ceil(busiest / ratio), k - _cages(down, ppc))
        )
        # Leaves of r whole rails: every server of the target on one leaf per r rails.
        for r in _divisors(rails) if rail else []:
            if r > 1 and target * r <= down:
                u_min = math.ceil(target * r / ratio)
                several_rails.append((rails // r, rails // r, u_min, k - _cages(down, ppc)))
    two = [
        now + s
        for now, later, u_min, u_max in layers + several_rails
        for u in range(u_min, u_max + 1)
        for s in _divisors(u)
        if later * (u // s) <= k
    ]
    if two:
        return 2, min(two)
    best = math.inf
    step = rails if rail else 1
    for now, later, u_min, u_max in layers:
        for pod in range(step, k // 2 + 1, step):
            pods, pods_now = -(-later // pod), -(-now // pod)
            if not 2 <= pods <= k:
                continue
            for u in range(u_min, u_max + 1):
                for s in _divisors(u):
                    spine_up = pod * (u // s)
                    if _cages(spine_up, ppc) + spine_up > k:
                        continue
                    if now + pods_now * s >= best:
                        continue
                    cores = min(
                        (s // a) * (spine_up // m)
                        for a in _divisors(s)
                        for m in _divisors(spine_up)
                        if pods * a * m <= k
                    )
                    best = min(best, now + pods_now * s + cores)
    return 3, best


# Radix 40 (HDR QM8700), 64 (NDR QM9700) and 144 (XDR Q3400), read from the catalog; sizes
# reach three tiers on all three.
SWITCHES = {p.port_count: p for p in CATALOG if p.part_number in ("MQM8700-HS2F", "MQM9700-NS2F")}
SWITCHES |= {p.port_count: p for p in CATALOG if p.category == "switch" and p.generation == "XDR"}
MAX_SERVERS = {40: 2700, 64: 2100, 144: 4200}


@st.composite
def clusters(draw, radix: int):
    # Small clusters often: only they can put several whole rails on a leaf.
    servers = draw(st.one_of(st.integers(1, radix), st.integers(1, MAX_SERVERS[radix])))
    growth = draw(st.one_of(st.none(), st.integers(servers, 2 * servers)))
    return dict(
        servers=servers,
        target_servers=servers if growth is None else growth,
        rails=draw(st.integers(1, 8)),
        rail_optimized=draw(st.booleans()),
    )


EXAMPLES = {"count": 0}


def _check_minimum(radix: int, cluster: dict) -> None:
    switch = SWITCHES[radix]
    counts = {}
    for ratio in (Fraction(1), Fraction(2)):
        t = plan_topology(
            radix=switch.port_count,
            ports_per_cage=switch.ports_per_cage,
            split=1,
            ratio=ratio,
            **cluster,
        )
        tiers, fewest = brute_minimum(
            k=switch.port_count,
            ppc=switch.ports_per_cage,
            rails=cluster["rails"],
            rail=cluster["rail_optimized"],
            ratio=ratio,
            servers=cluster["servers"],
            target=cluster["target_servers"],
        )
        total = t.leaf_count + t.spine_count + t.core_count
        assert t.tiers == tiers
        assert total <= fewest, (ratio, total, fewest)
        counts[ratio] = total
    assert counts[2] <= counts[1]
    EXAMPLES["count"] += 1


@pytest.mark.parametrize("radix", sorted(MAX_SERVERS))
def test_the_engine_never_uses_more_switches_than_the_brute_force_minimum(radix):
    assert SWITCHES[radix].port_count == radix

    @settings(max_examples=700, deadline=None, database=None)
    @given(clusters(radix))
    def check(cluster):
        try:
            _check_minimum(radix, cluster)
        except InvalidInput:
            # Beyond three tiers, or a rail group wider than a pod: the brute force finds
            # nothing there either.
            assert brute_minimum_or_none(radix, cluster) is None

    before = EXAMPLES["count"]
    check()
    print(f"radix {radix}: {EXAMPLES['count'] - before} examples compared")
    assert EXAMPLES["count"] - before >= 600


def brute_minimum_or_none(radix: int, cluster: dict):
    switch = SWITCHES[radix]
    found = brute_minimum(
        k=radix,
        ppc=switch.ports_per_cage,
        rails=cluster["rails"],
        rail=cluster["rail_optimized"],
        ratio=Fraction(1),
        servers=cluster["servers"],
        target=cluster["target_servers"],
    )
    return None if found[1] == math.inf else found

"""Properties every design must keep, over thousands of random valid (and invalid) requests."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.fabric.topology import ceil_div
from tests.quoting.engine.conftest import load_catalog
from tests.quoting.engine.fabric_checks import check_schedule

CATALOG = load_catalog()  # hypothesis runs many examples per test: read the CSV once

FABRICS = [
    {"nic_generation": "NDR", "switch_part_number": "MQM9700-NS2F"},
    {"nic_generation": "NDR", "switch_part_number": "MQM9790-NS2F"},
    {"nic_generation": "NDR200"},
    {"nic_generation": "HDR"},
    {"nic_generation": "XDR"},
    {"nic_generation": "400GbE", "family": "ethernet"},
    {"nic_generation": "400GbE", "family": "ethernet", "planes": 2},
]
DISTANCES = st.sampled_from(["same-rack", "adjacent-rack", "same-row", 3, 12, 45])


@st.composite
def requests(draw, max_servers: int) -> FabricRequirements:
    servers = draw(st.integers(1, max_servers))
    growth = draw(st.one_of(st.none(), st.integers(servers, 2 * max_servers)))
    gpus_per_server = draw(st.sampled_from([1, 2, 4, 8]))
    return FabricRequirements(
        server_count=servers,
        gpus_per_server=gpus_per_server,
        nics_per_server=draw(st.integers(1, 8)),
        rail_optimized=draw(st.booleans()),
        oversubscription=draw(st.sampled_from([1, 1, 1.5, 2, 3])),
        growth_gpus=None if growth is None else growth * gpus_per_server,
        server_to_leaf=draw(DISTANCES),
        leaf_to_spine=draw(DISTANCES),
        spine_to_core=draw(st.sampled_from(["same-row", "across-hall"])),
        spares_percent=draw(st.sampled_from([0, 0, 5, 10])),
        **draw(st.sampled_from(FABRICS)),
    )


def design_or_none(req: FabricRequirements):
    """Any request designs or is refused with field messages: never another exception."""
    try:
        return design_fabric(req, CATALOG)
    except InvalidInput as refusal:
        assert refusal.errors and all(refusal.errors.values())
        return None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests(max_servers=80))
def test_the_link_list_connects_every_endpoint_once_and_matches_the_bom(req):
    design = design_or_none(req)
    if design:
        check_schedule(design)


@settings(max_examples=1500, deadline=None)
@given(requests(max_servers=12_000))
def test_counts_follow_the_rounding_rules_and_never_block_more_than_asked(req):
    design = design_or_none(req)
    if design is None:
        return
    t, k = design.topology, design.topology.radix
    busiest = max(e for n, e in t.leaf_fill() if n)
    switch_speed, nic_speed = design.switch.port_speed_gbps, design.nic_speed_gbps
    # Every endpoint has a place on a leaf, and no leaf gives more ports than it has.
    assert sum(n * e for n, e in t.leaf_fill()) == t.endpoints
    assert ceil_div(busiest, t.split) + t.leaf_up <= k
    used = design.ports_by_tier()
    assert all(tier["free"] >= 0 for tier in used.values())
    if t.tiers == 1:
        assert t.endpoints <= k * t.split and t.leaf_count == 1
        return
    # Uplink capacity x oversubscription covers the busiest leaf's downlinks.
    assert t.leaf_up * switch_speed * req.ratio >= busiest * nic_speed
    assert design.oversubscription <= float(req.ratio) + 0.005
    # Leaves: exactly as many as the endpoints need, in whole rail groups.
    if t.rail_optimized:
        assert t.leaf_count == ceil_div(t.servers, t.group_servers) * t.group_leaves
    else:
        server_leaves = sum(n for n, _ in t.leaf_fill())
        assert server_leaves == ceil_div(t.endpoints, t.leaf_capacity)
        # One more only for UFM's hosts or appliances when the servers fill every leaf port
        # (design._room_for_ufm).
        assert t.leaf_count - server_leaves in ((0, 1) if design.ufm else (0,))
    # Spines: whole links from every leaf to every spine, no spine over its radix; the leaf's
    # uplinks fit its free ports (the fewest switches is test_fabric_topology_minimum's).
    lpp = t.links_per_leaf_per_spine
    assert lpp >= 1 and t.leaf_up == lpp * t.spines_per_pod
    assert t.leaf_up_start + t.leaf_up <= k
    if t.tiers == 2:
        assert t.spines_per_pod >= ceil_div(t.leaf_count * t.leaf_up, k)
        assert t.leaf_count * lpp <= k
    else:
        # Pods of leaf slots; spines as non-blocking as the pods; cores by whole links.
        assert t.spine_down <= k // 2 and t.spine_up == t.spine_down
        assert t.spine_up_start + t.spine_up <= k
        assert t.spine_up == t.core_per_plane * t.links_per_spine_per_core
        assert t.spines_per_pod % t.spines_per_core_group == 0
        assert t.pods * t.core_ports_per_pod <= k
    # Never fewer switches than the ports demand.
    ports_needed = t.endpoints / t.split + 2 * (t.leaf_count * t.leaf_up)
    assert t.leaf_count + t.spine_count + t.core_count >= math.ceil(ports_needed / k)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(st.integers(-5, 0), st.none(), st.text(max_size=3)),
    st.sampled_from(["gpu_count", "gpus_per_server", "nics_per_server", "growth_gpus"]),
)
def test_nonsense_numbers_are_refused_with_field_messages(value, field):
    fields = {"gpu_count": 64, field: value}
    if field in ("growth_gpus", "nics_per_server") and value is None:
        return  # None means "no growth target" and "one NIC per GPU"
    try:
        design_fabric(FabricRequirements(**fields), CATALOG)
    except InvalidInput as refusal:
        assert refusal.errors
    else:
        raise AssertionError(f"{field}={value!r} was accepted")

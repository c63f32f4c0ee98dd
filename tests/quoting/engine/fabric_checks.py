"""Shared helpers for the fabric tests: BOM totals and cable-schedule invariants."""

from __future__ import annotations

from collections import Counter

from quoting.engine.fabric import FabricDesign, cable_schedule


def bom_total(design: FabricDesign, sku: str | None = None, category: str | None = None) -> int:
    return sum(
        line.quantity
        for line in design.bom
        if line.role != "spare"
        and (sku is None or line.sku == sku)
        and (category is None or line.category == category)
    )


def port_index(port: str, ports_per_cage: int) -> int:
    """0-based switch port from "p12", "6/2" or "6/2/1" (a split lane of port 6/2)."""
    if port.startswith("p"):
        return int(port[1:]) - 1
    cage, number = port.split("/")[:2]
    return (int(cage) - 1) * ports_per_cage + int(number) - 1


HOST_TIERS = ("server-leaf", "ufm-leaf")  # a host or UFM appliance at the a end, a leaf at b


def host_cage(port: str) -> str:
    """The host cage a host port plugs into: "c2/1" is cage 2 of a DGX; "nic3/2" is its own."""
    return port.split("/")[0] if port.startswith("c") else port


def check_schedule(design: FabricDesign) -> None:
    """Every rule the issue asks of the link list, checked against the BOM."""
    t, ppc = design.topology, design.topology.ports_per_cage
    runs = list(cable_schedule(design))
    hosts = [r for r in runs if r.tier == "server-leaf"]
    # Every endpoint port is connected exactly once.
    endpoints = Counter((r.a_device, r.a_port) for r in hosts)
    assert len(endpoints) == design.endpoint_ports
    assert set(endpoints.values()) == {1}
    # No switch port is used twice (split lanes count once per lane), none beyond the radix.
    ends = Counter()
    ports_per_switch: dict[str, set[int]] = {}
    for r in runs:
        switch_ends = (
            [(r.b_device, r.b_port)]
            if r.tier in HOST_TIERS
            else [(r.a_device, r.a_port), (r.b_device, r.b_port)]
        )
        for device, port in switch_ends:
            ends[(device, port)] += 1
            ports_per_switch.setdefault(device, set()).add(port_index(port, ppc))
    assert set(ends.values()) == {1}
    assert all(0 <= p < t.radix for used in ports_per_switch.values() for p in used)
    assert len(ports_per_switch) == design.leaf_count + design.spine_count + design.core_count
    # Every leaf sends the same whole number of links to every spine of its pod.
    pairs = Counter((r.a_device, r.b_device) for r in runs if r.tier == "leaf-spine")
    assert set(pairs.values()) <= {t.links_per_leaf_per_spine}
    assert len(pairs) == design.leaf_count * t.spines_per_pod
    cores = Counter((r.a_device, r.b_device) for r in runs if r.tier == "spine-core")
    assert set(cores.values()) <= {t.links_per_spine_per_core}
    # Transceivers and cables in the BOM are exactly those the link list needs.
    modules = Counter()
    for cage in {
        (r.b_device, port_index(r.b_port, ppc) // ppc, r.b_module) for r in runs if r.b_module
    } | {
        (r.a_device, port_index(r.a_port, ppc) // ppc, r.a_module)
        for r in runs
        if r.a_module and r.tier not in HOST_TIERS
    }:
        modules[cage[2]] += 1
    # Host modules: one per host cage (a DGX's twin-port module serves two NICs).
    for _, _, module in {
        (r.a_device, host_cage(r.a_port), r.a_module)
        for r in runs
        if r.tier in HOST_TIERS and r.a_module
    }:
        modules[module] += 1
    # UFM appliances: each port cabled once, at least two appliances, reported in ports used.
    ufm = [r for r in runs if r.tier == "ufm-leaf"]
    assert len(ufm) == len(set((r.a_device, r.a_port) for r in ufm))
    # UFM hosts with no leaf port free (over the switches' node limit) are racked, not cabled.
    if design.ufm and design.ufm.links:
        assert len({r.a_device for r in ufm}) == design.ufm.appliances >= 2
        assert design.links_by_tier()["ufm-leaf"] == len(ufm)
    else:
        assert not ufm
    cables = Counter(part for _, part in {(r.cable_id, r.cable_part) for r in runs})
    # In-band runs beyond the longest cable take modules too: the installation layout's to
    # place, as the in-band cables below.
    fabric_modules = Counter()
    for line in design.bom:
        if line.category == "transceiver" and line.role not in ("spare", "in-band management"):
            fabric_modules[line.sku] += line.quantity
    assert modules == fabric_modules, "transceivers"
    assert cables == Counter({s: bom_total(design, s) for s in cables}), "cables"
    # The management cables (out-of-band patch cords, in-band 100GbE cables) are the
    # installation layout's to place (not fabric links).
    cords = sum(
        line.quantity
        for line in design.bom
        if line.role == "out-of-band management" and line.category == "cable"
    )
    inband = sum(
        line.quantity
        for line in design.bom
        if line.role == "in-band management" and line.category == "cable"
    )
    assert sum(cables.values()) == bom_total(design, category="cable") - cords - inband
    assert cords == design.management.outofband_cables
    assert inband <= design.management.inband_cables
    check_cables(design, runs)


def check_cables(design: FabricDesign, runs) -> None:
    """The cables NVIDIA's tables would count, read back from the link list: one per host cage
    serving both planes, one per whole 800G Spectrum cage between two switches, else one per
    cable the installer pulls."""
    ppc = design.topology.ports_per_cage
    for tier, count in design.cables_by_tier().items():
        tier_runs = [r for r in runs if r.tier == tier]
        if tier == "ufm-leaf":
            assert count == len(tier_runs)
        elif tier == "server-leaf" and design.host_cage_planes > 1:
            assert count == len({(r.a_device, host_cage(r.a_port)) for r in tier_runs})
        elif (
            tier != "server-leaf"
            and design.switch.protocol == "ethernet"
            and tier_runs[0].a_module
            and all(
                n % ppc == 0 for n in Counter((r.a_device, r.b_device) for r in tier_runs).values()
            )
        ):
            assert count == len({(r.a_device, port_index(r.a_port, ppc) // ppc) for r in tier_runs})
        else:
            assert count == len({(r.cable_id, r.cable_part) for r in tier_runs})

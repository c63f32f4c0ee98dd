"""The pack's text files, each written a chunk at a time from an InstallLayout (NetBox's in
install/netbox.py). Each is written for a tool and tested by it (docs/installation-pack.md):
- Slurm `topology.conf` (topology/tree): each server under one switch (a rail-optimised
  scalable unit's rail leaves as one switch `suN`), spines and cores above; hostlists compress
  the last number only (`su1-r01-node[01-04]`), which every Slurm version reads.
- ibdm topology file (`man ibdm-topo-file`, what ibdiagnet and NVIDIA's cable validation read):
  a line per system (`<type> <name>`), each of its links indented under it once, in the block of
  its upper switch; types defined by the pack's ibnl/ files; split lanes `P11s1`; each HCA a
  system `<host>/mlx5_N` with port `P1`.
- UFM NDT plugin CSV: `#StartDevice,StartPort,EndDevice,EndPort,LinkType`, switch ports
  `Port <n>`, host ports the host's node description (`<host> mlx5_N`).
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import fields

from quoting.engine.csvcells import csv_row
from quoting.engine.fabric.requirements import DISTANCE_CLASSES, UNMEASURED_DISTANCES
from quoting.engine.install.inband import TIER as INBAND_TIER
from quoting.engine.install.layout import HOST_TIERS, Cable, InstallLayout
from quoting.engine.install.management import TIER as MANAGEMENT_TIER
from quoting.engine.install.pdf import LABEL_STOCK
from quoting.engine.install.site import TRAY_CLEARANCE_M, SiteInputs
from quoting.engine.install.weights import rack_weight
from quoting.engine.messages import gettext_noop, listing

Translate = Callable[[str], str]


def _same(text: str) -> str:
    return text


CHUNK_ROWS = 2000


def csv_chunks(header: Iterable[str], rows: Iterable[Iterable]) -> Iterator[str]:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(list(header))
    for count, row in enumerate(rows, 1):
        writer.writerow(csv_row(row))
        if count % CHUNK_ROWS == 0:
            yield out.getvalue()
            out.seek(0)
            out.truncate()
    yield out.getvalue()


def _is_host(cable: Cable) -> bool:
    return cable.tier.removeprefix("storage ") in HOST_TIERS


def _fabric_cables(layout: InstallLayout) -> Iterator[Cable]:
    """The data fabric's cables: what the InfiniBand/Ethernet topology files describe."""
    return (c for c in layout.cables if c.tier not in (MANAGEMENT_TIER, INBAND_TIER))


# --- cable-schedule.csv -------------------------------------------------------------------
CABLE_COLUMNS = (
    "cable_id",
    "tier",
    "rail",
    "colour",
    "part",
    "media",
    "length_m",
    "length_class_m",
    "quoted_length_m",
    "a_rack",
    "a_u",
    "a_device",
    "a_port",
    "z_rack",
    "z_u",
    "z_device",
    "z_port",
    "label_a",
    "label_z",
    "speed_gbps",
)


def cable_schedule_rows(layout: InstallLayout) -> Iterator[tuple]:
    for c in layout.cables:
        a, z = layout.devices[c.a_device], layout.devices[c.z_device]
        yield (
            c.cable_id,
            c.tier,
            c.rail or "",
            c.colour,
            c.part,
            c.media,
            c.length_m,
            c.length_class_m if c.length_class_m is not None else "",
            c.quoted_m or "",
            layout.racks[a.rack].name,
            a.u,
            c.a_device,
            c.a_port,
            layout.racks[z.rack].name,
            z.u,
            c.z_device,
            c.z_port,
            layout.label(c.a_device, c.a_port, c.z_device, c.z_port),
            layout.label(c.z_device, c.z_port, c.a_device, c.a_port),
            c.speed_gbps,
        )


def cable_schedule_csv(layout: InstallLayout) -> Iterator[str]:
    return csv_chunks(CABLE_COLUMNS, cable_schedule_rows(layout))


# --- port-map.csv -------------------------------------------------------------------------
PORT_COLUMNS = (
    "device",
    "port",
    "peer_device",
    "peer_port",
    "rail",
    "speed_gbps",
    "part",
    "cable_id",
)


def _port_key(port: str) -> tuple:
    return tuple(int(n) for n in re.findall(r"\d+", port))


def _port_names(spec, first: int, count: int) -> list[str]:
    """Ports first .. first + count - 1 (from 0) as the schedule names them: cage/port ("14/2")
    on multi-port cages, "p12" on single-port ones."""
    per_cage = spec.ports_per_cage
    numbers = range(first, first + count)
    if per_cage == 1:
        return [f"p{n + 1}" for n in numbers]
    return [f"{n // per_cage + 1}/{n % per_cage + 1}" for n in numbers]


def _panel_ports(spec) -> list[str]:
    """A switch's front-panel ports (the catalog's port_count)."""
    return _port_names(spec, 0, spec.port_count or 0)


def uplink_ports(spec) -> list[str]:
    """The ports apart from the panel's count (an SN2201's 4 x 100G after its 48 x 1G RJ45),
    numbered on from the panel: p49 ... p52, as NVIDIA numbers them swp49 ... swp52."""
    if not spec.uplink_port_count:
        return []
    return _port_names(spec, spec.port_count or 0, spec.uplink_port_count)


def _split(layout: InstallLayout, device: str) -> int:
    fd = layout.design.storage if layout.devices[device].role.startswith("storage") else None
    return (fd or layout.design).topology.split


def port_map_csv(layout: InstallLayout) -> Iterator[str]:
    """Every port of every switch, in placement order and panel order: cabled ones with their
    peer, free ones with empty peer and part; a port split into lanes ("6/2/1", "6/2/2") lists
    each lane. The uplinks (catalog uplink_port_count) follow the panel at their own speed,
    then the management port (mgmt0) when it is cabled."""
    by_switch: dict[str, dict[str, tuple]] = defaultdict(dict)
    for c in layout.cables:
        by_switch[c.z_device][c.z_port] = (c.a_device, c.a_port, c)
        if not _is_host(c) and c.tier != MANAGEMENT_TIER or c.a_port == "mgmt0":
            by_switch[c.a_device][c.a_port] = (c.z_device, c.z_port, c)

    def row(device, port, cabled, speed):
        if cabled is None:
            return device, port, "", "", "", speed, "", ""
        peer, peer_port, c = cabled
        return device, port, peer, peer_port, c.rail or "", c.speed_gbps, c.part, c.cable_id

    def rows():
        for device in layout.devices.values():
            spec = layout.parts.get(device.part)
            if spec is None or spec.category != "switch":
                continue
            cabled = by_switch.get(device.name, {})
            listed = set()
            for port in _panel_ports(spec):
                lanes = [p for p in cabled if p.startswith(port + "/")]
                if not lanes:
                    listed.add(port)
                    yield row(device.name, port, cabled.get(port), spec.port_speed_gbps or "")
                    continue
                split = max(_split(layout, device.name), len(lanes))
                lane_speed = (spec.port_speed_gbps or 0) // split or ""
                for lane in range(1, split + 1):
                    name = f"{port}/{lane}"
                    listed.add(name)
                    yield row(device.name, name, cabled.get(name), lane_speed)
            for port in uplink_ports(spec):
                listed.add(port)
                yield row(device.name, port, cabled.get(port), spec.uplink_speed_gbps or "")
            # Anything cabled off the panel (the management port): after it, never lost.
            for port in sorted(set(cabled) - listed, key=_port_key):
                yield row(device.name, port, cabled[port], "")

    return csv_chunks(PORT_COLUMNS, rows())


# --- racks.csv ----------------------------------------------------------------------------
RACK_COLUMNS = (
    "rack",
    "row",
    "position",
    "kind",
    "cooling",
    "su",
    "x_m",
    "y_m",
    "u_total",
    "u_used",
    "u_free",
    "network_typical_w",
    "network_max_w",
    "server_typical_w",
    "server_max_w",
    "typical_kw",
    "max_kw",
    "budget_kw",
    "over_budget",
    "weight_kg",
    "weight_unknown",
    "devices",
)


def racks_csv(layout: InstallLayout, translate: Translate | None = None) -> Iterator[str]:
    """One row per rack. Its one cell of words, weight_unknown, follows the pack's language
    (`translate`); its codes (kind, cooling, yes/no) stay English, as a filter reads them."""
    site, tr = layout.site, translate or _same

    def rows():
        for r in layout.racks:
            devices = "; ".join(
                f"U{d.u}-U{d.u + d.units - 1} {d.name}" + (f" ({d.part})" if d.part else "")
                for d in (layout.devices[name] for name in r.devices)
            )
            weight = rack_weight(layout, r)
            yield (
                r.name,
                r.row_name,
                r.position + 1,
                r.kind,
                "liquid" if r.own_power else "air",
                r.su or "",
                round(r.position * site.rack_pitch_m, 3),
                round(r.row * site.row_spacing_m, 3),
                site.rack_units,
                r.units_used,
                site.rack_units - r.units_used,
                round(r.network_typical_w, 1),
                round(r.network_max_w, 1),
                round(r.server_typical_w, 1),
                round(r.server_max_w, 1),
                round(r.typical_kw, 2),
                round(r.max_kw, 2),
                # A rack-scale system's rack has its own power shelves: no site budget.
                "" if r.own_power else site.rack_power_kw,
                "yes" if r.over_budget(site.rack_power_kw) else "no",
                weight.known_kg,
                weight.unknown_text(tr),
                devices,
            )

    return csv_chunks(RACK_COLUMNS, rows())


# --- slurm-topology.conf --------------------------------------------------------------------
def hostlist(names: Iterable[str]) -> str:
    """Slurm hostlist: runs of the same prefix and width compressed on the last number."""
    groups: dict[tuple[str, int, str], list[int]] = {}
    plain: list[str] = []
    order: list[tuple] = []
    for name in names:
        match = re.fullmatch(r"(.*?)(\d+)(\D*)", name)
        if not match:
            plain.append(name)
            continue
        key = (match.group(1), len(match.group(2)), match.group(3))
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(int(match.group(2)))
    parts = list(plain)
    for prefix, width, suffix in order:
        numbers = sorted(set(groups[(prefix, width, suffix)]))
        ranges, start = [], numbers[0]
        for previous, number in zip(numbers, [*numbers[1:], None], strict=True):
            if number != previous + 1:
                ranges.append(
                    f"{start:0{width}d}"
                    if start == previous
                    else f"{start:0{width}d}-{previous:0{width}d}"
                )
                start = number
        if len(ranges) == 1 and "-" not in ranges[0]:
            parts.append(f"{prefix}{ranges[0]}{suffix}")
        else:
            parts.append(f"{prefix}[{','.join(ranges)}]{suffix}")
    return ",".join(parts)


def _tree(layout: InstallLayout) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Compute fabric only: scheduling switch -> servers, upper switch -> switches below it.

    Slurm's tree plugin wants each node under exactly one leaf switch. A rail-optimised server
    sits under every rail leaf of its scalable unit (one NIC each), so the SU, all its rail
    leaves together, is the node's switch: a job kept within an SU is one hop on every rail.
    A server cabled to one leaf keeps that leaf."""
    leaves_of: dict[str, list[str]] = defaultdict(list)
    for c in layout.cables:
        if c.tier == "server-leaf" and c.z_device not in leaves_of[c.a_device]:
            leaves_of[c.a_device].append(c.z_device)
    by_su = layout.design.topology.rail_optimized or any(len(v) > 1 for v in leaves_of.values())

    def switch(leaf: str) -> str:
        su = layout.devices[leaf].su
        return f"su{su}" if by_su and su else leaf

    nodes: dict[str, list[str]] = defaultdict(list)
    for server, leaves in leaves_of.items():
        nodes[switch(leaves[0])].append(server)
    # Switches over the same switches are one hop for the scheduler: listed apart, 32 spines a
    # pod over the same SUs make slurmctld take a second building the tree at 16,384 GPUs (and
    # warn); merged, the tree is a few dozen switches.
    merged: dict[str, str] = {}
    below: dict[str, list[str]] = {}
    for tier, role in (("leaf-spine", "spines"), ("spine-core", "cores")):
        children: dict[str, list[str]] = defaultdict(list)
        for c in layout.cables:
            if c.tier == tier:
                child = switch(c.a_device) if tier == "leaf-spine" else merged[c.a_device]
                if child not in children[c.z_device]:
                    children[c.z_device].append(child)
        groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for upper, kids in children.items():
            groups[tuple(sorted(kids))].append(upper)
        for number, uppers in enumerate(groups.values(), 1):
            name = role if len(groups) == 1 else f"{role}-{number}"
            below[name] = children[uppers[0]]
            merged.update(dict.fromkeys(uppers, name))
    return nodes, below


def slurm_topology(layout: InstallLayout) -> Iterator[str]:
    nodes, below = _tree(layout)
    yield (
        f"# Slurm topology.conf (TopologyPlugin=topology/tree) for "
        f"{layout.design.requirements.label or 'this design'}: each server under one "
        "switch (its scalable unit's rail leaves as one, rail-optimised); above it, the spines "
        "(and cores) over the same switches as one.\n"
    )
    for leaf, servers in nodes.items():
        yield f"SwitchName={leaf} Nodes={hostlist(servers)}\n"
    for switch, children in below.items():
        # Listed whole: slurmctld 22.05 refuses a compressed switch list whose names go on
        # after the number ("su[1-9]-leaf": fatal "Invalid switches").
        yield f"SwitchName={switch} Switches={','.join(children)}\n"


# --- ibdiagnet.topo and ufm-ndt.csv ---------------------------------------------------------
def ib_port(port: str, ports_per_cage: int) -> str:
    """Front-panel port number from "14/2", "p12" or "6/2/1" (lane 1 of split port 6/2)."""
    if port.startswith("p"):
        return f"P{port[1:]}"
    cage, number, *lane = port.split("/")
    name = f"P{(int(cage) - 1) * ports_per_cage + int(number)}"
    return f"{name}/{lane[0]}" if lane else name


def _ibnl_name(text: str) -> str:
    """ibdm's system-definition parser reads type names of letters and digits only."""
    return re.sub(r"[^A-Za-z0-9]", "", text)


def _split_switches(layout: InstallLayout) -> set[str]:
    """Switches with a split port (a lane, "6/2/1"): ibdm numbers all their ports by lane."""
    split = set()
    for c in _fabric_cables(layout):
        if c.z_port.count("/") == 2:
            split.add(c.z_device)
        if not _is_host(c) and c.a_port.count("/") == 2:
            split.add(c.a_device)
    return split


def _switch_system(layout: InstallLayout, device: str, split: set[str]) -> tuple[str, int, int]:
    """A switch's ibdm system type, its front-panel ports and lanes per port."""
    spec = layout.parts.get(layout.devices[device].part)
    lanes = 2 if device in split else 1
    ports = (spec.port_count if spec and spec.port_count else 64) + (
        spec.uplink_port_count or 0 if spec else 0
    )
    part = layout.devices[device].part
    return f"SW{_ibnl_name(part)}" + (f"split{lanes}" if lanes > 1 else ""), ports, lanes


def _host_system(layout: InstallLayout) -> str:
    return f"CA{_ibnl_name(layout.design.nic.part_number)}"


def topo_port(port: str, ports_per_cage: int, lanes: int) -> str:
    """A switch port as the pack's .ibnl names it: P27; P11s1 for lane 1 of split port 11 (ibdm
    reads "/" as a sub-system path), and every port of a split switch by lane (P5s1)."""
    name = ib_port(port, ports_per_cage)
    if "/" in name:
        panel, lane = name.split("/")
        return f"{panel}s{lane}"
    return f"{name}s1" if lanes > 1 else name


def ibdiagnet_topo(layout: InstallLayout) -> Iterator[str]:
    design = layout.design
    yield (
        f"# ibdm topology file (man ibdm-topo-file) for "
        f"{design.requirements.label or 'this design'}; one block per switch, each link "
        "once under its upper switch. System types are defined in ibnl/ (IBDM_IBNL_PATH).\n\n"
    )
    split = _split_switches(layout)
    host_type = _host_system(layout)
    blocks: dict[str, list[str]] = defaultdict(list)
    for c in _fabric_cables(layout):
        ppc = _ports_per_cage(layout, c)
        upper_type, _, upper_lanes = _switch_system(layout, c.z_device, split)
        if _is_host(c):
            remote = f"{host_type} {c.a_device}/{c.a_port} P1"
        else:
            lower_type, _, lower_lanes = _switch_system(layout, c.a_device, split)
            remote = f"{lower_type} {c.a_device} {topo_port(c.a_port, ppc, lower_lanes)}"
        # ibdm reads a link only when it is indented under its system's line.
        blocks[c.z_device].append(f"   {topo_port(c.z_port, ppc, upper_lanes)} -> {remote}\n")
    for name, lines in blocks.items():
        yield f"{_switch_system(layout, name, split)[0]} {name}\n"
        yield "".join(lines)
        yield "\n"


def ibnl_files(layout: InstallLayout) -> list[tuple[str, str]]:
    """The system definitions (.ibnl) of every switch and host type ibdiagnet.topo names: one
    InfiniBand device (U1) each, its ports mapped to the front panel's names."""
    split = _split_switches(layout)
    systems: dict[str, tuple[str, int, int]] = {}
    for c in _fabric_cables(layout):
        for device in (c.z_device, None if _is_host(c) else c.a_device):
            if device:
                kind, ports, lanes = _switch_system(layout, device, split)
                systems[kind] = ("SW", ports, lanes)
    systems[_host_system(layout)] = ("CA", 1, 1)
    files = []
    for kind, (node, ports, lanes) in sorted(systems.items()):
        lines = [f"\nTOPSYSTEM {kind}\n\nNODE {node} {ports * lanes} {kind} U1\n"]
        for panel in range(1, ports + 1):
            for lane in range(1, lanes + 1):
                number = (panel - 1) * lanes + lane
                name = f"P{panel}s{lane}" if lanes > 1 else f"P{panel}"
                lines.append(f"   {number} -> {name}\n")
        files.append((f"ibnl/{kind}.ibnl", "".join(lines) + "\n"))
    return files


def _ports_per_cage(layout: InstallLayout, cable: Cable) -> int:
    fd = layout.design.storage if cable.tier.startswith("storage") else layout.design
    return fd.topology.ports_per_cage


# The UFM NDT plugin's topology file, as its parser (topo_diff.parse_ndt_file in NVIDIA's
# ufm_sdk_3.0) reads it: these column keys; a switch port is "Port <n>" ("Port 11/1" for a split
# lane) as its default switch_patterns match; a host port is the host's whole node description,
# "<host> mlx5_N", matched by the host_patterns line the README gives (the plugin's default
# pattern is one site's host naming).
NDT_COLUMNS = ("#StartDevice", "StartPort", "EndDevice", "EndPort", "LinkType")
NDT_HOST_PATTERN = r"(^\S+ mlx5_\d+$)"


def ndt_switch_port(port: str, ports_per_cage: int) -> str:
    return f"Port {ib_port(port, ports_per_cage)[1:]}"


def ufm_ndt_csv(layout: InstallLayout) -> Iterator[str]:
    def rows():
        for c in _fabric_cables(layout):
            ppc = _ports_per_cage(layout, c)
            # A host first, as NVIDIA's sample topologies list them: its port is its description.
            host = _is_host(c)
            start = f"{c.a_device} {c.a_port}" if host else ndt_switch_port(c.a_port, ppc)
            yield c.a_device, start, c.z_device, ndt_switch_port(c.z_port, ppc), "Data"

    return csv_chunks(NDT_COLUMNS, rows())


# --- bom-by-rack.csv ------------------------------------------------------------------------
BOM_RACK_COLUMNS = ("rack", "sku", "category", "quantity", "in_quote")
NOT_RACKED = "(not racked)"


def bom_by_rack_csv(layout: InstallLayout) -> Iterator[str]:
    """What to pick for each rack: its devices, the optics plugged in there and the cables
    whose A end is there; what no rack holds (spares, licences, NICs) comes last."""
    quoted = Counter()
    categories: dict[str, str] = {}
    for line in layout.design.bom:
        quoted[line.sku] += line.quantity
        categories[line.sku] = line.category

    def rows():
        racked = Counter()
        for rack in layout.racks:
            for sku, quantity in sorted(rack.parts.items()):
                racked[sku] += quantity
                yield (
                    rack.name,
                    sku,
                    categories.get(sku, "server"),
                    quantity,
                    "yes" if sku in quoted else "no",
                )
        for sku, quantity in quoted.items():
            if quantity > racked[sku]:
                yield NOT_RACKED, sku, categories[sku], quantity - racked[sku], "yes"

    return csv_chunks(BOM_RACK_COLUMNS, rows())


# Files for InfiniBand tools only (ibdm, the UFM NDT plugin): an Ethernet pack has none.
INFINIBAND_ONLY = ("ibdiagnet.topo", "ufm-ndt.csv")

# --- README.txt -----------------------------------------------------------------------------
# What each file holds, in the pack's language (README.txt's words go through `translate`).
FILE_NOTES = (
    (
        "cable-schedule.csv",
        gettext_noop(
            "one row per cable leg: ID (C000012; a splitter's or twin-port "
            "copper cable's legs C000012.1, .2), tier, rail and colour, part, routed length, the "
            "catalog length class it needs and the quoted part's length, both ends (rack, U, "
            "device, port) and the label for each end (row.rack-Uu:port > far end)."
        ),
    ),
    (
        "port-map.csv",
        gettext_noop(
            "every port of every switch (the catalog's port count), in panel order: "
            "peer device and port, rail, speed, part and cable ID; free ports with an empty peer; "
            "split ports lane by lane (6/2/1); then the switch's uplinks numbered on from the "
            "panel at their own speed (a management switch's p49-p52, 100G); a cabled "
            "management port (mgmt0) last."
        ),
    ),
    (
        "racks.csv",
        gettext_noop(
            "per rack: position, devices at their U, U used and free, typical and max "
            "power (network and servers apart) against the budget, and the weight of the mounted "
            "equipment from the catalog's datasheet weights: weight_kg sums the devices whose "
            "weight is known, weight_unknown names the others (model x count; empty when every "
            "weight is known): when it is not empty the rack weighs more than weight_kg, so add "
            "those devices' datasheet weights before checking the floor load. Optics and cables "
            "are not counted."
        ),
    ),
    (
        "rack-elevations.svg",
        gettext_noop(
            "front views of every rack: a U scale (1, 5, 10 ... and the top U), each device at "
            "its U with its name and model (catalog part number), kW against budget and weight "
            "(≥ the known sum when some devices' weights are unknown; hover for which)."
        ),
    ),
    (
        "rack-elevations.pdf",
        gettext_noop(
            "the same, six racks to a landscape A4 page, the devices of unknown weight named "
            "under each rack's weight, to tape to rack doors."
        ),
    ),
    (
        "labels.pdf",
        gettext_noop(
            "two flag labels per cable leg (A and Z end), printed for {stock}: print at "
            "100 % on that stock (a durable polyester or vinyl one of the same layout for "
            "cables); each label's middle band, in the rail colour, wraps the cable and its two "
            "ends, each with the same text at 7 pt or more, stick back to back."
        ),
    ),
    (
        "slurm-topology.conf",
        gettext_noop(
            "Slurm topology/tree: each server under one switch (a rail-optimised scalable "
            "unit's rail leaves as one switch, su1, su2 ...), spines and core above."
        ),
    ),
    (
        "ibdiagnet.topo",
        gettext_noop(
            "ibdm topology file for ibdiagnet and NVIDIA's cable validation tool (InfiniBand "
            "fabrics): a block per switch, each link indented under it; split lanes as P11s1. "
            "Its system types are defined in ibnl/ (one .ibnl per switch and host type): "
            "IBDM_IBNL_PATH=ibnl ibdmchk -t ibdiagnet.topo -n '<host>/mlx5_N/U1' -p 1 checks it."
        ),
    ),
    (
        "ufm-ndt.csv",
        gettext_noop(
            "UFM NDT plugin topology (InfiniBand): #StartDevice, StartPort, EndDevice, EndPort, "
            "LinkType; switch ports 'Port 27' (split lanes 'Port 11/1'), host ports the host's "
            "node description ('su1-r01-node01 mlx5_11'). Upload it as type switch_to_host, with "
            "'host_patterns: {pattern}' in the plugin's ndt.conf."
        ),
    ),
    (
        "netbox-*.csv",
        gettext_noop(
            "NetBox bulk import (Organization, Racks, Devices, Connections), in this order: "
            "sites, locations (one per row), racks, manufacturers, device-roles, device-types "
            "(U height, datasheet weight), devices (status planned, in their racks), interfaces "
            "(every cabled port, then each switch's uplinks), cables (one per leg, status "
            "planned, label = cable ID, colour by rail, length in metres). Device names are "
            "unique across packs when each design has its own name_prefix (site inputs); in a "
            "NetBox that already has the manufacturers, roles or device types, delete those rows "
            "first (NetBox refuses a duplicate), and the site too when it exists."
        ),
    ),
    ("bom-by-rack.csv", gettext_noop("pick list per rack; parts no rack holds last.")),
)
# Said in a translated README only: the English pack needs no such note.
KEPT_IN_ENGLISH = gettext_noop(
    "Kept in English for the tools that read them: the CSV files' column headers and coded "
    "values (tier, colour, kind, cooling, category, yes/no), the design and site input names "
    "below, slurm-topology.conf, ibdiagnet.topo, ibnl/, ufm-ndt.csv and the netbox-*.csv files."
)


def _heading(text: str, rule: str) -> str:
    """A heading underlined to its width (a Chinese character takes two columns)."""
    width = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return f"{text}\n{rule * width}\n"


# Site inputs that move a routed run: where racks stand, how tall they are, where the tray is.
LENGTH_INPUTS = (
    "rack_units",
    "servers_per_rack",
    "server_units",
    "racks_per_row",
    "rows",
    "rack_pitch_m",
    "row_spacing_m",
    "cable_route",
    "cable_slack_m",
)
TIER_DISTANCES = {name.replace("_to_", "-"): name for name in UNMEASURED_DISTANCES}


def _measured_tiers(layout: InstallLayout) -> set[str]:
    design = layout.design
    tiers = set(design.measured or {})
    if design.storage is not None:
        tiers |= {f"storage {tier}" for tier in design.storage.measured or {}}
    return tiers


def _lengths_note(layout: InstallLayout, tr: Translate) -> Iterator[str]:
    """What the lengths are: routed on the site inputs (a hall assumed, not surveyed), which
    tiers were bought for those runs and which for a distance, which inputs are defaults.
    Tier and input names stay as the CSV and the inputs list name them."""
    site, req = layout.site, layout.design.requirements
    defaults = SiteInputs()
    yield "\n" + _heading(
        tr(gettext_noop("Cable lengths: estimates on an assumed hall, not measurements")), "-"
    )
    yield (
        tr(
            gettext_noop(
                "Every length in cable-schedule.csv is routed on the site inputs above, not "
                "measured in the hall: the racks stand in straight rows where racks_per_row, "
                "rack_pitch_m and row_spacing_m put them (the hall's real positions, obstacles "
                "and cable ways are not known); a run goes up from its device's U to a tray "
                "{clearance:g} m above the racks (cable_route overhead) or down into the floor "
                "void (raised-floor), along and across the rows, plus cable_slack_m, rounded up to "
                "0.1 m; its length class is the shortest catalog length that covers it."
            )
        ).format(clearance=TRAY_CLEARANCE_M)
        + "\n"
    )
    measured = _measured_tiers(layout)
    tiers = list(
        dict.fromkeys(c.tier for c in layout.cables if c.tier not in (MANAGEMENT_TIER, INBAND_TIER))
    )
    routed = [t for t in tiers if t in measured]
    if routed:
        yield (
            tr(gettext_noop("Bought for the runs routed on this site: {tiers}.")).format(
                tiers=listing(routed).render(tr)
            )
            + "\n"
        )
    for tier in tiers:
        if tier in measured:
            continue
        name = TIER_DISTANCES.get(tier.removeprefix("storage "))
        given = getattr(req, name) if name else None
        if given is not None:
            metres = DISTANCE_CLASSES.get(given, given)
            yield (
                tr(
                    gettext_noop(
                        "Bought for the distance typed on the design: {tier} ({name} = {given}, "
                        "{metres:g} m), not for the routed runs."
                    )
                ).format(tier=tier, name=name, given=given, metres=metres)
                + "\n"
            )
        elif name:
            metres = DISTANCE_CLASSES[UNMEASURED_DISTANCES[name]]
            yield (
                tr(
                    gettext_noop(
                        "Bought for the tier's usual distance, not measured on this site: {tier} "
                        "({distance}, {metres:g} m)."
                    )
                ).format(tier=tier, distance=UNMEASURED_DISTANCES[name], metres=metres)
                + "\n"
            )

    def listed(names: list[str]) -> str:
        values = {n: getattr(site, n) for n in names}
        empty = tr(gettext_noop("empty"))
        return listing(f"{n} = {empty if v is None else v}" for n, v in values.items()).render(tr)

    assumed = [n for n in LENGTH_INPUTS if getattr(site, n) == getattr(defaults, n)]
    changed = [n for n in LENGTH_INPUTS if getattr(site, n) != getattr(defaults, n)]
    if assumed:
        yield (
            tr(
                gettext_noop("Site inputs at their defaults (assumed unless checked): {inputs}.")
            ).format(inputs=listed(assumed))
            + "\n"
        )
    if changed:
        yield (
            tr(
                gettext_noop("Site inputs changed from the defaults for this site: {inputs}.")
            ).format(inputs=listed(changed))
            + "\n"
        )
    yield (
        tr(
            gettext_noop(
                "Measure the real runs (rack positions, tray route, drops) before ordering cables; "
                "a run longer than its quoted cable is listed under Warnings."
            )
        )
        + "\n"
    )


def _management_note(layout: InstallLayout, tr: Translate) -> Iterator[str]:
    management = layout.design.management
    oob = [c for c in layout.cables if c.tier == MANAGEMENT_TIER]
    if oob:
        part = oob[0].part or tr(gettext_noop("not in the catalog: installer-supplied"))
        yield (
            "\n"
            + tr(
                gettext_noop(
                    "Out-of-band management: {count} RJ45 patch cords (tier {tier}, "
                    "part {part}) in the cable schedule, quoted in the BOM: every server's BMC, "
                    "every switch's and UFM appliance's management port, and the management "
                    "switches' own, to the management switches' ports p1, p2 ... in placement "
                    "order (a switch's own port last); their uplinks, numbered on from the panel "
                    "(port-map.csv), stay free for the upstream network. Each management switch "
                    "stands in the rack nearest the devices it serves that has a free U and power "
                    "to spare. The cords are "
                    "not in ibdiagnet.topo or ufm-ndt.csv (not fabric links)."
                )
            ).format(count=len(oob), tier=MANAGEMENT_TIER, part=part)
            + "\n"
        )
    inband = [c for c in layout.cables if c.tier == INBAND_TIER]
    if inband:
        peer = sum(1 for c in inband if c.a_port.startswith("p"))
        how = (
            tr(
                gettext_noop(
                    "{pairs} MLAG pairs of in-band switches: each server's inband1 to the first "
                    "switch of its pair and inband2 to the second, on the same port p1, p2 ...; "
                    "each pair joined by a peer link of two cables ({peer} in all) on the two "
                    "ports after the servers'"
                )
            ).format(pairs=management.inband_switches // 2, peer=peer)
            if peer
            else tr(
                gettext_noop(
                    "{switches} in-band switches, each server's inband1 to ports p1, p2 ... in "
                    "placement order"
                )
            ).format(switches=management.inband_switches)
        )
        yield (
            "\n"
            + tr(
                gettext_noop(
                    "In-band management: {count} 100GbE cables (tier {tier}) in the cable "
                    "schedule, each with the part the BOM quotes for its run (DAC within its "
                    "reach, AOC beyond); a run without a part is quoted separately (longer than "
                    "any catalog cable, or designed before in-band cables were quoted). {how}; "
                    "the last two ports of each switch stay free as "
                    "uplinks. The in-band switches stand in the network row, the two of a pair "
                    "one after the other. The cables are not in ibdiagnet.topo or ufm-ndt.csv "
                    "(not fabric links)."
                )
            ).format(count=len(inband), tier=INBAND_TIER, how=how)
            + "\n"
        )


def _ufm_hosts_note(layout: InstallLayout, tr: Translate) -> Iterator[str]:
    """UFM hosts racked without a leaf port (rule 8, over the switches' node limit): the pack
    racks and powers them, and the installer must know their fabric ports are still open."""
    ufm = layout.design.ufm
    if ufm is None or ufm.links or ufm.no_leaf_port is None:
        return
    names = [d.name for d in layout.devices.values() if d.role == "ufm"]
    yield (
        "\n"
        + _heading(tr(gettext_noop("UFM hosts not cabled into the fabric")), "-")
        + tr(
            gettext_noop(
                "{hosts} ({part}) are racked and powered like any UFM host, but their {ports} "
                "InfiniBand ports (one {nic} each) still need leaf ports: no leaf has one free, "
                "so the cable schedule, ibdiagnet.topo and ufm-ndt.csv have no fabric cable for "
                "them. {fix}"
            )
        ).format(
            hosts=listing(names).render(tr),
            part=ufm.device.part_number if ufm.device else "",
            ports=ufm.appliances * ufm.ports_per_appliance,
            nic=ufm.nic.part_number if ufm.nic else "",
            fix=ufm.no_leaf_port.render(tr),
        )
        + "\n"
    )


def _input_text(value, tr: Translate) -> str:
    """An input as a reader of the README takes it, not as Python prints it: an input left
    empty is "not set" (not None), a switch yes or no, a list its items."""
    if value is None or value == "":
        return tr(gettext_noop("not set"))
    if isinstance(value, bool):
        return tr(gettext_noop("yes")) if value else tr(gettext_noop("no"))
    if isinstance(value, tuple | list):
        items = [_input_text(v, tr) for v in value]
        return listing(items).render(tr) if items else tr(gettext_noop("not set"))
    return str(value)


def readme_txt(
    layout: InstallLayout, *, revision: str = "", translate: Translate | None = None
) -> Iterator[str]:
    """The pack's README in its language (`translate`; English without). Input names, tier
    names, file names and the tools' commands stay as the files and tools spell them."""
    tr = translate or _same
    design = layout.design
    req = design.requirements
    yield _heading(tr(gettext_noop("FabricQuote installation pack")), "=") + "\n"
    if req.label:
        yield tr(gettext_noop("Design: {name}")).format(name=req.label) + "\n"
    if revision:
        yield tr(gettext_noop("Revision: {revision}")).format(revision=revision) + "\n"
    yield (
        tr(
            gettext_noop(
                "{gpus} GPUs, {servers} servers, {leaves} leaves, {spines} spines, {cores} core "
                "on {switch}; {racks} racks in {rows} rows; {cables} cables; {per_rack} "
                "servers per rack."
            )
        ).format(
            gpus=design.gpu_count,
            servers=design.topology.servers,
            leaves=design.leaf_count,
            spines=design.spine_count,
            cores=design.core_count,
            switch=design.switch.part_number,
            racks=len(layout.racks),
            rows=layout.racks[-1].row + 1 if layout.racks else 0,
            cables=len({c.base_id for c in layout.cables}),
            per_rack=layout.servers_per_rack,
        )
        + "\n\n"
    )
    yield _heading(tr(gettext_noop("Files")), "-")
    infiniband = req.family == "infiniband"
    for name, note in FILE_NOTES:
        if name in INFINIBAND_ONLY and not infiniband:
            continue
        text = tr(note).format(stock=tr(LABEL_STOCK), pattern=NDT_HOST_PATTERN)
        yield f"{name}: {text}\n"
    kept = tr(KEPT_IN_ENGLISH)
    if kept != KEPT_IN_ENGLISH:
        yield f"{kept}\n"
    yield "\n" + _heading(tr(gettext_noop("Design inputs")), "-")
    for f in fields(req):
        yield f"{f.name} = {_input_text(getattr(req, f.name), tr)}\n"
    yield "\n" + _heading(tr(gettext_noop("Site inputs")), "-")
    for f in fields(SiteInputs):
        yield f"{f.name} = {_input_text(getattr(layout.site, f.name), tr)}\n"
    yield from _lengths_note(layout, tr)
    yield from _management_note(layout, tr)
    yield from _ufm_hosts_note(layout, tr)
    if layout.warning_messages:
        yield "\n" + _heading(tr(gettext_noop("Warnings")), "-")
        for warning in layout.warning_messages:
            yield f"- {warning.render(tr)}\n"

"""The physical plan: racks, devices at their U positions, and every cable with its two ends.

Servers are placed by scalable unit (a rail group: the servers whose NICs share one leaf per
rail), filling compute racks from the bottom; the SU's leaves (every plane's) sit in a network
rack at the end of the SU's run of racks, as NVIDIA's reference architectures place them. An SU
never straddles two rows. Spines, cores, UFM appliances and in-band management switches fill
network racks in a row of their own after the compute rows; a storage fabric gets its own row
too. Out-of-band management switches stand beside the racks they serve (install/management.py).

Names are stable and hostname-like: `su1-r03-node07` (SU 1, its third compute rack, the seventh
server from the bottom), `su1-leaf-r2` (rail 2's leaf; `su1-p2-leaf-r2` on plane 2;
`su1-leaf-r1r2` carries rails 1 and 2 when a leaf carries several whole rails), spines and
cores keep the cable schedule's names (`spine-04`, `spine-p02-07`, `core-01`).

A cable's length is routed, never straight: up (or down) from each device to the tray (or the
floor void), along the row and across rows, plus slack; its length class is the shortest of the
catalog's lengths of the same cable family that covers it. The part is the BOM's: a design
measured on this site (install/lengths.py, on the same placement) bought it for the longest run
of its rack pair; a run longer than the part (a tier planned for a distance typed on the
design) is reported, so that distance can be raised.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from quoting.engine.catalog import ProductSpec
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric.cabling import _Names, _StorageNames, cable_schedule, rails_tag
from quoting.engine.fabric.design import FabricDesign
from quoting.engine.fabric.hosts import host_port
from quoting.engine.fabric.topology import Topology
from quoting.engine.install.site import (
    DEFAULT_SERVER_KW,
    DEFAULT_SERVER_UNITS,
    STORAGE_SERVER_KW,
    STORAGE_SERVER_UNITS,
    TRAY_CLEARANCE_M,
    U_METRES,
    SiteInputs,
    check_site,
)
from quoting.engine.messages import Message, gettext_noop, message

# Colour by rail (name, NetBox hex): the NIC of rail i and the leaf of rail i share a colour.
RAIL_COLOURS = (
    ("blue", "2196f3"),
    ("orange", "ff9800"),
    ("green", "4caf50"),
    ("red", "f44336"),
    ("purple", "9c27b0"),
    ("brown", "795548"),
    ("pink", "e91e63"),
    ("cyan", "00bcd4"),
)
TIER_COLOURS = {"leaf-spine": ("yellow", "ffeb3b"), "spine-core": ("white", "ffffff")}
OTHER_COLOUR = ("grey", "9e9e9e")
HOST_TIERS = ("server-leaf", "ufm-leaf")


@dataclass(slots=True)
class Rack:
    index: int
    row: int  # 0-based
    position: int  # 0-based along the row
    kind: str  # compute, network, storage
    su: int | None = None  # 1-based scalable unit of a compute or leaf rack
    devices: list[str] = field(default_factory=list)
    units_used: int = 0
    network_typical_w: float = 0.0  # switches, appliances and optics: the design's power
    network_max_w: float = 0.0
    server_typical_w: float = 0.0  # servers: outside the design's network power
    server_max_w: float = 0.0
    parts: Counter = field(default_factory=Counter)  # racked parts: devices, optics, cables
    # "liquid-rack": a rack-scale system's own liquid-cooled rack (GB200 NVL72), powered by its
    # own power shelves, so the site's air-cooled budget is not its; "" for the site's racks.
    cooling: str = ""

    row_name: str = ""  # A, B, ... AA
    name: str = ""  # A01: row and position

    def __post_init__(self) -> None:
        self.row_name = row_letters(self.row)
        self.name = f"{self.row_name}{self.position + 1:02d}"

    @property
    def typical_kw(self) -> float:
        return (self.network_typical_w + self.server_typical_w) / 1000

    @property
    def max_kw(self) -> float:
        return (self.network_max_w + self.server_max_w) / 1000

    @property
    def own_power(self) -> bool:
        return self.cooling == "liquid-rack"

    def over_budget(self, budget_kw: float) -> bool:
        """Over the site's rack power budget; a rack-scale system's own rack never is (it
        brings its power shelves and liquid cooling, sized for it)."""
        return not self.own_power and self.max_kw > budget_kw + 1e-9


@dataclass(slots=True)
class Device:
    name: str
    role: str  # server, leaf, spine, core, ufm, in-band management, storage-server, ...
    part: str  # catalog part number; "" for a server the catalog does not name
    units: int
    typical_w: float
    max_w: float
    network: bool  # counted in the design's network power (servers are not)
    su: int | None = None
    rail: int | None = None  # a leaf's rail, 1-based; None on a leaf of several rails
    rack: int = -1
    u: int = 0  # lowest U it occupies, 1-based


@dataclass(frozen=True, slots=True)
class Cable:
    """One cable leg: a splitter's legs or a twin-port copper cable's lanes share the base ID
    (`C000012.1`, `C000012.2`); the BOM counts base IDs."""

    cable_id: str
    tier: str
    rail: int | None
    part: str
    media: str
    a_device: str
    a_port: str
    z_device: str
    z_port: str
    length_m: float
    length_class_m: float | None  # None: longer than every length of its family
    quoted_m: float | None  # the BOM part's own length
    colour: str
    colour_hex: str
    speed_gbps: int

    @property
    def base_id(self) -> str:
        return self.cable_id.split(".")[0]


@dataclass(slots=True)
class InstallLayout:
    design: FabricDesign
    site: SiteInputs
    racks: list[Rack]
    devices: dict[str, Device]
    cables: list[Cable]
    servers_per_rack: int
    server_units: int
    server_max_kw: float
    # Translatable messages; `warnings` below is their English text (the pack's files, the CLI).
    warning_messages: list[Message]
    _locations: dict[str, str] = field(default_factory=dict)
    parts: dict[str, ProductSpec] = field(default_factory=dict)  # the catalog by part number
    # (placer, out-of-band switches) until they are placed (plan_layout, measure_runs).
    management: tuple = ()

    @property
    def warnings(self) -> list[str]:
        return [str(m) for m in self.warning_messages]

    def position(self, device: str) -> tuple[float, float, float]:
        """The device's centre in metres: along the row, across rows, height."""
        d = self.devices[device]
        rack = self.racks[d.rack]
        return (
            rack.position * self.site.rack_pitch_m,
            rack.row * self.site.row_spacing_m,
            (d.u - 1 + d.units / 2) * U_METRES,
        )

    def location(self, device: str) -> str:
        """TIA-606 style: row.rack-Uu."""
        found = self._locations.get(device)
        if found is None:
            d = self.devices[device]
            rack = self.racks[d.rack]
            found = self._locations[device] = f"{rack.row_name}.{rack.position + 1:02d}-U{d.u:02d}"
        return found

    def label(self, device: str, port: str, far_device: str, far_port: str) -> str:
        return f"{self.location(device)}:{port} > {self.location(far_device)}:{far_port}"

    def rack_of(self, device: str) -> Rack:
        return self.racks[self.devices[device].rack]


def row_letters(row: int) -> str:
    """A, B, ... Z, AA, AB ...: spreadsheet-style row names."""
    name = ""
    row += 1
    while row:
        row, rest = divmod(row - 1, 26)
        name = chr(ord("A") + rest) + name
    return name


def route_length(layout: InstallLayout, a: str, z: str) -> float:
    """Up to the tray (or down to the floor void) from each device, along and across rows."""
    (xa, ya, za), (xz, yz, zz) = layout.position(a), layout.position(z)
    same_rack = layout.devices[a].rack == layout.devices[z].rack
    return routed_m(layout.site, same_rack, abs(xa - xz) + abs(ya - yz), za, zz)


def routed_m(site: SiteInputs, same_rack: bool, floor_m: float, za: float, zz: float) -> float:
    """A run between two heights `floor_m` apart on the floor, with slack, in 0.1 m. It grows
    as either end goes down (overhead tray) or up (raised floor), and apart (one rack): the
    longest run between two racks is between their extreme devices (install/lengths.py)."""
    if same_rack:
        run = abs(za - zz)
    elif site.cable_route == "overhead":
        top = site.rack_units * U_METRES + TRAY_CLEARANCE_M
        run = (top - za) + (top - zz) + floor_m
    else:
        run = za + zz + 2 * TRAY_CLEARANCE_M + floor_m
    return math.ceil((run + site.cable_slack_m) * 10 - 1e-9) / 10


class _Placer:
    """Fills racks row by row."""

    def __init__(self, site: SiteInputs) -> None:
        self.site = site
        self.racks: list[Rack] = []
        self.devices: dict[str, Device] = {}
        self.row = 0
        self.position = 0
        # What the optics of the switches placed in each rack (by index) may draw once cabled.
        self.optics_reserved_w: Counter = Counter()

    def new_row(self) -> None:
        if self.position:
            self.row += 1
            self.position = 0

    def reserve(self, racks: int) -> None:
        """Keep `racks` racks together in one row."""
        if self.position + racks > self.site.racks_per_row:
            self.new_row()

    def rack(self, kind: str, su: int | None = None) -> Rack:
        if self.position >= self.site.racks_per_row:
            self.new_row()
        rack = Rack(len(self.racks), self.row, self.position, kind, su)
        self.racks.append(rack)
        self.position += 1
        return rack

    def put(self, rack: Rack, device: Device) -> None:
        device.rack, device.u = rack.index, rack.units_used + 1
        rack.units_used += device.units
        rack.devices.append(device.name)
        if device.part:
            rack.parts[device.part] += 1
        if device.network:
            rack.network_typical_w += device.typical_w
            rack.network_max_w += device.max_w
        else:
            rack.server_typical_w += device.typical_w
            rack.server_max_w += device.max_w
        self.devices[device.name] = device

    def fill(
        self, kind: str, devices: list[Device], su: int | None = None, optics_w: float = 0
    ) -> None:
        """Devices into as many racks as they need, by height and power budget; `optics_w`:
        what a switch's optics may add once cabled."""
        rack = None
        budget_w = self.site.rack_power_kw * 1000
        for device in devices:
            if rack is None or (
                rack.units_used + device.units > self.site.rack_units
                or (
                    rack.devices
                    and rack.network_max_w
                    + rack.server_max_w
                    + (len(rack.devices) + 1) * optics_w
                    + device.max_w
                    > budget_w
                )
            ):
                rack = self.rack(kind, su)
            self.put(rack, device)
            self.optics_reserved_w[rack.index] += optics_w


def _power(part: ProductSpec | None) -> tuple[float, float]:
    if part is None:
        return 0.0, 0.0
    typical = part.power_typical_w or 0
    return typical, part.power_max_w or typical


def _switch_devices(
    fd: FabricDesign, plane_names: list[_Names], rename: dict[str, str]
) -> dict[str, list[Device]]:
    """The fabric's leaves, spines and core by role, the managed SM model swapped in for the
    first switches of the top tier (as the BOM counts them)."""
    t = fd.topology
    top = "core" if t.core_count else "spine" if t.spine_count else "leaf"
    by_role: dict[str, list[Device]] = {"leaf": [], "spine": [], "core": []}
    for names in plane_names:
        schedule = {
            "leaf": [names.leaf(i) for i in range(t.leaf_count)],
            "spine": [names.spine(p, s) for p in range(t.pods) for s in range(t.spines_per_pod)]
            if t.tiers > 1
            else [],
            "core": [names.core(i) for i in range(t.core_count)],
        }
        for role, listed in schedule.items():
            for index, name in enumerate(listed):
                part = fd.sm_switch if role == top and index < fd.sm_switch_count else fd.switch
                typical, maximum = _power(part)
                rail = _leaf_rail(t, index) if role == "leaf" else None
                by_role[role].append(
                    Device(
                        rename.get(name, name),
                        role,
                        part.part_number,
                        part.rack_units or 1,
                        typical,
                        maximum,
                        True,
                        rail=rail,
                    )
                )
    return by_role


def _optics_per_switch_w(fd: FabricDesign, by_sku: dict[str, ProductSpec]) -> float:
    """The most a fully cabled switch's modules may draw: every cage with the hungriest module
    the catalog has for its cages. From the catalog, not the design's media: the media follow
    the cable lengths, which follow the placement, so the placement must not follow the media."""
    switch = fd.switch
    modules = [
        p
        for p in by_sku.values()
        if p.category == "transceiver"
        and p.lifecycle != "eol"
        and p.cage_type == switch.cage_type
        and p.port_speed_gbps == switch.port_speed_gbps
        and (p.ports_per_module or 1) == switch.ports_per_cage
    ]
    cages = switch.cage_count or switch.port_count or 0
    return cages * max((_power(m)[1] for m in modules), default=0)


def _leaf_rail(t: Topology, leaf: int) -> int | None:
    """The one rail (1-based) a rail-optimised leaf carries; None for several, or no rails."""
    if not t.rail_optimized or t.tiers == 1 or t.rails_per_leaf > 1:
        return None
    return t.leaf_rails(leaf)[0] + 1


def _su_of_leaf(fd: FabricDesign, leaf: int) -> int:
    t = fd.topology
    if t.tiers == 1:
        return 0
    return leaf // t.group_leaves if t.rail_optimized else leaf


def place_devices(
    design: FabricDesign, site: SiteInputs, catalog: list[ProductSpec]
) -> tuple[InstallLayout, dict[str, str], dict[str, ProductSpec]]:
    """Racks and every device at its U, no cables yet: (layout, the cable schedule's device
    names -> placed names, the catalog by part number). Raises InvalidInput on a site field."""
    server = _server_model(design.server, site)
    check_site(
        site, server_units=server.units, server_max_kw=server.max_kw, own_rack=server.rack_scale
    )
    per_rack = (
        1
        if server.rack_scale
        else site.servers_per_rack
        or min(site.rack_units // server.units, int(site.rack_power_kw / server.max_kw + 1e-9))
    )
    by_sku = {p.part_number: p for p in catalog}
    plane_names = [_Names(design, plane) for plane in range(1, design.planes + 1)]
    su_servers, su_leaves = _scalable_units(design)
    # Names: the schedule's node-017 and leaf-r3-02 become placed names.
    rename = _leaf_renames(design, plane_names, su_leaves)
    fabric = _switch_devices(design, plane_names, rename)
    spines_by_name = {d.name: d for d in fabric["spine"]}
    placer = _Placer(site)
    placing = _Placement(
        design, by_sku, placer, plane_names, rename, _optics_per_switch_w(design, by_sku)
    )
    _place_scalable_units(
        placing, su_servers, su_leaves, fabric["leaf"], spines_by_name, server, per_rack
    )
    oob_switches = _place_network_row(placing, list(spines_by_name.values()) + fabric["core"])
    _place_storage_row(placing)
    _check_rows(placer)

    layout = InstallLayout(
        design,
        site,
        placer.racks,
        placer.devices,
        [],
        per_rack,
        server.units,
        server.max_kw,
        [],
        parts=by_sku,
    )
    # Placed once the fabric is cabled (plan_layout): the out-of-band switches and what places them.
    layout.management = (placer, oob_switches)
    return layout, rename, by_sku


@dataclass(frozen=True, slots=True)
class _ServerModel:
    """The compute server as racked."""

    part_number: str  # "" for a server the catalog does not name
    units: int
    typical_kw: float
    max_kw: float
    rack_scale: bool = False  # a whole liquid-cooled rack of its own (GB200 NVL72)

    def device(self, name: str, su: int) -> Device:
        return Device(
            name,
            "server",
            self.part_number,
            self.units,
            self.typical_kw * 1000,
            self.max_kw * 1000,
            False,
            su,
        )


def _server_model(server: ProductSpec | None, site: SiteInputs) -> _ServerModel:
    """The site's figures for the server, else the catalog server's, else an 8-GPU DGX-class
    system's. A rack-scale system fills its own rack, whatever the site's server height."""
    rack_scale = bool(server and server.rack_scale)
    if rack_scale:
        units = site.rack_units
    else:
        units = site.server_units or (server and server.rack_units) or DEFAULT_SERVER_UNITS
    if site.server_power_kw:
        max_kw = typical_kw = site.server_power_kw
    elif server and server.power_max_w:
        max_kw = server.power_max_w / 1000
        typical_kw = (server.power_typical_w or server.power_max_w) / 1000
    else:
        max_kw = typical_kw = DEFAULT_SERVER_KW
    return _ServerModel(server.part_number if server else "", units, typical_kw, max_kw, rack_scale)


@dataclass(slots=True)
class _Placement:
    """What the placing stages share."""

    design: FabricDesign
    by_sku: dict[str, ProductSpec]
    placer: _Placer
    plane_names: list[_Names]  # the cable schedule's names, plane by plane
    rename: dict[str, str]  # the cable schedule's device names -> placed names
    optics_w: float  # what a compute fabric switch's optics may add once cabled


def _scalable_units(design: FabricDesign) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """The servers and the leaves of each SU (0-based), in the cable schedule's order."""
    t = design.topology
    su_servers: dict[int, list[int]] = {}
    for s in range(t.servers):
        su_servers.setdefault(_su_of_leaf(design, t.leaf_of(s, 0)[0]), []).append(s)
    su_leaves: dict[int, list[int]] = {}
    for leaf in range(t.leaf_count):
        su_leaves.setdefault(_su_of_leaf(design, leaf), []).append(leaf)
    return su_servers, su_leaves


def _leaf_renames(
    design: FabricDesign, plane_names: list[_Names], su_leaves: dict[int, list[int]]
) -> dict[str, str]:
    """The leaves' placed names: su1-leaf-r2 (su1-p2-leaf-r2 on plane 2), su1-leaf-r1r2 for a
    leaf of two rails, su1-leaf without rails; one switch keeps its name (switch-01)."""
    t = design.topology
    rename: dict[str, str] = {}
    if t.tiers == 1:
        return rename
    for plane, names in enumerate(plane_names, start=1):
        for su, leaves in su_leaves.items():
            tag = f"su{su + 1}-" + (f"p{plane}-" if design.planes > 1 else "")
            for leaf in leaves:
                new = f"{tag}leaf-{rails_tag(t, leaf)}" if t.rail_optimized else f"{tag}leaf"
                rename[names.leaf(leaf)] = new
    return rename


def _place_scalable_units(
    placing: _Placement,
    su_servers: dict[int, list[int]],
    su_leaves: dict[int, list[int]],
    leaves: list[Device],
    spines_by_name: dict[str, Device],
    server: _ServerModel,
    per_rack: int,
) -> None:
    """SU by SU: its compute racks, then its leaves (every plane's) in network racks at the end
    of its run; with three tiers a pod's spines follow its last SU (taken from
    `spines_by_name`), so leaf-spine runs stay in the pod."""
    design, placer, rename = placing.design, placing.placer, placing.rename
    site = placer.site
    leaves_by_name = {d.name: d for d in leaves}
    leaf_rack_holds = _leaf_rack_holds(design.switch, site, placing.optics_w)
    for su in sorted(set(su_servers) | set(su_leaves)):
        servers = su_servers.get(su, [])
        leaf_names = [
            rename.get(names_leaf, names_leaf)
            for plane in placing.plane_names
            for names_leaf in (plane.leaf(i) for i in su_leaves.get(su, []))
        ]
        compute_racks = math.ceil(len(servers) / per_rack)
        network_racks = math.ceil(len(leaf_names) / leaf_rack_holds)
        # An SU keeps to one row when it fits one; a larger one runs on into the next rows.
        placer.reserve(min(compute_racks + network_racks, site.racks_per_row))
        _place_servers(placing, su, servers, server, per_rack)
        for leaf_name in leaf_names:
            leaves_by_name[leaf_name].su = su + 1
        placer.fill("network", [leaves_by_name[n] for n in leaf_names], su + 1, placing.optics_w)
        pod = _pod_ending_at(design.topology, su, su_leaves)
        if pod is not None:
            pod_spines = [
                spines_by_name.pop(names.spine(pod, s))
                for names in placing.plane_names
                for s in range(design.topology.spines_per_pod)
            ]
            placer.fill("network", pod_spines, optics_w=placing.optics_w)


def _leaf_rack_holds(switch: ProductSpec, site: SiteInputs, optics_w: float) -> int:
    """Leaves one network rack takes, by height and power budget (optics included)."""
    switch_units = switch.rack_units or 1
    switch_max = (_power(switch)[1] + optics_w) or 1
    return max(
        1, min(site.rack_units // switch_units, int(site.rack_power_kw * 1000 // switch_max))
    )


def _place_servers(
    placing: _Placement, su: int, servers: list[int], server: _ServerModel, per_rack: int
) -> None:
    """The SU's servers into its compute racks, each filled from the bottom: su1-r03-node07."""
    placer, names = placing.placer, placing.plane_names[0]
    for rack_number in range(math.ceil(len(servers) / per_rack)):
        rack = placer.rack("compute", su + 1)
        if server.rack_scale:
            rack.cooling = "liquid-rack"
        chunk = servers[rack_number * per_rack : (rack_number + 1) * per_rack]
        for slot, s in enumerate(chunk):
            name = f"su{su + 1}-r{rack_number + 1:02d}-node{slot + 1:02d}"
            placing.rename[names.node(s)] = name
            placer.put(rack, server.device(name, su + 1))


def _pod_ending_at(t: Topology, su: int, su_leaves: dict[int, list[int]]) -> int | None:
    """Three tiers: the pod whose last SU this is; None for an SU inside a pod."""
    pod = su_leaves[su][0] // t.leaves_per_pod if t.tiers == 3 and su in su_leaves else None
    next_pod = su_leaves[su + 1][0] // t.leaves_per_pod if su + 1 in su_leaves else None
    return pod if pod is not None and next_pod != pod else None


def _place_network_row(placing: _Placement, spines_and_cores: list[Device]) -> list[Device]:
    """The network row: spines, cores, the UFM appliances and the in-band management switches.
    Returns the out-of-band ones: they go beside the racks they serve, once the fabric is
    cabled."""
    design, by_sku = placing.design, placing.by_sku
    placing.placer.new_row()
    extra = _ufm_devices(design, placing.plane_names[0], by_sku)
    extra += _management_switches(design, by_sku, "in-band management", "mgmt-inband")
    oob_switches = _management_switches(design, by_sku, "out-of-band management", "mgmt-oob")
    top = spines_and_cores + extra
    if top:
        placing.placer.fill("network", top, optics_w=placing.optics_w)
    return oob_switches


def _ufm_devices(fd: FabricDesign, names: _Names, by_sku: dict[str, ProductSpec]) -> list[Device]:
    """The fabric's UFM appliances or UFM hosts (none without), as the design cabled them,
    else the BOM's subnet manager part."""
    if not fd.ufm:
        return []
    appliance = fd.ufm.device or next(
        (
            by_sku[b.sku]
            for b in fd.bom
            if b.role == "subnet manager" and b.sku in by_sku and by_sku[b.sku].unit == "each"
        ),
        None,
    )
    typical, maximum = _power(appliance)
    return [
        Device(
            names.ufm(index),
            "ufm",
            appliance.part_number if appliance else "",
            (appliance and appliance.rack_units) or 1,
            typical,
            maximum,
            True,
        )
        for index in range(fd.ufm.appliances)
    ]


def _management_switches(
    design: FabricDesign, by_sku: dict[str, ProductSpec], role: str, prefix: str
) -> list[Device]:
    """The BOM's management switches of one role (not their patch cords): mgmt-oob-01 ..."""
    devices = []
    for line in design.bom:
        if line.role == role and line.category == "switch":
            part = by_sku.get(line.sku)
            typical, maximum = _power(part)
            devices += [
                Device(
                    f"{prefix}-{index + 1:02d}",
                    role,
                    line.sku,
                    (part and part.rack_units) or 1,
                    typical,
                    maximum,
                    True,
                )
                for index in range(line.quantity)
            ]
    return devices


def _place_storage_row(placing: _Placement) -> None:
    """A storage fabric's row: the storage servers, then its switches and UFM appliances."""
    design, by_sku, placer = placing.design, placing.by_sku, placing.placer
    storage = design.storage
    if storage is None:
        return
    placer.new_row()
    stor_names = _StorageNames(design)
    hosts = [
        Device(
            stor_names.host(stor_names.compute_ports + k * stor_names.per_storage, 0)[0],
            "storage-server",
            "",
            STORAGE_SERVER_UNITS,
            STORAGE_SERVER_KW * 1000,
            STORAGE_SERVER_KW * 1000,
            False,
        )
        for k in range(design.requirements.storage_servers)
    ]
    placer.fill("storage", hosts)
    stor = _switch_devices(storage, [stor_names], {})
    stor_extra = _ufm_devices(storage, stor_names, by_sku)
    for role in ("leaf", "spine", "core"):
        for d in stor[role]:
            d.role = f"storage {role}"
    placer.fill(
        "network",
        stor["leaf"] + stor["spine"] + stor["core"] + stor_extra,
        optics_w=_optics_per_switch_w(storage, by_sku),
    )


def _check_rows(placer: _Placer) -> None:
    """The racks placed must fit the site's rows, when it says how many it has."""
    site = placer.site
    rows = placer.row + 1
    if site.rows is not None and rows > site.rows:
        raise InvalidInput.field(
            "rows",
            message(
                gettext_noop(
                    "the design needs {racks} racks in {rows} rows of at most "
                    "{per_row}; the site has {site_rows} rows. Add rows, allow more racks "
                    "per row, or raise the rack's power budget."
                ),
                racks=len(placer.racks),
                rows=rows,
                per_row=site.racks_per_row,
                site_rows=site.rows,
            ),
        )


class HostPortNames:
    """The host end as the OS names it (`mlx5_11`), from the schedule's name (`c1/1`, `nic3`,
    `stor2`, `p1`).

    A server model's catalog spec may give its compute ports' OS names in cage and port order
    (`ProductSpec.port_names`: a DGX H100 names cage 1's ports mlx5_11 and mlx5_6, not mlx5_0
    and mlx5_1); a validator or an as-built check compares by these names, so a wrong one would
    flag a correctly cabled link. Without them, ConnectX devices are numbered mlx5_0, mlx5_1, ...
    in NIC order, plane ports in turn. A compute server's storage ports take the lowest numbers
    its compute ports leave free (on a DGX H100: mlx5_1, mlx5_2, mlx5_7, mlx5_8, its QSFP112
    ports). UFM appliances and storage servers (`p1` ...) are numbered in order: the catalog
    does not name their devices.
    """

    def __init__(self, design: FabricDesign) -> None:
        self.design = design
        self.planes = design.planes
        server = design.server
        self.per_cage = server.ports_per_cage if server else 1
        self.compute = server.os_port_names if server else ()
        compute_count = design.requirements.nics * self.planes
        taken = set(self.compute) or {f"mlx5_{k}" for k in range(compute_count)}
        highest = compute_count + len(self.compute) + design.requirements.storage_ports_per_server
        self.storage = [f"mlx5_{k}" for k in range(highest) if f"mlx5_{k}" not in taken]

    def compute_name(self, index: int) -> str:
        if index < len(self.compute):
            return self.compute[index]
        return f"mlx5_{index}"

    def __call__(self, tier: str, port: str) -> str:
        if tier.removeprefix("storage ") == "ufm-leaf":
            return f"mlx5_{int(port[1:]) - 1}" if port.startswith("p") else port
        if port.startswith("nic"):
            nic, _, plane = port[3:].partition("/")
            return self.compute_name((int(nic) - 1) * self.planes + int(plane or 1) - 1)
        if port.startswith("c"):
            cage, _, lane = port[1:].partition("/")
            per_cage = self.planes if self.design.host_cage_planes > 1 else self.per_cage
            return self.compute_name((int(cage) - 1) * per_cage + int(lane) - 1)
        if port.startswith("stor"):
            return self.storage[int(port[4:]) - 1]
        if port.startswith("p"):  # a storage server's own ports
            return f"mlx5_{int(port[1:]) - 1}"
        return port


def _switch_cage(port: str) -> str:
    return port if port.startswith("p") else port.split("/")[0]


def _host_cage(port: str) -> str:
    """The host cage a host port plugs into: "c2/1" is cage 2 of a DGX; "nic3/2" is its own."""
    return port.split("/")[0] if port.startswith("c") else port


def _nic_rails(design: FabricDesign) -> dict[str, int]:
    """The rail (1-based) of each compute host port name, when leaves carry several rails (a
    leaf's own rail colours the others' cables)."""
    t = design.topology
    if not t.rail_optimized or t.tiers == 1 or t.rails_per_leaf == 1:
        return {}
    rails = {}
    for plane in range(1, design.planes + 1):
        names = _Names(design, plane)
        for nic in range(t.rails):
            port = host_port(design.server, nic, plane, design.host_cage_planes)
            rails[port or names.nic(nic)] = nic + 1
    return rails


def _cables(
    layout: InstallLayout, rename: dict[str, str], by_sku: dict[str, ProductSpec]
) -> Iterator[Cable]:
    design = layout.design
    numbers: dict[str, tuple[int, int]] = {}  # the schedule's cable id -> (number, legs so far)
    classes: dict[str, tuple[float, ...]] = {}
    modules: set[tuple[str, str, str]] = set()
    legs_per_cable: dict[str, int] = {}
    for fd in (design, design.storage):
        if fd is None:
            continue
        # Measured tiers may mix media (copper on short runs, optics on long ones).
        mixed = [m for tier in (fd.measured or {}).values() for m in tier.media_by_run.values()]
        for media in (
            fd.host_media,
            fd.trunk_media,
            fd.core_media,
            fd.ufm and fd.ufm.media,
            *mixed,
        ):
            if media:
                legs_per_cable[media.cable.part_number] = max(
                    legs_per_cable.get(media.cable.part_number, 1), media.links_per_cable
                )
    host_port_name = HostPortNames(design)
    nic_rails = _nic_rails(design)
    for run in cable_schedule(design):
        tier = run.tier
        base_tier = tier.removeprefix("storage ")
        host = base_tier in HOST_TIERS
        a = rename.get(run.a_device, run.a_device)
        z = rename.get(run.b_device, run.b_device)
        a_port = host_port_name(tier, run.a_port) if host else run.a_port
        number, legs = numbers.get(run.cable_id, (len(numbers) + 1, 0))
        numbers[run.cable_id] = (number, legs + 1)
        cable_id = f"C{number:06d}"
        if legs_per_cable.get(run.cable_part, 1) > 1:
            cable_id += f".{legs + 1}"
        # Optics draw power in the rack of the device they plug into.
        if run.a_module:
            key = _host_cage(run.a_port) if host else _switch_cage(run.a_port)
            if (a, key, run.a_module) not in modules:
                modules.add((a, key, run.a_module))
                _add_power(layout, a, by_sku.get(run.a_module))
        if run.b_module:
            key = _switch_cage(run.b_port)
            if (z, key, run.b_module) not in modules:
                modules.add((z, key, run.b_module))
                _add_power(layout, z, by_sku.get(run.b_module))
        rail = layout.devices[z].rail if host and not tier.startswith("storage") else None
        if rail is None and tier == "server-leaf":
            rail = nic_rails.get(run.a_port)  # a leaf of several rails: the NIC's own rail
        colour, colour_hex = (
            RAIL_COLOURS[(rail - 1) % len(RAIL_COLOURS)]
            if rail
            else TIER_COLOURS.get(base_tier, OTHER_COLOUR)
        )
        part = by_sku.get(run.cable_part)
        if run.cable_part not in classes:
            classes[run.cable_part] = _length_classes(part, by_sku)
        if legs == 0:  # a cable is picked once, at the A end of its first leg
            layout.rack_of(a).parts[run.cable_part] += 1
        length = route_length(layout, a, z)
        length_class = next((c for c in classes[run.cable_part] if c >= length), None)
        yield Cable(
            cable_id,
            tier,
            rail,
            run.cable_part,
            run.media,
            a,
            a_port,
            z,
            run.b_port,
            length,
            length_class,
            run.length_m,
            colour,
            colour_hex,
            (part.port_speed_gbps if part and part.port_speed_gbps else 0) or design.nic_speed_gbps,
        )


def _add_power(layout: InstallLayout, device: str, part: ProductSpec | None) -> None:
    typical, maximum = _power(part)
    rack = layout.rack_of(device)
    if part is not None:
        rack.parts[part.part_number] += 1
    rack.network_typical_w += typical
    rack.network_max_w += maximum


def _length_classes(part: ProductSpec | None, by_sku: dict[str, ProductSpec]) -> tuple[float, ...]:
    """The catalog's lengths of the part's family: same media, ends, speed and fibre class."""
    if part is None or not part.length_m:
        return ()
    return tuple(
        sorted(
            {
                p.length_m
                for p in by_sku.values()
                if p.category == "cable"
                and p.length_m
                and p.lifecycle != "eol"
                and p.media == part.media
                and (p.breakout or 1) == (part.breakout or 1)
                and p.cage_type == part.cage_type
                and p.port_speed_gbps == part.port_speed_gbps
                and p.reach_m == part.reach_m
            }
        )
    )


def _length_warnings(layout: InstallLayout) -> None:
    longest: dict[str, tuple[int, float]] = {}
    for cable in layout.cables:
        if cable.quoted_m is not None and cable.length_m > cable.quoted_m:
            count, worst = longest.get(cable.tier, (0, 0.0))
            longest[cable.tier] = (count + 1, max(worst, cable.length_m))
    for tier, (count, worst) in longest.items():
        layout.warning_messages.append(
            message(
                gettext_noop(
                    "{count} {tier} runs are longer than the quoted cable (up to {worst:g} "
                    "m): set the design's {tier} distance to at least {metres} m to quote "
                    "the right parts."
                ),
                count=count,
                tier=tier_name(tier),
                worst=worst,
                metres=math.ceil(worst),
            )
        )


# A cable tier's name in a sentence (its code in English).
TIER_NAMES = {
    "server-leaf": gettext_noop("server-leaf"),
    "leaf-spine": gettext_noop("leaf-spine"),
    "spine-core": gettext_noop("spine-core"),
    "ufm-leaf": gettext_noop("ufm-leaf"),
}


def tier_name(tier: str) -> Message | str:
    """A tier code (storage ones too) as a translatable name; an unknown tier reads as itself."""
    if tier.startswith("storage "):
        inner = tier_name(tier.removeprefix("storage "))
        return message(gettext_noop("storage {tier}"), tier=inner)
    return message(TIER_NAMES[tier]) if tier in TIER_NAMES else tier

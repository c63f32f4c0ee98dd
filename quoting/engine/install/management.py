"""The out-of-band management network: its switches placed beside the racks they serve, and
its cables: every server's BMC, every switch's and UFM appliance's management port, and the
management switches' own, to the management switches.

A management switch serves the next 48 (its port count) management ports in placement order, so
it goes into the rack nearest the middle of those devices that still has a free U and power
budget (servers' racks usually have both); a 1GbE copper run must stay within 100 m, which one
management row far from the compute rows would not in a large hall. The switches are placed
before the fabric is cabled, a rack's switches counted with the most their optics may draw, so
the placement does not follow the media: the design measures the same runs (`management_runs`,
from install/lengths.py) and buys each patch cord at its length class before its optics are
chosen.

The design quotes one RJ45 patch cord per management port (its BOM role "out-of-band
management"); here each gets an ID, both ends, a routed length and its length class, like the
fabric's cables, and the part the BOM bought for that run. Ports are handed out in placement
order, so a rack's devices sit on neighbouring ports of the same management switch. The ends are
named as the devices name them: `bmc` on a server or appliance, `mgmt0` on a switch, `p<n>` on
the management switch.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

from quoting.engine.catalog import ProductSpec
from quoting.engine.fabric.parts import pick_patch_cord
from quoting.engine.install.layout import (
    OTHER_COLOUR,
    Cable,
    Device,
    InstallLayout,
    _length_classes,
    route_length,
)
from quoting.engine.messages import gettext_noop, message

TIER = "oob-management"
OOB_ROLE = "out-of-band management"
# Cat6A (and Cat6) channels reach 100 m.
TWISTED_PAIR_REACH_M = 100.0


def _ports(layout: InstallLayout, switches: list[Device]) -> int:
    spec = layout.parts.get(switches[0].part)
    return spec.port_count if spec and spec.port_count else 48


def _served(endpoints: list[Device], number: int, ports: int) -> list[Device]:
    """What management switch `number` serves: the next ports - 1 management ports in
    placement order; its last port takes its own management port (the design counts one port
    per switch for it: endpoints <= (ports - 1) x switches)."""
    return endpoints[number * (ports - 1) : (number + 1) * (ports - 1)]


def place_management_switches(layout: InstallLayout, placer, switches: list[Device]) -> None:
    """Each switch into the rack nearest the middle of the devices it serves that has a free U
    and power budget; a new network rack when none has. Runs before the fabric is cabled: a
    rack's optics count as the most its switches' may draw (`placer.optics_reserved_w`)."""
    if not switches:
        return
    site = layout.site
    ports = _ports(layout, switches)
    endpoints = list(layout.devices.values())
    budget_w = site.rack_power_kw * 1000
    spacing, pitch = site.row_spacing_m, site.rack_pitch_m

    def fits(rack, switch: Device) -> bool:
        return (
            rack.units_used + switch.units <= site.rack_units
            and rack.network_max_w
            + rack.server_max_w
            + placer.optics_reserved_w[rack.index]
            + switch.max_w
            <= budget_w
        )

    # The racks a switch of this size and power still fits (a design measures these runs too,
    # so only the rack a switch went into is checked again, and nothing is sorted).
    open_racks: list = []
    sized = None
    for number, switch in enumerate(switches):
        if sized != (switch.units, switch.max_w):
            sized = (switch.units, switch.max_w)
            open_racks = [rack for rack in layout.racks if fits(rack, switch)]
        group = _served(endpoints, number, ports) or endpoints[-1:]
        origin = layout.racks[group[len(group) // 2].rack]
        row, position = origin.row, origin.position
        nearest = min(
            open_racks,
            key=lambda r: (
                abs(r.row - row) * spacing + abs(r.position - position) * pitch,
                r.index,
            ),
            default=None,
        )
        if nearest is None:
            placer.fill("network", [switch])
            nearest = layout.racks[switch.rack]
            if nearest not in open_racks:
                open_racks.append(nearest)
        else:
            placer.put(nearest, switch)
        if not fits(nearest, switch):
            open_racks.remove(nearest)


def management_port(role: str) -> str:
    return "bmc" if role in ("server", "storage-server", "ufm") else "mgmt0"


def management_runs(layout: InstallLayout) -> Iterator[tuple[Device, Device, int, float]]:
    """(device, its management switch, the switch's port, the routed run) of every management
    port, the switches' own last, once the switches are placed."""
    switches = [d for d in layout.devices.values() if d.role == OOB_ROLE]
    if not switches:
        return
    ports = _ports(layout, switches)
    endpoints = [d for d in layout.devices.values() if d.role != OOB_ROLE]
    for index, switch in enumerate(switches):
        for port, device in enumerate([*_served(endpoints, index, ports), switch], 1):
            yield device, switch, port, route_length(layout, device.name, switch.name)


def _cord_of(layout: InstallLayout, by_sku: dict[str, ProductSpec]) -> Callable[[float], str]:
    """The part of a management run's cord: the one the design bought for that run's length
    when it measured them (fabric/design.py), else the BOM's one cord."""
    design = layout.design
    measured = design.lengths is not None and bool(design.lengths.oob_m)
    bom_cord = next(
        (line.sku for line in design.bom if line.role == OOB_ROLE and line.category == "cable"),
        "",
    )
    if not measured:
        return lambda _metres: bom_cord
    catalog = list(by_sku.values())
    chosen: dict[float, str] = {}

    def cord(metres: float) -> str:
        if metres not in chosen:
            part = pick_patch_cord(catalog, metres)
            chosen[metres] = part.part_number if part else ""
        return chosen[metres]

    return cord


def management_cables(
    layout: InstallLayout, by_sku: dict[str, ProductSpec], first_number: int
) -> Iterator[Cable]:
    """The management cables, numbered on from the fabric's (`first_number` is the next ID)."""
    switches = [d for d in layout.devices.values() if d.role == OOB_ROLE]
    if not switches:
        return
    cord_of = _cord_of(layout, by_sku)
    switch_spec = by_sku.get(switches[0].part)
    speed = switch_spec.port_speed_gbps if switch_spec and switch_spec.port_speed_gbps else 1
    colour, colour_hex = OTHER_COLOUR
    classes: dict[str, tuple[float, ...]] = {}
    number = first_number
    for device, switch, port, length in management_runs(layout):
        cord = cord_of(length)
        part = by_sku.get(cord)
        if cord not in classes:
            classes[cord] = _length_classes(part, by_sku)
        if cord:
            layout.rack_of(device.name).parts[cord] += 1
        yield Cable(
            f"C{number:06d}",
            TIER,
            None,
            cord,
            part.media if part else "",
            device.name,
            management_port(device.role),
            switch.name,
            f"p{port}",
            length,
            next((c for c in classes[cord] if c >= length), None),
            part.length_m if part else None,
            colour,
            colour_hex,
            speed,
        )
        number += 1


def management_warnings(layout: InstallLayout) -> None:
    runs = [c for c in layout.cables if c.tier == TIER]
    long = [c.length_m for c in runs if c.quoted_m is not None and c.length_m > c.quoted_m]
    if long:
        layout.warning_messages.append(
            message(
                gettext_noop(
                    "{count} out-of-band management runs are longer than the quoted patch cord "
                    "(up to {worst:g} m): set the design's server-to-leaf distance to at least "
                    "{metres} m to quote the right cords."
                ),
                count=len(long),
                worst=max(long),
                metres=math.ceil(max(long)),
            )
        )
    beyond = [c.length_m for c in runs if c.length_m > TWISTED_PAIR_REACH_M]
    if beyond:
        layout.warning_messages.append(
            message(
                gettext_noop(
                    "{count} out-of-band management runs exceed the 100 m a twisted-pair channel "
                    "reaches (up to {worst:g} m): add management switches nearer those racks."
                ),
                count=len(beyond),
                worst=max(beyond),
            )
        )

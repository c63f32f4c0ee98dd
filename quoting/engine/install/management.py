"""The out-of-band management network's cables: every server's BMC, every switch's and UFM
appliance's management port, and the management switches' own, to the management switches.

The design quotes one RJ45 patch cord per management port (its BOM role "out-of-band
management"); here each gets an ID, both ends, a routed length and its length class, like the
fabric's cables. Ports are handed out in placement order, so a rack's devices sit on
neighbouring ports of the same management switch. The ends are named as the devices name them:
`bmc` on a server or appliance, `mgmt0` on a switch, `p<n>` on the management switch.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from quoting.engine.catalog import ProductSpec
from quoting.engine.install.layout import (
    OTHER_COLOUR,
    Cable,
    InstallLayout,
    _length_classes,
    route_length,
)
from quoting.engine.messages import gettext_noop, message

TIER = "oob-management"
OOB_ROLE = "out-of-band management"
# Cat6A (and Cat6) channels reach 100 m.
TWISTED_PAIR_REACH_M = 100.0


def management_port(role: str) -> str:
    return "bmc" if role in ("server", "storage-server", "ufm") else "mgmt0"


def management_cables(
    layout: InstallLayout, by_sku: dict[str, ProductSpec], first_number: int
) -> Iterator[Cable]:
    """The management cables, numbered on from the fabric's (`first_number` is the next ID)."""
    switches = [d for d in layout.devices.values() if d.role == OOB_ROLE]
    if not switches:
        return
    cord = next((line.sku for line in layout.design.bom
                 if line.role == OOB_ROLE and line.category == "cable"), "")
    part = by_sku.get(cord)
    classes = _length_classes(part, by_sku)
    switch_spec = by_sku.get(switches[0].part)
    ports = (switch_spec.port_count if switch_spec and switch_spec.port_count else 48)
    speed = (switch_spec.port_speed_gbps if switch_spec and switch_spec.port_speed_gbps else 1)
    # Everything else first, then the management switches' own ports.
    endpoints = [d for d in layout.devices.values() if d.role != OOB_ROLE] + switches
    colour, colour_hex = OTHER_COLOUR
    for index, device in enumerate(endpoints):
        switch, port = divmod(index, ports)
        if switch >= len(switches):  # more ports than the design counted: never cable twice
            break
        far = switches[switch].name
        length = route_length(layout, device.name, far)
        if cord:
            layout.rack_of(device.name).parts[cord] += 1
        yield Cable(
            f"C{first_number + index:06d}", TIER, None, cord, part.media if part else "",
            device.name, management_port(device.role), far, f"p{port + 1}", length,
            next((c for c in classes if c >= length), None), part.length_m if part else None,
            colour, colour_hex, speed,
        )


def management_warnings(layout: InstallLayout) -> None:
    runs = [c for c in layout.cables if c.tier == TIER]
    long = [c.length_m for c in runs if c.quoted_m is not None and c.length_m > c.quoted_m]
    if long:
        layout.warning_messages.append(message(gettext_noop(
            "{count} out-of-band management runs are longer than the quoted patch cord (up to "
            "{worst:g} m): set the design's leaf-to-spine distance to at least {metres} m to "
            "quote the right cords."), count=len(long), worst=max(long),
            metres=math.ceil(max(long))))
    beyond = [c.length_m for c in runs if c.length_m > TWISTED_PAIR_REACH_M]
    if beyond:
        layout.warning_messages.append(message(gettext_noop(
            "{count} out-of-band management runs exceed the 100 m a twisted-pair channel "
            "reaches (up to {worst:g} m): add management switches nearer those racks."),
            count=len(beyond), worst=max(beyond)))

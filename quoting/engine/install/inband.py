"""The in-band management network's cables in the pack: every server's in-band ports to its
in-band switches, and each MLAG pair's peer link (fabric/design.py `inband_switches_for`).

The design quotes one 100GbE cable per run, or beyond the longest cable a fibre with a
transceiver at each end (fabric/design.py `_buy_inband_cables`, BOM role "in-band management");
here each gets an ID, both ends, a routed length and the part the BOM bought for that run (the
fibre, for a run on optics, whose modules are counted in their racks as the fabric's): for its
routed length when the design measured the runs on the site, else for the length the design
assumed (`inband_run_m`). A design saved before the cables (or, for its long runs, the optics)
were quoted has none in its BOM, so those runs keep no part, like a run the installer buys
locally. Servers (compute, then storage, in placement order) fill the switches in turn: with
pairs, server k of a group is on port p<k> of both switches of its pair, its first in-band port
(`inband1`) to the first switch, its second (`inband2`) to the second, so a switch can fail and
every server stays reachable; the peer link takes the two ports after the servers' (p61 and p62
on a 64-port SN4600C; NVIDIA's example configuration uses swp57 and swp58, any two ports serve),
and the last two stay free as uplinks. Single switches: one port per server (`inband1`), no peer
link.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from quoting.engine.fabric.design import INBAND_PEER_LINK, INBAND_UPLINKS, inband_run_m
from quoting.engine.fabric.parts import Media, pick_inband_media
from quoting.engine.install.layout import (
    OTHER_COLOUR,
    Cable,
    Device,
    InstallLayout,
    _add_power,
    _length_classes,
    route_length,
)

TIER = "inband-management"
ROLE = "in-band management"
SERVER_ROLES = ("server", "storage-server")


def inband_runs(layout: InstallLayout) -> Iterator[tuple[Device, str, Device, str]]:
    """(a device, its port, z device, its port) of every in-band cable; a peer link's a device
    is a switch."""
    switches = [d for d in layout.devices.values() if d.role == ROLE]
    if not switches:
        return
    spec = layout.parts.get(switches[0].part)
    ports = spec.port_count if spec and spec.port_count else 64
    redundant = layout.design.management.inband_peer_cables > 0
    servers = [d for d in layout.devices.values() if d.role in SERVER_ROLES]
    per_switch = ports - INBAND_UPLINKS - (INBAND_PEER_LINK if redundant else 0)
    width = 2 if redundant else 1
    for group, start in enumerate(range(0, len(servers), per_switch)):
        homes = switches[group * width : (group + 1) * width]
        for port, server in enumerate(servers[start : start + per_switch], 1):
            for lane, switch in enumerate(homes, 1):
                yield server, f"inband{lane}", switch, f"p{port}"
        if redundant:
            first, second = homes
            for port in range(per_switch + 1, per_switch + INBAND_PEER_LINK + 1):
                yield first, f"p{port}", second, f"p{port}"


def _media_of(layout: InstallLayout) -> Callable[[float, bool], Media | None]:
    """The media of an in-band run, by its routed length and whether it is a peer link: what the
    design bought for that run (None when its BOM quotes no in-band cable, or no transceiver for
    a run that takes optics: a design saved before it quoted them left such runs unquoted)."""
    design = layout.design
    bought = {line.category for line in design.bom if line.role == ROLE}
    switches = [d for d in layout.devices.values() if d.role == ROLE]
    switch = layout.parts.get(switches[0].part) if switches else None
    if "cable" not in bought or switch is None:
        return lambda _metres, _peer: None
    measured = design.lengths is not None and bool(design.lengths.inband_m)
    catalog = list(layout.parts.values())
    chosen: dict[float, Media | None] = {}

    def media(metres: float, peer: bool) -> Media | None:
        run = metres if measured else inband_run_m(design.requirements, peer=peer)
        if run not in chosen:
            found = pick_inband_media(catalog, switch, run)
            chosen[run] = None if found and found.optical and "transceiver" not in bought else found
        return chosen[run]

    return media


def inband_cables(layout: InstallLayout, first_number: int) -> Iterator[Cable]:
    """The in-band cables, numbered on from `first_number`. A run on optics is its fibre, and
    its two modules draw power in the racks of the devices they plug into, as the fabric's."""
    switches = [d for d in layout.devices.values() if d.role == ROLE]
    spec = layout.parts.get(switches[0].part) if switches else None
    speed = spec.port_speed_gbps if spec and spec.port_speed_gbps else 100
    colour, colour_hex = OTHER_COLOUR
    media_of = _media_of(layout)
    classes: dict[str, tuple[float, ...]] = {}
    for number, (a, a_port, z, z_port) in enumerate(inband_runs(layout), first_number):
        length = route_length(layout, a.name, z.name)
        media = media_of(length, a.role == ROLE)
        part = media.cable if media else None
        cable = part.part_number if part else ""
        if cable not in classes:
            classes[cable] = _length_classes(part, layout.parts)
        if part:
            layout.rack_of(a.name).parts[cable] += 1
        if media and media.optical:  # a module in each end's port (one part for both ends)
            _add_power(layout, a.name, media.host_module)
            _add_power(layout, z.name, media.switch_module)
        yield Cable(
            f"C{number:06d}",
            TIER,
            None,
            cable,
            part.media if part else "",
            a.name,
            a_port,
            z.name,
            z_port,
            length,
            next((c for c in classes[cable] if c >= length), None),
            part.length_m if part else None,
            colour,
            colour_hex,
            speed,
        )

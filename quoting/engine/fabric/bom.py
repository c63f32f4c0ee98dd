"""Counting what a topology needs: links, transceivers, cables, power and rack units (rules 9-11).

Counts come from the leaf and pod fill profiles, never from walking links, and they agree with
the cable schedule (a property test checks it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from quoting.engine.catalog import ProductSpec
from quoting.engine.fabric.parts import Media
from quoting.engine.fabric.topology import Topology, ceil_div
from quoting.engine.messages import Message, gettext_noop, message
from quoting.engine.spares import kit_of

# What each BOM role is, for people: a role is a code in the BOM, the snapshot and a quote line.
BOM_ROLE_LABELS = {
    "leaf": gettext_noop("leaf switches"),
    "spine": gettext_noop("spine switches"),
    "core": gettext_noop("core switches"),
    "server-leaf": gettext_noop("server to leaf links"),
    "leaf-spine": gettext_noop("leaf to spine links"),
    "spine-core": gettext_noop("spine to core links"),
    "ufm-leaf": gettext_noop("UFM appliance or host to leaf links"),
    "server NIC": gettext_noop("server NICs"),
    "subnet manager": gettext_noop("subnet manager"),
    "in-band management": gettext_noop("in-band management"),
    "out-of-band management": gettext_noop("out-of-band management"),
    "spare": gettext_noop("spares"),
}
STORAGE_ROLE_PREFIX = "storage "


def bom_role_label(role: str) -> Message:
    """The role's label as a translatable message; an unknown role reads as itself."""
    if kit_of(role) is not None:  # its class and ratio are in the line's description
        return message(gettext_noop("spares kit"))
    if role.startswith(STORAGE_ROLE_PREFIX):
        inner = role.removeprefix(STORAGE_ROLE_PREFIX)
        return message(gettext_noop("storage fabric: {role}"), role=bom_role_label(inner))
    return message(BOM_ROLE_LABELS.get(role, role))


@dataclass(frozen=True, slots=True)
class BomLine:
    sku: str
    category: str
    quantity: int
    role: str  # leaf, spine, core, server-leaf, leaf-spine, spine-core, subnet manager, spare ...
    name: str = ""


@dataclass(frozen=True, slots=True)
class LinkCount:
    """One class of links and what each way of building it takes."""

    links: int
    switch_cages: int  # cages with a module when optical (twin-port: one module per two ports)
    fibres: int  # one per switch port (a splitter fibre serves both NDR200 hosts of a port)
    copper_cables: int  # one per cage: a copper cable joins whole cages
    host_modules: int = 0


def host_links(t: Topology) -> LinkCount:
    switch_ports = sum(n * ceil_div(e, t.split) for n, e in t.leaf_fill())
    cages = sum(n * ceil_div(ceil_div(e, t.split), t.ports_per_cage) for n, e in t.leaf_fill())
    return LinkCount(t.endpoints, cages, switch_ports, cages, t.endpoints)


def leaf_spine_links(t: Topology) -> LinkCount:
    links = t.leaf_count * t.leaf_up
    cages = t.leaf_count * ceil_div(t.leaf_up, t.ports_per_cage) + sum(
        pods * t.spines_per_pod * ceil_div(leaves * t.links_per_leaf_per_spine, t.ports_per_cage)
        for pods, leaves in t.pod_fill()
    )
    return LinkCount(links, cages, links, links // t.ports_per_cage)


def spine_core_links(t: Topology) -> LinkCount:
    links = t.spine_count * t.spine_up
    core_ports = t.pods * t.core_ports_per_pod
    cages = t.spine_count * ceil_div(t.spine_up, t.ports_per_cage) + t.core_count * ceil_div(
        core_ports, t.ports_per_cage
    )
    return LinkCount(links, cages, links, links // t.ports_per_cage)


class Tally:
    """Accumulates BOM quantities by (part, role), with power and rack units."""

    def __init__(self) -> None:
        self.lines: dict[tuple[str, str], tuple[ProductSpec, int]] = {}
        self.power_typical_w = 0.0
        self.power_max_w = 0.0
        self.rack_units = 0

    def add(self, part: ProductSpec, quantity: int, role: str, *, powered: bool = True) -> None:
        if quantity <= 0:
            return
        key = (part.part_number, role)
        self.lines[key] = (part, self.lines.get(key, (part, 0))[1] + quantity)
        if powered:  # NICs draw their power inside the servers, not in the network racks
            self.power_typical_w += (part.power_typical_w or 0) * quantity
            self.power_max_w += (part.power_max_w or part.power_typical_w or 0) * quantity
            self.rack_units += (part.rack_units or 0) * quantity

    def add_links(
        self,
        media: Media,
        count: LinkCount,
        role: str,
        planes: int,
        host_planes: int | None = None,
        cables: list[tuple[ProductSpec, int]] | None = None,
    ) -> None:
        """`host_planes`: how many times the host modules count (1 when one host cage serves
        every plane); the planes by default. `cables`: the cables of every plane by length
        class when the runs were measured on a layout; else the media's one cable each."""
        if media.optical:
            self.add(media.switch_module, count.switch_cages * planes, role)
            if media.host_module:
                host_planes = planes if host_planes is None else host_planes
                self.add(media.host_module, count.host_modules * host_planes, role)
            if cables is None:
                self.add(media.cable, count.fibres * planes, role)
        elif cables is None:
            self.add(media.cable, count.copper_cables * planes, role)
        for part, quantity in cables or ():
            self.add(part, quantity, role)

    def add_spares(self, percent: float) -> None:
        """Spare switches, optics and cables, rounded up per part."""
        if not percent:
            return
        hardware: dict[str, tuple[ProductSpec, int]] = {}
        for part, quantity in list(self.lines.values()):
            if part.category in ("switch", "transceiver", "cable"):
                hardware[part.part_number] = (
                    part,
                    hardware.get(part.part_number, (part, 0))[1] + quantity,
                )
        for part, quantity in hardware.values():
            # Spares sit on a shelf: they add cost but no power or rack space.
            spares = math.ceil(quantity * Fraction(percent).limit_denominator(1000) / 100)
            self.add(part, spares, "spare", powered=False)

    def bom(self) -> tuple[BomLine, ...]:
        return tuple(
            BomLine(part.part_number, part.category, quantity, role, part.name)
            for (_, role), (part, quantity) in self.lines.items()
        )

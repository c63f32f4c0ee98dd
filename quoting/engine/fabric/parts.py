"""Choosing catalog parts by their specs: switch, NIC, optics and cables (rules 1, 9, 10).

No part number is written here: every choice filters the catalog by generation, cage, media,
reach and length, so a product added to the catalog is used at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from quoting.engine.catalog import ProductSpec
from quoting.engine.errors import InvalidInput
from quoting.engine.messages import Message, gettext_noop, message

# Cheapest and coolest first: copper, then cables with optics built in, then pluggable optics.
CABLE_MEDIA = ("dac", "acc", "aoc")
OPTICAL_MEDIA = ("multimode", "singlemode")
LIFECYCLE_RANK = {"active": 0, "preview": 1}  # end-of-life parts are never picked on their own


@dataclass(frozen=True, slots=True)
class Media:
    """How one class of links is built: a cable, and a transceiver at each end when optical."""

    kind: str  # dac, acc, aoc, multimode, singlemode
    cable: ProductSpec
    links_per_cable: int  # a twin-port DAC carries two links; a splitter fibre two NDR200 links
    switch_module: ProductSpec | None = None
    host_module: ProductSpec | None = None  # host links only

    @property
    def optical(self) -> bool:
        return self.switch_module is not None


def _best(
    items: Iterable[ProductSpec], ok: Callable[[ProductSpec], bool], key: Callable
) -> ProductSpec | None:
    found = [p for p in items if p.lifecycle in LIFECYCLE_RANK and ok(p)]
    return min(
        found, key=lambda p: (*key(p), LIFECYCLE_RANK[p.lifecycle], p.part_number), default=None
    )


def find_part(catalog: list[ProductSpec], part_number: str) -> ProductSpec | None:
    return next((p for p in catalog if p.part_number == part_number), None)


def generation_speed(catalog: list[ProductSpec], generation: str) -> int | None:
    """A generation's port speed, as the catalog's switches and NICs of that generation state it."""
    return next(
        (
            p.port_speed_gbps
            for p in catalog
            if p.generation == generation
            and p.port_speed_gbps
            and p.category in ("switch", "adapter", "dpu")
        ),
        None,
    )


def split_for(catalog: list[ProductSpec], switch: ProductSpec, nic_generation: str) -> int | None:
    """Endpoints per switch port: 1 when the switch runs the NIC generation; 2 for NDR200 hosts on
    an NDR switch through 1:2 splitter fibres (only if the catalog sells such a splitter)."""
    if switch.generation == nic_generation:
        return 1
    nic_speed = generation_speed(catalog, nic_generation)
    for cable in catalog:
        if cable.category != "cable" or cable.generation != nic_generation or not nic_speed:
            continue
        # A copper cable's near end fills a whole cage; a fibre's plugs into one module port.
        near_ports = switch.ports_per_cage if cable.media in CABLE_MEDIA else 1
        per_port, rest = divmod(cable.breakout or 1, near_ports)
        if per_port > 1 and not rest and switch.port_speed_gbps == nic_speed * per_port:
            return per_port
    return None


def pick_switch(
    catalog: list[ProductSpec],
    *,
    family: str,
    nic_generation: str,
    part_number: str | None,
    prefer_managed: bool,
) -> tuple[ProductSpec, int]:
    """The fabric switch and the split it runs at."""
    if part_number:
        switch = find_part(catalog, part_number)
        if switch is None or switch.category != "switch":
            raise InvalidInput.field(
                "switch_part_number",
                message(gettext_noop("{sku} is not a catalog switch."), sku=part_number),
            )
        if switch.protocol != family:
            raise InvalidInput.field(
                "switch_part_number",
                message(
                    gettext_noop("{sku} is a {protocol} switch; the fabric family is {family}."),
                    sku=part_number,
                    protocol=switch.protocol,
                    family=family,
                ),
            )
        split = split_for(catalog, switch, nic_generation)
        if split is None:
            raise InvalidInput.field(
                "nic_generation",
                message(
                    gettext_noop("{nics} NICs do not match the {generation} switch {sku}."),
                    nics=nic_generation,
                    generation=switch.generation,
                    sku=part_number,
                ),
            )
        return switch, split
    # Unmanaged switches are cheaper where UFM or OpenSM runs the fabric anyway; managed ones
    # let a small fabric run its subnet manager on-switch with nothing else to buy.
    switch = _best(
        catalog,
        lambda p: (
            p.category == "switch"
            and p.protocol == family
            and bool(p.port_count)
            and split_for(catalog, p, nic_generation) is not None
        ),
        key=lambda p: (
            split_for(catalog, p, nic_generation) > 1,
            bool(p.managed) != prefer_managed,
            -p.port_count,
        ),
    )
    if switch is None:
        raise InvalidInput.field(
            "nic_generation",
            message(
                gettext_noop("the catalog has no {family} switch for {nics} NICs."),
                family=family,
                nics=nic_generation,
            ),
        )
    return switch, split_for(catalog, switch, nic_generation)


def managed_sibling(catalog: list[ProductSpec], switch: ProductSpec) -> ProductSpec | None:
    """The managed model of the same switch (QM9700 for a QM9790), keeping the airflow variant:
    the catalog has no airflow field, and NVIDIA part numbers differ only in the model digits."""

    def differing_characters(p: ProductSpec) -> int:
        return sum(a != b for a, b in zip(p.part_number, switch.part_number, strict=False))

    return _best(
        catalog,
        lambda p: (
            p.category == "switch"
            and p.managed is True
            and p.family == switch.family
            and p.generation == switch.generation
            and p.port_count == switch.port_count
            and p.cage_type == switch.cage_type
        ),
        key=lambda p: (differing_characters(p),),
    )


def cage_planes(part: ProductSpec, nic_speed: int, planes: int) -> int:
    """Planes one port (one cage) of a NIC or server serves: a ConnectX-8's 800G cage runs
    2 x 400GbE, one port to each plane of a two-plane Spectrum-X fabric (NVIDIA DGX SuperPOD B300,
    Spectrum-4 Ethernet RA: each GPU has 2 x 400GbE through two planes); 1 otherwise."""
    if planes > 1 and part.port_speed_gbps == nic_speed * planes:
        return planes
    return 1


def plane_ports(part: ProductSpec, nic_speed: int, planes: int) -> int:
    """The NIC's ports at the fabric's speed: a two-port B3240 has 2, a ConnectX-8 split across
    two planes has 2 through its one cage."""
    return (part.port_count or 1) * cage_planes(part, nic_speed, planes)


def nic_fits(
    nic: ProductSpec, *, family: str, nic_generation: str, nic_speed: int, planes: int = 1
) -> bool:
    if nic.protocol not in ("", family):
        return False
    if family == "ethernet":  # Ethernet runs on VPI adapters named by their InfiniBand generation
        return nic.port_speed_gbps == nic_speed or cage_planes(nic, nic_speed, planes) > 1
    return nic.generation == nic_generation


def pick_nic(
    catalog: list[ProductSpec],
    *,
    family: str,
    nic_generation: str,
    nic_speed: int,
    planes: int,
    part_number: str | None,
) -> ProductSpec:
    """The NIC whose cage decides the host-side optics, in the BOM only when asked."""
    if part_number:
        nic = find_part(catalog, part_number)
        if nic is None or nic.category not in ("adapter", "dpu"):
            raise InvalidInput.field(
                "nic_part_number",
                message(gettext_noop("{sku} is not a catalog NIC."), sku=part_number),
            )
        if not nic_fits(
            nic, family=family, nic_generation=nic_generation, nic_speed=nic_speed, planes=planes
        ):
            raise InvalidInput.field(
                "nic_part_number",
                message(
                    gettext_noop("{sku} is a {generation} {speed}G NIC; the fabric runs {fabric}."),
                    sku=part_number,
                    generation=nic.generation,
                    speed=nic.port_speed_gbps,
                    fabric=nic_generation,
                ),
            )
        if plane_ports(nic, nic_speed, planes) < planes:
            raise InvalidInput.field(
                "nic_part_number",
                message(
                    gettext_noop("{sku} has fewer ports than the {planes} planes."),
                    sku=part_number,
                    planes=planes,
                ),
            )
        return nic
    # A NIC made for the fabric's protocol first: on Ethernet that is the SuperNIC NVIDIA's
    # Spectrum-X reference architectures use (BlueField-3 B3140H), ahead of a VPI adapter. Two
    # 400G planes take the ConnectX-8 SuperNIC, whose 800G cage runs one port to each plane
    # (NVIDIA's DGX B300 Spectrum-X build); a DPU such as a B3240 only when no adapter fits.
    nic = _best(
        catalog,
        lambda p: (
            p.category in ("adapter", "dpu")
            and plane_ports(p, nic_speed, planes) >= planes
            and nic_fits(
                p, family=family, nic_generation=nic_generation, nic_speed=nic_speed, planes=planes
            )
        ),
        key=lambda p: (
            p.category != "adapter",
            p.protocol != family,
            plane_ports(p, nic_speed, planes) != planes,
        ),
    )
    if nic is None:
        raise InvalidInput.field(
            "nic_generation",
            message(gettext_noop("the catalog has no {nics} NIC."), nics=nic_generation),
        )
    return nic


def _no_media(field: str, distance: float, what: Message) -> InvalidInput:
    return InvalidInput.field(
        field,
        message(
            gettext_noop(
                "no catalog cable or optic reaches {distance:g} m for {what}; shorten the run "
                "or add the part to the catalog."
            ),
            distance=distance,
            what=what,
        ),
    )


class MissingFibre(InvalidInput):
    """Optics reach the run but the catalog sells no fibre made for their connector: a gap in
    the catalog, not a run too long (a measured run keeps this message as it is)."""


_LINKS = {
    "host": gettext_noop("server-to-leaf links"),
    "trunk": gettext_noop("switch-to-switch links"),
}
_FIBRE_KINDS = {"multimode": gettext_noop("multimode"), "singlemode": gettext_noop("single-mode")}


def _no_fibre(
    field: str,
    distance: float,
    links: str,
    generation: str,
    module: ProductSpec,
    longest: ProductSpec | None,
) -> MissingFibre:
    """The run needs `module`'s optics and no catalog fibre is made for its connector (HDR's
    SR4 module, whose MPO-12/UPC fibre the catalog does not sell: catalog/data/SOURCES.md).
    `longest` is the catalog's longest cable these links could take: the message names where
    the cables stop and what a catalog manager can add, so the reader knows what to change."""
    kind = _FIBRE_KINDS.get(module.media)
    params = {
        "generation": generation,
        "links": message(_LINKS[links]),
        "metres": distance,
        "module": module.part_number,
        "reach": module.reach_m or 0,
        "kind": message(kind) if kind else module.media,
    }
    if longest is None:
        text = message(
            gettext_noop(
                "{generation} {links} of {metres:g} m need optics ({module}, {reach:g} m), and "
                "the catalog has no {generation} {kind} fibre made for that module's connector, "
                "so no part can be quoted for them. A catalog manager can add that fibre (at "
                "least {metres:g} m long); otherwise plan runs the catalog's {generation} "
                "cables reach."
            ),
            **params,
        )
    else:
        text = message(
            gettext_noop(
                "{generation} {links} of {metres:g} m are longer than the catalog's longest "
                "{generation} cable for them ({cable}, {length:g} m) and need optics ({module}, "
                "{reach:g} m), and the catalog has no {generation} {kind} fibre made for that "
                "module's connector, so no part can be quoted for them. A catalog manager can "
                "add that fibre (at least {metres:g} m long) or a longer {generation} cable (at "
                "least {metres:g} m); otherwise plan runs within {length:g} m."
            ),
            cable=longest.part_number,
            length=longest.length_m or 0,
            **params,
        )
    return MissingFibre.field(field, text)


def _longest_cable(
    catalog: list[ProductSpec], cage_type: str, speed: int, breakout: int
) -> ProductSpec | None:
    """The longest copper or AOC cable `_copper` could choose for these links: where the
    catalog's cables stop."""
    return _best(
        catalog,
        lambda p: (
            p.category == "cable"
            and p.media in CABLE_MEDIA
            and p.cage_type == cage_type
            and p.port_speed_gbps == speed
            and (p.breakout or 1) == breakout
            and bool(p.length_m)
        ),
        key=lambda p: (-(p.length_m or 0),),
    )


def _fibre_missing(
    catalog: list[ProductSpec], module: ProductSpec, breakout: int
) -> ProductSpec | None:
    """`module` when the catalog has no quotable fibre of its class at any length."""
    return module if _fibre(catalog, module, breakout, 0) is None else None


def _fibre(
    catalog: list[ProductSpec], module: ProductSpec, breakout: int, distance: float
) -> ProductSpec | None:
    """The fibre a module plugs into, of the shortest length class that covers the run.

    A fibre's reach_m names the optics it is made for: its connector's class. MPO-12/APC
    single-mode fibres serve DR4 optics to 500 m, duplex LC fibres FR4 optics to 2 km, OM4 MPO
    fibres SR4 optics to 50 m. A module takes the class with the smallest reach that covers its
    own, and only that class: a 2 km FR4 module is never paired with an MPO-12 fibre, nor a DR4
    module with a duplex LC one. Fibre is glass: the same single-mode fibres serve NDR and XDR.
    """
    fibres = [
        p
        for p in catalog
        if p.category == "cable"
        and p.media == module.media
        and (p.breakout or 1) == breakout
        and (p.reach_m or 0) >= (module.reach_m or 0)
    ]
    if not fibres:
        return None
    made_for = min(p.reach_m or 0 for p in fibres)
    return _best(
        fibres,
        lambda p: (p.reach_m or 0) == made_for and (p.length_m or 0) >= distance,
        key=lambda p: (p.length_m,),
    )


def _switch_modules(
    catalog: list[ProductSpec], switch: ProductSpec, kind: str, distance: float
) -> list[ProductSpec]:
    """Every module of this media that reaches the run, the cheapest reach class first (a 100 m
    DR4 before a 500 m DR4 before a 2 km FR4). Switch cages want finned modules (no riding heat
    sink); QSFP cages have no such variant."""
    found = [
        p
        for p in catalog
        if p.category == "transceiver"
        and p.lifecycle in LIFECYCLE_RANK
        and p.media == kind
        and p.cage_type == switch.cage_type
        and p.port_speed_gbps == switch.port_speed_gbps
        and (p.ports_per_module or 1) == switch.ports_per_cage
        and (p.reach_m or 0) >= distance
    ]
    return sorted(
        found,
        key=lambda p: (
            p.form_factor != "finned",
            p.reach_m,
            LIFECYCLE_RANK[p.lifecycle],
            p.part_number,
        ),
    )


def _copper(
    catalog: list[ProductSpec],
    kind: str,
    cage_type: str,
    speed: int,
    breakout: int,
    distance: float,
) -> ProductSpec | None:
    """The shortest copper or AOC length class that covers the run. `cage_type` is the cage at
    the cable's far end: a splitter's near end takes a whole twin-port switch cage."""
    return _best(
        catalog,
        lambda p: (
            p.category == "cable"
            and p.media == kind
            and p.cage_type == cage_type
            and p.port_speed_gbps == speed
            and (p.breakout or 1) == breakout
            and (p.length_m or 0) >= distance
        ),
        key=lambda p: (p.length_m,),
    )


def cable_for_length(catalog: list[ProductSpec], cable: ProductSpec, length: float) -> ProductSpec:
    """The shortest cable of `cable`'s family that covers `length` (the family's longest,
    `cable` itself at worst, covers every measured run of its tier). A family is what
    `_copper` or `_fibre` choose among: copper and AOC by kind, far cage, speed and breakout;
    fibre by kind, breakout and the optics class it is made for (reach)."""
    optical = cable.media in OPTICAL_MEDIA
    found = _best(
        catalog,
        lambda p: (
            p.category == "cable"
            and p.media == cable.media
            and (p.breakout or 1) == (cable.breakout or 1)
            and (
                p.reach_m == cable.reach_m
                if optical
                else (p.cage_type == cable.cage_type and p.port_speed_gbps == cable.port_speed_gbps)
            )
            and (p.length_m or 0) >= length
        ),
        key=lambda p: (p.length_m,),
    )
    return found if found is not None and found.length_m <= (cable.length_m or 0) else cable


def pick_host_media(
    catalog: list[ProductSpec],
    *,
    switch: ProductSpec,
    nic: ProductSpec,
    nic_generation: str,
    split: int,
    distance: float,
    field: str,
) -> Media:
    """NIC port to leaf port. A copper splitter serves every host port of one switch cage."""
    nic_speed = switch.port_speed_gbps // split
    per_cage = switch.ports_per_cage * split
    # A splitter's far ends fit the NIC's cage: OSFP to 2 x OSFP for a ConnectX-7/OSFP, OSFP to
    # 2 x QSFP112 for a SuperNIC or ConnectX-7/QSFP112; a straight cable joins like cages.
    for kind in CABLE_MEDIA:
        cable = _copper(catalog, kind, nic.cage_type, nic_speed, per_cage, distance)
        if cable and (per_cage > 1 or nic.cage_type == switch.cage_type):
            return Media(kind, cable, per_cage)
    unserved = None  # a module that reaches the run but has no catalog fibre of its class
    for kind in OPTICAL_MEDIA:
        # Host side: one single-port flat-top module per NIC port (a 400G module also runs NDR200).
        host_module = _best(
            catalog,
            lambda p, kind=kind: (
                p.category == "transceiver"
                and p.media == kind
                and p.cage_type == nic.cage_type
                and (p.ports_per_module or 1) == 1
                and p.port_speed_gbps in (nic_speed, switch.port_speed_gbps)
                and (p.reach_m or 0) >= distance
            ),
            key=lambda p: (p.form_factor != "flat-top", p.port_speed_gbps != nic_speed, p.reach_m),
        )
        if host_module is None:
            continue
        for switch_module in _switch_modules(catalog, switch, kind, distance):
            fibre = _fibre(catalog, switch_module, split, distance)
            if fibre:
                return Media(kind, fibre, split, switch_module, host_module)
            unserved = unserved or _fibre_missing(catalog, switch_module, split)
    if unserved:
        cabled = per_cage > 1 or nic.cage_type == switch.cage_type
        longest = _longest_cable(catalog, nic.cage_type, nic_speed, per_cage) if cabled else None
        raise _no_fibre(field, distance, "host", nic_generation, unserved, longest)
    raise _no_media(
        field,
        distance,
        message(
            gettext_noop("{generation} {cage} NIC ports"),
            generation=nic_generation,
            cage=nic.cage_type,
        ),
    )


def _switch_optics(
    catalog: list[ProductSpec], switch: ProductSpec, distance: float
) -> tuple[Media | None, ProductSpec | None]:
    """A link between two of `switch`'s ports through optics: its module at each end and one
    straight fibre; else None and the module that reaches the run but has no catalog fibre of
    its class (None too when no module reaches it). Multimode before single-mode, and within
    each the shortest-reach module whose fibre class covers the run: the cost order SR4 < DR4
    100 m < DR4 500 m < FR4 2 km."""
    unserved = None
    for kind in OPTICAL_MEDIA:
        for module in _switch_modules(catalog, switch, kind, distance):
            fibre = _fibre(catalog, module, 1, distance)
            if fibre:
                return Media(kind, fibre, 1, module), None
            unserved = unserved or _fibre_missing(catalog, module, 1)
    return None, unserved


def pick_trunk_media(
    catalog: list[ProductSpec],
    *,
    switch: ProductSpec,
    distance: float,
    copper_ok: bool,
    field: str,
) -> Media:
    """Switch to switch. A twin-port copper cable joins two whole cages, so it is only possible
    when every switch pair gets whole cages (`copper_ok`)."""
    if copper_ok:
        for kind in CABLE_MEDIA:
            cable = _copper(catalog, kind, switch.cage_type, switch.port_speed_gbps, 1, distance)
            if cable:
                return Media(kind, cable, switch.ports_per_cage)
    media, unserved = _switch_optics(catalog, switch, distance)
    if media:
        return media
    if unserved:
        longest = (
            _longest_cable(catalog, switch.cage_type, switch.port_speed_gbps, 1)
            if copper_ok
            else None
        )
        raise _no_fibre(field, distance, "trunk", switch.generation, unserved, longest)
    raise _no_media(
        field,
        distance,
        message(gettext_noop("{generation} switch-to-switch links"), generation=switch.generation),
    )


def trunk_module_for(
    catalog: list[ProductSpec], switch: ProductSpec, media: Media, distance: float
) -> ProductSpec:
    """The switch module of one cage on an optical trunk tier: the cheapest reach class of the
    tier's fibre type that covers the cage's longest run and plugs into the tier's fibre class
    (a DR4 100 m module where every run of the cage is within 100 m, the 500 m one only where
    one is longer). Both models of a class are DR4 optics on the same MPO-12/APC single-mode
    fibre, so a link may have one at each end. The tier's own module covers every run."""
    for module in _switch_modules(catalog, switch, media.kind, distance):
        fibre = _fibre(catalog, module, 1, distance)
        if fibre is not None and fibre.reach_m == media.cable.reach_m:
            return module
    return media.switch_module


def pick_software(catalog: list[ProductSpec], family: str, unit: str) -> ProductSpec | None:
    return _best(
        catalog,
        lambda p: p.category == "software" and p.family == family and p.unit == unit,
        key=lambda p: (),
    )


def pick_ufm_appliance(catalog: list[ProductSpec], generation: str) -> ProductSpec | None:
    """A UFM appliance whose own ports are of the fabric's generation: the NDR appliance's
    400G OSFP ConnectX-7 ports cannot be cabled as XDR (nor as HDR) links."""
    return _best(
        catalog,
        lambda p: (
            p.category == "software"
            and p.family == "UFM"
            and p.unit == "each"
            and p.generation == generation
        ),
        key=lambda p: (),
    )


def pick_ufm_host(catalog: list[ProductSpec]) -> ProductSpec | None:
    """A server to run UFM Enterprise on (no GPUs; its InfiniBand NIC is a catalog NIC of the
    fabric's generation, pick_ufm_host_nic)."""
    return _best(
        catalog,
        lambda p: p.category == "server" and p.family == "UFM" and not p.gpu_count,
        key=lambda p: (),
    )


def pick_ufm_host_nic(catalog: list[ProductSpec], generation: str) -> ProductSpec | None:
    """The InfiniBand NIC of a UFM host: one port of the fabric's generation into a leaf, the
    fewest ports first."""
    return _best(
        catalog,
        lambda p: (
            p.category == "adapter"
            and p.generation == generation
            and p.protocol in ("", "infiniband")
            and bool(p.port_count)
        ),
        key=lambda p: (p.port_count,),
    )


def pick_management_switch(catalog: list[ProductSpec], generation: str) -> ProductSpec | None:
    return _best(
        catalog,
        lambda p: (
            p.category == "switch"
            and p.protocol == "ethernet"
            and p.generation == generation
            and bool(p.port_count)
        ),
        key=lambda p: (-p.port_count,),
    )


def pick_patch_cord(catalog: list[ProductSpec], distance: float) -> ProductSpec | None:
    """The out-of-band network's RJ45 patch cord: the shortest length class that covers the
    run, else the longest there is (the installation pack then flags the long runs)."""
    cords = [
        p
        for p in catalog
        if p.category == "cable"
        and p.media == "twisted-pair"
        and p.lifecycle != "eol"
        and p.length_m
    ]
    if not cords:
        return None
    covering = [p for p in cords if p.length_m >= distance]
    if covering:
        return min(covering, key=lambda p: (p.length_m, p.part_number))
    return max(cords, key=lambda p: (p.length_m, p.part_number))


def pick_inband_media(
    catalog: list[ProductSpec], switch: ProductSpec, distance: float
) -> Media | None:
    """An in-band management run, between two ports of the in-band switch's cage and speed: a
    server's in-band port (a DGX's QSFP112 port on its ConnectX-7 or BlueField-3) takes the
    switch's QSFP28 cable or module, and a peer link joins two switch ports. Media by reach as
    the fabric's trunks (`pick_trunk_media`): DAC where it reaches, then ACC, then AOC, the
    shortest length class that covers the run; beyond the longest cable a module at each end
    (`switch_module` and `host_module`, the same part) and one fibre of the shortest length
    class that covers the run, made for the module's connector (`_fibre`). None when nothing in
    the catalog reaches it: the design leaves the run to quote separately rather than quote a
    part too short for it."""
    for kind in CABLE_MEDIA:
        cable = _copper(catalog, kind, switch.cage_type, switch.port_speed_gbps, 1, distance)
        if cable is not None:
            return Media(kind, cable, 1)
    media, _unserved = _switch_optics(catalog, switch, distance)
    if media is None:
        return None
    return Media(media.kind, media.cable, 1, media.switch_module, media.switch_module)


def longest_inband_run(catalog: list[ProductSpec], switch: ProductSpec) -> float:
    """The longest run `pick_inband_media` serves (0: none). What it serves ends at a cable's or
    a fibre's length or a module's reach, so the longest served of those is the answer."""
    ends = {
        p.length_m if p.category == "cable" else p.reach_m
        for p in catalog
        if p.category in ("cable", "transceiver")
    }
    return max(
        (end for end in ends if end and pick_inband_media(catalog, switch, end)), default=0.0
    )

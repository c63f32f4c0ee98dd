"""The host side of the fabric: the chosen server's own cages, and the UFM appliances' links.

A server in the catalog states its compute ports as specs: NIC generation, port count and speed,
cage type and cage count. An HGX server has one single-port OSFP cage per ConnectX-7 (one
single-port flat-top module each, the default when no server is chosen); a DGX H100/H200/B200
serves its 8 ConnectX-7 ports through 4 OSFP cages, so it takes one flat-top twin-port module
per cage (rule 9). A B300-class server's ConnectX-8 800G cage runs 2 x 400GbE on a two-plane
Spectrum-X fabric: one twin-port module per cage, one port (and its fibre) to each plane.

UFM appliances, and the hosts UFM licences run on, are cabled into free leaf ports like a server
(NVIDIA's DGX H100 SuperPOD gives the 32nd node slot of each 31-node scalable unit to UFM), with
the fabric's own NIC optics (a host's: its InfiniBand NIC's).
"""

from __future__ import annotations

from dataclasses import dataclass

from quoting.engine.catalog import ProductSpec
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import parts
from quoting.engine.fabric.bom import LinkCount
from quoting.engine.fabric.parts import OPTICAL_MEDIA, Media
from quoting.engine.fabric.topology import Topology, ceil_div
from quoting.engine.messages import Message, gettext_noop, message


def pick_server(catalog: list[ProductSpec], part_number: str) -> ProductSpec:
    server = parts.find_part(catalog, part_number)
    if server is None or server.category != "server":
        raise InvalidInput.field(
            "server_part_number",
            message(gettext_noop("{sku} is not a catalog server."), sku=part_number),
        )
    layout = (server.port_count, server.port_speed_gbps, server.cage_type, server.generation)
    if not all(layout):
        raise InvalidInput.field(
            "server_part_number",
            message(
                gettext_noop(
                    "{sku} has no host network layout in the catalog (compute ports, speed, "
                    "cages): add it, or leave the server empty."
                ),
                sku=part_number,
            ),
        )
    return server


def check_server(req, server: ProductSpec, nic_speed: int) -> None:
    """The request must fit the server: its GPUs, its ports, and the generation they run."""
    errors: dict[str, list[Message]] = {}
    sku = server.part_number
    if server.gpu_count and req.gpus_per_server != server.gpu_count:
        errors["gpus_per_server"] = [
            message(gettext_noop("{sku} has {gpus} GPUs."), sku=sku, gpus=server.gpu_count)
        ]
    # An 800G port split across two 400GbE planes serves both planes through its one cage.
    lanes = parts.cage_planes(server, nic_speed, req.planes) if req.family == "ethernet" else 1
    if req.nics * req.planes > server.port_count * lanes:
        field = "planes" if req.planes > 1 else "nics_per_server"
        errors[field] = [
            message(
                gettext_noop(
                    "{sku} has {ports} compute ports; {nics} NICs x {planes} planes do not fit."
                ),
                sku=sku,
                ports=server.port_count,
                nics=req.nics,
                planes=req.planes,
            )
        ]
    speed = server.port_speed_gbps
    if req.family == "infiniband":
        # NDR200 runs on ConnectX-7 NDR ports, each port at 200G behind a splitter fibre: a
        # single-port cage, or a DGX's twin-port cage (NVIDIA's DGX BasePOD runs its eight
        # compute ports at NDR200).
        fits = req.nic_generation == server.generation or (
            req.nic_generation == "NDR200" and server.generation == "NDR"
        )
    else:
        fits = nic_speed == speed or lanes > 1
    if not fits:
        errors["nic_generation"] = [
            message(
                gettext_noop(
                    "{sku} has {generation} {speed}G compute ports ({ports} through "
                    "{cages} {cage_type} cages); the fabric runs {fabric}."
                ),
                sku=sku,
                generation=server.generation,
                speed=speed,
                ports=server.port_count,
                cages=server.cage_count or server.port_count,
                cage_type=server.cage_type,
                fabric=req.nic_generation,
            )
        ]
    if errors:
        raise InvalidInput(errors)


def nic_for_server(
    catalog: list[ProductSpec], server: ProductSpec, nic: ProductSpec, *, chosen: bool, fits
) -> ProductSpec:
    """The NIC behind the server's cages: a chosen NIC must have the server's cage; an engine
    pick yields to one that does, when the catalog has it."""
    if nic.cage_type == server.cage_type:
        return nic
    if chosen:
        raise InvalidInput.field(
            "nic_part_number",
            message(
                gettext_noop("{nic} has {nic_cage} cages; {server} has {server_cage}."),
                nic=nic.part_number,
                nic_cage=nic.cage_type,
                server=server.part_number,
                server_cage=server.cage_type,
            ),
        )
    return (
        parts._best(
            catalog,
            lambda p: (
                p.category in ("adapter", "dpu") and p.cage_type == server.cage_type and fits(p)
            ),
            key=lambda p: (p.category != "adapter", (p.port_count or 1) != (nic.port_count or 1)),
        )
        or nic
    )


def server_host_media(
    catalog: list[ProductSpec],
    *,
    switch: ProductSpec,
    server: ProductSpec,
    distance: float,
    field: str,
    per_cage: int | None = None,
    port_speed: int | None = None,
    split: int = 1,
) -> Media:
    """Host links of a server (or NIC) whose cages each serve several ports: a DGX's twin-port
    cage, or a ConnectX-8 cage split across two planes (`per_cage` ports of `port_speed`). One
    flat-top multi-port module per cage, one fibre per port to its own leaf port; at NDR200
    (`split` 2) one splitter fibre per leaf port, its two legs to two host ports (the host's
    400G module runs each port at 200G). Copper would need both ports of a cage on one switch
    cage, which rails and planes never give."""
    per_cage = per_cage or server.ports_per_cage
    speed = port_speed or server.port_speed_gbps
    for kind in OPTICAL_MEDIA:
        host_module = parts._best(
            catalog,
            lambda p, kind=kind: (
                p.category == "transceiver"
                and p.media == kind
                and p.cage_type == server.cage_type
                and p.form_factor == "flat-top"
                and (p.ports_per_module or 1) == per_cage
                and p.port_speed_gbps == speed
                and (p.reach_m or 0) >= distance
            ),
            key=lambda p: (p.reach_m,),
        )
        if host_module is None:
            continue
        for switch_module in parts._switch_modules(catalog, switch, kind, distance):
            fibre = parts._fibre(catalog, switch_module, split, distance)
            if fibre:
                return Media(kind, fibre, split, switch_module, host_module)
    raise InvalidInput.field(
        field,
        message(
            gettext_noop(
                "no catalog flat-top {ports}-port {cage} module with its fibre reaches "
                "{distance:g} m for the {server} cages; shorten the run or add the part to the "
                "catalog."
            ),
            ports=per_cage,
            cage=server.cage_type,
            distance=distance,
            server=server.part_number,
        ),
    )


def host_link_count(
    t: Topology, count: LinkCount, server: ProductSpec | None, cage_planes: int = 1
) -> LinkCount:
    """Host modules of one plane: one per NIC port, or one per server cage on a multi-port-cage
    server. A cage split across the planes takes one module for all of them: its count is the
    whole fabric's, to be added once (not per plane)."""
    if cage_planes > 1:
        modules = t.endpoints
    elif server is None or server.ports_per_cage == 1:
        return count
    else:
        modules = t.servers * ceil_div(t.rails, server.ports_per_cage)
    return LinkCount(count.links, count.switch_cages, count.fibres, count.copper_cables, modules)


def host_port(
    server: ProductSpec | None, nic: int, plane: int = 1, cage_planes: int = 1
) -> str | None:
    """The host end of NIC `nic` (0-based) as cage/port on a multi-port-cage server, or as the
    NIC's cage and its plane's port ("c3/2": NIC 3's cage, the port to plane 2) when the cage is
    split across the planes; else None."""
    if cage_planes > 1:
        return f"c{nic + 1}/{plane}"
    if server is None or server.ports_per_cage == 1:
        return None
    cage, port = divmod(nic, server.ports_per_cage)
    return f"c{cage + 1}/{port + 1}"


@dataclass(frozen=True, slots=True)
class UfmCabling:
    """The UFM appliances' (or UFM hosts') fabric links: appliance-major, one (leaf, switch
    port) each."""

    appliances: int
    ports_per_appliance: int
    media: Media
    links: tuple[tuple[int, int], ...]
    new_cages: int  # leaf cages opened for UFM alone (the others share a server cage's module)
    device: ProductSpec | None = None  # the appliance, or the UFM host server
    nic: ProductSpec | None = None  # a UFM host's InfiniBand NIC; None for an appliance
    # UFM hosts bought and racked with no leaf port (no links): why, and the size that gives
    # them one. None when they are cabled.
    no_leaf_port: Message | None = None

    def link_count(self) -> LinkCount:
        n = len(self.links)
        return LinkCount(n, self.new_cages, n, self.new_cages, n)


def shares_cage(ufm: Media, host: Media, split: int, measured: bool = False) -> bool:
    """Both ports of a twin-port cage must use the same media: a UFM link may take the free
    port of a server's cage only when it is built the same way. Optics need the same module
    (each port has its own fibre, of its own length); copper the same cable, never when the
    lengths are measured (a splitter's length would follow two different runs)."""
    if split != 1 or ufm.kind != host.kind:
        return False
    if ufm.optical:
        same_fibre = measured or ufm.cable.part_number == host.cable.part_number
        return same_fibre and (
            (ufm.switch_module and ufm.switch_module.part_number)
            == (host.switch_module and host.switch_module.part_number)
        )
    return not measured and ufm.cable.part_number == host.cable.part_number


def place_ufm(
    t: Topology,
    *,
    appliances: int,
    ports_per_appliance: int,
    media: Media,
    host_media: Media,
    measured: bool = False,
    device: ProductSpec | None = None,
    nic: ProductSpec | None = None,
) -> UfmCabling:
    """Spread the appliances' ports over the leaves' free down ports, one per leaf per round,
    so that the two appliances (master and standby) never hang off the same leaf when the
    fabric has leaves enough."""
    ppc, wanted = t.ports_per_cage, appliances * ports_per_appliance
    share = shares_cage(media, host_media, t.split, measured)
    end = t.radix if t.tiers == 1 else t.leaf_up_start
    # The slots kept for a scalable unit's racks still to come are theirs (rule 5c).
    endpoints = leaf_endpoints(t.with_kept())
    server_cages = [ceil_div(ceil_div(e, t.split), ppc) for e in endpoints]
    free = [
        range(ceil_div(e, t.split) if share else cages * ppc, end)
        for e, cages in zip(endpoints, server_cages, strict=True)
    ]
    room = sum(len(r) for r in free)
    if room < wanted:
        raise InvalidInput.field(
            "subnet_manager",
            message(
                gettext_noop(
                    "the {appliances} UFM appliances need {wanted} free leaf ports and the "
                    "leaves have {room}: NVIDIA's SuperPOD keeps one node slot per leaf for UFM "
                    "(31 nodes in a 32-node scalable unit). Design fewer servers, or use UFM "
                    "licences."
                ),
                appliances=appliances,
                wanted=wanted,
                room=room,
            ),
        )
    links: list[tuple[int, int]] = []
    depth = 0
    while len(links) < wanted:
        for leaf, ports in enumerate(free):
            if depth < len(ports) and len(links) < wanted:
                links.append((leaf, ports[depth]))
        depth += 1
    new_cages = {(leaf, port // ppc) for leaf, port in links if port // ppc >= server_cages[leaf]}
    return UfmCabling(
        appliances, ports_per_appliance, media, tuple(links), len(new_cages), device, nic
    )


def leaf_endpoints(t: Topology) -> list[int]:
    """Endpoints on each leaf, by leaf index (leaf_fill lists the leaves in index order); a leaf
    kept for UFM alone, after the servers' leaves, has none."""
    endpoints = [e for n, e in t.leaf_fill() for _ in range(n)]
    return endpoints + [0] * (t.leaf_count - len(endpoints))

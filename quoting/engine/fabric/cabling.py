"""The cable schedule an installer works from: every link, end to end, generated lazily.

Device names: node-017, leaf-r3-02 (rail 3 of rail group 2; leaf-r3r4-01 carries rails 3 and 4
of a rail group whose leaves carry two rails each; leaf-007 when not rail-optimized),
spine-07 (spine-p02-07 in pod 2 of a three-tier fabric), core-01; with two planes each switch
name starts with plane1- or plane2-. Switch ports are cage/port ("6/2" is the second port of
cage 6; "p12" on single-port cages), with a third figure for a split NDR200 port ("6/2/1").
A host end is the NIC ("nic3"), or its cage/port on a server whose cages serve several ports
("c2/1" is NIC 3 of a DGX: the first port of its second OSFP cage, one twin-port module; "c3/2"
is NIC 3's ConnectX-8 cage, its port to plane 2, when one cage serves both planes).
UFM appliances' links follow the servers' as tier "ufm-leaf": ufm-01 p1 to a free leaf port.
A cable id names the lower switch end the cable plugs into: whole cage for copper, port for fibre.
A separate storage fabric follows, its tiers named "storage server-leaf" ..., its switches
stor-switch-01 / stor-leaf-001 / stor-spine-01, its host ends node-017 stor1 (a compute server's
storage port) and storage-03 p1 (a storage server's port).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from dataclasses import astuple, dataclass, fields

from quoting.engine.catalog import ProductSpec
from quoting.engine.csvcells import csv_row
from quoting.engine.fabric.design import FabricDesign
from quoting.engine.fabric.hosts import host_port
from quoting.engine.fabric.lengths import (
    COPPER,
    FIBRE,
    host_cages,
    leaf_hosts,
    trunk_cages,
    ufm_runs,
)
from quoting.engine.fabric.parts import Media
from quoting.engine.fabric.topology import Topology


@dataclass(frozen=True, slots=True)
class CableRun:
    tier: str  # server-leaf, leaf-spine, spine-core; "storage server-leaf" ... for storage
    a_device: str  # the lower end: node, leaf or spine
    a_port: str
    b_device: str
    b_port: str
    media: str
    cable_part: str
    cable_id: str
    length_m: float | None
    a_module: str  # transceiver part at each end; empty for copper and AOC
    b_module: str


def rails_tag(t: Topology, leaf: int) -> str:
    """The rails a rail-optimised leaf carries, for its name: "r3", or "r3r4" for two."""
    return "".join(f"r{rail + 1}" for rail in t.leaf_rails(leaf))


class _Names:
    def __init__(self, design: FabricDesign, plane: int) -> None:
        t = design.topology
        self.t = t
        self.plane = plane
        self.prefix = f"plane{plane}-" if design.planes > 1 else ""
        self.nic_suffix = f"/{plane}" if design.planes > 1 else ""
        self.node_width = max(3, len(str(t.servers)))
        self.group_width = max(2, len(str(t.leaf_count // max(1, t.group_leaves))))
        self.wide = max(2, len(str(max(t.leaf_count, t.spines_per_pod, t.core_count, t.pods))))

    def node(self, server: int) -> str:
        return f"node-{server + 1:0{self.node_width}d}"

    def host(self, server: int, nic: int) -> tuple[str, str]:
        return self.node(server), self.nic(nic)

    def ufm(self, appliance: int) -> str:
        return f"{self.prefix}ufm-{appliance + 1:02d}"

    def nic(self, nic: int) -> str:
        return f"nic{nic + 1}{self.nic_suffix}"

    def leaf(self, leaf: int) -> str:
        t = self.t
        if t.tiers == 1:
            return f"{self.prefix}switch-01"
        if t.rail_optimized:
            group = leaf // t.group_leaves
            return f"{self.prefix}leaf-{rails_tag(t, leaf)}-{group + 1:0{self.group_width}d}"
        return f"{self.prefix}leaf-{leaf + 1:0{max(3, self.wide)}d}"

    def spine(self, pod: int, spine: int) -> str:
        if self.t.tiers == 3:
            return f"{self.prefix}spine-p{pod + 1:0{self.wide}d}-{spine + 1:0{self.wide}d}"
        return f"{self.prefix}spine-{spine + 1:0{self.wide}d}"

    def core(self, core: int) -> str:
        return f"{self.prefix}core-{core + 1:0{self.wide}d}"

    def port(self, index: int, lane: int | None = None) -> str:
        ppc = self.t.ports_per_cage
        name = f"p{index + 1}" if ppc == 1 else f"{index // ppc + 1}/{index % ppc + 1}"
        return name if lane is None else f"{name}/{lane + 1}"

    def cage(self, index: int) -> str:
        return f"c{index // self.t.ports_per_cage + 1}"


class _StorageNames(_Names):
    """The storage fabric plans each endpoint port as a one-NIC "server": the compute servers'
    storage ports first, then the storage servers' ports."""

    def __init__(self, design: FabricDesign) -> None:
        storage, req = design.storage, design.requirements
        super().__init__(storage, 1)
        self.prefix = "stor-"
        self.node_width = max(3, len(str(design.topology.servers)))  # as in the compute fabric
        self.storage_width = max(2, len(str(req.storage_servers)))
        self.per_server = req.storage_ports_per_server
        self.per_storage = req.storage_ports_per_storage_server
        self.compute_ports = design.topology.servers * self.per_server

    def host(self, server: int, nic: int) -> tuple[str, str]:
        if server < self.compute_ports:
            node, port = divmod(server, self.per_server)
            return self.node(node), f"stor{port + 1}"
        node, port = divmod(server - self.compute_ports, self.per_storage)
        return f"storage-{node + 1:0{self.storage_width}d}", f"p{port + 1}"


def _trunk(
    tier: str,
    media: Media,
    names: _Names,
    a: tuple[str, int],
    b: tuple[str, int],
    cable: ProductSpec | None = None,
    modules: tuple[str, str] | None = None,
) -> CableRun:
    """`cable`: the part bought for the measured run; the media's own by default. `modules`:
    the module in each end's cage when cages choose their own; the media's by default."""
    (a_device, a_index), (b_device, b_index) = a, b
    cable = cable or media.cable
    module = media.switch_module.part_number if media.optical else ""
    a_module, b_module = modules or (module, module)
    at = names.port(a_index) if media.optical else names.cage(a_index)
    return CableRun(
        tier,
        a_device,
        names.port(a_index),
        b_device,
        names.port(b_index),
        media.kind,
        cable.part_number,
        f"{a_device}/{at}",
        cable.length_m,
        a_module,
        b_module,
    )


def cable_schedule(design: FabricDesign) -> Iterator[CableRun]:
    """Every link of the design, one CableRun each, in installation order."""
    for plane in range(1, design.planes + 1):
        yield from _fabric_runs(design, _Names(design, plane), "")
    if design.storage is not None:
        yield from _fabric_runs(design.storage, _StorageNames(design), "storage ")


def _fabric_runs(design: FabricDesign, names: _Names, tier: str) -> Iterator[CableRun]:
    """One plane of one fabric; `tier` prefixes the tier names ("storage ")."""
    yield from _server_leaf_runs(design, names, tier)
    if design.ufm:
        yield from _ufm_runs(design, names, tier)
    yield from _leaf_spine_runs(design, names, tier)
    yield from _spine_core_runs(design, names, tier)


class _HostCables:
    """The media and cable of each host port: the tier's own, or on a measured tier its cage's,
    each leaf's cages measured once, when the first of its ports is asked for."""

    def __init__(self, design: FabricDesign, names: _Names) -> None:
        self.design, self.names = design, names
        self.bought = (design.measured or {}).get("server-leaf")
        self.cages: dict[int, list] = {}  # a measured leaf's CageRuns, cage by cage

    def __call__(self, leaf: int, port: int) -> tuple[Media, ProductSpec]:
        """The media of the port's cage and the cable of the port (fibre) or cage (copper)."""
        host, bought = self.design.host_media, self.bought
        if bought is None:
            return host, host.cable
        ppc = self.design.topology.ports_per_cage
        if leaf not in self.cages:
            self.cages[leaf] = self._leaf_cages(leaf)
        ports, _ = self.cages[leaf][port // ppc]
        longest = max(ports)
        # The plane's leaves share the first plane's forced cages: UFM is InfiniBand, one plane.
        media = host if (leaf, port // ppc) in bought.forced else bought.media_by_run[longest]
        return media, bought.part(media, ports[port % ppc] if media.optical else longest)

    def _leaf_cages(self, leaf: int) -> list:
        t, names, lengths = self.design.topology, self.names, self.design.lengths
        racks = [lengths.rack_of(names.host(s, n)[0]) for s, n in leaf_hosts(t, leaf)]
        return host_cages(t, racks, lengths.rack_of(names.leaf(leaf)), lengths.pair_m)


def _trunk_cable(
    design: FabricDesign, tier: str, a: str, b: str
) -> tuple[Media | None, ProductSpec | None]:
    """A measured tier's media and cable for the run between switches `a` and `b`; (None, None)
    when the tier takes its own media."""
    measured = design.measured or {}
    if tier not in measured:
        return None, None
    run = design.lengths.between(a, b)
    media = measured[tier].media_by_run[run]
    return media, measured[tier].part(media, run)


class _TrunkModules:
    """The module in each switch's trunk cages on a measured tier whose cages choose their own
    (cages joining several switch pairs): a cage's module reaches its longest run, each switch
    measured once, when its first link is asked for, as install/lengths.py counts them."""

    def __init__(self, design: FabricDesign, tier: str) -> None:
        bought = (design.measured or {}).get(tier)
        self.by_run = bought.module_by_run if bought else {}
        self.design = design
        self.cages: dict[str, dict[int, str]] = {}

    def __bool__(self) -> bool:
        return bool(self.by_run)

    def module(self, device: str, port: int, far_by_port: Callable[[], dict[int, str]]) -> str:
        """The module in the cage of `device`'s `port`; `far_by_port`: the device at the far
        end of each of `device`'s trunk ports of this tier."""
        ppc = self.design.topology.ports_per_cage
        if device not in self.cages:
            between = self.design.lengths.between
            runs = {p: between(device, far) for p, far in far_by_port().items()}
            self.cages[device] = {
                cage: self.by_run[run].part_number for cage, run in trunk_cages(runs, ppc).items()
            }
        return self.cages[device][port // ppc]


def _server_leaf_runs(design: FabricDesign, names: _Names, tier: str) -> Iterator[CableRun]:
    t = design.topology
    host_cable = _HostCables(design, names)
    for server in range(t.servers):
        for nic in range(t.rails):
            leaf, slot = t.leaf_of(server, nic)
            port, lane = divmod(slot, t.split)
            leaf_name = names.leaf(leaf)
            node, nic_port = names.host(server, nic)
            media, cable = host_cable(leaf, port)
            at = names.port(port) if media.optical else names.cage(port)
            yield CableRun(
                f"{tier}server-leaf",
                node,
                host_port(design.server, nic, names.plane, design.host_cage_planes) or nic_port,
                leaf_name,
                names.port(port, lane if t.split > 1 else None),
                media.kind,
                cable.part_number,
                f"{leaf_name}/{at}",
                cable.length_m,
                media.host_module.part_number if media.optical else "",
                media.switch_module.part_number if media.optical else "",
            )


def _leaf_spine_runs(design: FabricDesign, names: _Names, tier: str) -> Iterator[CableRun]:
    t, trunk = design.topology, design.trunk_media
    lpp, up_start = t.links_per_leaf_per_spine, t.leaf_up_start
    cages = _TrunkModules(design, "leaf-spine")

    def spine_ports(pod: int) -> dict[int, str]:
        first = pod * t.leaves_per_pod
        leaves = range(first, min(first + t.leaves_per_pod, t.leaf_count))
        return {i * lpp + k: names.leaf(leaf) for i, leaf in enumerate(leaves) for k in range(lpp)}

    for leaf in range(t.leaf_count if trunk else 0):
        pod, in_pod = divmod(leaf, t.leaves_per_pod)
        leaf_name = names.leaf(leaf)

        def leaf_ports(pod: int = pod) -> dict[int, str]:
            return {
                up_start + s * lpp + k: names.spine(pod, s)
                for s in range(t.spines_per_pod)
                for k in range(lpp)
            }

        for spine in range(t.spines_per_pod):
            spine_name = names.spine(pod, spine)
            media, cable = _trunk_cable(design, "leaf-spine", leaf_name, spine_name)
            for link in range(lpp):
                a, b = up_start + spine * lpp + link, in_pod * lpp + link
                modules = (
                    (
                        cages.module(leaf_name, a, leaf_ports),
                        cages.module(spine_name, b, lambda pod=pod: spine_ports(pod)),
                    )
                    if cages
                    else None
                )
                yield _trunk(
                    f"{tier}leaf-spine",
                    media or trunk,
                    names,
                    (leaf_name, a),
                    (spine_name, b),
                    cable,
                    modules,
                )


def _spine_core_runs(design: FabricDesign, names: _Names, tier: str) -> Iterator[CableRun]:
    t, core = design.topology, design.core_media
    lpc, up_start = t.links_per_spine_per_core, t.spine_up_start
    cages = _TrunkModules(design, "spine-core")
    core_ports: dict[str, dict[int, str]] = {}

    def core_ports_of(core_name: str) -> dict[int, str]:
        if not core_ports:  # every core's ports, in one pass over the plane's spines
            for pod in range(t.pods):
                for spine in range(t.spines_per_pod):
                    for core_switch in range(t.core_per_plane):
                        index, port = t.core_of(pod, spine, core_switch)
                        ports = core_ports.setdefault(names.core(index), {})
                        for link in range(lpc):
                            ports[port + link] = names.spine(pod, spine)
        return core_ports[core_name]

    for pod in range(t.pods if core else 0):
        for spine in range(t.spines_per_pod):
            spine_name = names.spine(pod, spine)

            def spine_ports(pod: int = pod, spine: int = spine) -> dict[int, str]:
                return {
                    up_start + cs * lpc + k: names.core(t.core_of(pod, spine, cs)[0])
                    for cs in range(t.core_per_plane)
                    for k in range(lpc)
                }

            for core_switch in range(t.core_per_plane):
                core_index, core_port = t.core_of(pod, spine, core_switch)
                core_name = names.core(core_index)
                media, cable = _trunk_cable(design, "spine-core", spine_name, core_name)
                for link in range(lpc):
                    a, b = up_start + core_switch * lpc + link, core_port + link
                    modules = (
                        (
                            cages.module(spine_name, a, spine_ports),
                            cages.module(core_name, b, lambda name=core_name: core_ports_of(name)),
                        )
                        if cages
                        else None
                    )
                    yield _trunk(
                        f"{tier}spine-core",
                        media or core,
                        names,
                        (spine_name, a),
                        (core_name, b),
                        cable,
                        modules,
                    )


def _ufm_runs(design: FabricDesign, names: _Names, tier: str) -> Iterator[CableRun]:
    ufm = design.ufm
    media = ufm.media
    cables = [media.cable] * len(ufm.links)
    if "ufm-leaf" in (design.measured or {}):
        unit = FIBRE if media.optical else COPPER
        runs = ufm_runs(
            ufm.links, ufm.ports_per_appliance, design.topology.ports_per_cage, design.lengths, unit
        )
        bought = design.measured["ufm-leaf"]
        cables = [bought.part(media, run) for run in runs]
    for index, (leaf, port) in enumerate(ufm.links):
        appliance, appliance_port = divmod(index, ufm.ports_per_appliance)
        leaf_name = names.leaf(leaf)
        at = names.port(port) if media.optical else names.cage(port)
        cable = cables[index]
        yield CableRun(
            f"{tier}ufm-leaf",
            names.ufm(appliance),
            f"p{appliance_port + 1}",
            leaf_name,
            names.port(port),
            media.kind,
            cable.part_number,
            f"{leaf_name}/{at}",
            cable.length_m,
            media.host_module.part_number if media.optical else "",
            media.switch_module.part_number if media.optical else "",
        )


def cable_schedule_csv_lines(design: FabricDesign) -> Iterator[str]:
    """The schedule as CSV, a line at a time, so a 100,000-GPU schedule can be streamed."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    rows = iter(cable_schedule(design))
    writer.writerow([f.name for f in fields(CableRun)])
    while True:
        yield out.getvalue()
        out.seek(0)
        out.truncate()
        run = next(rows, None)
        if run is None:
            return
        writer.writerow(csv_row(astuple(run)))


def cable_schedule_csv(design: FabricDesign) -> str:
    return "".join(cable_schedule_csv_lines(design))

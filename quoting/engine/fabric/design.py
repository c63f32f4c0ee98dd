"""design_fabric: from a customer's cluster to a buildable fabric, its BOM and its warnings."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from quoting.engine.catalog import ProductSpec
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import hosts, parts
from quoting.engine.fabric.bom import (
    BomLine,
    Tally,
    host_links,
    leaf_spine_links,
    spine_core_links,
)
from quoting.engine.fabric.hosts import UfmCabling
from quoting.engine.fabric.lengths import (
    CAGES,
    COPPER,
    FIBRE,
    MODULES,
    FabricLengths,
    MeasuredTier,
    ufm_cables,
)
from quoting.engine.fabric.measured import (
    buy_host_cages,
    buy_trunk_cages,
    buy_trunk_pairs,
    buy_uniform,
)
from quoting.engine.fabric.parts import Media
from quoting.engine.fabric.requirements import (
    FAMILIES,
    FabricRequirements,
    check_requirements,
    distance_m,
)
from quoting.engine.fabric.storage import (
    StorageSizing,
    storage_sized,
    storage_sizing_advice,
    storage_sizing_warnings,
)
from quoting.engine.fabric.topology import Topology, ceil_div, plan_topology
from quoting.engine.messages import Message, gettext_noop, listing, message

# Rule 8: "UFM is recommended from a few hundred endpoints, effectively required in the
# thousands". The doc gives no exact figure for "a few hundred": 300 is where we say so. It is
# required where the switches' own subnet manager stops (SWITCH_SM_MAX_NODES, below).
UFM_RECOMMENDED_FROM = 300
# A subnet manager runs as a master and a standby: two switches, two appliances, two hosts.
HA_PAIR = 2
# The switches' own subnet manager runs fabrics of up to this many nodes: "The embedded SM on
# the MLNX-OS can be used to manage fabrics up to 2048 nodes on x86 based systems" (NVIDIA
# MLNX-OS User Manual v3.12.2200 LTS, "Subnet Manager", https://docs.nvidia.com/networking/
# display/nvidiamlnxosusermanualv3122200lts/subnet+manager). The manual does not say what a node
# is; our rule counts one per endpoint port and one per switch (the GPU NICs of HGX and DGX
# servers are single-port ConnectX adapters, each a node of its own).
SWITCH_SM_MAX_NODES = 2048
# Management ports kept free on each in-band switch to reach the customer's network. Our rule:
# NVIDIA's BasePOD configurations we could read give the peer link's ports, not the uplinks'.
INBAND_UPLINKS = 2
# An in-band MLAG pair's peer link: two 100GbE ports of each switch, one cable each, "nv set
# interface peerlink bond member swp57" and "... swp58" in NVIDIA's DGX BasePOD deployment guide
# ("Switch Configurations", SN4600 #1, In-band Management Switch), https://docs.nvidia.com/
# dgx-basepod/deployment-guides/dgx-basepod-a100/latest/switch-configurations.html.
INBAND_PEER_LINK = 2
# Rule 5c: a scalable unit of rack-scale systems is 8 racks (NVIDIA DGX SuperPOD RA, DGX GB200,
# "DGX SuperPOD Architecture": "a single SU (8 DGX GB200 rack systems)"), and a part-filled one
# is built whole ("Network Fabrics": the fabric "should be designed to support the full SU,
# including leaf switches and leaf-spine cables").
RACKS_PER_SCALABLE_UNIT = 8
# Rule 5d, ours (NVIDIA publishes no build for fewer racks than a scalable unit): asked with
# `rack_scale_smallest`, the racks are planned as they are, by rules 1 to 5b like any server's
# ports: one switch when every port fits it, else the fewest leaves and spines with every leaf's
# uplinks at least its down ports (non-blocking at 1:1) and port i of every rack of a rail group
# on one leaf. Both builds are shown, each beside the other (`RackScaleBuild`).


class SubnetManagerTooSmall(InvalidInput):
    """The switches would run the subnet manager of a fabric over SWITCH_SM_MAX_NODES: no
    valid build (rule 8). A refusal of its own so that the growth step, which counts switches
    and cables only, can still be designed (_step_designed)."""


@dataclass(frozen=True, slots=True)
class NextStep:
    """The next building block past the headroom, in counts (re-cabling is needed to get there)."""

    gpus: int
    servers: int
    leaf_count: int
    spine_count: int
    core_count: int
    added_switches: int
    added_transceivers: int
    added_cables: int


@dataclass(frozen=True, slots=True)
class PreProvisioned:
    """What a growth target adds today so that growing needs no re-cabling."""

    for_gpus: int
    spines: int
    core: int
    leaf_spine_links: int


@dataclass(frozen=True, slots=True)
class RackScaleBuild:
    """The other build of racks of a rack-scale system that are not whole scalable units:
    whole units (rule 5c) beside the smallest fabric for the racks (rule 5d), or the smallest
    beside whole units. Counts over all planes; `moved_*` is what growing from the smallest
    build to whole units re-cables (our count: a link moves when either end changes port)."""

    whole_units: bool  # this other build is the whole scalable units
    racks: int  # the racks it is planned for: the racks asked, or whole units of them
    leaf_count: int
    spine_count: int
    core_count: int
    leaf_spine_links: int
    added_switches: int  # whole units' switches less the smallest build's
    added_leaf_spine_links: int
    moved_host_links: int  # racks' ports cabled to another leaf port in whole units
    moved_trunk_links: int  # the smallest build's uplinks cabled again


@dataclass(frozen=True, slots=True)
class Management:
    inband_switches: int = 0
    inband_cables: int = 0  # server ports and peer links together
    outofband_switches: int = 0
    outofband_cables: int = 0
    # Of inband_cables, those joining the two switches of an MLAG pair (0: single switches).
    inband_peer_cables: int = 0


@dataclass(frozen=True, slots=True)
class FabricDesign:
    requirements: FabricRequirements
    topology: Topology  # one plane
    switch: ProductSpec
    nic: ProductSpec
    host_media: Media
    trunk_media: Media | None  # leaf to spine
    core_media: Media | None  # spine to core
    sm_switch: ProductSpec | None  # a managed model swapped in at the top tier to run the SM
    sm_switch_count: int
    subnet_manager: str  # on-switch, ufm-appliance, ufm-licence, opensm-host; "" for Ethernet
    bom: tuple[BomLine, ...]
    power_typical_w: float
    power_max_w: float
    rack_units: int
    management: Management
    pre_provisioned: PreProvisioned | None
    next_step: NextStep | None
    # Translatable messages; `warnings` and `advice` below are their English text.
    warning_messages: tuple[Message, ...]
    advice_messages: tuple[Message, ...]
    # The separate storage fabric, designed as a fabric of its own; its switches, optics, power
    # and rack units are already in this design's BOM and totals, every other figure is compute.
    storage: FabricDesign | None = None
    # The storage sized from the workload (capacity, read and write asked), what it delivers
    # against the ask; None when none was asked. `requirements` then has the sized counts.
    storage_sizing: StorageSizing | None = None
    # The chosen server, whose own cages decide the host-side optics; None: NIC cages.
    server: ProductSpec | None = None
    # UFM appliances' (ufm-appliance) or UFM hosts' (ufm-licence) links into the leaves; no
    # links: hosts racked and powered with no leaf port free for them (ufm.no_leaf_port).
    ufm: UfmCabling | None = None
    # UFM licences asked (or chosen on auto) whose hosts could not be quoted and cabled: the
    # lines UFM would add (licences, hosts, their NICs), priced beside the design, none in its
    # BOM (rule 8); () otherwise.
    ufm_option: tuple[BomLine, ...] = ()
    # Planes one host cage serves: 2 when a ConnectX-8's 800G cage runs one 400GbE port to each
    # of two Spectrum-X planes (one twin-port module per cage); else 1.
    host_cage_planes: int = 1
    # Runs measured on a site's rack layout (None: planned from the distances), and for each
    # tier whose media follow them, the media and part of each run (the cable schedule's).
    # The tier's own media above are those of its longest run.
    lengths: FabricLengths | None = None
    measured: dict[str, MeasuredTier] | None = None
    # Rule 6, "show both": (leaves, spines, core) over all planes of the same request without
    # rails when it needs fewer switches than this rail-optimised design; else None.
    non_rail_switches: tuple[int, int, int] | None = None
    # Racks of a rack-scale system that are not whole scalable units: the other build (rules
    # 5c and 5d, "show both"); None otherwise.
    rack_scale_other: RackScaleBuild | None = None
    # That other build as designed (planned, not measured), kept so the caller places it on the
    # site and prices it without designing it again; None with rack_scale_other.
    rack_scale_other_design: FabricDesign | None = None

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(str(m) for m in self.warning_messages)

    @property
    def advice(self) -> tuple[str, ...]:
        return tuple(str(m) for m in self.advice_messages)

    # Counts over all planes.
    @property
    def planes(self) -> int:
        return self.requirements.planes

    @property
    def gpu_count(self) -> int:
        return self.topology.servers * self.requirements.gpus_per_server

    @property
    def endpoint_ports(self) -> int:
        return self.topology.endpoints * self.planes

    @property
    def leaf_count(self) -> int:
        return self.topology.leaf_count * self.planes

    @property
    def spine_count(self) -> int:
        return self.topology.spine_count * self.planes

    @property
    def core_count(self) -> int:
        return self.topology.core_count * self.planes

    @property
    def nic_speed_gbps(self) -> int:
        return self.switch.port_speed_gbps // self.topology.split

    def ports_by_tier(self) -> dict[str, dict[str, int]]:
        t, k, planes = self.topology, self.topology.radix, self.planes
        # Every leaf's uplinks, with those of a leaf kept for UFM alone (no servers on it).
        leaf = sum(n * ceil_div(e, t.split) for n, e in t.leaf_fill()) + t.leaf_count * t.leaf_up
        leaf += len(self.ufm.links) if self.ufm else 0
        spine = sum(
            pods * t.spines_per_pod * (leaves * t.links_per_leaf_per_spine + t.spine_up)
            for pods, leaves in t.pod_fill()
        )
        core = t.core_count * t.pods * t.core_ports_per_pod
        tiers = {
            "leaf": (leaf, t.leaf_count),
            "spine": (spine, t.spine_count),
            "core": (core, t.core_count),
        }
        return {
            name: {"used": used * planes, "free": (switches * k - used) * planes}
            for name, (used, switches) in tiers.items()
            if switches
        }

    def links_by_tier(self) -> dict[str, int]:
        t = self.topology
        links = {
            "server-leaf": t.endpoints,
            "leaf-spine": t.leaf_count * t.leaf_up,
            "spine-core": t.spine_count * t.spine_up,
        }
        links = {name: n * self.planes for name, n in links.items() if n}
        if self.ufm and self.ufm.links:
            links["ufm-leaf"] = len(self.ufm.links)
        return links

    def cables_by_tier(self) -> dict[str, int]:
        """Cables as NVIDIA's SuperPOD tables count them: one per cage-to-cage connection.

        A Spectrum switch cage is one 800GbE port (SN5600: 64 x 800GbE, run as 2 x 400GbE), so
        a leaf-spine pair that gets whole cages is one 800G cable per cage (its twin-port modules
        take two fibres each, which the BOM buys); a ConnectX-8 cage split across two planes is
        one cable per GPU. Otherwise a cable is what the BOM counts: a fibre per switch port, or
        a copper cable per cage. `links_by_tier` counts the 400G links instead."""
        t, planes = self.topology, self.planes
        counts = {
            "server-leaf": (self.host_media, host_links(t), 1),
            "leaf-spine": (self.trunk_media, leaf_spine_links(t), t.links_per_leaf_per_spine),
            "spine-core": (self.core_media, spine_core_links(t), t.links_per_spine_per_core),
        }
        cables = {}
        for tier, (media, count, pair_links) in counts.items():
            if media is None or not count.links:
                continue
            bought = (self.measured or {}).get(tier)
            if bought and len({m.kind for m in bought.media_by_run.values()}) > 1:
                # Copper on some runs, optics on others: the cables the BOM buys.
                cables[tier] = sum(
                    b.quantity for b in self.bom if b.role == tier and b.category == "cable"
                )
                continue
            if tier == "server-leaf" and self.host_cage_planes > 1:
                cables[tier] = t.endpoints * planes // self.host_cage_planes
                continue
            per_plane = count.fibres if media.optical else count.copper_cables
            ppc = t.ports_per_cage
            if media.optical and self.switch.protocol == "ethernet" and pair_links % ppc == 0:
                per_plane = count.links // ppc
            cables[tier] = per_plane * planes
        if self.ufm and self.ufm.links:
            cables["ufm-leaf"] = len(self.ufm.links)
        return cables

    @property
    def oversubscription(self) -> float:
        """Achieved at the busiest leaf: its servers' bandwidth over its uplink bandwidth."""
        t = self.topology
        if t.tiers == 1:
            return 1.0
        busiest = max(e for n, e in t.leaf_fill() if n)
        return round(busiest * self.nic_speed_gbps / (t.leaf_up * self.switch.port_speed_gbps), 2)

    @property
    def injection_gbps(self) -> int:
        return self.endpoint_ports * self.nic_speed_gbps

    @property
    def bisection_gbps(self) -> int:
        """Half the narrowest cut across the tiers: injection, leaf uplinks, spine uplinks."""
        t, speed = self.topology, self.switch.port_speed_gbps
        cuts = [t.endpoints * self.nic_speed_gbps]
        if t.tiers > 1:
            cuts.append(t.leaf_count * t.leaf_up * speed)
        if t.tiers > 2:
            cuts.append(t.spine_count * t.spine_up * speed)
        return min(cuts) * self.planes // 2

    @property
    def headroom_gpus(self) -> int:
        return self.topology.headroom_servers * self.requirements.gpus_per_server

    def as_dict(self) -> dict[str, Any]:
        t = self.topology
        ports = self.ports_by_tier()
        return {
            "tiers": t.tiers,
            "gpu_count": self.gpu_count,
            "node_count": t.servers,
            "endpoint_ports": self.endpoint_ports,
            "planes": self.planes,
            "switch_sku": self.switch.part_number,
            "nic_sku": self.nic.part_number,
            "server_sku": self.server.part_number if self.server else None,
            "leaf_count": self.leaf_count,
            "spine_count": self.spine_count,
            "core_count": self.core_count,
            "pods": t.pods if t.tiers == 3 else 0,
            "leaf_ports": {"down": t.leaf_down, "up": t.leaf_up},
            "leaf_split": t.leaf_split,
            "non_rail": _non_rail_dict(self.non_rail_switches),
            "rack_scale_other": _fields(self.rack_scale_other),
            "rails_per_leaf": t.rails_per_leaf if t.rail_optimized and t.tiers > 1 else None,
            "spines_per_core_group": t.spines_per_core_group if t.tiers == 3 else 0,
            "ports": {
                "used": sum(p["used"] for p in ports.values()),
                "free": sum(p["free"] for p in ports.values()),
            },
            "ports_by_tier": ports,
            "links": self.links_by_tier(),
            "cables": self.cables_by_tier(),
            "links_per_leaf_per_spine": t.links_per_leaf_per_spine,
            "links_per_spine_per_core": t.links_per_spine_per_core,
            "oversubscription": self.oversubscription,
            "media": {
                tier: {
                    "media": m.kind,
                    "cable": m.cable.part_number,
                    "length_m": m.cable.length_m,
                    "measured": tier in (self.measured or {}),
                }
                for tier, m in (
                    ("server-leaf", self.host_media),
                    ("leaf-spine", self.trunk_media),
                    ("spine-core", self.core_media),
                    ("ufm-leaf", self.ufm.media if self.ufm else None),
                )
                if m
            },
            "bom": [
                {
                    "sku": b.sku,
                    "category": b.category,
                    "quantity": b.quantity,
                    "role": b.role,
                    "name": b.name,
                }
                for b in self.bom
            ],
            "power_w": {"typical": round(self.power_typical_w), "max": round(self.power_max_w)},
            "rack_units": self.rack_units,
            "injection_gbps": self.injection_gbps,
            "bisection_gbps": self.bisection_gbps,
            "max_hops": t.max_hops,
            "subnet_manager": self.subnet_manager,
            "ufm_appliances": self._ufm_dict(),
            "ufm_option": [
                {"sku": b.sku, "quantity": b.quantity, "name": b.name} for b in self.ufm_option
            ],
            "headroom": {"gpus": self.headroom_gpus, "servers": t.headroom_servers},
            "pre_provisioned": _fields(self.pre_provisioned),
            "next_step": _fields(self.next_step),
            "management": _fields(self.management),
            "storage": self._storage_dict(),
            "storage_sizing": self.storage_sizing.as_dict() if self.storage_sizing else None,
            "site": dict(self.lengths.site) if self.lengths else None,
            "warnings": list(self.warnings),
            "advice": list(self.advice),
        }

    def _ufm_dict(self) -> dict[str, Any] | None:
        u = self.ufm
        if u is None:
            return None
        return {
            "appliances": u.appliances,
            "device": u.device.part_number if u.device else "",
            "host_nic": u.nic.part_number if u.nic else "",
            "ports_per_appliance": u.ports_per_appliance,
            "links": len(u.links),
            "media": u.media.kind if u.links else "",
            "cable": u.media.cable.part_number if u.links else "",
        }

    def _storage_dict(self) -> dict[str, Any] | None:
        s = self.storage
        if s is None:
            return None
        t, ports = s.topology, s.ports_by_tier()
        return {
            "storage_servers": self.requirements.storage_servers,
            "endpoint_ports": s.endpoint_ports,
            "tiers": t.tiers,
            "switch_sku": s.switch.part_number,
            "leaf_count": s.leaf_count,
            "spine_count": s.spine_count,
            "core_count": s.core_count,
            "links_per_leaf_per_spine": t.links_per_leaf_per_spine,
            "ports": {
                "used": sum(p["used"] for p in ports.values()),
                "free": sum(p["free"] for p in ports.values()),
            },
            "links": s.links_by_tier(),
            "oversubscription": s.oversubscription,
            "subnet_manager": s.subnet_manager,
            "power_w": {"typical": round(s.power_typical_w), "max": round(s.power_max_w)},
            "rack_units": s.rack_units,
        }


def _non_rail_dict(switches: tuple[int, int, int] | None) -> dict[str, int] | None:
    """The smaller design without rails, as the page and the API show it beside this one."""
    if switches is None:
        return None
    keys = ("leaf_count", "spine_count", "core_count")
    return dict(zip(keys, switches, strict=True))


def _fields(obj: Any) -> dict[str, Any] | None:
    return None if obj is None else {name: getattr(obj, name) for name in obj.__slots__}


def design_fabric(requirements: FabricRequirements, catalog: list[ProductSpec]) -> FabricDesign:
    """Design the fabric, or raise InvalidInput naming the field at fault. Distances not given
    are planned at the class each tier usually spans; design_measured measures them."""
    return _design(requirements, catalog, look_ahead=True)


def design_measured(
    planned: FabricDesign, catalog: list[ProductSpec], lengths: FabricLengths
) -> FabricDesign:
    """The planned design again with the runs measured on its rack layout (`lengths`): each
    tier whose distance was not given picks its media for its longest run and buys every cable
    at the length class its own run needs. Switches, topology and ports are the planned ones
    (the layout placed them); the next step stays the planned comparison (a larger fabric is
    not laid out), and so does the other build of racks (rules 5c and 5d)."""
    design = _design(planned.requirements, catalog, look_ahead=False, lengths=lengths)
    warnings = list(design.warning_messages)
    warnings += [w for w in planned.warning_messages if w not in warnings]
    other, advice = planned.rack_scale_other, design.advice_messages
    if other is not None:
        advice += (_rack_scale_growth(design, other),)
    return replace(
        design,
        next_step=planned.next_step,
        rack_scale_other=other,
        rack_scale_other_design=planned.rack_scale_other_design,
        advice_messages=advice,
        warning_messages=tuple(warnings),
    )


def _tier_distance(
    req: FabricRequirements, name: str, tier: str, lengths: FabricLengths | None
) -> tuple[float, bool]:
    """(metres to plan the tier's media for, measured or not): the distance given, else the
    longest measured run, else the tier's usual class."""
    given = getattr(req, name)
    longest = lengths.longest(tier) if lengths is not None and given is None else None
    if longest is not None:
        return longest, True
    return distance_m(given, name), False


def designable_generations(
    catalog: list[ProductSpec], generations: Iterable[str]
) -> tuple[str, ...]:
    """The NIC generations the catalog can build a fabric in: one server of eight GPUs, racked
    beside its switches, designs on InfiniBand or on Ethernet. Any other generation fails
    whatever else is asked (the seed catalog has no 800GbE or 200GbE switch, and no 100GbE
    cable for a compute fabric), so pages do not offer it."""

    def designs(generation: str, family: str) -> bool:
        trial = FabricRequirements(
            gpu_count=8,
            gpus_per_server=8,
            nic_generation=generation,
            family=family,
            server_to_leaf="same-rack",
            leaf_to_spine="same-rack",
            spine_to_core="same-rack",
        )
        try:
            _design(trial, catalog, look_ahead=False)
        except InvalidInput:
            return False
        return True

    return tuple(g for g in generations if any(designs(g, family) for family in FAMILIES))


@contextmanager
def _reach_of_measured(field: str, distance: float, measured: bool):
    """A measured run no catalog part reaches is the site's doing: say what can change it. A
    fibre the catalog lacks for optics that reach the run is the catalog's: its message stays."""
    try:
        yield
    except InvalidInput as error:
        if not measured or field not in error.messages or isinstance(error, parts.MissingFibre):
            raise
        raise InvalidInput.field(
            field,
            message(
                gettext_noop(
                    "the longest run of this tier on the site's rack layout is {metres:g} m and "
                    "no catalog cable or optic reaches it: allow more racks per row, or give the "
                    "distance to plan for."
                ),
                metres=distance,
            ),
        ) from error


@dataclass(frozen=True, slots=True)
class _Chosen:
    """The catalog parts a design is built of, and what they decide about its host ports."""

    switch: ProductSpec
    split: int  # endpoints per switch port: 2 when NDR200 hosts share a 400G port
    nic: ProductSpec
    server: ProductSpec | None
    nic_speed: int
    # Planes one host cage serves (the server's cages decide, else the NIC's): 2 when a
    # ConnectX-8 cage serves both planes.
    cage_planes: int

    @property
    def twin_port_cages(self) -> bool:
        """The server's own cages serve several ports (a DGX's twin-port OSFP cages)."""
        return bool(self.server and self.server.ports_per_cage > 1)


class _Purchase:
    """The BOM as it is tallied, and the measured tiers: each buys its cables at their own
    runs' length classes, and chooses media per cage or rack pair where the ports allow it
    (fabric/measured.py)."""

    def __init__(self, catalog: list[ProductSpec], lengths: FabricLengths | None) -> None:
        self.catalog, self.lengths = catalog, lengths
        self.tally = Tally()
        self.measured: dict[str, MeasuredTier] = {}

    def cables(self, tier: str, media: Media, runs) -> list[tuple[ProductSpec, int]]:
        self.measured[tier], bought = buy_uniform(self.catalog, media, runs)
        return bought

    def measured_cables(
        self, tier: str, media: Media, is_measured: bool
    ) -> list[tuple[ProductSpec, int]] | None:
        """A measured tier's cables by length class; None: the media's own cable each."""
        if not is_measured:
            return None
        unit = FIBRE if media.optical else COPPER
        return self.cables(tier, media, self.lengths.cables[tier, unit])


# The tiers above the leaves: (their distance field, the fewest fabric tiers that have them).
_UPLINK_TIERS = {"leaf-spine": ("leaf_to_spine", 2), "spine-core": ("spine_to_core", 3)}


def _design(
    req: FabricRequirements,
    catalog: list[ProductSpec],
    *,
    look_ahead: bool,
    lengths: FabricLengths | None = None,
) -> FabricDesign:
    check_requirements(req)
    req, storage_sizing = _storage_sizing(req, catalog)
    host_distance, host_measured = _tier_distance(req, "server_to_leaf", "server-leaf", lengths)
    warnings: list[Message] = []
    chosen = _parts_chosen(req, catalog)
    t = _topology_planned(req, chosen)
    with _reach_of_measured("server_to_leaf", host_distance, host_measured):
        host_media = _host_media(req, catalog, chosen, host_distance)
    try:
        t, ufm_unit, no_ufm_hosts = _ufm_hosts_placed(req, catalog, chosen, t, host_media, lengths)
    except InvalidInput:
        if not t.kept_servers:
            raise
        # UFM appliances find no leaf port in whole scalable units whose leaves carry whole
        # racks (rule 5b keeps none): the racks as asked, and say why (rule 5c).
        warnings.append(_whole_units_without_room(t))
        t = _topology_planned(req, chosen, whole_units=False)
        t, ufm_unit, no_ufm_hosts = _ufm_hosts_placed(req, catalog, chosen, t, host_media, lengths)
    trunk_media, trunk_measured = _uplink_media(
        req, catalog, chosen.switch, t, "leaf-spine", lengths
    )
    core_media, core_measured = _uplink_media(req, catalog, chosen.switch, t, "spine-core", lengths)

    buy = _Purchase(catalog, lengths)
    ufm = None
    if no_ufm_hosts and _fabric_nodes(t) > SWITCH_SM_MAX_NODES:
        ufm = _ufm_hosts_uncabled(
            catalog, chosen.switch, t, host_media, buy.tally, warnings, no_ufm_hosts
        )
        no_ufm_hosts = None
    ufm_option = _ufm_option(catalog, chosen.switch, t) if no_ufm_hosts else ()
    subnet_manager, sm_switch, sm_switch_count = _switches_tallied(
        req, catalog, chosen.switch, t, buy.tally, warnings, (no_ufm_hosts, ufm_option)
    )
    if ufm_unit:
        ufm = _ufm_cabling(req, chosen, t, host_media, buy, ufm_unit, warnings)
    _buy_host_links(req, chosen, t, host_media, host_measured, ufm, buy)
    if ufm and ufm.links:
        _buy_ufm_links(req, t, ufm, buy)
    _buy_uplinks(req, chosen.switch, t, "leaf-spine", trunk_media, trunk_measured, buy)
    _buy_uplinks(req, chosen.switch, t, "spine-core", core_media, core_measured, buy)
    _quote_nics(req, chosen, t, buy.tally, warnings)
    storage = _storage_added(req, catalog, chosen.switch, lengths, buy.tally)
    management = _management(
        req, catalog, t, buy.tally, warnings, storage, _ufm_appliances(ufm, storage), lengths
    )
    buy.tally.add_spares(req.spares_percent)

    non_rail_switches = _rail_tier_warning(req, t, warnings)
    _general_warnings(req, t, chosen.switch, buy.tally, warnings)
    _storage_warnings(storage, warnings)
    if storage_sizing:
        warnings += storage_sizing_warnings(req, storage_sizing)
    design = FabricDesign(
        requirements=req,
        topology=t,
        switch=chosen.switch,
        nic=chosen.nic,
        host_media=host_media,
        trunk_media=trunk_media,
        core_media=core_media,
        sm_switch=sm_switch,
        sm_switch_count=sm_switch_count,
        subnet_manager=subnet_manager,
        bom=buy.tally.bom(),
        power_typical_w=buy.tally.power_typical_w,
        power_max_w=buy.tally.power_max_w,
        rack_units=buy.tally.rack_units,
        management=management,
        pre_provisioned=_pre_provisioned(req, t, warnings),
        next_step=None,
        non_rail_switches=non_rail_switches,
        warning_messages=(),
        advice_messages=_design_advice(req, t, chosen, storage, storage_sizing)
        + _inband_advice(management)
        + _cords_assumed(req, lengths)
        + _inband_cables_assumed(req, management, lengths),
        storage=storage,
        storage_sizing=storage_sizing,
        server=chosen.server,
        ufm=ufm,
        ufm_option=ufm_option,
        host_cage_planes=chosen.cage_planes,
        lengths=lengths,
        measured=buy.measured or None,
    )
    if look_ahead:
        design = replace(design, next_step=_next_step(design, catalog, warnings))
        built = _rack_scale_other(design, catalog)
        if built is not None:
            other, other_design = built
            design = replace(
                design,
                rack_scale_other=other,
                rack_scale_other_design=other_design,
                advice_messages=design.advice_messages + (_rack_scale_growth(design, other),),
            )
    return replace(design, warning_messages=tuple(warnings))


def _parts_chosen(req: FabricRequirements, catalog: list[ProductSpec]) -> _Chosen:
    """The switch, NIC and server of the request, checked against each other."""
    nic_speed = parts.generation_speed(catalog, req.nic_generation)
    if nic_speed is None:
        raise InvalidInput.field(
            "nic_generation",
            message(
                gettext_noop("no catalog product runs {generation}."),
                generation=req.nic_generation,
            ),
        )
    server = None
    if req.server_part_number:
        server = hosts.pick_server(catalog, req.server_part_number)
        hosts.check_server(req, server, nic_speed)
    # Rule 8: a managed switch runs the subnet manager of a fabric too small for UFM (a
    # part-filled scalable unit counts whole, as it is built: rule 5c).
    target_endpoints = max(req.growth_servers, _whole_scalable_units(req, server)) * req.nics
    prefer_managed = req.subnet_manager == "on-switch" or (
        req.subnet_manager == "auto" and target_endpoints < UFM_RECOMMENDED_FROM
    )
    switch, split = parts.pick_switch(
        catalog,
        family=req.family,
        nic_generation=req.nic_generation,
        part_number=req.switch_part_number,
        prefer_managed=prefer_managed,
    )
    nic = _nic_chosen(req, catalog, server, nic_speed)
    return _Chosen(
        switch=switch,
        split=split,
        nic=nic,
        server=server,
        nic_speed=nic_speed,
        cage_planes=parts.cage_planes(server or nic, nic_speed, req.planes),
    )


def _nic_chosen(
    req: FabricRequirements,
    catalog: list[ProductSpec],
    server: ProductSpec | None,
    nic_speed: int,
) -> ProductSpec:
    """The NIC asked for or picked, else the one the server carries when it has its own."""
    nic = parts.pick_nic(
        catalog,
        family=req.family,
        nic_generation=req.nic_generation,
        nic_speed=nic_speed,
        planes=req.planes,
        part_number=req.nic_part_number,
    )
    if not server:
        return nic
    return hosts.nic_for_server(
        catalog,
        server,
        nic,
        chosen=bool(req.nic_part_number),
        fits=lambda p: (
            parts.plane_ports(p, nic_speed, req.planes) >= req.planes
            and parts.nic_fits(
                p,
                family=req.family,
                nic_generation=req.nic_generation,
                nic_speed=nic_speed,
                planes=req.planes,
            )
        ),
    )


def _whole_scalable_units(req: FabricRequirements, server: ProductSpec | None) -> int:
    """Rule 5c: the servers a fabric of rack-scale systems is planned for, whole scalable units
    of racks unless the smallest fabric for the racks is asked (rule 5d); any other server's
    count as asked."""
    if server is None or not server.rack_scale or req.rack_scale_smallest:
        return req.servers
    return ceil_div(req.servers, RACKS_PER_SCALABLE_UNIT) * RACKS_PER_SCALABLE_UNIT


def _topology_planned(
    req: FabricRequirements, chosen: _Chosen, *, whole_units: bool = True
) -> Topology:
    """Planned for today's servers and the growth target; racks of a rack-scale system in whole
    scalable units, the racks not there yet kept as empty leaf slots (rule 5c)."""
    planned = _whole_scalable_units(req, chosen.server) if whole_units else req.servers
    t = plan_topology(
        radix=chosen.switch.port_count,
        ports_per_cage=chosen.switch.ports_per_cage,
        split=chosen.split,
        rails=req.nics,
        rail_optimized=req.rail_optimized,
        ratio=req.ratio,
        servers=planned,
        target_servers=max(req.growth_servers, planned),
    )
    if planned == req.servers:
        return t
    return replace(t, servers=req.servers, kept_servers=planned - req.servers)


def _host_media(
    req: FabricRequirements, catalog: list[ProductSpec], chosen: _Chosen, distance: float
) -> Media:
    """The server-to-leaf media: for the server's own twin-port cages, for a cage that serves
    both planes, else for single-port NIC cages."""
    if chosen.twin_port_cages:
        return hosts.server_host_media(
            catalog,
            switch=chosen.switch,
            server=chosen.server,
            distance=distance,
            field="server_to_leaf",
            split=chosen.split,
        )
    if chosen.cage_planes > 1:
        return hosts.server_host_media(
            catalog,
            switch=chosen.switch,
            server=chosen.server or chosen.nic,
            distance=distance,
            field="server_to_leaf",
            per_cage=chosen.cage_planes,
            port_speed=chosen.nic_speed,
        )
    return parts.pick_host_media(
        catalog,
        switch=chosen.switch,
        nic=chosen.nic,
        nic_generation=req.nic_generation,
        split=chosen.split,
        distance=distance,
        field="server_to_leaf",
    )


def _pair_links(t: Topology, tier: str) -> int:
    """Links between each switch pair of an uplink tier."""
    return t.links_per_leaf_per_spine if tier == "leaf-spine" else t.links_per_spine_per_core


def _uplink_media(
    req: FabricRequirements,
    catalog: list[ProductSpec],
    switch: ProductSpec,
    t: Topology,
    tier: str,
    lengths: FabricLengths | None,
) -> tuple[Media | None, bool]:
    """(The uplink tier's media, None when the fabric has no such tier; whether its distance
    is measured.) Copper only where each switch pair's links fill whole cages."""
    field, fewest_tiers = _UPLINK_TIERS[tier]
    distance, measured = _tier_distance(req, field, tier, lengths)
    if t.tiers < fewest_tiers:
        return None, measured
    with _reach_of_measured(field, distance, measured):
        media = parts.pick_trunk_media(
            catalog,
            switch=switch,
            distance=distance,
            copper_ok=_pair_links(t, tier) % t.ports_per_cage == 0,
            field=field,
        )
    return media, measured


def _switches_tallied(
    req: FabricRequirements,
    catalog: list[ProductSpec],
    switch: ProductSpec,
    t: Topology,
    tally: Tally,
    warnings: list[Message],
    no_ufm_hosts: tuple[Message | None, tuple[BomLine, ...]] = (None, ()),
) -> tuple[str, ProductSpec | None, int]:
    """The fabric's switches by tier and, on InfiniBand, its subnet manager: (subnet manager,
    the managed model swapped in for the first switches of the top tier, how many)."""
    subnet_manager, sm_switch, sm_switch_count = "", None, 0
    if req.family == "infiniband":
        subnet_manager, sm_switch, sm_switch_count = _subnet_manager(
            req, catalog, switch, t, tally, warnings, no_ufm_hosts
        )
    counts = {"leaf": t.leaf_count, "spine": t.spine_count, "core": t.core_count}
    top_tier = "core" if t.core_count else "spine" if t.spine_count else "leaf"
    counts[top_tier] -= sm_switch_count
    for role, count in counts.items():
        tally.add(switch, count * req.planes, role)
    if sm_switch:
        tally.add(sm_switch, sm_switch_count, top_tier)
    return subnet_manager, sm_switch, sm_switch_count


def _buy_host_links(
    req: FabricRequirements,
    chosen: _Chosen,
    t: Topology,
    host_media: Media,
    host_measured: bool,
    ufm: UfmCabling | None,
    buy: _Purchase,
) -> None:
    """Single-port host cages choose their media cage by cage; a DGX's twin-port cages and a
    cage split over two planes are optics whatever the run (hosts.server_host_media)."""
    catalog, lengths = buy.catalog, buy.lengths
    if host_measured and chosen.cage_planes == 1 and not chosen.twin_port_cages:
        buy.measured["server-leaf"] = buy_host_cages(
            buy.tally,
            catalog,
            "server-leaf",
            pick=lambda run: parts.pick_host_media(
                catalog,
                switch=chosen.switch,
                nic=chosen.nic,
                nic_generation=req.nic_generation,
                split=chosen.split,
                distance=run,
                field="server_to_leaf",
            ),
            cages=lengths.cables["server-leaf", CAGES],
            forced=_ufm_shared_cages(t, ufm, lengths),
            tier_media=host_media,
        )
    else:
        buy.tally.add_links(
            host_media,
            hosts.host_link_count(t, host_links(t), chosen.server, chosen.cage_planes),
            "server-leaf",
            req.planes,
            host_planes=req.planes // chosen.cage_planes,
            cables=buy.measured_cables("server-leaf", host_media, host_measured),
        )


def _buy_ufm_links(req: FabricRequirements, t: Topology, ufm: UfmCabling, buy: _Purchase) -> None:
    """The UFM appliances' links, measured with the server-to-leaf tier when it is."""
    lengths = buy.lengths
    ufm_measured = lengths is not None and req.server_to_leaf is None and bool(lengths.ufm_m)
    cables = None
    if ufm_measured:
        runs = ufm_cables(
            ufm.links,
            ufm.ports_per_appliance,
            t.ports_per_cage,
            lengths,
            FIBRE if ufm.media.optical else COPPER,
        )
        cables = buy.cables("ufm-leaf", ufm.media, runs)
    buy.tally.add_links(ufm.media, ufm.link_count(), "ufm-leaf", 1, cables=cables)


def _buy_uplinks(
    req: FabricRequirements,
    switch: ProductSpec,
    t: Topology,
    tier: str,
    media: Media | None,
    is_measured: bool,
    buy: _Purchase,
) -> None:
    """Measured switch pairs on whole cages choose their media rack pair by rack pair; other
    measured optical uplinks choose their modules cage by cage; unmeasured uplinks all take the
    tier's media."""
    if media is None:
        return
    field, _fewest_tiers = _UPLINK_TIERS[tier]
    ppc, catalog = t.ports_per_cage, buy.catalog
    if is_measured and _pair_links(t, tier) % ppc == 0:
        buy.measured[tier] = buy_trunk_pairs(
            buy.tally,
            catalog,
            tier,
            links=buy.lengths.cables[tier, FIBRE],
            pick=lambda run: parts.pick_trunk_media(
                catalog, switch=switch, distance=run, copper_ok=True, field=field
            ),
            ports_per_cage=ppc,
        )
    elif is_measured and media.optical and (tier, MODULES) in buy.lengths.cables:
        buy.measured[tier] = buy_trunk_cages(
            buy.tally,
            catalog,
            tier,
            media=media,
            module_for=lambda run: parts.trunk_module_for(catalog, switch, media, run),
            cages=buy.lengths.cables[tier, MODULES],
            links=buy.lengths.cables[tier, FIBRE],
        )
    else:
        links = leaf_spine_links(t) if tier == "leaf-spine" else spine_core_links(t)
        buy.tally.add_links(
            media, links, tier, req.planes, cables=buy.measured_cables(tier, media, is_measured)
        )


def _quote_nics(
    req: FabricRequirements, chosen: _Chosen, t: Topology, tally: Tally, warnings: list[Message]
) -> None:
    """The compute NICs when asked for; a DGX has its ConnectX NICs on board: its cages are
    the NICs' own."""
    if not req.include_nics:
        return
    server = chosen.server
    if server and (server.ports_per_cage > 1 or server.family == "DGX"):
        warnings.append(
            message(
                gettext_noop("{sku} has its compute NICs built in: no NIC cards are quoted."),
                sku=server.part_number,
            )
        )
    else:
        tally.add(chosen.nic, t.servers * req.nics, "server NIC", powered=False)


def _storage_sizing(
    req: FabricRequirements, catalog: list[ProductSpec]
) -> tuple[FabricRequirements, StorageSizing | None]:
    """The storage counts raised to the capacity and rates asked (fabric/storage.py), at the
    storage ports' speed: the NIC generation's (a generation no catalog product runs is refused
    by _parts_chosen, on its field)."""
    port_gbps = parts.generation_speed(catalog, req.nic_generation)
    if port_gbps is None:
        return req, None
    return storage_sized(req, port_gbps)


def _storage_added(
    req: FabricRequirements,
    catalog: list[ProductSpec],
    switch: ProductSpec,
    lengths: FabricLengths | None,
    tally: Tally,
) -> FabricDesign | None:
    """The separate storage fabric, its lines added to the BOM; None without storage servers."""
    if not req.storage_servers:
        return None
    storage = _storage(req, catalog, switch, lengths.storage if lengths else None)
    _add_storage(storage, catalog, tally)
    return storage


def _ufm_appliances(ufm: UfmCabling | None, storage: FabricDesign | None) -> int:
    """UFM appliances of both fabrics: each takes an out-of-band management port."""
    storage_ufm = storage.ufm if storage else None
    return (ufm.appliances if ufm else 0) + (storage_ufm.appliances if storage_ufm else 0)


def _storage_warnings(storage: FabricDesign | None, warnings: list[Message]) -> None:
    """The storage fabric's warnings, under its name. Parts' lifecycle warnings are already
    said once for the merged BOM."""
    if storage:
        warnings += [
            message(gettext_noop("Storage fabric: {warning}"), warning=w)
            for w in storage.warning_messages
            if w not in warnings
        ]


def _design_advice(
    req: FabricRequirements,
    t: Topology,
    chosen: _Chosen,
    storage: FabricDesign | None,
    storage_sizing: StorageSizing | None,
) -> tuple[Message, ...]:
    fabric_switches = (t.leaf_count + t.spine_count + t.core_count) * req.planes
    advice = _advice(req, t, chosen.switch, fabric_switches)
    if _has_sharp(chosen.switch):
        advice += (_sharp_advice(chosen.switch),)
    if chosen.cage_planes > 1:
        advice += (
            message(
                gettext_noop(
                    "Each {sku} cage runs {planes} x {speed}G, one port to each plane, through "
                    "one twin-port module with a fibre per plane: NVIDIA counts it as one "
                    "cable per GPU."
                ),
                sku=(chosen.server or chosen.nic).part_number,
                planes=req.planes,
                speed=chosen.nic_speed,
            ),
        )
    if chosen.server is not None and chosen.server.rack_scale:
        advice += (_rack_scale_advice(req, t, chosen.server),)
    if t.kept_servers:
        advice += (_whole_unit_advice(t),)
    if storage:
        advice += (_storage_advice(req, storage),)
    if storage_sizing:
        advice += (storage_sizing_advice(req, storage_sizing),)
    return advice


def _has_sharp(switch: ProductSpec) -> bool:
    """Whether the fabric's switches can reduce in the network: NVIDIA SHARP runs on NVIDIA
    Quantum InfiniBand switches (Quantum HDR, Quantum-2 NDR, Quantum-3 in the Quantum-X800 XDR
    switches) and on no Ethernet switch (NVIDIA SHARP Rev 3.13.0, "General Information"; Rev
    3.10.3, "XDR Support"), so a Spectrum-X design gets no such note."""
    return switch.protocol == "infiniband" and switch.family.startswith("Quantum")


def _sharp_advice(switch: ProductSpec) -> Message:
    """SHARP is left out of the TCO model: its predicted all-reduce bandwidth is a floor the
    customer can raise, not a figure SHARP was counted in (tco-model §1). NCCL uses SHARP
    through the NCCL-SHARP plugin (NVIDIA SHARP Rev 3.9.1 LTS, "Using NVIDIA SHARP with NVIDIA
    NCCL"), with NCCL_COLLNET_ENABLE=1 (HPC-X 2.26, "NCCL-RDMA-SHARP Plugins")."""
    return message(
        gettext_noop(
            "The {family} switches can reduce in the network (NVIDIA SHARP). The TCO does not "
            "model it: its predicted all-reduce bandwidth is without SHARP, which NCCL's SHARP "
            "plugin can raise."
        ),
        family=switch.family,
    )


def _inband_advice(management: Management) -> tuple[Message, ...]:
    """How the in-band network is built, since a single switch and a pair cost differently."""
    if not management.inband_switches:
        return ()
    if management.inband_peer_cables:
        return (
            message(
                gettext_noop(
                    "In-band management in MLAG switch pairs, as NVIDIA's DGX BasePOD "
                    "({switches} switches): each server's two in-band ports go one to each "
                    "switch of its pair, so one switch can fail; each pair is joined by a peer "
                    "link of {peer} cables."
                ),
                switches=management.inband_switches,
                peer=INBAND_PEER_LINK,
            ),
        )
    return (
        message(
            gettext_noop(
                "In-band management on single switches ({switches} in all), one port per "
                "server: no redundancy; NVIDIA's DGX BasePOD dual-homes each server to an MLAG "
                "pair."
            ),
            switches=management.inband_switches,
        ),
    )


def _rack_scale_advice(req: FabricRequirements, t: Topology, server: ProductSpec) -> Message:
    """A rack-scale system (GB200 NVL72) is one rack: its GPUs meet over NVLink inside it, and
    this fabric joins the racks; rail groups of racks are the scalable units the racks and the
    leaves are placed by."""
    planned = t.servers + t.kept_servers
    group = min(planned, t.group_servers) if t.rail_optimized and t.tiers > 1 else planned
    return message(
        gettext_noop(
            "Each {sku} is a liquid-cooled rack of its own, up to {kw:g} kW on its own power "
            "shelves: its {gpus} GPUs meet over NVLink inside the rack, and this fabric joins "
            "{racks} racks, {group} racks per scalable unit."
        ),
        sku=server.part_number,
        kw=(server.power_max_w or 0) / 1000,
        gpus=req.gpus_per_server,
        racks=t.servers,
        group=group,
    )


def _whole_unit_advice(t: Topology) -> Message:
    """Rule 5c: a part-filled scalable unit of racks is built whole, the missing racks' ports
    left free for them."""
    return message(
        gettext_noop(
            "As NVIDIA's DGX SuperPOD builds a part-filled scalable unit, this fabric is "
            "built for {planned} racks: {leaves} leaves, {spines} spines and every leaf-spine "
            "cable; the leaf ports of the {kept} racks still to come stay free for them."
        ),
        planned=t.servers + t.kept_servers,
        leaves=t.leaf_count,
        spines=t.spine_count,
        kept=t.kept_servers,
    )


def _rack_scale_other(
    design: FabricDesign, catalog: list[ProductSpec]
) -> tuple[RackScaleBuild, FabricDesign] | None:
    """Rules 5c and 5d, "show both": racks of a rack-scale system that are not whole scalable
    units are built either way, so the build not asked is designed too: its counts, with what
    growing from the smallest build to whole units re-cables, and the build itself (the caller
    measures and prices it on the site). None for other servers, for whole units, and when
    whole units fall back to the racks asked (UFM appliances with no room: one build only)."""
    req, server = design.requirements, design.server
    if server is None or not server.rack_scale:
        return None
    if _whole_scalable_units(replace(req, rack_scale_smallest=False), server) == req.servers:
        return None
    try:
        other = _design(
            replace(req, rack_scale_smallest=not req.rack_scale_smallest),
            catalog,
            look_ahead=False,
        )
    except InvalidInput:
        return None
    small, whole = (design, other) if req.rack_scale_smallest else (other, design)
    if not whole.topology.kept_servers or small.topology.kept_servers:
        return None
    st, wt = small.topology, whole.topology
    moved_hosts = sum(
        st.leaf_of(rack, port) != wt.leaf_of(rack, port)
        for rack in range(st.servers)
        for port in range(st.rails)
    )
    # A leaf keeps its uplinks only when both builds join leaves to spines alike.
    same_trunk = (st.tiers, st.spines_per_pod, st.links_per_leaf_per_spine) == (
        wt.tiers,
        wt.spines_per_pod,
        wt.links_per_leaf_per_spine,
    )
    trunk = small.links_by_tier().get("leaf-spine", 0)
    build = RackScaleBuild(
        whole_units=other is whole,
        racks=other.topology.servers + other.topology.kept_servers,
        leaf_count=other.leaf_count,
        spine_count=other.spine_count,
        core_count=other.core_count,
        leaf_spine_links=other.links_by_tier().get("leaf-spine", 0),
        added_switches=(whole.leaf_count + whole.spine_count + whole.core_count)
        - (small.leaf_count + small.spine_count + small.core_count),
        added_leaf_spine_links=whole.links_by_tier().get("leaf-spine", 0) - trunk,
        moved_host_links=moved_hosts * design.planes,
        moved_trunk_links=0 if same_trunk else trunk,
    )
    return build, other


def _rack_scale_growth(design: FabricDesign, other: RackScaleBuild) -> Message:
    """Rules 5c and 5d: the other build's switches, and what growing from the smallest build to
    whole units costs: the switches and cables it adds and the links it re-cables."""
    t = design.topology
    growth = dict(
        racks=t.servers,
        planned=other.racks if other.whole_units else t.servers + t.kept_servers,
        other=_switches_named(other.leaf_count, other.spine_count, other.core_count),
        added=other.added_switches,
        links=other.added_leaf_spine_links,
        moved=other.moved_host_links,
        ports=t.endpoints * design.planes,
        trunk=other.moved_trunk_links,
    )
    if other.whole_units:
        return message(
            gettext_noop(
                "This is the smallest fabric for the racks asked ({racks}). As "
                "NVIDIA's DGX SuperPOD builds a scalable unit, the fabric for {planned} racks is "
                "{other}, ready for the racks to come. Growing from this build to {planned} "
                "racks adds {added} switches and {links} leaf-spine cables, and re-cables "
                "{moved} of the racks' {ports} ports and {trunk} leaf-spine cables already in "
                "place."
            ),
            **growth,
        )
    return message(
        gettext_noop(
            "The smallest fabric for the racks asked ({racks}) is {other}. Growing "
            "from it to {planned} racks adds {added} switches and {links} leaf-spine cables, "
            "and re-cables {moved} of the racks' {ports} ports and {trunk} leaf-spine cables "
            "already in place."
        ),
        **growth,
    )


def _switches_named(leaves: int, spines: int, cores: int) -> Message:
    """A build's switches in words: one switch, leaves and spines, or three tiers."""
    if not spines:
        return message(gettext_noop("one switch"))
    if cores:
        return message(
            gettext_noop("{leaves} leaves, {spines} spines and {cores} core switches"),
            leaves=leaves,
            spines=spines,
            cores=cores,
        )
    return message(
        gettext_noop("{leaves} leaves and {spines} spines"), leaves=leaves, spines=spines
    )


def _whole_units_without_room(t: Topology) -> Message:
    """Rule 5c's one exception: UFM appliances that whole units have no leaf port for."""
    return message(
        gettext_noop(
            "The UFM appliances find no free leaf port in a fabric built for {planned} racks, "
            "whole scalable units as NVIDIA's DGX SuperPOD builds them: this fabric is built "
            "for the {racks} racks asked. Use UFM licences to have the whole units."
        ),
        planned=t.servers + t.kept_servers,
        racks=t.servers,
    )


def _ufm_shared_cages(
    t: Topology, ufm: UfmCabling | None, lengths: FabricLengths
) -> dict[tuple[int, int], tuple]:
    """The server cages a UFM port shares, by (leaf, cage), with their runs: they keep the
    tier's media, which is the UFM link's (hosts.shares_cage)."""
    if ufm is None:
        return {}
    server_cages = [
        ceil_div(ceil_div(e, t.split), t.ports_per_cage) for e in hosts.leaf_endpoints(t)
    ]
    shared = {
        (leaf, port // t.ports_per_cage)
        for leaf, port in ufm.links
        if port // t.ports_per_cage < server_cages[leaf]
    }
    return {(leaf, cage): lengths.leaf_cages(leaf)[cage] for leaf, cage in sorted(shared)}


# Fields of the derived storage request that are really about the storage fabric's size.
_STORAGE_FIELDS = {
    "gpu_count": "storage_servers",
    "server_count": "storage_servers",
    "oversubscription": "storage_oversubscription",
}


# A DGX's storage (and in-band) ports are not its compute cages: DGX H100/H200 have two
# dual-port ConnectX-7 QSFP112 cards, DGX B200 two dual-port BlueField-3 QSFP112 DPUs, and the
# DGX H100 SuperPOD reference architecture cables them with single-port QSFP112 modules
# (980-9I693-00NS00, MMA1Z00-NS400). Per model: the cage those ports have.
DGX_STORAGE_CAGES = {"DGX-H100": "QSFP112", "DGX-H200": "QSFP112", "DGX-B200": "QSFP112"}


def _storage_port_nic(
    req: FabricRequirements, catalog: list[ProductSpec], switch: ProductSpec
) -> str | None:
    """The catalog NIC whose cage and speed the compute servers' storage ports have, for the
    storage fabric's media: a DGX's QSFP112 ports at the fabric's speed (the cards are built
    in: nothing is quoted for them). None: the fabric's usual NIC."""
    cage = DGX_STORAGE_CAGES.get(req.server_part_number or "")
    if cage is None:
        return None
    for p in catalog:
        if (
            p.category in ("adapter", "dpu")
            and p.cage_type == cage
            and p.port_speed_gbps == switch.port_speed_gbps
            and p.generation == switch.generation
        ):
            return p.part_number
    return None


def _storage(
    req: FabricRequirements,
    catalog: list[ProductSpec],
    switch: ProductSpec,
    lengths: FabricLengths | None = None,
) -> FabricDesign:
    """The storage fabric, planned by the same code as the compute fabric: each storage endpoint
    port is one "server" with one NIC, not rail-optimized (storage traffic has no rails), on the
    compute fabric's switch model, family and generation, with its own subnet manager (it is a
    separate subnet). Designed for today's size: a growth target sizes the compute fabric only."""
    endpoints = req.storage_endpoints
    derived = replace(
        req,
        gpu_count=None,
        server_count=endpoints,
        gpus_per_server=1,
        nics_per_server=1,
        planes=1,
        switch_part_number=switch.part_number,
        nic_part_number=_storage_port_nic(req, catalog, switch),
        server_part_number=None,  # storage ports are not the server's compute cages
        include_nics=False,
        rail_optimized=False,
        oversubscription=req.storage_oversubscription,
        growth_gpus=None,
        inband_management=False,
        outofband_management=False,
        spares_percent=0,  # spares are counted once, over the merged BOM
        storage_servers=0,
        storage_capacity_tb=None,  # sized already: the derived fabric's endpoints are its own
        storage_read_gb_per_s=None,
        storage_write_gb_per_s=None,
    )
    try:
        return _design(derived, catalog, look_ahead=False, lengths=lengths)
    except InvalidInput as error:
        errors: dict[str, list[str]] = {}
        for field, messages in error.messages.items():
            if _STORAGE_FIELDS.get(field) == "storage_servers":
                messages = [
                    message(
                        gettext_noop(
                            "the storage fabric's {ports} endpoint ports are beyond three "
                            "tiers of {sku} at {ratio:g}:1; use fewer storage ports or more "
                            "storage oversubscription."
                        ),
                        ports=endpoints,
                        sku=switch.part_number,
                        ratio=float(derived.ratio),
                    )
                ]
            else:
                messages = [
                    message(gettext_noop("Storage fabric: {warning}"), warning=m) for m in messages
                ]
            errors.setdefault(_STORAGE_FIELDS.get(field, field), []).extend(messages)
        raise InvalidInput(errors) from error


def _add_storage(storage: FabricDesign, catalog: list[ProductSpec], tally: Tally) -> None:
    """The storage fabric's lines under "storage ..." roles, with its power and rack units."""
    by_sku = {p.part_number: p for p in catalog}
    for line in storage.bom:
        tally.add(by_sku[line.sku], line.quantity, f"storage {line.role}", powered=False)
    tally.power_typical_w += storage.power_typical_w
    tally.power_max_w += storage.power_max_w
    tally.rack_units += storage.rack_units


# Whole sentences per plural form (switches > 1, tiers > 1), so each translates as a whole.
_STORAGE_ADVICE = {
    (False, False): gettext_noop(
        "Storage fabric: {ports} ports ({servers} compute servers x {per_server} + "
        "{storage_servers} storage servers x {per_storage_server}) on {switches} {sku} switch "
        "in {tiers} tier, separate from the compute fabric, same switch model and generation, "
        "not rail-optimized."
    ),
    (True, False): gettext_noop(
        "Storage fabric: {ports} ports ({servers} compute servers x {per_server} + "
        "{storage_servers} storage servers x {per_storage_server}) on {switches} {sku} switches "
        "in {tiers} tier, separate from the compute fabric, same switch model and generation, "
        "not rail-optimized."
    ),
    (True, True): gettext_noop(
        "Storage fabric: {ports} ports ({servers} compute servers x {per_server} + "
        "{storage_servers} storage servers x {per_storage_server}) on {switches} {sku} switches "
        "in {tiers} tiers, separate from the compute fabric, same switch model and generation, "
        "not rail-optimized."
    ),
}


def _storage_advice(req: FabricRequirements, storage: FabricDesign) -> Message:
    t = storage.topology
    switches = storage.leaf_count + storage.spine_count + storage.core_count
    # More than one tier always means more than one switch.
    return message(
        _STORAGE_ADVICE[switches > 1 or t.tiers > 1, t.tiers > 1],
        ports=storage.endpoint_ports,
        servers=req.servers,
        per_server=req.storage_ports_per_server,
        storage_servers=req.storage_servers,
        per_storage_server=req.storage_ports_per_storage_server,
        switches=switches,
        sku=storage.switch.part_number,
        tiers=t.tiers,
    )


def _subnet_manager(
    req: FabricRequirements,
    catalog: list[ProductSpec],
    switch: ProductSpec,
    t: Topology,
    tally: Tally,
    warnings: list[Message],
    no_ufm_hosts: tuple[Message | None, tuple[BomLine, ...]] = (None, ()),
) -> tuple[str, ProductSpec | None, int]:
    """Rule 8: every InfiniBand fabric gets a subnet manager; none is never an option. UFM
    licences come only with their hosts quoted and cabled: without them (`no_ufm_hosts`: why,
    and the lines UFM would add) the switches run the subnet manager and the UFM option is
    shown beside (_ufm_not_quoted)."""
    # A part-filled scalable unit chooses as the whole unit it is built as (rule 5c); UFM
    # licences are bought for the endpoints there are.
    endpoints = t.planned_endpoints
    choice = _sm_choice(req, switch, endpoints)
    reason, option = no_ufm_hosts
    ufm_left_out = choice == "ufm-licence" and reason is not None
    if ufm_left_out:
        choice = "on-switch"
        warnings.append(_ufm_not_quoted(reason, option))
    if choice == "on-switch" and not ufm_left_out and _fabric_nodes(t) > SWITCH_SM_MAX_NODES:
        raise SubnetManagerTooSmall.field("subnet_manager", _switch_sm_too_small(t))
    sm_switch, sm_switch_count = None, 0
    if choice == "on-switch" and not switch.managed:
        sm_switch = parts.managed_sibling(catalog, switch)
        if sm_switch is None:
            raise InvalidInput.field(
                "subnet_manager",
                message(
                    gettext_noop(
                        "{sku} is unmanaged and the catalog has no managed model of it: "
                        "choose UFM or an OpenSM host."
                    ),
                    sku=switch.part_number,
                ),
            )
        top = t.core_count or t.spine_count or t.leaf_count
        sm_switch_count = min(HA_PAIR, top)
        warnings.append(
            message(
                gettext_noop(
                    "{sku} is unmanaged: {count} of the top-tier switches are "
                    "{managed_sku} (managed) to run the subnet manager."
                ),
                sku=switch.part_number,
                count=sm_switch_count,
                managed_sku=sm_switch.part_number,
            )
        )
    elif choice in ("ufm-licence", "ufm-appliance"):
        if choice == "ufm-licence":
            quantity, item = t.endpoints, parts.pick_software(catalog, "UFM", "endpoint")
        else:
            quantity, item = HA_PAIR, _ufm_appliance(catalog, switch)
        if item is None:
            raise InvalidInput.field(
                "subnet_manager",
                message(
                    gettext_noop("the catalog has no UFM licence per endpoint.")
                    if choice == "ufm-licence"
                    else gettext_noop("the catalog has no UFM appliance.")
                ),
            )
        tally.add(item, quantity, "subnet manager")
        if not switch.managed:
            warnings.append(
                message(
                    gettext_noop(
                        "{sku} is unmanaged: a subnet manager was added ({count} x {licence})."
                    ),
                    sku=switch.part_number,
                    count=quantity,
                    licence=item.part_number,
                )
            )
    elif choice == "opensm-host":
        warnings.append(
            message(
                gettext_noop(
                    "The subnet manager is OpenSM on {hosts} customer hosts (master and "
                    "standby): they are not in the bill of materials."
                ),
                hosts=HA_PAIR,
            )
        )
    if not choice.startswith("ufm"):
        _without_ufm(t, choice, ufm_left_out, warnings)
    return choice, sm_switch, sm_switch_count


def _without_ufm(t: Topology, choice: str, ufm_left_out: bool, warnings: list[Message]) -> None:
    """Rule 8's one rule for a fabric without UFM, on what is built (a part-filled unit's
    kept slots are no nodes yet, rule 5c): over SWITCH_SM_MAX_NODES UFM is required (only an
    OpenSM host gets here: on-switch is refused, UFM licences are quoted); a switches' subnet
    manager whose planned full unit would pass the limit says that growing to it needs UFM;
    else from UFM_RECOMMENDED_FROM endpoints UFM is recommended, unless it was left out (its
    message already says why and what it would add)."""
    nodes, planned = _fabric_nodes(t), _fabric_nodes(t.with_kept())
    if nodes > SWITCH_SM_MAX_NODES:
        warnings.append(
            message(
                gettext_noop(
                    "UFM is effectively required: this fabric has {nodes} InfiniBand nodes, more "
                    "than the {limit} the switches' own subnet manager runs (NVIDIA MLNX-OS User "
                    "Manual)."
                ),
                nodes=nodes,
                limit=SWITCH_SM_MAX_NODES,
            )
        )
    elif choice == "on-switch" and planned > SWITCH_SM_MAX_NODES:
        warnings.append(
            message(
                gettext_noop(
                    "The switches' own subnet manager runs the {nodes} InfiniBand nodes built "
                    "(up to {limit}, NVIDIA MLNX-OS User Manual), but the full scalable unit "
                    "planned has {planned} ({endpoints} endpoint ports): growing to it needs "
                    "UFM or an OpenSM host."
                ),
                nodes=nodes,
                limit=SWITCH_SM_MAX_NODES,
                planned=planned,
                endpoints=t.planned_endpoints,
            )
        )
    elif t.endpoints >= UFM_RECOMMENDED_FROM and not ufm_left_out:
        warnings.append(
            message(
                gettext_noop(
                    "UFM is recommended from a few hundred endpoints; this fabric has {endpoints}."
                ),
                endpoints=t.endpoints,
            )
        )


def _fabric_nodes(t: Topology) -> int:
    """The fabric's nodes as SWITCH_SM_MAX_NODES counts them: endpoint ports and switches."""
    return t.endpoints + t.leaf_count + t.spine_count + t.core_count


def _switch_sm_too_small(t: Topology) -> Message:
    """The switches' subnet manager asked for a fabric over SWITCH_SM_MAX_NODES: refused on the
    field, naming what to choose."""
    return message(
        gettext_noop(
            "This fabric has {nodes} InfiniBand nodes ({endpoints} endpoint ports and "
            "{switches} switches), more than the {limit} the switches' own subnet manager runs "
            "(NVIDIA MLNX-OS User Manual): choose UFM licences, a UFM appliance or an OpenSM "
            "host."
        ),
        nodes=_fabric_nodes(t),
        endpoints=t.endpoints,
        switches=t.leaf_count + t.spine_count + t.core_count,
        limit=SWITCH_SM_MAX_NODES,
    )


def _ufm_hosts_uncabled(
    catalog: list[ProductSpec],
    switch: ProductSpec,
    t: Topology,
    host_media: Media,
    tally: Tally,
    warnings: list[Message],
    reason: Message,
) -> UfmCabling | None:
    """Rule 8, our rule where NVIDIA publishes none: a fabric over SWITCH_SM_MAX_NODES whose
    leaves have no port for the UFM hosts still gets UFM, as the switches cannot run it. Its
    hosts and their NICs are quoted with the licences (_subnet_manager) but not cabled, and the
    warning says what gives them a port. The fabric is not bent for two hosts: NVIDIA's own
    SuperPOD tables build these full units (DGX B200, 8 SUs of 32: 256 DGX on 64 leaves and 32
    spines), and a leaf port more for them would be a third switch tier at 2,048 NDR ports.

    A host that is bought is racked and powered: the hosts are returned as a UfmCabling with no
    links, so the installation pack racks them (and cables their BMCs) as it does cabled UFM
    hosts, and the network racks' power and rack units count them; None without a host and
    NIC in the catalog (then nothing is racked)."""
    host = parts.pick_ufm_host(catalog)
    nic = parts.pick_ufm_host_nic(catalog, switch.generation)
    if not (host and nic):
        warnings.append(
            message(
                gettext_noop(
                    "UFM licences are quoted without their hosts: the catalog has no UFM host "
                    "or no host NIC of the fabric's generation, and this fabric has {nodes} "
                    "InfiniBand nodes, more than the {limit} the switches' own subnet manager "
                    "runs (NVIDIA MLNX-OS User Manual), so it cannot do without UFM. Add the "
                    "hosts to the catalog, or source two separately."
                ),
                nodes=_fabric_nodes(t),
                limit=SWITCH_SM_MAX_NODES,
            )
        )
        return None
    tally.add(host, HA_PAIR, "subnet manager")
    # NICs draw their power inside the hosts.
    tally.add(nic, HA_PAIR, "subnet manager", powered=False)
    ufm = UfmCabling(HA_PAIR, 1, host_media, (), 0, host, nic, no_leaf_port=reason)
    warnings.append(
        message(
            gettext_noop(
                "UFM is quoted, its two hosts not cabled: this fabric has {nodes} InfiniBand "
                "nodes ({endpoints} endpoint ports and {switches} switches), more than the "
                "{limit} the switches' own subnet manager runs (NVIDIA MLNX-OS User Manual), so "
                "it cannot do without UFM. {reason}"
            ),
            nodes=_fabric_nodes(t),
            endpoints=t.endpoints,
            switches=t.leaf_count + t.spine_count + t.core_count,
            limit=SWITCH_SM_MAX_NODES,
            reason=reason,
        )
    )
    return ufm


def _servers_freeing_a_port(req: FabricRequirements, t: Topology, slots: int) -> Message:
    """The size whose leaves leave the UFM hosts a port: `slots` server slots fewer, as NVIDIA's
    DGX SuperPOD has 127 DGX in four scalable units of 32, the 128th slot UFM's."""
    servers = t.servers - slots
    return message(
        gettext_noop(
            "No leaf port is free for the UFM hosts: design {servers} servers ({gpus} GPUs) to "
            "have them cabled, as NVIDIA's SuperPOD gives UFM a server slot (127 DGX in 128)."
        ),
        servers=servers,
        gpus=servers * req.gpus_per_server,
    )


def _ufm_not_quoted(reason: Message, option: tuple[BomLine, ...]) -> Message:
    """Our rule (NVIDIA publishes none for a fabric whose servers take every leaf port): UFM
    licences are not quoted without the hosts UFM runs on, quoted and cabled (UFM Enterprise
    User Manual, "Fabric Topology with UFM": a UFM Server and a UFM HA Server on the fabric).
    The fabric is not bent for two hosts: NVIDIA's SuperPOD frees a server slot for UFM (31 DGX
    in a 32-node SU, 127 in a 4-SU SuperPOD), which is the customer's choice to make, and a leaf
    added to a full rail-optimised fabric is a rail group or more spines (a third tier at 2,048
    NDR endpoints). The switches' own subnet manager runs the fabric instead: MLNX-OS User
    Manual, "Subnet Manager", manages fabrics up to 2048 nodes, without adaptive routing, SHARP
    or congestion control, which is why the UFM option is priced beside."""
    return message(
        gettext_noop(
            "UFM is not quoted: its licences come only with the two hosts UFM runs on, quoted "
            "and cabled. {reason} The subnet manager runs on the managed switches instead, "
            "without UFM's adaptive routing, SHARP and congestion control. The UFM option, "
            "priced beside the design: {lines}."
        ),
        reason=reason,
        lines=listing(f"{line.quantity} x {line.sku}" for line in option),
    )


def _ufm_option(
    catalog: list[ProductSpec], switch: ProductSpec, t: Topology
) -> tuple[BomLine, ...]:
    """What UFM licences would add: a licence per endpoint there is, and the catalog's UFM host
    with its NIC of the fabric's generation, twice (master and standby), when it has them."""
    licence = parts.pick_software(catalog, "UFM", "endpoint")
    host = parts.pick_ufm_host(catalog)
    nic = parts.pick_ufm_host_nic(catalog, switch.generation)
    wanted = [(licence, t.endpoints)]
    if host and nic:
        wanted += [(host, HA_PAIR), (nic, HA_PAIR)]
    return tuple(
        BomLine(p.part_number, p.category, quantity, "subnet manager", p.name)
        for p, quantity in wanted
        if p is not None
    )


def _sm_choice(req: FabricRequirements, switch: ProductSpec, endpoints: int) -> str:
    """The subnet manager asked for; auto: on a managed switch below UFM's few hundred
    endpoints, else UFM licences (which fall back to the switches when their hosts find no
    leaf port: _subnet_manager)."""
    if req.subnet_manager != "auto":
        return req.subnet_manager
    return "on-switch" if switch.managed and endpoints < UFM_RECOMMENDED_FROM else "ufm-licence"


@dataclass(frozen=True, slots=True)
class _UfmUnit:
    """What runs UFM from the leaves, twice (master and standby): an appliance with its own
    ports, or a host server with one InfiniBand NIC of the fabric's generation."""

    device: ProductSpec
    nic: ProductSpec | None
    ports: int  # leaf ports each takes


def _ufm_unit(
    req: FabricRequirements, catalog: list[ProductSpec], switch: ProductSpec, endpoints: int
) -> _UfmUnit | None:
    """The UFM appliance, or with UFM licences the catalog's UFM host and its NIC of the
    fabric's generation (None when the catalog has either missing); None without UFM."""
    if req.family != "infiniband":
        return None
    choice = _sm_choice(req, switch, endpoints)
    if choice == "ufm-appliance":
        appliance = _ufm_appliance(catalog, switch)
        return _UfmUnit(appliance, None, appliance.port_count or 1)
    if choice != "ufm-licence":
        return None
    host = parts.pick_ufm_host(catalog)
    nic = parts.pick_ufm_host_nic(catalog, switch.generation)
    return _UfmUnit(host, nic, 1) if host and nic else None


def _ufm_hosts_placed(
    req: FabricRequirements,
    catalog: list[ProductSpec],
    chosen: _Chosen,
    t: Topology,
    host_media: Media,
    lengths: FabricLengths | None,
) -> tuple[Topology, _UfmUnit | None, Message | None]:
    """The fabric with room for UFM, the unit cabled, and why UFM licences have no hosts cabled
    (_ufm_hosts_found). A fabric over SWITCH_SM_MAX_NODES cannot do without UFM: there the reason
    names the size that gives the hosts a leaf port, where fewer servers would."""
    placed, unit, why, slots = _ufm_hosts_found(req, catalog, chosen, t, host_media, lengths)
    if why is not None and slots and _fabric_nodes(placed) > SWITCH_SM_MAX_NODES:
        why = _servers_freeing_a_port(req, placed, slots)
    return placed, unit, why


def _ufm_hosts_found(
    req: FabricRequirements,
    catalog: list[ProductSpec],
    chosen: _Chosen,
    t: Topology,
    host_media: Media,
    lengths: FabricLengths | None,
) -> tuple[Topology, _UfmUnit | None, Message | None, int]:
    """The fabric with room for UFM (_room_for_ufm), the unit cabled, why UFM licences have no
    hosts quoted, and the server slots whose leaf ports would take the hosts (0: fewer servers
    does not help). No hosts: no host of the fabric's generation in the catalog, no leaf port
    free (a full rail-optimised fabric gets no rail group for two hosts), or room that takes
    more spines or cores (two hosts are not worth them). An appliance that finds no room is
    refused (hosts.place_ufm)."""
    unit = _ufm_unit(req, catalog, chosen.switch, t.planned_endpoints)
    if unit is None:
        # Ethernet has no subnet manager: nothing of UFM is left out there.
        if (
            req.family != "infiniband"
            or _sm_choice(req, chosen.switch, t.planned_endpoints) != "ufm-licence"
        ):
            return t, None, None, 0
        return (
            t,
            None,
            message(
                gettext_noop(
                    "The catalog has no UFM host with an InfiniBand NIC for {generation} fabrics: "
                    "add them to have the hosts quoted and cabled."
                ),
                generation=chosen.switch.generation,
            ),
            0,
        )
    rack_scale = chosen.server is not None and chosen.server.rack_scale
    if rack_scale and t.kept_servers and unit.nic is not None:
        return t, None, _leaf_ports_kept_for_racks(t), 0
    try:
        room = _room_for_ufm(req, catalog, chosen.switch, chosen.nic, t, host_media, lengths, unit)
    except InvalidInput:
        if unit.nic is None:
            if rack_scale:
                raise _no_leaf_port_for_appliances(req, t) from None
            raise
        try:
            media = _ufm_media(req, catalog, chosen.switch, chosen.nic, unit, lengths)
        except InvalidInput as unreached:
            # The hosts' runs, from where the layout stands them, reach no catalog media: the
            # hosts are optional, the fabric is not refused for them.
            return t, None, _hosts_unreached(unreached), 0
        if rack_scale:
            return t, None, _no_leaf_port_in_racks(req, t), 0
        slots = _ufm_slots(t, hosts.shares_cage(media, host_media, t.split))
        return t, None, _no_leaf_port_for_hosts(t, slots), slots
    added = (room.spine_count - t.spine_count) + (room.core_count - t.core_count)
    if unit.nic is None or not added:
        return room, unit, None, 0
    if rack_scale and t.endpoints >= t.leaf_count * t.leaf_capacity:
        return t, None, _no_leaf_port_in_racks(req, t), 0
    # "Design fewer servers" would drop a whole rack of 72 GPUs for two hosts.
    return t, None, _hosts_take_switches(req, t, room, added, fewer_servers=not rack_scale), 0


def _no_leaf_port_in_racks(req: FabricRequirements, t: Topology) -> Message:
    """Rack-scale systems (NVL72) fill their leaves with whole racks: NVIDIA's scalable unit of
    8 GB200 racks puts its 576 ports on 18 leaves of 32, none left for UFM, and freeing one port
    would take a rack (72 GPUs) out of every leaf of its rail group. UFM is left out and priced
    beside (_ufm_not_quoted) until the customer agrees two ports for its hosts, rather than the
    fabric bent away from NVIDIA's unit for them."""
    return message(
        gettext_noop(
            "No leaf port is kept for the UFM hosts: the {servers} racks' {ports} compute ports "
            "fill the leaves rack by rack, as NVIDIA's scalable unit of these racks does, and a "
            "leaf port for UFM would cost a whole rack's {rails} ports or more switches. Agree "
            "two leaf ports for the UFM hosts with the customer to add the UFM option."
        ),
        servers=req.servers,
        ports=t.endpoints,
        rails=req.nics,
    )


def _leaf_ports_kept_for_racks(t: Topology) -> Message:
    """A part-filled unit of rack-scale systems (rule 5c): its free leaf ports belong to the
    racks still to come, so hosts cabled there now would have to move when the unit is filled."""
    return message(
        gettext_noop(
            "The free leaf ports are kept for the racks still to come ({kept} of the scalable "
            "unit's {planned}), as NVIDIA builds a part-filled unit whole: the UFM hosts are not "
            "cabled into them. Agree two leaf ports for the UFM hosts with the customer to add "
            "the UFM option."
        ),
        kept=t.kept_servers,
        planned=t.servers + t.kept_servers,
    )


def _no_leaf_port_for_appliances(req: FabricRequirements, t: Topology) -> InvalidInput:
    """UFM appliances in a fabric of rack-scale systems with no room for them: refused at the
    subnet manager, saying why, rather than with the rail-group arithmetic of the re-plan."""
    return InvalidInput.field(
        "subnet_manager",
        message(
            gettext_noop(
                "No leaf port is free for the UFM appliances: the {servers} racks' {ports} "
                "compute ports fill the leaves rack by rack, and keeping ports for UFM would "
                "need rail groups wider than a pod. Choose UFM licences (the switches then run "
                "the subnet manager, the UFM option priced beside the design) or design fewer "
                "racks."
            ),
            servers=req.servers,
            ports=t.endpoints,
        ),
    )


def _hosts_unreached(error: InvalidInput) -> Message:
    return message(
        gettext_noop("The UFM hosts cannot be cabled to their leaves: {reason}"),
        reason=next(m for messages in error.messages.values() for m in messages),
    )


def _ufm_slots(t: Topology, shares_cage: bool) -> int:
    """What frees a leaf port in a full rail group: one server slot when a host's link may take
    a server cage's free port (hosts.place_ufm), else a whole cage's servers."""
    return t.split * (1 if shares_cage else t.ports_per_cage)


def _no_leaf_port_for_hosts(t: Topology, slots: int) -> Message:
    """A full rail group's fix for the UFM hosts: `slots` server slots fewer per unit."""
    return message(
        gettext_noop(
            "No leaf port is free for the UFM hosts: design {servers} servers in a scalable unit "
            "of {unit} (NVIDIA's SuperPOD has 31 in 32, the 32nd slot for UFM) to have them "
            "quoted and cabled; as designed, the customer's hosts have no leaf port either."
        ),
        servers=t.step_servers - slots,
        unit=t.step_servers,
    )


def _hosts_take_switches(
    req: FabricRequirements, t: Topology, room: Topology, added: int, *, fewer_servers: bool
) -> Message:
    """The UFM hosts' ports would take more spines or cores (more than one leaf's worth of
    switches): the hosts are left out. Fewer servers is the fix for servers of a few ports, not
    for racks of 72. The count is what the re-planned fabric (_room_for_ufm) has over the one
    designed, tier by tier, so a reader sees why two ports cost so much: a full two-tier NDR
    fabric of 64 leaves (2,048 endpoints) takes a 65th leaf only with a third tier (1 leaf, 48
    spines and 40 core switches, 89 more than the 96 designed)."""
    leaves = (room.leaf_count - t.leaf_count) * req.planes
    spines = (room.spine_count - t.spine_count) * req.planes
    cores = (room.core_count - t.core_count) * req.planes
    switches = leaves + spines + cores
    designed = (t.leaf_count + t.spine_count + t.core_count) * req.planes
    template = (
        gettext_noop("leaves +{leaves}, spines +{spines}, core +{cores}: a third switch tier")
        if room.tiers > t.tiers
        else gettext_noop("leaves +{leaves}, spines +{spines}, core +{cores}")
    )
    by_tier = message(template, leaves=leaves, spines=spines, cores=cores)
    if not fewer_servers:
        return message(
            gettext_noop(
                "Cabling the UFM hosts would add {switches} to the {designed} switches designed "
                "({by_tier}), as a leaf's uplinks count its UFM ports like a server's: the engine "
                "adds no switches for two hosts. Agree two leaf ports for the UFM hosts with the "
                "customer to add the UFM option."
            ),
            switches=switches,
            designed=designed,
            by_tier=by_tier,
        )
    return message(
        gettext_noop(
            "Cabling the UFM hosts would add {switches} to the {designed} switches designed "
            "({by_tier}), as a leaf's uplinks count its UFM ports like a server's: design fewer "
            "servers to have them cabled without more switches."
        ),
        switches=switches,
        designed=designed,
        by_tier=by_tier,
    )


def _room_for_ufm(
    req: FabricRequirements,
    catalog: list[ProductSpec],
    switch: ProductSpec,
    nic: ProductSpec,
    t: Topology,
    host_media: Media,
    lengths: FabricLengths | None,
    unit: _UfmUnit,
) -> Topology:
    """A leaf's uplinks count its UFM appliance ports as used down ports, as a server's (rule 3
    at r:1, and NVIDIA's SuperPOD counts the UFM slot among the leaf's 32 node ports): re-plan
    with the busiest leaf's appliance ports reserved until the placement fits. Placing depends
    only on the down ports, so this settles in a step or two. Leaves of several rails full of
    servers each keep their share of the UFM ports (which may take the design back to one rail
    per leaf); on a non-rail fabric, leaves the servers fill to the last port get one more leaf
    for the UFM ports (_replan's room_for)."""
    room_for = 0
    for _ in range(3):
        try:
            ufm = _place_ufm(req, catalog, switch, nic, t, host_media, lengths, unit)
        except InvalidInput:
            if t.rails_per_leaf > 1:
                reserved = t.reserved_down + ceil_div(HA_PAIR * unit.ports, t.leaf_count)
                t = _replan(t, target_servers=req.growth_servers, reserved_down=reserved)
                continue
            if t.rail_optimized or room_for:
                raise
            room_for = HA_PAIR * unit.ports
            t = _replan(t, target_servers=req.growth_servers, room_for=room_for)
            continue
        on_leaf = Counter(leaf for leaf, _ in ufm.links)
        ports = [ceil_div(e, t.split) for e in hosts.leaf_endpoints(t.with_kept())]
        reserved = max(p + on_leaf[leaf] for leaf, p in enumerate(ports)) - max(ports)
        if reserved <= t.reserved_down:
            break
        t = _replan(t, target_servers=req.growth_servers, reserved_down=reserved, room_for=room_for)
    return t


def _ufm_appliance(catalog: list[ProductSpec], switch: ProductSpec) -> ProductSpec:
    """The UFM appliance of the fabric's generation, or a refusal that says what to choose: an
    appliance of another generation would be cabled with links its ports cannot make."""
    appliance = parts.pick_ufm_appliance(catalog, switch.generation)
    if appliance is not None:
        return appliance
    others = sorted(
        {
            f"{p.part_number} ({p.generation})"
            for p in catalog
            if p.category == "software" and p.family == "UFM" and p.unit == "each"
        }
    )
    raise InvalidInput.field(
        "subnet_manager",
        message(
            gettext_noop(
                "The catalog has no UFM appliance for {generation} fabrics ({others}): choose "
                "UFM licences or an OpenSM host, or add the appliance to the catalog."
            ),
            generation=switch.generation,
            others=listing(others) if others else "-",
        ),
    )


def _place_ufm(
    req: FabricRequirements,
    catalog: list[ProductSpec],
    switch: ProductSpec,
    nic: ProductSpec,
    t: Topology,
    host_media: Media,
    lengths: FabricLengths | None,
    unit: _UfmUnit,
) -> UfmCabling:
    """The appliances' (or UFM hosts') ports are cabled into free leaf ports at full port
    speed, with the host NIC's optics (the fabric's own for an appliance) at the server-to-leaf
    distance: NVIDIA's DGX H100 SuperPOD gives UFM the 32nd node slot of the leaves (its
    31-node SU has 252 node-and-UFM cables)."""
    media = _ufm_media(req, catalog, switch, nic, unit, lengths)
    return hosts.place_ufm(
        t,
        appliances=HA_PAIR,
        ports_per_appliance=unit.ports,
        media=media,
        host_media=host_media,
        measured=_tier_distance(req, "server_to_leaf", "ufm-leaf", lengths)[1],
        device=unit.device,
        nic=unit.nic,
    )


def _ufm_media(
    req: FabricRequirements,
    catalog: list[ProductSpec],
    switch: ProductSpec,
    nic: ProductSpec,
    unit: _UfmUnit,
    lengths: FabricLengths | None,
) -> Media:
    """A UFM link's media at the server-to-leaf distance: full port speed, the host NIC's cage
    (the fabric NIC's for an appliance)."""
    distance, _measured = _tier_distance(req, "server_to_leaf", "ufm-leaf", lengths)
    return parts.pick_host_media(
        catalog,
        switch=switch,
        nic=unit.nic or nic,
        nic_generation=switch.generation,
        split=1,
        distance=distance,
        field="server_to_leaf",
    )


def _ufm_cabling(
    req: FabricRequirements,
    chosen: _Chosen,
    t: Topology,
    host_media: Media,
    buy: _Purchase,
    unit: _UfmUnit,
    warnings: list[Message],
) -> UfmCabling:
    """The UFM appliances or hosts cabled into the leaves; hosts are quoted with their NICs
    here (an appliance is quoted as the subnet manager)."""
    ufm = _place_ufm(req, buy.catalog, chosen.switch, chosen.nic, t, host_media, buy.lengths, unit)
    if unit.nic is None:
        warnings.append(
            message(
                gettext_noop(
                    "{appliances} UFM appliances take {links} free leaf ports (as NVIDIA's "
                    "SuperPOD gives them a node slot): those ports are no longer free for "
                    "servers."
                ),
                appliances=ufm.appliances,
                links=len(ufm.links),
            )
        )
        return ufm
    buy.tally.add(unit.device, HA_PAIR, "subnet manager")
    buy.tally.add(unit.nic, HA_PAIR, "subnet manager", powered=False)
    warnings.append(
        message(
            gettext_noop(
                "UFM runs on {hosts} quoted {sku} hosts (master and standby), each with one "
                "{nic} cabled into a free leaf port (as NVIDIA's SuperPOD gives UFM a node "
                "slot): those {links} ports are no longer free for servers."
            ),
            hosts=HA_PAIR,
            sku=unit.device.part_number,
            nic=unit.nic.part_number,
            links=len(ufm.links),
        )
    )
    return ufm


def _management(
    req: FabricRequirements,
    catalog: list[ProductSpec],
    t: Topology,
    tally: Tally,
    warnings: list[Message],
    storage: FabricDesign | None = None,
    ufm_appliances: int = 0,
    lengths: FabricLengths | None = None,
) -> Management:
    """In-band: `inband_switches_for`, each cable quoted at its run's length (`_buy_inband_cables`).
    Out-of-band: one RJ45 per server BMC, per switch and per UFM appliance, each a quoted patch
    cord. Storage servers and storage switches count as servers and switches. Cables the catalog
    has no part for are named in a warning, to quote separately."""
    inband_switches = inband_cables = peer_cables = oob_switches = oob_cables = 0
    inband_quoted = 0
    servers = t.servers + req.storage_servers
    storage_switches = (
        storage.leaf_count + storage.spine_count + storage.core_count if storage else 0
    )
    if req.inband_management:
        part = parts.pick_management_switch(catalog, "100GbE")
        if part is None:
            raise InvalidInput.field(
                "inband_management",
                message(gettext_noop("the catalog has no 100GbE switch.")),
            )
        reserved = INBAND_UPLINKS + (INBAND_PEER_LINK if req.inband_redundant else 0)
        if part.port_count <= reserved:
            raise InvalidInput.field(
                "inband_redundant" if req.inband_redundant else "inband_management",
                message(
                    gettext_noop(
                        "{sku} has {ports} ports: too few for servers beside its {reserved} "
                        "uplink and peer-link ports."
                    ),
                    sku=part.part_number,
                    ports=part.port_count,
                    reserved=reserved,
                ),
            )
        inband_switches, inband_cables, peer_cables = inband_switches_for(
            servers, part.port_count, redundant=req.inband_redundant
        )
        tally.add(part, inband_switches, "in-band management")
        inband_quoted = _buy_inband_cables(
            req, catalog, part, tally, warnings, inband_cables, peer_cables, lengths
        )
    patch_cords = 0
    if req.outofband_management:
        part = parts.pick_management_switch(catalog, "1GbE")
        if part is None:
            raise InvalidInput.field(
                "outofband_management",
                message(gettext_noop("the catalog has no 1GbE switch.")),
            )
        fabric_switches = (t.leaf_count + t.spine_count + t.core_count) * req.planes
        endpoints = servers + fabric_switches + storage_switches + inband_switches + ufm_appliances
        # The management switches' own management ports take ports too.
        oob_switches = ceil_div(endpoints, part.port_count)
        while endpoints + oob_switches > oob_switches * part.port_count:
            oob_switches += 1
        oob_cables = endpoints + oob_switches
        tally.add(part, oob_switches, "out-of-band management")
        patch_cords = _buy_patch_cords(req, catalog, tally, warnings, oob_cables, lengths)
    warnings.extend(_unquoted_cabling(inband_cables - inband_quoted, oob_cables - patch_cords))
    return Management(inband_switches, inband_cables, oob_switches, oob_cables, peer_cables)


def _unquoted_cabling(inband: int, oob: int) -> tuple[Message, ...]:
    """The management cables no catalog part was quoted for, naming only what is left."""
    if inband and oob:
        text = gettext_noop(
            "Management cabling is not in the catalog: {inband} in-band "
            "100GbE cables and {oob} RJ45 patch cords to quote separately."
        )
    elif inband:
        text = gettext_noop(
            "Management cabling is not in the catalog: {inband} in-band 100GbE cables to quote "
            "separately."
        )
    elif oob:
        text = gettext_noop(
            "Management cabling is not in the catalog: {oob} RJ45 patch cords to quote separately."
        )
    else:
        return ()
    return (message(text, inband=inband, oob=oob),)


def inband_switches_for(servers: int, ports: int, *, redundant: bool) -> tuple[int, int, int]:
    """(switches, cables, peer-link cables) of the in-band network for `servers` servers on
    switches of `ports` 100GbE ports.

    Redundant, as NVIDIA builds it: in the DGX BasePOD deployment guide ("Network Deployment",
    docs.nvidia.com/dgx-basepod/deployment-guide-dgx-basepod/latest/network-deploy.html) two
    SN4600C run MLAG and "each headnode / K8s node / DGX ... [is] dual homed to the SN4600C
    switches via bond interface": each server's two in-band ports go one to each switch of a
    pair, and the pair is joined by a peer link of INBAND_PEER_LINK ports (swp57, swp58). Each
    switch keeps INBAND_UPLINKS ports for the customer's network (our rule), so a pair of
    64-port SN4600C serves 64 - 2 - 2 = 60 servers; more servers get more pairs (our rule: the
    guide shows one pair). Single (the budget build, and every design saved before pairs):
    one port per server, 64 - 2 = 62 servers a switch, no peer link."""
    if not servers:
        return 0, 0, 0
    if not redundant:
        return ceil_div(servers, ports - INBAND_UPLINKS), servers, 0
    pairs = ceil_div(servers, ports - INBAND_UPLINKS - INBAND_PEER_LINK)
    peer_cables = pairs * INBAND_PEER_LINK
    return pairs * 2, servers * 2 + peer_cables, peer_cables


# The two switches of an MLAG pair stand one after the other (install/layout.py), so without a
# layout their peer link is planned as a run within a rack.
INBAND_PEER_DISTANCE = "same-rack"


def inband_run_m(req: FabricRequirements, *, peer: bool) -> float:
    """An in-band run's length when no layout measured it: a server's as long as its run to a
    leaf (the in-band switches stand in the network row, as the spines do), a peer link's within
    a rack."""
    if peer:
        return distance_m(INBAND_PEER_DISTANCE)
    return distance_m(req.server_to_leaf, "server_to_leaf")


def _inband_runs(
    req: FabricRequirements, cables: int, peer_cables: int, lengths: FabricLengths | None
) -> dict[float, int]:
    """{run: cables} of the in-band network: each cable's run as the site's layout routes it
    (install/inband.py); without one, `inband_run_m` for each."""
    if lengths is not None and lengths.inband_m:
        return dict(lengths.inband_m)
    runs: Counter = Counter()
    runs[inband_run_m(req, peer=False)] += cables - peer_cables
    runs[inband_run_m(req, peer=True)] += peer_cables
    return {run: count for run, count in runs.items() if count}


def _buy_inband_cables(
    req: FabricRequirements,
    catalog: list[ProductSpec],
    switch: ProductSpec,
    tally: Tally,
    warnings: list[Message],
    cables: int,
    peer_cables: int,
    lengths: FabricLengths | None,
) -> int:
    """The in-band cables (server ports and peer links), each the media for its run's length
    (`parts.pick_inband_media`: DAC where it reaches, then AOC, beyond them a transceiver at each
    end and a fibre); how many runs were quoted. The transceivers draw power as the fabric's do. A
    run nothing in the catalog reaches is left unquoted (and named) rather than quoted short."""
    quoted, beyond, farthest = 0, 0, 0.0
    for run, count in sorted(_inband_runs(req, cables, peer_cables, lengths).items()):
        media = parts.pick_inband_media(catalog, switch, run)
        if media is None:
            beyond, farthest = beyond + count, max(farthest, run)
            continue
        tally.add(media.cable, count, "in-band management")
        if media.optical:  # one module in each end's port: the switch's, the server's or peer's
            tally.add(media.switch_module, count, "in-band management")
            tally.add(media.host_module, count, "in-band management")
        quoted += count
    longest = parts.longest_inband_run(catalog, switch)
    if beyond and longest:
        warnings.append(
            message(
                gettext_noop(
                    "{count} in-band management runs are longer than the catalog's in-band "
                    "cables and optics reach ({metres:g} m), up to {distance:g} m: they are not "
                    "quoted. A catalog manager can add a {speed}GbE {cage} transceiver that "
                    "reaches them with a fibre made for its connector (at least {distance:g} m "
                    "long); otherwise check the installation pack's lengths."
                ),
                count=beyond,
                metres=longest,
                distance=farthest,
                speed=switch.port_speed_gbps,
                cage=switch.cage_type,
            )
        )
    return quoted


def _inband_cables_assumed(
    req: FabricRequirements, management: Management, lengths: FabricLengths | None
) -> tuple[Message, ...]:
    """What the in-band cables assume when no layout measured them."""
    if not management.inband_cables or (lengths is not None and lengths.inband_m):
        return ()
    if management.inband_peer_cables:
        return (
            message(
                gettext_noop(
                    "In-band cables are quoted at {metres:g} m for each server port (the "
                    "server-to-leaf distance) and {peer:g} m for each MLAG peer link, as no rack "
                    "layout measured them: design on a site to quote each cable at the length of "
                    "its own run."
                ),
                metres=inband_run_m(req, peer=False),
                peer=inband_run_m(req, peer=True),
            ),
        )
    return (
        message(
            gettext_noop(
                "In-band cables are quoted at {metres:g} m each, the server-to-leaf distance, as "
                "no rack layout measured them: design on a site to quote each cable at the length "
                "of its own run."
            ),
            metres=inband_run_m(req, peer=False),
        ),
    )


def _patch_cord_runs(
    req: FabricRequirements, cords: int, lengths: FabricLengths | None
) -> dict[float, int]:
    """{run: cords} of the out-of-band network: each device's run to its management switch as
    the site's layout measures it; without one, every cord as long as a server's run to its
    leaf (the management switches stand among the racks they serve, as the leaves stand at
    their scalable unit's end)."""
    if lengths is not None and lengths.oob_m:
        return dict(lengths.oob_m)
    return {distance_m(req.server_to_leaf, "server_to_leaf"): cords}


def _cords_assumed(req: FabricRequirements, lengths: FabricLengths | None) -> tuple[Message, ...]:
    """What the out-of-band cords assume when no layout measured them."""
    if not req.outofband_management or (lengths is not None and lengths.oob_m):
        return ()
    return (
        message(
            gettext_noop(
                "Out-of-band patch cords are quoted at {metres:g} m each, the server-to-leaf "
                "distance, as no rack layout measured them: design on a site to quote each "
                "cord at the length of its own run."
            ),
            metres=distance_m(req.server_to_leaf, "server_to_leaf"),
        ),
    )


def _buy_patch_cords(
    req: FabricRequirements,
    catalog: list[ProductSpec],
    tally: Tally,
    warnings: list[Message],
    cords: int,
    lengths: FabricLengths | None,
) -> int:
    """The out-of-band patch cords, each at the length class of its run; how many were quoted
    (none when the catalog has no patch cord)."""
    quoted, short_of = 0, 0.0
    for run, count in sorted(_patch_cord_runs(req, cords, lengths).items()):
        cord = parts.pick_patch_cord(catalog, run)
        if cord is None:
            return 0
        tally.add(cord, count, "out-of-band management")
        quoted += count
        if (cord.length_m or 0) < run:
            short_of = max(short_of, run)
    if short_of:
        warnings.append(
            message(
                gettext_noop(
                    "The longest management patch cord in the catalog ({metres:g} m) is "
                    "shorter than the {distance:g} m run: check the installation pack's "
                    "lengths."
                ),
                metres=parts.pick_patch_cord(catalog, short_of).length_m,
                distance=short_of,
            )
        )
    return quoted


def _replan(
    t: Topology,
    *,
    target_servers: int,
    reserved_down: int | None = None,
    rail_optimized: bool | None = None,
    room_for: int = 0,
) -> Topology:
    """The same switch and servers planned again with one thing changed (growth target, ports
    kept for UFM, rail optimisation). `room_for` endpoint ports beyond the servers' are planned
    as servers' worth of leaf ports and left empty: on a fabric whose servers fill every leaf,
    that adds the leaf (with its uplinks and spine ports) the UFM appliances are cabled into,
    after the servers' leaves."""
    extra = ceil_div(room_for * t.split, t.rails)
    kept = t.kept_servers  # the rest of a scalable unit stays planned (rule 5c)
    planned = plan_topology(
        radix=t.radix,
        ports_per_cage=t.ports_per_cage,
        split=t.split,
        rails=t.rails,
        rail_optimized=t.rail_optimized if rail_optimized is None else rail_optimized,
        ratio=t.ratio,
        servers=t.servers + kept + extra,
        # The appliances stay on their ports as the fabric grows: the target keeps them too.
        target_servers=max(target_servers, t.servers + kept) + extra,
        reserved_down=t.reserved_down if reserved_down is None else reserved_down,
    )
    if extra or kept:
        return replace(planned, servers=t.servers, kept_servers=kept)
    return planned


def _ufm_leaf_room(t: Topology) -> int:
    """The leaf ports to plan beyond the servers' for a re-plan to keep a leaf that has no
    servers (the UFM appliances' own, _room_for_ufm): the servers' leaves' free ports and one
    more. 0 when every leaf has servers."""
    full = t.with_kept()
    server_leaves = sum(n for n, _ in full.leaf_fill())
    if server_leaves == t.leaf_count:
        return 0
    return server_leaves * t.leaf_down - ceil_div(full.endpoints, t.split) + 1


def _pre_provisioned(
    req: FabricRequirements, t: Topology, warnings: list[Message]
) -> PreProvisioned | None:
    if req.growth_servers == req.servers:
        return None
    now = _replan(t, target_servers=t.servers, room_for=_ufm_leaf_room(t))
    target_gpus = req.growth_servers * req.gpus_per_server
    extra = PreProvisioned(
        for_gpus=target_gpus,
        spines=(t.spine_count - now.spine_count) * req.planes,
        core=(t.core_count - now.core_count) * req.planes,
        leaf_spine_links=(t.leaf_count * t.leaf_up - now.leaf_count * now.leaf_up) * req.planes,
    )
    if extra.spines or extra.core:
        warnings.append(
            message(
                gettext_noop(
                    "Spines and core pre-provisioned for {gpus} GPUs: "
                    "{spines} more spines, {core} more core switches and "
                    "{links} more leaf-spine links than today's size needs."
                ),
                gpus=target_gpus,
                spines=extra.spines,
                core=extra.core,
                links=extra.leaf_spine_links,
            )
        )
    return extra


def _rail_tier_warning(
    req: FabricRequirements, t: Topology, warnings: list[Message]
) -> tuple[int, int, int] | None:
    """Rule 6: when rail groups force a third tier that a non-rail design avoids, or need more
    switches than it, show both counts; `rail_optimized` is the user's pick. The non-rail
    design's (leaves, spines, core) when it needs fewer switches, else None."""
    if not (t.rail_optimized and t.tiers > 1):
        return None
    try:
        flat = _replan(t, target_servers=req.growth_servers, rail_optimized=False)
    except InvalidInput:
        return None
    rail_switches = t.leaf_count + t.spine_count + t.core_count
    flat_switches = flat.leaf_count + flat.spine_count + flat.core_count
    if t.tiers == 2 and flat_switches < rail_switches:
        warnings.append(
            message(
                gettext_noop(
                    "Rail optimization needs {rail} switches ({rail_leaves} leaves + "
                    "{rail_spines} spines) where a design without rails needs {flat} "
                    "({flat_leaves} leaves + {flat_spines} spines). Turn rail optimization off "
                    "for the smaller design; same-rail traffic then crosses the spines."
                ),
                rail=rail_switches * req.planes,
                rail_leaves=t.leaf_count * req.planes,
                rail_spines=t.spine_count * req.planes,
                flat=flat_switches * req.planes,
                flat_leaves=flat.leaf_count * req.planes,
                flat_spines=flat.spine_count * req.planes,
            )
        )
    if t.tiers == 3 and flat.tiers == 2:
        warnings.append(
            message(
                gettext_noop(
                    "Rail optimization forces a third tier: {rail} switches in three tiers, "
                    "where a two-tier design without rails needs {flat}. Turn rail "
                    "optimization off to build the two-tier design."
                ),
                rail=(t.leaf_count + t.spine_count + t.core_count) * req.planes,
                flat=(flat.leaf_count + flat.spine_count) * req.planes,
            )
        )
    if flat_switches >= rail_switches:
        return None
    return (
        flat.leaf_count * req.planes,
        flat.spine_count * req.planes,
        flat.core_count * req.planes,
    )


def _general_warnings(
    req: FabricRequirements, t: Topology, switch: ProductSpec, tally: Tally, warnings: list[Message]
) -> None:
    gpus = t.servers * req.gpus_per_server
    if req.gpu_count is not None and req.gpu_count != gpus:
        warnings.append(
            message(
                gettext_noop(
                    "{asked} GPUs need {servers} servers of {per_server} "
                    "GPUs: designed for {gpus} GPUs."
                ),
                asked=req.gpu_count,
                servers=t.servers,
                per_server=req.gpus_per_server,
                gpus=gpus,
            )
        )
    if t.tiers == 1 and req.ratio > 1:
        warnings.append(
            message(
                gettext_noop("One switch is non-blocking: the oversubscription does not apply.")
            )
        )
    for part in {p.part_number: p for p, _ in tally.lines.values()}.values():
        if part.lifecycle == "preview":
            warnings.append(
                message(
                    gettext_noop("{sku} is a preview product: confirm availability."),
                    sku=part.part_number,
                )
            )
        elif part.lifecycle == "eol":
            warnings.append(message(gettext_noop("{sku} is end of life."), sku=part.part_number))
    if t.headroom_servers <= t.servers:
        warnings.append(message(gettext_noop("This design is full: growing needs re-cabling.")))


def _step_designed(bigger: FabricRequirements, catalog: list[ProductSpec]) -> FabricDesign:
    """The growth step's fabric. A step whose switches could not run its subnet manager
    (SubnetManagerTooSmall) is designed with an OpenSM host instead: cabled nowhere, as the
    switches' subnet manager is, it buys the same switches, optics and cables, which are all
    the step counts."""
    try:
        return _design(bigger, catalog, look_ahead=False)
    except SubnetManagerTooSmall:
        return _design(replace(bigger, subnet_manager="opensm-host"), catalog, look_ahead=False)


def _next_step(
    design: FabricDesign, catalog: list[ProductSpec], warnings: list[Message]
) -> NextStep | None:
    t, req = design.topology, design.requirements
    servers = (t.headroom_servers // t.step_servers + 1) * t.step_servers
    bigger = replace(
        req,
        gpu_count=None,
        server_count=servers,
        growth_gpus=None,
        spares_percent=0,
        # The step's leaves are full: count its appliances' ports out on both sides.
        subnet_manager=(
            "ufm-licence" if req.subnet_manager == "ufm-appliance" else req.subnet_manager
        ),
        switch_part_number=design.switch.part_number,
        nic_part_number=design.nic.part_number,
        inband_management=False,
        outofband_management=False,
        include_nics=False,
    )
    try:
        step = _step_designed(bigger, catalog)
    except InvalidInput:
        warnings.append(
            message(
                gettext_noop(
                    "This is near the largest fabric {sku} can build: "
                    "growing past {gpus} GPUs needs a larger switch."
                ),
                sku=design.switch.part_number,
                gpus=design.headroom_gpus,
            )
        )
        return None

    def totals(d: FabricDesign, category: str) -> int:
        return sum(
            b.quantity
            for b in d.bom
            if b.category == category and b.role not in ("spare", "ufm-leaf")
        )

    return NextStep(
        gpus=servers * req.gpus_per_server,
        servers=servers,
        leaf_count=step.leaf_count,
        spine_count=step.spine_count,
        core_count=step.core_count,
        # The step is designed without management networks: leave them out of the difference.
        added_switches=totals(step, "switch")
        - totals(design, "switch")
        + design.management.inband_switches
        + design.management.outofband_switches,
        added_transceivers=totals(step, "transceiver") - totals(design, "transceiver"),
        added_cables=totals(step, "cable") - totals(design, "cable"),
    )


def _advice(
    req: FabricRequirements, t: Topology, switch: ProductSpec, switches: int
) -> tuple[Message, ...]:
    """The seed's sizing advice, and what the chosen shape means for traffic."""
    gpus = t.servers * req.gpus_per_server
    advice = []
    if t.servers == 1 and gpus <= 8:
        advice.append(
            message(
                gettext_noop(
                    "One server: NVLink carries GPU-to-GPU traffic inside it; 10 GbE between "
                    "machines is enough and no InfiniBand is needed."
                )
            )
        )
    elif gpus <= 64:
        advice.append(
            message(
                gettext_noop(
                    "Up to 64 GPUs across servers: InfiniBand is the norm, a ConnectX-7 NDR "
                    "400G per GPU and a QM9700 / QM9790 leaf-spine."
                )
            )
        )
    else:
        advice.append(
            message(
                gettext_noop(
                    "Above 64 GPUs: a multi-tier leaf-spine with hundreds of ports; plan port "
                    "density, optics power, cabling and expansion up front."
                )
            )
        )
    if t.tiers > 1 and req.ratio > 1 and t.one_to_one_split:
        advice.append(
            message(
                gettext_noop(
                    "Leaves keep the 1:1 split ({down} ports down) and cable {up} up for "
                    "{ratio}:1, leaving {free} ports free for later spines: fewer switches "
                    "than the {ratio}:1 split."
                ),
                down=t.leaf_down,
                up=t.leaf_up,
                free=t.radix - t.leaf_up_start - t.leaf_up,
                ratio=f"{float(req.ratio):g}",
            )
        )
    elif t.tiers > 1 and req.ratio > 1 and t.leaf_up != math.ceil(t.leaf_down / req.ratio):
        advice.append(
            message(
                gettext_noop(
                    "Leaves split {down} ports down for {ratio}:1 (down = floor(k.r/(r+1))) "
                    "and cable {up} up: what the busiest leaf needs, rounded up to whole "
                    "links to every spine."
                ),
                down=t.leaf_down,
                up=t.leaf_up,
                ratio=f"{float(req.ratio):g}",
            )
        )
    elif t.tiers > 1 and req.ratio > 1:
        advice.append(
            message(
                gettext_noop(
                    "Leaves split {down} ports down and {up} up for "
                    "{ratio}:1 (down = floor(k.r/(r+1)), up = ceil(down/r))."
                ),
                down=t.leaf_down,
                up=t.leaf_up,
                ratio=f"{float(req.ratio):g}",
            )
        )
    if t.tiers > 1 and req.rail_optimized:
        advice.append(
            message(
                gettext_noop(
                    "Rail-optimized: same-rail traffic crosses one switch, cross-rail traffic "
                    "up to {hops}."
                ),
                hops=t.max_hops,
            )
        )
    if t.tiers > 1 and req.rail_optimized and t.rails_per_leaf > 1 and t.servers > t.group_servers:
        # Rule 5b: a server wider than a pod, in rail groups of leaves of several rails.
        advice.append(
            message(
                gettext_noop(
                    "Each leaf carries {rails} whole rails of the {servers} servers of its rail "
                    "group: same-rail traffic inside a group stays one hop, on {leaves} leaves "
                    "per group."
                ),
                rails=t.rails_per_leaf,
                servers=t.group_servers,
                leaves=t.group_leaves * req.planes,
            )
        )
    elif t.tiers > 1 and req.rail_optimized and t.rails_per_leaf > 1:
        advice.append(
            message(
                gettext_noop(
                    "Each leaf carries {rails} whole rails of all {servers} servers: "
                    "same-rail traffic stays one hop, on {leaves} leaves instead of one per rail."
                ),
                rails=t.rails_per_leaf,
                servers=t.servers,
                leaves=t.leaf_count * req.planes,
            )
        )
    advice.append(
        message(
            # More than one tier always means more than one switch.
            _SHAPE_ADVICE[switches > 1 or t.tiers > 1, t.tiers > 1],
            switches=switches,
            generation=switch.generation,
            tiers=t.tiers,
            gpus=t.headroom_servers * req.gpus_per_server,
        )
    )
    return tuple(advice)


# Whole sentences per plural form (switches > 1, tiers > 1), so each translates as a whole.
_SHAPE_ADVICE = {
    (False, False): gettext_noop(
        "{switches} {generation} switch in {tiers} tier; room for {gpus} GPUs before re-cabling."
    ),
    (True, False): gettext_noop(
        "{switches} {generation} switches in {tiers} tier; room for {gpus} GPUs before re-cabling."
    ),
    (True, True): gettext_noop(
        "{switches} {generation} switches in {tiers} tiers; room for {gpus} GPUs before re-cabling."
    ),
}

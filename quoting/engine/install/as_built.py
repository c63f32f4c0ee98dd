"""The as-built check: the fabric as discovered (`ibnetdiscover`) against the plan, cable by cable.

The plan is the pack's cable schedule (or a layout); the discovery is matched to it by node
description ("<switch name>", "<host> mlx5_N": the names the pack gives the devices to set) and
physical port number. Pure Python: the command, the API and the page call it alike.
"""

from __future__ import annotations

import csv
import io
import pathlib
import re
from dataclasses import dataclass, field

from quoting.engine.errors import InvalidInput
from quoting.engine.messages import Message, gettext_noop, listing, message


@dataclass(frozen=True)
class PlannedLink:
    """One planned fabric cable (a leg of a splitter), in the cable schedule's names."""

    cable_id: str
    label_a: str
    label_z: str
    a_device: str
    a_port: str  # "mlx5_11" on a host, "14/2", "p12" or "6/2/1" on a switch
    z_device: str
    z_port: str
    speed_gbps: int | None
    tier: str


@dataclass(frozen=True)
class DiscoveredLink:
    """One link as ibnetdiscover reports it, by node description and physical port number."""

    a_node: str  # node description: the switch's name, or "<host> mlx5_N"
    a_port: int
    z_node: str
    z_port: int
    width: int | None = None  # lanes: 4 for "4xNDR"
    speed_gbps: int | None = None  # the link's rate: 4xNDR = 400, 2xNDR = 200
    line: int = 0  # where it was read
    generation: str | None = None  # lane generation as printed ("NDR"); ibsim prints "SDR"


@dataclass
class Discovered:
    switches: set[str] = field(default_factory=set)
    hosts: set[str] = field(default_factory=set)  # node descriptions "<host> mlx5_N"
    links: list[DiscoveredLink] = field(default_factory=list)


@dataclass
class AsBuiltReport:
    ok_count: int = 0
    missing: list[dict] = field(default_factory=list)
    unexpected: list[dict] = field(default_factory=list)
    miswired: list[dict] = field(default_factory=list)
    degraded: list[dict] = field(default_factory=list)
    devices_missing: list[dict] = field(default_factory=list)
    planned_links: int = 0
    discovered_links: int = 0

    @property
    def problem_count(self) -> int:
        return (
            len(self.missing)
            + len(self.unexpected)
            + len(self.miswired)
            + len(self.degraded)
            + len(self.devices_missing)
        )

    @property
    def ok(self) -> bool:
        return self.problem_count == 0

    def as_dict(self) -> dict:
        return {
            "ok_count": self.ok_count,
            "missing": self.missing,
            "unexpected": self.unexpected,
            "miswired": self.miswired,
            "degraded": self.degraded,
            "devices_missing": self.devices_missing,
            "summary": {
                "planned_links": self.planned_links,
                "discovered_links": self.discovered_links,
                "ok": self.ok_count,
                "missing": len(self.missing),
                "unexpected": len(self.unexpected),
                "miswired": len(self.miswired),
                "degraded": len(self.degraded),
                "devices_missing": len(self.devices_missing),
                "problems": self.problem_count,
                "passed": self.ok,
            },
        }


MANAGEMENT_TIER = "oob-management"
# Ethernet management cables, not fabric links: no fabric discovery sees them.
NOT_FABRIC_TIERS = (MANAGEMENT_TIER, "inband-management")

# A 4-lane link's rate by lane generation (ibnetdiscover prints "4xNDR"); FDR10 runs at 10G a lane.
RATE_4X = {
    "SDR": 10,
    "DDR": 20,
    "QDR": 40,
    "FDR10": 40,
    "FDR": 56,
    "EDR": 100,
    "HDR": 200,
    "NDR": 400,
    "XDR": 800,
}


def _planned(
    cable_id, tier, a_device, a_port, z_device, z_port, label_a, label_z, speed
) -> PlannedLink:
    return PlannedLink(
        cable_id=cable_id,
        label_a=label_a,
        label_z=label_z,
        a_device=a_device,
        a_port=a_port,
        z_device=z_device,
        z_port=z_port,
        speed_gbps=speed,
        tier=tier,
    )


def plan_from_layout(layout) -> list[PlannedLink]:
    """The fabric's cables (not the management network): what ibnetdiscover can see."""
    return [
        _planned(
            c.cable_id,
            c.tier,
            c.a_device,
            c.a_port,
            c.z_device,
            c.z_port,
            layout.label(c.a_device, c.a_port, c.z_device, c.z_port),
            layout.label(c.z_device, c.z_port, c.a_device, c.a_port),
            c.speed_gbps,
        )
        for c in layout.cables
        if c.tier not in NOT_FABRIC_TIERS
    ]


PACK_COLUMNS = ("cable_id", "tier", "a_device", "a_port", "z_device", "z_port")


def plan_from_pack(directory: pathlib.Path) -> list[PlannedLink]:
    """The plan from an unpacked installation pack's cable-schedule.csv."""
    path = pathlib.Path(directory) / "cable-schedule.csv"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput.field(
            "pack", message(gettext_noop("cannot read {path}: {error}"), path=str(path), error=exc)
        ) from None
    rows = csv.DictReader(io.StringIO(text))
    missing = [c for c in PACK_COLUMNS if c not in (rows.fieldnames or [])]
    if missing:
        raise InvalidInput.field(
            "pack",
            message(
                gettext_noop("{file} is not a cable schedule: no column {columns}"),
                file=path.name,
                columns=listing(missing),
            ),
        )
    plan = []
    for number, row in enumerate(rows, start=2):
        if any(not row.get(c) for c in PACK_COLUMNS):
            raise InvalidInput.field(
                "pack",
                message(
                    gettext_noop("{file} line {number}: a cable without ends"),
                    file=path.name,
                    number=number,
                ),
            )
        if row["tier"] in NOT_FABRIC_TIERS:
            continue
        speed = (row.get("speed_gbps") or "").strip()
        if speed and not speed.isdigit():
            raise InvalidInput.field(
                "pack",
                message(
                    gettext_noop("{file} line {number}: speed {speed}"),
                    file=path.name,
                    number=number,
                    speed=repr(speed),
                ),
            )
        plan.append(
            _planned(
                row["cable_id"],
                row["tier"],
                row["a_device"],
                row["a_port"],
                row["z_device"],
                row["z_port"],
                row.get("label_a") or "",
                row.get("label_z") or "",
                int(speed) if speed else None,
            )
        )
    return plan


# --- ibnetdiscover's output -----------------------------------------------------------------
_NODE = re.compile(r'^(Switch|Ca|Hca|Rt)\s+(\d+)\s+"([A-Za-z]-[0-9a-fA-F]+)"\s*#\s*"(.*?)"')
_PORT = re.compile(
    r'^\[(\d+)\](?:\([0-9a-fA-F]+\))?\s*"([A-Za-z]-[0-9a-fA-F]+)"\[(\d+)\]'
    r"(?:\([0-9a-fA-F]+\))?\s*(?:#\s*(.*))?$"
)
_RATE = re.compile(r"\b(\d+)x([A-Z]+\d*)\s*$")
_SETTING = re.compile(r"^[A-Za-z_]+=\S")


def parse_discovered(text: str, filename: str = "") -> Discovered:
    """Nodes by node description and their links by port number, from ibnetdiscover's output
    (GUIDs only tie the two ends together). Each link is printed from both ends: kept once."""

    def bad(number: int, why: Message) -> InvalidInput:
        if filename:
            where = message(
                gettext_noop("{file}: line {number}: {why}"), file=filename, number=number, why=why
            )
        else:
            where = message(gettext_noop("line {number}: {why}"), number=number, why=why)
        return InvalidInput.field("discovered", where)

    names: dict[str, str] = {}
    ports: list[tuple[int, str, int, str, int, str]] = []  # line, node, port, guid, port, comment
    node = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#") or _SETTING.match(line):
            continue
        if m := _NODE.match(line):
            kind, _, guid, description = m.groups()
            node = (guid, description, kind == "Switch")
            names[guid] = description
            continue
        m = _PORT.match(line)
        if m is None:
            raise bad(
                number,
                message(gettext_noop("not ibnetdiscover output: {text}"), text=repr(line[:60])),
            )
        if node is None:
            raise bad(number, message(gettext_noop("a port line before any Switch or Ca line")))
        port, peer_guid, peer_port, comment = m.groups()
        ports.append((number, node[0], int(port), peer_guid, int(peer_port), comment or ""))

    found = Discovered()
    for guid, description in names.items():
        (found.switches if guid.startswith("S-") else found.hosts).add(description)
    seen = set()
    for number, guid, port, peer_guid, peer_port, comment in ports:
        ends = frozenset({(guid, port), (peer_guid, peer_port)})
        if ends in seen:
            continue
        seen.add(ends)
        peer = names.get(peer_guid)
        if peer is None:  # a node outside the file: its description is in the comment
            quoted = re.findall(r'"(.*?)"', comment)
            peer = quoted[0] if quoted else peer_guid
        width = speed = None
        if rate := _RATE.search(comment):
            width = int(rate.group(1))
            lane = RATE_4X.get(rate.group(2))
            speed = lane * width // 4 if lane else None
        generation = rate.group(2) if rate else None
        found.links.append(
            DiscoveredLink(names[guid], port, peer, peer_port, width, speed, number, generation)
        )
    return found


# --- the comparison -------------------------------------------------------------------------
PORTS_PER_CAGE = 2  # every switch the catalog quotes has twin-port cages (OSFP, QSFP-DD)


def _split_switches(plan: list[PlannedLink]) -> set[str]:
    return {
        device
        for link in plan
        for device, port in ((link.a_device, link.a_port), (link.z_device, link.z_port))
        if port.count("/") == 2
    }


def ib_port_number(port: str, split: bool) -> int:
    """The physical port a switch reports: cage c, port p is (c-1)*2+p, "p12" is 12; on a switch
    with split ports every front-panel port P is two ports, lane l of P being (P-1)*2+l."""
    if port.startswith("p"):
        panel, lane = int(port[1:]), 1
    else:
        cage, number, *rest = port.split("/")
        panel = (int(cage) - 1) * PORTS_PER_CAGE + int(number)
        lane = int(rest[0]) if rest else 1
    return (panel - 1) * 2 + lane if split else panel


def _ends(link: PlannedLink, split: set[str]) -> tuple[tuple[str, int], tuple[str, int]]:
    def end(device: str, port: str) -> tuple[str, int]:
        if port.startswith("mlx5_"):
            return f"{device} {port}", 1
        return device, ib_port_number(port, device in split)

    return end(link.a_device, link.a_port), end(link.z_device, link.z_port)


def _planned_item(link: PlannedLink) -> dict:
    return {
        "cable_id": link.cable_id,
        "label_a": link.label_a,
        "label_z": link.label_z,
        "a_device": link.a_device,
        "a_port": link.a_port,
        "z_device": link.z_device,
        "z_port": link.z_port,
        "tier": link.tier,
    }


def _found_item(link: DiscoveredLink) -> dict:
    return {
        "a_node": link.a_node,
        "a_port": link.a_port,
        "z_node": link.z_node,
        "z_port": link.z_port,
        "line": link.line,
    }


def _found_text(link: DiscoveredLink) -> str:
    return f"{link.a_node} port {link.a_port} to {link.z_node} port {link.z_port}"


def compare(plan: list[PlannedLink], discovered: Discovered) -> AsBuiltReport:
    """Each planned cable is as planned, miswired (its ports joined to other planned ports),
    missing or degraded; each discovered link no plan explains is unexpected.

    Degraded: fewer lanes than planned (4, 2 on a split leg), or a slower lane generation than
    the planned rate when the discovery reports one (ibsim reports every link as SDR, so an SDR
    link is judged by its width only)."""
    report = AsBuiltReport(planned_links=len(plan), discovered_links=len(discovered.links))
    split = _split_switches(plan)
    planned_ends = [_ends(link, split) for link in plan]
    by_pair = {frozenset(ends): i for i, ends in enumerate(planned_ends)}
    by_end = {end: i for i, ends in enumerate(planned_ends) for end in ends}

    matched: set[int] = set()
    stray: list[DiscoveredLink] = []
    for found in discovered.links:
        i = by_pair.get(frozenset({(found.a_node, found.a_port), (found.z_node, found.z_port)}))
        if i is None or i in matched:
            stray.append(found)
            continue
        matched.add(i)
        report.ok_count += 1
        link = plan[i]
        lanes = 2 if 2 in (link.a_port.count("/"), link.z_port.count("/")) else 4
        slow = (
            found.generation not in (None, "SDR")
            and found.speed_gbps is not None
            and link.speed_gbps is not None
            and found.speed_gbps < link.speed_gbps
        )
        narrow = found.width is not None and found.width < lanes
        if slow or narrow:
            report.degraded.append(
                {
                    **_planned_item(link),
                    "width": found.width,
                    "speed_gbps": found.speed_gbps,
                    "planned_speed_gbps": link.speed_gbps,
                    "line": found.line,
                }
            )

    # A stray link joining ends of two planned cables that are not as planned: those cables are
    # plugged in, into each other's ports (a swap): miswired, named together.
    miswired: dict[int, list[DiscoveredLink]] = {}
    unexplained = []
    for found in stray:
        cables = {
            by_end[end]
            for end in ((found.a_node, found.a_port), (found.z_node, found.z_port))
            if end in by_end and by_end[end] not in matched
        }
        if len(cables) == 2:
            for i in cables:
                miswired.setdefault(i, []).append(found)
        else:
            unexplained.append(found)
    for i, found_links in miswired.items():
        partners = sorted(
            {
                plan[j].cable_id
                for found in found_links
                for end in ((found.a_node, found.a_port), (found.z_node, found.z_port))
                if (j := by_end.get(end)) is not None and j != i
            }
        )
        report.miswired.append(
            {
                **_planned_item(plan[i]),
                "swapped_with": ", ".join(partners),
                "found": "; ".join(_found_text(f) for f in found_links),
                # The same, for a page to word in its reader's language.
                "found_links": [_found_item(f) for f in found_links],
            }
        )
    report.unexpected = [_found_item(f) for f in unexplained]
    report.missing = [
        _planned_item(link) for i, link in enumerate(plan) if i not in matched and i not in miswired
    ]

    seen = discovered.switches | discovered.hosts
    wanted: dict[str, PlannedLink] = {}
    for link, ends in zip(plan, planned_ends, strict=True):
        for node, _ in ends:
            wanted.setdefault(node, link)
    report.devices_missing = [
        {"device": node, "cable_id": link.cable_id}
        for node, link in wanted.items()
        if node not in seen
    ]
    return report

"""ibnetdiscover's output for a plan, written the way the tool prints it (as infiniband-diags
prints an ibsim fabric): the as-built tests upload it, cabled as planned or with changes.

Each host port is its own channel adapter whose node description is "<host> <mlx5_N>"; each
switch is named by its node description. GUIDs are made up: the check never reads them.
"""

from __future__ import annotations

from collections import defaultdict

from quoting.engine.install.as_built import PlannedLink

RATES = {800: "4xXDR", 400: "4xNDR", 200: "4xHDR", 100: "4xEDR"}


def switch_port_number(port: str) -> int:
    """The physical port a switch reports: cage c, port p of a twin-port cage is (c-1)*2+p;
    "p12" is port 12."""
    if port.startswith("p"):
        return int(port[1:])
    cage, lane = port.split("/")[:2]
    return (int(cage) - 1) * 2 + int(lane)


def _end(device: str, port: str) -> tuple[str, int, bool]:
    """(node description, port number, is a host) of one end of a planned cable."""
    if port.startswith("mlx5_"):
        return f"{device} {port}", 1, True
    return device, switch_port_number(port), False


def links_of(plan: list[PlannedLink]) -> list[tuple[str, int, str, int, str]]:
    """(a node, a port, z node, z port, rate) of every planned cable."""
    rows = []
    for link in plan:
        a, a_port, _ = _end(link.a_device, link.a_port)
        z, z_port, _ = _end(link.z_device, link.z_port)
        rows.append((a, a_port, z, z_port, RATES.get(link.speed_gbps or 400, "4xNDR")))
    return rows


def swap_far_ends(links: list, first: int, second: int) -> list:
    """Two cables plugged into each other's far port: the installer's classic slip."""
    links = list(links)
    (a1, p1, z1, q1, r1), (a2, p2, z2, q2, r2) = links[first], links[second]
    links[first], links[second] = (a1, p1, z2, q2, r1), (a2, p2, z1, q1, r2)
    return links


def ibnetdiscover_text(links: list, hosts: set[str] = frozenset()) -> str:
    guids: dict[str, int] = {}
    ports: dict[str, dict[int, tuple[str, int, str]]] = defaultdict(dict)
    is_host = {}
    for a, a_port, z, z_port, rate in links:
        for node in (a, z):
            guids.setdefault(node, 0x0002C90300000000 + len(guids) + 1)
            is_host.setdefault(node, " mlx5_" in node or node in hosts)
        ports[a][a_port] = (z, z_port, rate)
        ports[z][z_port] = (a, a_port, rate)

    def name(node: str) -> str:
        return f'"{"H" if is_host[node] else "S"}-{guids[node]:016x}"'

    out = [
        "#",
        "# Topology file: generated on Sun Dec  6 12:24:25 2026",
        "#",
        "# Initiated from node 0002c90300000001 port 0002c90300000001",
        "",
    ]
    for node in sorted(ports, key=lambda n: is_host[n]):
        guid = guids[node]
        out += ["vendid=0x2c9", "devid=0xd2f2", f"sysimgguid={guid:#x}"]
        if is_host[node]:
            out += [f"caguid={guid:#x}", f'Ca\t1 {name(node)}\t\t# "{node}"']
            for port, (peer, peer_port, rate) in sorted(ports[node].items()):
                out.append(
                    f"[{port}]({guid + port:x}) \t{name(peer)}[{peer_port}]\t\t"
                    f'# lid 0 lmc 0 "{peer}" lid 0 {rate}'
                )
        else:
            out += [
                f"switchguid={guid:#x}({guid:x})",
                f'Switch\t129 {name(node)}\t\t# "{node}" enhanced port 0 lid 0 lmc 0',
            ]
            for port, (peer, peer_port, rate) in sorted(ports[node].items()):
                peer_guid = f"({guids[peer] + peer_port:x}) " if is_host[peer] else ""
                out.append(
                    f'[{port}]\t{name(peer)}[{peer_port}]{peer_guid}\t\t# "{peer}" lid 0 {rate}'
                )
        out.append("")
    return "\n".join(out) + "\n"

"""An SVG drawing of a fabric design: servers by block, leaves, spines, core, with link bundles.

One box per building block (a rail group, a leaf, or a pod in three tiers) and a counted bundle
per block instead of one line per link; past a handful of boxes a row shows its first and last
few around a "×N more" box, so 8 switches and 5,000 switches both stay readable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from xml.sax.saxutils import escape

from quoting.engine.drawing import SVG_FONT_FAMILY, drawing_fonts_current
from quoting.engine.fabric.design import FabricDesign
from quoting.engine.fabric.topology import ceil_div
from quoting.engine.messages import gettext_noop

Translate = Callable[[str], str]  # the edge's gettext; the drawing itself never imports Django


def _same(text: str) -> str:
    return text


BOX_W, BOX_H, GAP, ROW_GAP, MARGIN = 170, 56, 24, 90, 30
SHOWN_HEAD, SHOWN_TAIL = 5, 2  # boxes kept on each side of an elided row
# The drawing's own stylesheet, the same for every design: a page that inlines the drawing allows
# exactly this text by its hash in the Content-Security-Policy (quoting/designs/views/designs.py).
DRAWING_STYLE = (
    f"text{{font:12px {SVG_FONT_FAMILY};fill:#1b1f24}}.title{{font-size:16px;font-weight:bold}}"
    ".summary,.tier{fill:#57606a}.tier{text-anchor:start}"
    ".count{font-size:11px;fill:#0b5cad;text-anchor:start}"
    "rect{stroke:#57606a;fill:#fff}.leaf{fill:#e8f1fb}.spine,.core{fill:#dff3e4}"
    ".servers{fill:#f6f8fa}.more{fill:#fff;stroke-dasharray:4 3}.band{fill:#f3faf5}"
    ".bundle{stroke:#0b5cad;stroke-width:4;opacity:.5}.storage{fill:#f3e5f5}"
    ".storage-band{fill:#fbf5fc}.storage-bundle{stroke:#8e24aa;stroke-width:4;opacity:.5}"
)


@dataclass(frozen=True, slots=True)
class _Block:
    title: str
    detail: str
    servers: str
    down_links: int
    up_links: int


def _blocks(design: FabricDesign, tr: Translate) -> list[_Block]:
    t, node = design.topology, _node_namer(design.topology.servers)
    if t.tiers == 1:
        ports = tr(gettext_noop("{ports} ports")).format(ports=t.radix)
        return [_Block("switch-01", ports, _range(node, 0, t.servers, tr), t.endpoints, 0)]
    if t.tiers == 3:
        size, title = t.leaves_per_pod, tr(gettext_noop("pod {n}"))
        noun = tr(gettext_noop("{leaves} leaves, {s} spines"))
    elif t.rail_optimized:
        size, title, noun = (
            t.group_leaves,
            tr(gettext_noop("rail group {n}")),
            tr(gettext_noop("{leaves} leaves (one per rail)"))
            if t.rails_per_leaf == 1
            else tr(gettext_noop("{leaves} leaves ({rails} whole rails each)")),
        )
    else:
        size, title, noun = 1, "leaf-{n:03d}", tr(gettext_noop("{leaves} leaf"))
    blocks = []
    for number, first_leaf in enumerate(range(0, t.leaf_count, size), start=1):
        leaves = min(size, t.leaf_count - first_leaf)
        if t.rail_optimized:
            first = first_leaf // t.group_leaves * t.group_servers
            last = min(t.servers, (first_leaf + leaves) // t.group_leaves * t.group_servers)
            endpoints = (last - first) * t.rails
        else:
            start = first_leaf * t.leaf_capacity
            end = min(t.endpoints, (first_leaf + leaves) * t.leaf_capacity)
            first, last, endpoints = start // t.rails, ceil_div(end, t.rails), end - start
        up = leaves * t.leaf_up if t.tiers == 2 else t.spines_per_pod * t.spine_up
        blocks.append(
            _Block(
                title.format(n=number),
                noun.format(leaves=leaves, s=t.spines_per_pod, rails=t.rails_per_leaf),
                _range(node, first, last, tr),
                endpoints,
                up,
            )
        )
    return blocks


def _node_namer(servers: int):
    width = max(3, len(str(servers)))
    return lambda n: f"node-{n + 1:0{width}d}"


def _range(node, first: int, last: int, tr: Translate) -> str:
    count = last - first
    names = node(first) if count == 1 else f"{node(first)} … {node(last - 1)}"
    # The drawing splits this at ": " into the box's two lines.
    template = (
        gettext_noop("{count} server: {names}")
        if count == 1
        else gettext_noop("{count} servers: {names}")
    )
    return tr(template).format(count=count, names=names)


def _elide(items: list) -> tuple[list, int]:
    """The items drawn, with None where the hidden ones go, and how many are hidden."""
    if len(items) <= SHOWN_HEAD + SHOWN_TAIL + 1:
        return items, 0
    hidden = len(items) - SHOWN_HEAD - SHOWN_TAIL
    return items[:SHOWN_HEAD] + [None] + items[-SHOWN_TAIL:], hidden


def _text(x: float, y: float, lines: list[str], css: str = "") -> str:
    spans = "".join(
        f'<tspan x="{x:.0f}" dy="{0 if i == 0 else 14}">{escape(line)}</tspan>'
        for i, line in enumerate(lines)
    )
    return f'<text class="{css}" x="{x:.0f}" y="{y:.0f}" text-anchor="middle">{spans}</text>'


def _box(x: float, y: float, lines: list[str], css: str) -> str:
    return (
        f'<rect class="{css}" x="{x:.0f}" y="{y:.0f}" width="{BOX_W}" height="{BOX_H}" '
        f'rx="6"/>' + _text(x + BOX_W / 2, y + 20, lines)
    )


def _row(
    y: float,
    labels: list[list[str] | None],
    hidden: int,
    css: str,
    width: float,
    tr: Translate,
) -> tuple[list[str], list[float]]:
    """Boxes centred in the drawing; returns the SVG parts and each box's centre x."""
    total = len(labels) * BOX_W + (len(labels) - 1) * GAP
    x = (width - total) / 2
    parts, centres = [], []
    for lines in labels:
        more = tr(gettext_noop("… ×{hidden} more")).format(hidden=hidden)
        parts.append(_box(x, y, lines or [more], css if lines else "more"))
        centres.append(x + BOX_W / 2)
        x += BOX_W + GAP
    return parts, centres


def _bundle(x1: float, y1: float, x2: float, y2: float, label: str, css: str = "bundle") -> str:
    return f'<line class="{css}" x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}"/>' + _text(
        (x1 + x2) / 2 + 4, (y1 + y2) / 2 + 4, [label], "count"
    )


def _storage_parts(
    design: FabricDesign, servers_y: float, width: float, tr: Translate
) -> tuple[list[str], float]:
    """Below the compute servers: the storage fabric (its switches in one box) between the
    servers' storage ports and the storage servers. Returns the parts and the lowest y used."""
    storage, req = design.storage, design.requirements
    y = servers_y + BOX_H + ROW_GAP
    switches = storage.leaf_count + storage.spine_count + storage.core_count
    tiers = storage.topology.tiers
    fabric_lines = [
        tr(gettext_noop("storage fabric")),
        f"{switches} × {storage.switch.part_number}",
    ]
    width_needed = 2 * BOX_W + 4 * GAP
    fabric_x = (width - width_needed) / 2
    storage_x = fabric_x + BOX_W + 4 * GAP
    width_storage = max(2, len(str(req.storage_servers)))
    last = f"storage-{req.storage_servers:0{width_storage}d}"
    first = f"storage-{1:0{width_storage}d}"
    storage_lines = [
        tr(gettext_noop("{n} storage servers")).format(n=req.storage_servers),
        first if req.storage_servers == 1 else f"{first} … {last}",
    ]
    compute_links = design.topology.servers * req.storage_ports_per_server
    storage_links = req.storage_servers * req.storage_ports_per_storage_server
    tier_word = gettext_noop("{n} tier") if tiers == 1 else gettext_noop("{n} tiers")
    parts = [
        f'<rect class="storage-band" x="{MARGIN / 2:.0f}" y="{y - 8:.0f}" '
        f'width="{width - MARGIN:.0f}" height="{BOX_H + 16}" rx="8"/>',
        _text(
            MARGIN,
            y - 14,
            [tr(gettext_noop("storage fabric")) + " · " + tr(tier_word).format(n=tiers)],
            "tier",
        ),
        _bundle(
            width / 2,
            servers_y + BOX_H,
            fabric_x + BOX_W / 2,
            y,
            tr(gettext_noop("{n} links")).format(n=compute_links),
            "storage-bundle",
        ),
        f'<line class="storage-bundle" x1="{fabric_x + BOX_W:.0f}" y1="{y + BOX_H / 2:.0f}" '
        f'x2="{storage_x:.0f}" y2="{y + BOX_H / 2:.0f}"/>',
        _text(
            fabric_x + BOX_W + 2 * GAP,
            y + BOX_H / 2 - 8,
            [tr(gettext_noop("{n} links")).format(n=storage_links)],
            "",
        ),
        _box(fabric_x, y, fabric_lines, "storage"),
        _box(storage_x, y, storage_lines, "servers"),
    ]
    return parts, y + BOX_H


def drawing_in(drawings: dict | None, drawing: str, language: str) -> str:
    """A kept drawing in `language`: from the drawings in each language, else the one drawing
    kept (designs saved before drawings were kept per language), set in today's fonts."""
    return drawing_fonts_current((drawings or {}).get(language) or drawing)


def fabric_svg(design: FabricDesign, translate: Translate | None = None) -> str:
    """The drawing, its texts passed through `translate` (the edge's gettext; English without)."""
    tr = translate or _same
    t = design.topology
    blocks, hidden = _elide(_blocks(design, tr))
    spines: list = []
    if t.tiers == 2:
        spines, spine_hidden = _elide([f"spine-{n:02d}" for n in range(1, t.spine_count + 1)])
    tops = {
        3: tr(gettext_noop("core: {count} switches")).format(count=t.core_count),
        2: tr(gettext_noop("spines: {count} switches")).format(count=t.spine_count),
    }
    columns = max(len(blocks), len(spines), 1)
    width = max(columns * (BOX_W + GAP) + 2 * MARGIN, 640)
    rows_y = [MARGIN + 60 + i * (BOX_H + ROW_GAP) for i in range(3)]
    parts = []

    title = design.requirements.label or tr(gettext_noop("Fabric design"))
    counts = (
        [
            (design.leaf_count, tr(gettext_noop("{n} leaves"))),
            (design.spine_count, tr(gettext_noop("{n} spines"))),
            (design.core_count, tr(gettext_noop("{n} core"))),
        ]
        if t.tiers > 1
        else [(1, tr(gettext_noop("{n} switch")))]
    )
    summary = " · ".join(
        [
            tr(gettext_noop("{n} GPUs")).format(n=design.gpu_count),
            tr(gettext_noop("{n} endpoint ports")).format(n=design.endpoint_ports),
            design.switch.part_number,
            tr(gettext_noop("{n} tier") if t.tiers == 1 else gettext_noop("{n} tiers")).format(
                n=t.tiers
            ),
        ]
        + [noun.format(n=n) for n, noun in counts if n]
    )
    if design.planes > 1:
        summary += " · " + tr(gettext_noop("{n} identical planes, one drawn")).format(
            n=design.planes
        )
    if design.server:
        summary += f" · {t.servers} × {design.server.part_number}"
    if design.ufm:
        ufm = design.ufm
        label = (
            gettext_noop("{n} UFM hosts on {ports} leaf ports")
            if ufm.nic
            else gettext_noop("{n} UFM appliances on {ports} leaf ports")
        )
        if not ufm.links:
            label = gettext_noop("{n} UFM hosts, no leaf port free for them")
        summary += " · " + tr(label).format(n=ufm.appliances, ports=len(ufm.links))
    parts.append(_text(width / 2, MARGIN + 4, [title], "title"))
    parts.append(_text(width / 2, MARGIN + 24, [summary], "summary"))

    top_y, leaf_y, server_y = rows_y
    if t.tiers == 1:
        leaf_y, server_y = rows_y[0], rows_y[1]
    leaf_labels = [[b.title, b.detail] if b else None for b in blocks]
    server_labels = [
        [b.servers.split(": ")[0], b.servers.split(": ")[1]] if b else None for b in blocks
    ]
    leaf_parts, centres = _row(leaf_y, leaf_labels, hidden, "leaf", width, tr)
    server_parts, _ = _row(server_y, server_labels, hidden, "servers", width, tr)
    for block, x in zip(blocks, centres, strict=True):
        if block:
            links = tr(gettext_noop("{n} links")).format(n=block.down_links)
            parts.append(_bundle(x, server_y, x, leaf_y + BOX_H, links))
    if t.tiers > 1:
        if t.tiers == 2:
            labels = [[name] if name else None for name in spines]
            top_parts, _ = _row(top_y, labels, spine_hidden, "spine", width, tr)
            per_pair = " · " + tr(gettext_noop("{n} per leaf per spine")).format(
                n=t.links_per_leaf_per_spine
            )
        else:
            core = [
                tr(gettext_noop("{n} core")).format(n=t.core_count),
                tr(gettext_noop("{n} per spine per core")).format(n=t.links_per_spine_per_core),
            ]
            top_parts, _ = _row(top_y, [core], 0, "core", width, tr)
            per_pair = ""
        parts.append(
            f'<rect class="band" x="{MARGIN / 2:.0f}" y="{top_y - 8:.0f}" '
            f'width="{width - MARGIN:.0f}" height="{BOX_H + 16}" rx="8"/>'
        )
        parts.append(_text(MARGIN, top_y - 14, [tops[t.tiers]], "tier"))
        parts.extend(top_parts)
        for block, x in zip(blocks, centres, strict=True):
            if block:
                parts.append(
                    _bundle(
                        x,
                        leaf_y,
                        x,
                        top_y + BOX_H + 8,
                        tr(gettext_noop("{n} links")).format(n=block.up_links) + per_pair,
                    )
                )
    parts.extend(leaf_parts)
    parts.extend(server_parts)
    bottom = server_y + BOX_H
    if design.storage is not None:
        storage_parts, bottom = _storage_parts(design, server_y, width, tr)
        parts.extend(storage_parts)
    height = bottom + MARGIN
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img">'
        f"<title>{escape(title)}</title><style>{DRAWING_STYLE}</style>" + "".join(parts) + "</svg>"
    )

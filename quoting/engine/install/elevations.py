"""Rack elevations: a front view of every rack, devices drawn at their U, power against budget.

Rows of racks left to right as they stand in the hall, one band per row; written a row at a
time so a 16,384-GPU hall (hundreds of racks) streams. Colours by role, over-budget racks in red.
"""

from __future__ import annotations

from collections.abc import Iterator
from xml.sax.saxutils import escape

from quoting.engine.install.layout import InstallLayout

RACK_W, U_H, RACK_GAP, ROW_GAP, MARGIN, HEAD = 130, 7, 14, 50, 20, 40
ELEVATION_STYLE = (
    "text{font:10px sans-serif;fill:#1b1f24}.title{font-size:15px;font-weight:bold}"
    ".row{font-size:13px;font-weight:bold}.frame{fill:#f6f8fa;stroke:#57606a}"
    ".over .frame{fill:#fdecea;stroke:#c62828;stroke-width:2}.over .kw{fill:#c62828}"
    "rect.dev{stroke:#57606a}.el-server{fill:#e8f1fb}.el-leaf{fill:#dff3e4}"
    ".el-spine,.el-core{fill:#c8e6c9}.el-ufm{fill:#fff3cd}.el-mgmt{fill:#eeeeee}"
    ".el-storage{fill:#f3e5f5}"
)


def _css(role: str) -> str:
    """Classes of their own (el-...), so the page's fabric drawing keeps its .leaf and .spine."""
    if role.startswith("storage"):
        return "el-storage"
    if "management" in role:
        return "el-mgmt"
    return f"el-{role}"


def rack_elevations_svg(layout: InstallLayout) -> Iterator[str]:
    site = layout.site
    rack_h = site.rack_units * U_H
    rows = layout.racks[-1].row + 1 if layout.racks else 0
    per_row = max((r.position + 1 for r in layout.racks), default=1)
    width = 2 * MARGIN + per_row * (RACK_W + RACK_GAP)
    band = rack_h + HEAD + ROW_GAP
    height = 2 * MARGIN + 30 + rows * band
    req = layout.design.requirements
    title = escape(f"Rack elevations: {req.label or f'{layout.design.gpu_count} GPUs'} "
                   f"({len(layout.racks)} racks, budget {site.rack_power_kw:g} kW per rack)")
    yield (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img"><title>{title}</title>'
           f"<style>{ELEVATION_STYLE}</style>"
           f'<text class="title" x="{MARGIN}" y="{MARGIN + 12}">{title}</text>\n')
    current_row = -1
    for rack in layout.racks:
        top = MARGIN + 30 + rack.row * band
        if rack.row != current_row:
            current_row = rack.row
            yield f'<text class="row" x="{MARGIN}" y="{top + 12}">Row {rack.row_name}</text>\n'
        x = MARGIN + rack.position * (RACK_W + RACK_GAP)
        y = top + HEAD
        over = rack.max_kw > site.rack_power_kw + 1e-9
        parts = [
            f'<g class="rack{" over" if over else ""}" data-rack="{rack.name}">',
            f'<text x="{x}" y="{top + 26}">{rack.name} · {rack.units_used}/{site.rack_units} U'
            "</text>",
            f'<text class="kw" x="{x}" y="{top + 37}">{rack.max_kw:.1f} / '
            f"{site.rack_power_kw:g} kW max</text>",
            f'<rect class="frame" x="{x}" y="{y}" width="{RACK_W}" height="{rack_h}"/>',
        ]
        for name in rack.devices:
            d = layout.devices[name]
            dy = y + (site.rack_units - (d.u - 1) - d.units) * U_H
            parts.append(
                f'<rect class="dev {_css(d.role)}" x="{x + 3}" y="{dy}" width="{RACK_W - 6}" '
                f'height="{d.units * U_H}"><title>{escape(name)} U{d.u}</title></rect>')
            if d.units * U_H >= 9:
                parts.append(f'<text x="{x + 6}" y="{dy + min(d.units * U_H, 16) - 3}">'
                             f"{escape(name)}</text>")
        parts.append("</g>\n")
        yield "".join(parts)
    yield "</svg>\n"

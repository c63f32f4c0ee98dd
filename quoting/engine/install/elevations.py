"""Rack elevations: a front view of every rack, devices drawn at their U, power against budget.

Rows of racks left to right as they stand in the hall, one band per row; written a row at a
time so a 16,384-GPU hall (hundreds of racks) streams. Colours by role, over-budget racks in red.
Its words go through `translate` (the edge's gettext; English without, as the pack's file has).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from xml.sax.saxutils import escape

from quoting.engine.install.layout import InstallLayout
from quoting.engine.install.weights import rack_weight_kg
from quoting.engine.messages import gettext_noop

Translate = Callable[[str], str]


def _same(text: str) -> str:
    return text


RACK_W, U_H, RACK_GAP, ROW_GAP, MARGIN, HEAD = 130, 7, 14, 50, 20, 52
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


def rack_elevations_svg(layout: InstallLayout, translate: Translate | None = None) -> Iterator[str]:
    tr = translate or _same
    site = layout.site
    rack_h = site.rack_units * U_H
    rows = layout.racks[-1].row + 1 if layout.racks else 0
    per_row = max((r.position + 1 for r in layout.racks), default=1)
    width = 2 * MARGIN + per_row * (RACK_W + RACK_GAP)
    band = rack_h + HEAD + ROW_GAP
    height = 2 * MARGIN + 30 + rows * band
    req = layout.design.requirements
    design_name = req.label or tr(gettext_noop("{gpus} GPUs")).format(gpus=layout.design.gpu_count)
    title = escape(
        tr(
            gettext_noop("Rack elevations: {name} ({racks} racks, budget {budget:g} kW per rack)")
        ).format(name=design_name, racks=len(layout.racks), budget=site.rack_power_kw)
    )
    row_label = tr(gettext_noop("Row {row}"))
    power_label = tr(gettext_noop("{kw:.1f} / {budget:g} kW max"))
    weight_label = tr(gettext_noop("{kg:,.0f} kg"))
    weight_unknown = escape(tr(gettext_noop("weight n/a")))
    yield (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img"><title>{title}</title>'
        f"<style>{ELEVATION_STYLE}</style>"
        f'<text class="title" x="{MARGIN}" y="{MARGIN + 12}">{title}</text>\n'
    )

    def _weight(kg: float | None) -> str:
        return weight_unknown if kg is None else escape(weight_label.format(kg=kg))

    current_row = -1
    for rack in layout.racks:
        top = MARGIN + 30 + rack.row * band
        if rack.row != current_row:
            current_row = rack.row
            row = escape(row_label.format(row=rack.row_name))
            yield f'<text class="row" x="{MARGIN}" y="{top + 12}">{row}</text>\n'
        x = MARGIN + rack.position * (RACK_W + RACK_GAP)
        y = top + HEAD
        over = rack.max_kw > site.rack_power_kw + 1e-9
        weight = rack_weight_kg(layout, rack)
        parts = [
            f'<g class="rack{" over" if over else ""}" data-rack="{rack.name}">',
            f'<text x="{x}" y="{top + 26}">{rack.name} · {rack.units_used}/{site.rack_units} U'
            "</text>",
            f'<text class="kw" x="{x}" y="{top + 37}">'
            f"{escape(power_label.format(kw=rack.max_kw, budget=site.rack_power_kw))}</text>",
            f'<text class="kg" x="{x}" y="{top + 48}">{_weight(weight)}</text>',
            f'<rect class="frame" x="{x}" y="{y}" width="{RACK_W}" height="{rack_h}"/>',
        ]
        for name in rack.devices:
            d = layout.devices[name]
            dy = y + (site.rack_units - (d.u - 1) - d.units) * U_H
            parts.append(
                f'<rect class="dev {_css(d.role)}" x="{x + 3}" y="{dy}" width="{RACK_W - 6}" '
                f'height="{d.units * U_H}"><title>{escape(name)} U{d.u}</title></rect>'
            )
            if d.units * U_H >= 9:
                parts.append(
                    f'<text x="{x + 6}" y="{dy + min(d.units * U_H, 16) - 3}">{escape(name)}</text>'
                )
        parts.append("</g>\n")
        yield "".join(parts)
    yield "</svg>\n"

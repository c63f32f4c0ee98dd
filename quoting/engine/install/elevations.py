"""Rack elevations: a front view of every rack, devices drawn at their U with their name and
model, a U scale beside each rack, power against budget and the rack's weight.

Rows of racks left to right as they stand in the hall, one band per row; written a row at a
time so a 16,384-GPU hall (hundreds of racks) streams. Colours by role, over-budget racks in red.
Its words go through `translate` (the edge's gettext; English without, as the pack's file has).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from xml.sax.saxutils import escape

from quoting.engine.drawing import SVG_FONT_FAMILY
from quoting.engine.install.layout import InstallLayout
from quoting.engine.install.pdf import text_width
from quoting.engine.install.weights import RackWeight, model_of, rack_weight
from quoting.engine.messages import gettext_noop

Translate = Callable[[str], str]


def _same(text: str) -> str:
    return text


RACK_W, U_H, RACK_GAP, ROW_GAP, MARGIN, HEAD = 130, 9, 14, 50, 20, 52
U_SCALE_EVERY = 5  # U numbers in the gap left of each rack: 1, 5, 10 ... and the top U
ELEVATION_STYLE = (
    f"text{{font:10px {SVG_FONT_FAMILY};fill:#1b1f24}}.title{{font-size:15px;font-weight:bold}}"
    ".row{font-size:13px;font-weight:bold}.frame{fill:#f6f8fa;stroke:#57606a}"
    ".over .frame{fill:#fdecea;stroke:#c62828;stroke-width:2}.over .kw{fill:#c62828}"
    "rect.dev{stroke:#57606a}.el-server{fill:#e8f1fb}.el-leaf{fill:#dff3e4}"
    ".el-spine,.el-core{fill:#c8e6c9}.el-ufm{fill:#fff3cd}.el-mgmt{fill:#eeeeee}"
    ".el-storage{fill:#f3e5f5}text.u{font-size:7px;fill:#57606a;text-anchor:end}"
    ".tick{stroke:#8c959f;stroke-width:.5}text.one{font-size:7px}text.model{font-size:9px}"
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
    # A rack-scale system's own rack: its power shelves, not the site's budget.
    liquid_label = tr(gettext_noop("{kw:.1f} kW max, liquid-cooled, own power"))
    weight_label = tr(gettext_noop("{kg:,.0f} kg"))
    weight_floor = tr(gettext_noop("≥ {kg:,.0f} kg, {count} unknown"))
    weight_unknown = tr(gettext_noop("Weight unknown: {devices}"))
    yield (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img"><title>{title}</title>'
        f"<style>{ELEVATION_STYLE}</style>"
        f'<text class="title" x="{MARGIN}" y="{MARGIN + 12}">{title}</text>\n'
    )

    def _weight(weight: RackWeight) -> str:
        """The weight; with devices of unknown weight the known sum as a floor, and their models
        in the text's title."""
        if weight.complete:
            return escape(weight_label.format(kg=weight.known_kg))
        count = sum(n for _, n in weight.unknown)
        return escape(weight_floor.format(kg=weight.known_kg, count=count)) + (
            f"<title>{escape(weight_unknown.format(devices=weight.unknown_text(tr)))}</title>"
        )

    current_row = -1
    for rack in layout.racks:
        top = MARGIN + 30 + rack.row * band
        if rack.row != current_row:
            current_row = rack.row
            row = escape(row_label.format(row=rack.row_name))
            yield f'<text class="row" x="{MARGIN}" y="{top + 12}">{row}</text>\n'
        x = MARGIN + rack.position * (RACK_W + RACK_GAP)
        y = top + HEAD
        over = rack.over_budget(site.rack_power_kw)
        label = liquid_label if rack.own_power else power_label
        weight = rack_weight(layout, rack)
        parts = [
            f'<g class="rack{" over" if over else ""}" data-rack="{rack.name}">',
            f'<text x="{x}" y="{top + 26}">{rack.name} · {rack.units_used}/{site.rack_units} U'
            "</text>",
            f'<text class="kw" x="{x}" y="{top + 37}">'
            f"{escape(label.format(kw=rack.max_kw, budget=site.rack_power_kw))}</text>",
            f'<text class="kg" x="{x}" y="{top + 48}">{_weight(weight)}</text>',
            f'<rect class="frame" x="{x}" y="{y}" width="{RACK_W}" height="{rack_h}"/>',
            _u_scale(x, y, site.rack_units),
        ]
        for name in rack.devices:
            d = layout.devices[name]
            dy = y + (site.rack_units - (d.u - 1) - d.units) * U_H
            parts.append(
                f'<rect class="dev {_css(d.role)}" x="{x + 3}" y="{dy}" width="{RACK_W - 6}" '
                f'height="{d.units * U_H}"><title>{escape(name)} U{d.u}</title></rect>'
            )
            parts.append(_device_text(name, tr(model_of(d)), x, dy, d.units * U_H))
        parts.append("</g>\n")
        yield "".join(parts)
    yield "</svg>\n"


def _u_scale(x: int, top: int, rack_units: int) -> str:
    """A tick at every U, numbered at 1, every fifth and the top, right-aligned to the rack."""
    parts = []
    for u in range(1, rack_units + 1):
        bottom = top + (rack_units - u + 1) * U_H  # the U's lower edge
        numbered = u == 1 or u % U_SCALE_EVERY == 0 or u == rack_units
        parts.append(f'<line class="tick" x1="{x - 3}" y1="{bottom}" x2="{x}" y2="{bottom}"/>')
        if numbered:
            parts.append(f'<text class="u" x="{x - 4}" y="{bottom - 1}">{u}</text>')
    return "".join(parts)


def _fit(text: str, size: float, room: float) -> str:
    """Squeezes a text that would overrun its box (sans-serif runs about Helvetica's width)."""
    if text_width(text, size) <= room:
        return ""
    return f' textLength="{room:.0f}" lengthAdjust="spacingAndGlyphs"'


def _device_text(name: str, model: str, x: int, dy: int, height: int) -> str:
    """The device's name and model inside its box: two lines where it is tall enough (3 U),
    else one small line."""
    room = RACK_W - 12
    if height >= 24:
        return (
            f'<text x="{x + 6}" y="{dy + 11}"{_fit(name, 10, room)}>{escape(name)}</text>'
            f'<text class="model" x="{x + 6}" y="{dy + 21}"{_fit(model, 9, room)}>'
            f"{escape(model)}</text>"
        )
    line = f"{name}  {model}"
    return (
        f'<text class="one" x="{x + 6}" y="{dy + height / 2 + 2.5:g}"{_fit(line, 7, room)}>'
        f"{escape(line)}</text>"
    )

"""TCO charts as plain SVG strings: the same pictures go into the browser and the PDF.

No JavaScript and no external assets (WeasyPrint renders them as they are). Every text and
attribute value goes through escape()/quoteattr(), since fabric names come from users. Each
fabric option is one `<g class="series" data-name="...">`, so tests and styles can find it.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Collection
from decimal import Decimal
from xml.sax.saxutils import escape, quoteattr

from quoting.engine.drawing import SVG_FONT_FAMILY, drawing_fonts_current
from quoting.engine.messages import gettext_noop
from quoting.engine.tco import TcoResult
from quoting.engine.tco.names import option_name_message

Translate = Callable[[str], str]  # the edge's gettext; the charts themselves never import Django


def _same(text: str) -> str:
    return text


WIDTH, HEIGHT = 720, 400
# Plot margins; the legend sits on the right. The bottom holds up to LABEL_LINES lines of an
# option's name under its bar, and the axis title.
LEFT, RIGHT, TOP, BOTTOM = 64, 200, 36, 92
LABEL_SIZE, LABEL_LINES, LINE_HEIGHT = 11, 4, 14
LEGEND_ROOM = RIGHT - 16 - 18 - 4  # from the legend's text to the edge
PLOT_W, PLOT_H = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
# Colour-blind-safe (Okabe-Ito) and 8 long: the request allows at most 8 fabric options.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
DASHES = ("", "7 4", "2 3", "10 3 2 3")  # lines of equal fabrics lie on top of each other
COST_PARTS = (
    ("capital", gettext_noop("Capital (capex x CRF)"), "#0072B2"),
    ("support", gettext_noop("Network support"), "#56B4E9"),
    ("server_support", gettext_noop("Server support"), "#CC79A7"),
    ("energy", gettext_noop("Energy"), "#E69F00"),
    ("space", gettext_noop("Space"), "#999999"),
    ("licences", gettext_noop("Licences (per year)"), "#009E73"),
)


BAR_TITLE = gettext_noop("{name}: {cost} {currency} at {efficiency} network efficiency")
NOT_PRICED_NOTE = gettext_noop("(network not priced)")


# --- Label widths -----------------------------------------------------------------------------
# Estimated, not measured (no font metrics here): each character by its width class, in ems.
# CJK and other full-width characters take a whole em, so Chinese labels wrap as they should.
NARROW = frozenset("iIl.,:;'!|()[]{} \u00b7")


def char_width(char: str) -> float:
    """One character's width in ems: full width 1, narrow 0.3, capitals 0.68, the rest 0.56."""
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return 1.0
    if char in NARROW:
        return 0.3
    if char.isupper() or char in "mwMW%@":
        return 0.68
    return 0.56


def text_width(text: str, size: float = LABEL_SIZE) -> float:
    """The estimated width of `text` in px at a font size of `size` px."""
    return sum(char_width(c) for c in text) * size


def _tokens(text: str) -> list[str]:
    """Where a label may break: after a space (kept with the word before it), and before or
    after any full-width character (Chinese breaks between characters)."""
    tokens, word = [], ""
    for char in text:
        if unicodedata.east_asian_width(char) in ("W", "F"):
            if word:
                tokens.append(word)
            tokens.append(char)
            word = ""
        elif char == " ":
            tokens.append(word + " ")
            word = ""
        else:
            word += char
    if word:
        tokens.append(word)
    return tokens


def wrap(text: str, room: float, *, lines: int, size: float = LABEL_SIZE) -> list[str]:
    """`text` in at most `lines` lines of at most `room` px each (by text_width): broken where
    it may break, a word longer than a line cut, and what does not fit in the last line ended
    with an ellipsis. The same text and room always give the same lines."""
    out: list[str] = []
    current = ""
    for token in _tokens(text):
        while text_width((current + token).rstrip(), size) > room:
            if current:
                out.append(current.rstrip())
                current = ""
                continue
            fit = _fitting(token, room, size)  # one word wider than a line: cut it
            out.append(fit)
            token = token[len(fit) :]
        current += token
    if current.strip():
        out.append(current.rstrip())
    if len(out) > lines:
        last = " ".join(out[lines - 1 :])
        out = out[: lines - 1] + [_ellipsis(last, room, size)]
    return out


def _fitting(text: str, room: float, size: float) -> str:
    end = 1
    while end < len(text) and text_width(text[: end + 1], size) <= room:
        end += 1
    return text[:end]


def _ellipsis(text: str, room: float, size: float) -> str:
    if text_width(text, size) <= room:
        return text
    while text and text_width(text + "\u2026", size) > room:
        text = text[:-1]
    return text.rstrip() + "\u2026"


def _point_title(name: str, nodes: int, efficiency: float, tr: Translate) -> str:
    return tr(gettext_noop("{name}: {nodes} nodes, {share}")).format(
        name=_name(name, tr), nodes=nodes, share=f"{efficiency:.1%}"
    )


def _name(name: str, tr: Translate) -> str:
    """An option's name in the active language (the names a design's comparison makes)."""
    return option_name_message(name).render(tr)


def _label(name: str, tr: Translate, unpriced: Collection[str]) -> str:
    """An option's name as a chart labels it: an option whose network is not priced says so,
    since its costs leave the network out."""
    if name in unpriced:
        return f"{_name(name, tr)} {tr(NOT_PRICED_NOTE)}"
    return _name(name, tr)


def chart_in(chart: str | dict[str, str], language: str) -> str:
    """A kept chart in `language`: charts are kept drawn in each language (older snapshots kept
    one drawing, which is all there is), set in today's fonts."""
    if isinstance(chart, str):
        return drawing_fonts_current(chart)
    return drawing_fonts_current(
        chart.get(language) or chart.get("en") or next(iter(chart.values()), "")
    )


def efficiency_chart(
    result: TcoResult, translate: Translate | None = None, unpriced: Collection[str] = ()
) -> str:
    """Network efficiency versus node count, one line per fabric, at the same tokens per node."""
    tr = translate or _same
    counts = sorted({n for curve in result.efficiency_curve for n, _ in curve.points})
    span = math.log2(counts[-1]) or 1.0

    def x(nodes: int) -> float:
        return LEFT + PLOT_W * math.log2(nodes) / span

    def y(efficiency: float) -> float:
        return TOP + PLOT_H * (1 - efficiency)

    title = tr(gettext_noop("Network efficiency vs cluster size (same tokens per node)"))
    parts = []
    for share in (0, 0.25, 0.5, 0.75, 1):
        parts.append(_hline(y(share)))
        parts.append(_text(LEFT - 8, y(share) + 4, f"{share:.0%}", anchor="end"))
    for nodes in counts:
        if nodes & (nodes - 1) == 0:  # powers of two only: a quoted 100 would crowd 128
            parts.append(_text(x(nodes), TOP + PLOT_H + 18, str(nodes), anchor="middle"))
    axis = tr(gettext_noop("nodes (log scale)"))
    parts.append(_text(LEFT + PLOT_W / 2, HEIGHT - 12, axis, anchor="middle"))
    legend = _Legend()
    for i, curve in enumerate(result.efficiency_curve):
        colour = PALETTE[i % len(PALETTE)]
        path = " ".join(f"{x(n):.1f},{y(e):.1f}" for n, e in curve.points)
        dots = "".join(
            f'<circle cx="{x(n):.1f}" cy="{y(e):.1f}" r="2.5" fill="{colour}">'
            f"<title>{escape(_point_title(curve.name, n, e, tr))}</title></circle>"
            for n, e in curve.points
        )
        parts.append(
            f'<g class="series" data-name={quoteattr(curve.name)}>'
            f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2" '
            f'stroke-dasharray="{DASHES[i % len(DASHES)]}"/>'
            f"{dots}</g>"
        )
        parts.append(legend.entry(_label(curve.name, tr, unpriced), colour))
    return _svg("tco-efficiency", title, parts)


def cost_breakdown_chart(
    result: TcoResult, translate: Translate | None = None, unpriced: Collection[str] = ()
) -> str:
    """Annual cost of each option stacked by what it pays for."""
    tr = translate or _same
    top = _nice_max(max(o.annual_cost for o in result.options))
    width = _bar_width(len(result.options))
    title = tr(gettext_noop("Annual cost by component ({currency})")).format(
        currency=result.currency
    )
    parts = _money_axis(top)
    # Snapshots taken before yearly licences and server support were split out have no such
    # parts; a chart without any keeps its four-part legend.
    cost_parts = [
        part
        for part in COST_PARTS
        if any(getattr(o.annual_cost_breakdown, part[0], 0) for o in result.options)
        or part[0] not in ("licences", "server_support")
    ]
    for i, option in enumerate(result.options):
        x = _bar_x(i, len(result.options), width)
        base = TOP + PLOT_H
        segments = []
        for key, label, colour in cost_parts:
            amount = getattr(option.annual_cost_breakdown, key, Decimal(0))
            height = PLOT_H * float(amount / top)
            base -= height
            segments.append(
                f'<rect x="{x:.1f}" y="{base:.1f}" width="{width:.1f}" height="{height:.1f}" '
                f'fill="{colour}"><title>{escape(_name(option.name, tr))}: {escape(tr(label))} '
                f"{_amount(amount)} {escape(result.currency)}</title></rect>"
            )
        parts.append(_bar_group(option.name, segments))
        parts.append(_bar_label(x + width / 2, option.name, len(result.options), tr, unpriced))
    legend = _Legend()
    for _key, label, colour in cost_parts:
        parts.append(legend.entry(tr(label), colour))
    return _svg("tco-cost-breakdown", title, parts)


def cost_per_hour_chart(
    result: TcoResult, translate: Translate | None = None, unpriced: Collection[str] = ()
) -> str:
    """Cost per effective GPU-hour: what the buyer really pays for work done."""
    tr = translate or _same
    top = _nice_max(max(o.cost_per_effective_gpu_hour for o in result.options))
    width = _bar_width(len(result.options))
    title = tr(gettext_noop("Cost per effective GPU-hour ({currency})")).format(
        currency=result.currency
    )
    parts = _money_axis(top)
    for i, option in enumerate(result.options):
        x = _bar_x(i, len(result.options), width)
        cost = option.cost_per_effective_gpu_hour
        height = PLOT_H * float(cost / top)
        y = TOP + PLOT_H - height
        bar = (
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{height:.1f}" '
            f'fill="{PALETTE[i % len(PALETTE)]}"><title>'
            + escape(
                tr(BAR_TITLE).format(
                    name=_name(option.name, tr),
                    cost=_amount(cost, 2),
                    currency=result.currency,
                    efficiency=f"{option.network_efficiency:.0%}",
                )
            )
            + "</title></rect>"
        )
        value = _text(x + width / 2, y - 6, _amount(cost, 2), anchor="middle")
        parts.append(_bar_group(option.name, [bar, value]))
        parts.append(_bar_label(x + width / 2, option.name, len(result.options), tr, unpriced))
    return _svg("tco-cost-per-hour", title, parts)


# --- Drawing helpers ---------------------------------------------------------------------------


def _svg(css_class: str, title: str, parts: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{css_class}" width="{WIDTH}" '
        f'height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="{SVG_FONT_FAMILY}" '
        f'font-size="11"><title>{escape(title)}</title>'
        + _text(LEFT, 20, title, size=13)
        + "".join(parts)
        + "</svg>"
    )


def _text(
    x: float,
    y: float,
    text: str,
    *,
    anchor: str = "start",
    size: int = 11,
    css_class: str = "",
    room: float | None = None,
) -> str:
    marks = f' class="{css_class}"' if css_class else ""
    if room is not None:
        marks += f' data-room="{room:.1f}"'  # the width the label was wrapped to, for tests
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}"{marks}>'
        f"{escape(text)}</text>"
    )


def _hline(y: float) -> str:
    return f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + PLOT_W}" y2="{y:.1f}" stroke="#ddd"/>'


class _Legend:
    """The legend's entries down the right margin: each label wrapped in LEGEND_ROOM (two lines
    at most), the next entry below the lines the last one took."""

    def __init__(self) -> None:
        self.y = TOP + 8

    def entry(self, label: str, colour: str) -> str:
        x, y = LEFT + PLOT_W + 16, self.y
        lines = wrap(label, LEGEND_ROOM, lines=2)
        self.y += LINE_HEIGHT * (len(lines) - 1) + 18
        return f'<rect x="{x}" y="{y - 9}" width="12" height="10" fill="{colour}"/>' + "".join(
            _text(x + 18, y + LINE_HEIGHT * n, line, css_class="legend")
            for n, line in enumerate(lines)
        )


def _money_axis(top: Decimal) -> list[str]:
    lines = []
    places = 0 if top >= 100 else 2  # a 12.50 gridline must not read as 12
    for share in (0, 0.25, 0.5, 0.75, 1):
        y = TOP + PLOT_H * (1 - share)
        lines.append(_hline(y))
        value = top * Decimal(str(share))
        label = _compact(value) if top >= 100_000 else _amount(value, places)
        lines.append(_text(LEFT - 8, y + 4, label, anchor="end"))
    return lines


def _compact(value: Decimal) -> str:
    """12,500,000 as 12.5M: axis labels must fit the margin beside the plot."""
    for unit, size in (("M", Decimal(1_000_000)), ("k", Decimal(1_000))):
        if abs(value) >= size:
            return f"{(value / size).quantize(Decimal('0.01')).normalize():f}{unit}"
    return f"{value.quantize(Decimal('1')):f}"


def _bar_width(count: int) -> float:
    return min(60.0, PLOT_W / count * 0.6)


def _bar_x(i: int, count: int, width: float) -> float:
    slot = PLOT_W / count
    return LEFT + slot * i + (slot - width) / 2


def _bar_group(name: str, shapes: list[str]) -> str:
    return f'<g class="series" data-name={quoteattr(name)}>{"".join(shapes)}</g>'


def _bar_label(x: float, name: str, count: int, tr: Translate, unpriced: Collection[str]) -> str:
    """An option's name under its bar, wrapped to its slot less a gap to the next one; an
    option whose network is not priced says so on a line of its own, never cut off."""
    room = PLOT_W / count - 8
    note = wrap(tr(NOT_PRICED_NOTE), room, lines=2) if name in unpriced else []
    lines = wrap(_name(name, tr), room, lines=LABEL_LINES - len(note)) + note
    return "".join(
        _text(
            x,
            TOP + PLOT_H + 16 + LINE_HEIGHT * n,
            line,
            anchor="middle",
            css_class="bar-label",
            room=room,
        )
        for n, line in enumerate(lines)
    )


def _nice_max(value: Decimal) -> Decimal:
    """Round the axis top up to 1, 2 or 5 x 10^n so the gridlines read as round numbers."""
    if value <= 0:
        return Decimal(1)
    magnitude = Decimal(10) ** math.floor(math.log10(float(value)))
    for step in (1, 2, 5):
        if value <= step * magnitude:
            return step * magnitude
    return 10 * magnitude


def _amount(value: Decimal, places: int = 0) -> str:
    return f"{value:,.{places}f}"

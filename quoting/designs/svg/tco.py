"""TCO charts as plain SVG strings: the same pictures go into the browser and the PDF.

No JavaScript and no external assets (WeasyPrint renders them as they are). Every text and
attribute value goes through escape()/quoteattr(), since fabric names come from users. Each
fabric option is one `<g class="series" data-name="...">`, so tests and styles can find it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from xml.sax.saxutils import escape, quoteattr

from quoting.engine.messages import gettext_noop
from quoting.engine.tco import TcoResult
from quoting.engine.tco.names import option_name_message

Translate = Callable[[str], str]  # the edge's gettext; the charts themselves never import Django


def _same(text: str) -> str:
    return text


WIDTH, HEIGHT = 720, 360
LEFT, RIGHT, TOP, BOTTOM = 64, 190, 36, 52  # plot margins; the legend sits on the right
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


def _point_title(name: str, nodes: int, efficiency: float, tr: Translate) -> str:
    return tr(gettext_noop("{name}: {nodes} nodes, {share}")).format(
        name=_name(name, tr), nodes=nodes, share=f"{efficiency:.1%}"
    )


def _name(name: str, tr: Translate) -> str:
    """An option's name in the active language (the names a design's comparison makes)."""
    return option_name_message(name).render(tr)


def chart_in(chart: str | dict[str, str], language: str) -> str:
    """A kept chart in `language`: charts are kept drawn in each language (older snapshots kept
    one drawing, which is all there is)."""
    if isinstance(chart, str):
        return chart
    return chart.get(language) or chart.get("en") or next(iter(chart.values()), "")


def efficiency_chart(result: TcoResult, translate: Translate | None = None) -> str:
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
        parts.append(_legend(i, _name(curve.name, tr), colour))
    return _svg("tco-efficiency", title, parts)


def cost_breakdown_chart(result: TcoResult, translate: Translate | None = None) -> str:
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
        parts.append(_bar_label(x + width / 2, _name(option.name, tr), len(result.options)))
    for i, (_, label, colour) in enumerate(cost_parts):
        parts.append(_legend(i, tr(label), colour))
    return _svg("tco-cost-breakdown", title, parts)


def cost_per_hour_chart(result: TcoResult, translate: Translate | None = None) -> str:
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
        parts.append(_bar_label(x + width / 2, _name(option.name, tr), len(result.options)))
    return _svg("tco-cost-per-hour", title, parts)


# --- Drawing helpers ---------------------------------------------------------------------------


def _svg(css_class: str, title: str, parts: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{css_class}" width="{WIDTH}" '
        f'height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" '
        f'font-size="11"><title>{escape(title)}</title>'
        + _text(LEFT, 20, title, size=13)
        + "".join(parts)
        + "</svg>"
    )


def _text(x: float, y: float, text: str, *, anchor: str = "start", size: int = 11) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}">'
        f"{escape(text)}</text>"
    )


def _hline(y: float) -> str:
    return f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + PLOT_W}" y2="{y:.1f}" stroke="#ddd"/>'


def _legend(i: int, label: str, colour: str) -> str:
    x, y = LEFT + PLOT_W + 16, TOP + 8 + 18 * i
    return f'<rect x="{x}" y="{y - 9}" width="12" height="10" fill="{colour}"/>' + _text(
        x + 18, y, _short(label, 24)
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


def _bar_label(x: float, name: str, count: int) -> str:
    fits = max(6, int(PLOT_W / count / 6.5))  # ~6.5 px per character at 11 px
    return _text(x, TOP + PLOT_H + 16, _short(name, fits), anchor="middle")


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


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

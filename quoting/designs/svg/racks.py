"""The proposal's rack appendix: rack elevations and the per-rack power table of a design's
installation layout, computed once into the revision's snapshot (quoting.quotes.services.snapshots)
and only printed by the PDF.

The elevations are the design page's drawing (rack_elevations_svg), a few racks per figure so
the names stay readable on A4. A large design draws a representative part (its first scalable
unit's racks and one rack of each other kind) and says so; the power table covers every rack,
racks with the same figures grouped once there are many.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from quoting.engine.install.elevations import rack_elevations_svg
from quoting.engine.install.layout import InstallLayout, Rack
from quoting.engine.messages import listing

Translate = Callable[[str], str]

# Up to this many racks every rack is drawn; above, a representative part.
ALL_RACKS_MAX = 12
RACKS_PER_FIGURE = 6  # an A4 width keeps a rack's 10 px names legible (about 5.5 pt)
TABLE_RACKS_MAX = 48  # one table row per rack up to here; racks of equal figures grouped above

# The elevations' own title counts the racks of its drawing and runs wider than a narrow figure:
# an appendix figure has none (the PDF captions it with its racks' names in the page's text).
ELEVATIONS_TITLE = "Rack elevations: {name} ({racks} racks, budget {budget:g} kW per rack)"


def _figures(rack: Rack, budget_kw: float) -> tuple:
    return (
        rack.kind,
        rack.own_power,
        rack.units_used,
        round(rack.typical_kw, 2),
        round(rack.max_kw, 2),
        rack.over_budget(budget_kw),
    )


def _shown(layout: InstallLayout) -> list[Rack]:
    """Every rack of a small layout; else scalable unit 1's racks, the first rack of each other
    kind (by its figures: role, U, power, over budget or not). Scalable units repeat
    one another, so this is what an installer reads; the power table lists them all."""
    if len(layout.racks) <= ALL_RACKS_MAX:
        return list(layout.racks)
    budget = layout.site.rack_power_kw
    first_su = min((r.su for r in layout.racks if r.su is not None), default=None)
    shown, kinds = [], {_figures(r, budget) for r in layout.racks if r.su == first_su}
    for rack in layout.racks:
        figures = _figures(rack, budget)
        if rack.su == first_su or figures not in kinds:
            kinds.add(figures)
            shown.append(rack)
    return shown


def _figure_layouts(layout: InstallLayout, racks: list[Rack]) -> list[tuple[InstallLayout, str]]:
    """The shown racks in chunks of RACKS_PER_FIGURE, each chunk one row of its own (racks keep
    their names), drawn as the design page draws a layout; with the names of its racks."""
    chunks: list[list[Rack]] = []
    for rack in racks:
        if not chunks or len(chunks[-1]) == RACKS_PER_FIGURE or chunks[-1][-1].row != rack.row:
            chunks.append([])
        chunks[-1].append(rack)
    figures = []
    for chunk in chunks:
        copies = []
        for position, rack in enumerate(chunk):
            copy = dataclasses.replace(rack, row=0, position=position)
            copy.row_name, copy.name = rack.row_name, rack.name
            copies.append(copy)
        figures.append((dataclasses.replace(layout, racks=copies), _ranges(chunk)))
    return figures


def _untitled(tr: Translate) -> Translate:
    def translate(text: str) -> str:
        return "" if text == ELEVATIONS_TITLE else tr(text)

    return translate


def _ranges(racks: list[Rack]) -> list[str]:
    """["A01–A11", "B03"]: neighbours in a row as one range. Kept as a list, listed in the
    reader's language when shown (rack_names)."""
    runs: list[list[Rack]] = []
    for rack in racks:
        if runs and runs[-1][-1].row == rack.row and runs[-1][-1].position + 1 == rack.position:
            runs[-1].append(rack)
        else:
            runs.append([rack])
    return [run[0].name if len(run) == 1 else f"{run[0].name}–{run[-1].name}" for run in runs]


def rack_names(racks: list[str] | str | None, tr: Translate) -> str:
    """A power row's or a figure's racks listed in the language of `tr` ("A01–A06、B01" in
    Chinese). An appendix kept before its racks were a list has them joined with ", " (rack
    names hold no comma): listed again the same way."""
    if not racks:
        return ""
    names = racks.split(", ") if isinstance(racks, str) else racks
    return listing(names).render(tr)


def power_rows(layout: InstallLayout) -> list[dict]:
    """The power table: one row per rack, or per group of racks with the same figures when there
    are more than TABLE_RACKS_MAX (an over-budget rack is then still named in its row)."""
    budget = layout.site.rack_power_kw
    if len(layout.racks) <= TABLE_RACKS_MAX:
        groups = [[r] for r in layout.racks]
    else:
        by_figures: dict[tuple, list[Rack]] = {}
        for rack in layout.racks:
            by_figures.setdefault(_figures(rack, budget), []).append(rack)
        groups = list(by_figures.values())
    rows = []
    for group in groups:
        rack = group[0]
        sus = sorted({r.su for r in group if r.su is not None})
        rows.append(
            {
                "racks": _ranges(group),
                "count": len(group),
                "kind": rack.kind,
                "liquid": rack.own_power,
                "su": (f"{sus[0]}" if len(sus) == 1 else f"{sus[0]}–{sus[-1]}") if sus else "",
                "units_used": rack.units_used,
                "units_free": layout.site.rack_units - rack.units_used,
                "typical_kw": round(rack.typical_kw, 2),
                "max_kw": round(rack.max_kw, 2),
                "over": rack.over_budget(budget),
            }
        )
    return rows


def rack_appendix(layout: InstallLayout, translations: dict[str, Translate]) -> dict:
    """What the PDF prints, as JSON: the site it is laid out on, the power table, and the
    elevation figures in each language of `translations` ({language: gettext})."""
    shown = _shown(layout)
    figures = _figure_layouts(layout, shown)
    site = layout.site
    return {
        "site": {
            "rack_units": site.rack_units,
            "rack_power_kw": site.rack_power_kw,
            "racks_per_row": site.racks_per_row,
            "cable_route": site.cable_route,
        },
        "rack_count": len(layout.racks),
        "row_count": layout.racks[-1].row + 1 if layout.racks else 0,
        "servers_per_rack": layout.servers_per_rack,
        "shown_count": len(shown),
        "grouped": len(layout.racks) > TABLE_RACKS_MAX,
        "over_count": sum(r.over_budget(site.rack_power_kw) for r in layout.racks),
        # Rack-scale systems' own liquid-cooled racks (GB200 NVL72), outside the site's budget.
        "liquid_count": sum(r.own_power for r in layout.racks),
        "typical_kw": round(sum(r.typical_kw for r in layout.racks), 2),
        "max_kw": round(sum(r.max_kw for r in layout.racks), 2),
        "rows": power_rows(layout),
        # Each figure's racks (names, how many: the PDF scales every figure alike) and the
        # figures in each language.
        "figures": [{"racks": names, "count": len(figure.racks)} for figure, names in figures],
        "elevations": {
            language: ["".join(rack_elevations_svg(figure, _untitled(tr))) for figure, _ in figures]
            for language, tr in translations.items()
        },
    }

"""An as-built check as people read it (the result page and the printable report): the counts,
then one table per kind of problem, by cable ID and label, in the active language.

The report is the engine's JSON (quoting.engine.install.as_built), kept with the check; a table
shows its first `rows` items and says how many more there are (the API's JSON has them all).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from quoting.engine.install.layout import tier_name
from quoting.engine.messages import Message, listing
from quoting.quotes.models import AsBuiltCheck

KIND_TITLES = {
    "missing": gettext_lazy("Missing links"),
    "unexpected": gettext_lazy("Unexpected links"),
    "miswired": gettext_lazy("Miswired links"),
    "degraded": gettext_lazy("Links at the wrong speed or width"),
    "devices_missing": gettext_lazy("Devices not found"),
}
KIND_HELP = {
    "missing": gettext_lazy("Planned cables the discovered fabric does not show."),
    "unexpected": gettext_lazy("Links in the discovered fabric that no planned cable makes."),
    "miswired": gettext_lazy(
        "Planned cables found on other ports: the cables that look swapped are named together."
    ),
    "degraded": gettext_lazy("Cables where planned, but running slower or on fewer lanes."),
    "devices_missing": gettext_lazy(
        "Switches and host ports of the plan that the discovery never saw (powered off, "
        "another subnet, or a wrong node description)."
    ),
}
# Keys shown in their own columns; any other key of an item reads in "Details".
_SHOWN = {
    "cable_id",
    "label_a",
    "label_z",
    "a_device",
    "a_node",
    "a_port",
    "z_device",
    "z_node",
    "z_port",
}


@dataclass
class Table:
    kind: str
    title: str
    help: str
    columns: list[str]
    rows: list[list[str]]
    total: int

    @property
    def more(self) -> int:
        return self.total - len(self.rows)


@dataclass
class AsBuiltShown:
    planned: int
    ok: int
    discovered: int
    passed: bool
    counts: list[tuple[str, str, int]] = field(default_factory=list)  # (kind, title, count)
    tables: list[Table] = field(default_factory=list)


def _end(device, port) -> str:
    return f"{device} {port}".strip() if device or port else ""


def _value(value) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_value(v)}" for k, v in value.items() if v not in ("", None))
    if isinstance(value, list | tuple):
        return "; ".join(_value(v) for v in value)
    return "" if value is None else str(value)


def _tier(tier: str) -> str:
    name = tier_name(tier)
    return name.render(_) if isinstance(name, Message) else name


def _link(link: dict) -> str:
    return _("%(a)s port %(a_port)s to %(z)s port %(z_port)s") % {
        "a": link.get("a_node", ""),
        "a_port": link.get("a_port", ""),
        "z": link.get("z_node", ""),
        "z_port": link.get("z_port", ""),
    }


def _cables(swapped) -> str:
    """The cables a miswired one looks swapped with, listed in the reader's language. The
    engine keeps their IDs joined with ", " (the API's text, old checks too); an ID never holds
    one (C000001, C000001.2), so the list is split back and listed again."""
    cables = swapped if isinstance(swapped, list | tuple) else str(swapped).split(", ")
    return listing(cables).render(_)


def _details(item: dict) -> str:
    """What an item says beyond its cable and ends, worded in the reader's language; a key this
    does not know (a report from a newer engine) reads as itself."""
    parts = []
    rest = {k: v for k, v in item.items() if k not in _SHOWN and v not in ("", None, [])}
    if tier := rest.pop("tier", ""):
        parts.append(_("tier: %(tier)s") % {"tier": _tier(tier)})
    if swapped := rest.pop("swapped_with", ""):
        parts.append(_("swapped with %(cables)s") % {"cables": _cables(swapped)})
    found = rest.pop("found_links", None)
    text = rest.pop("found", "")
    if found:
        parts.append(_("found: %(links)s") % {"links": "; ".join(_link(f) for f in found)})
    elif text:  # a check kept before the report named its links one by one
        parts.append(_("found: %(links)s") % {"links": text})
    width, speed = rest.pop("width", None), rest.pop("speed_gbps", None)
    planned = rest.pop("planned_speed_gbps", None)
    if width is not None or speed is not None:
        parts.append(
            _("found %(width)s lanes at %(speed)s Gb/s, planned %(planned)s Gb/s")
            % {"width": width or "?", "speed": speed or "?", "planned": planned or "?"}
        )
    if device := rest.pop("device", ""):
        parts.append(_("device %(device)s") % {"device": device})
    if line := rest.pop("line", None):
        parts.append(_("line %(line)s of the file") % {"line": line})
    if rest:
        parts.append(_value(rest))
    return "; ".join(parts)


def _row(item: dict) -> list[str]:
    return [
        str(item.get("cable_id") or "—"),
        str(item.get("label_a") or ""),
        str(item.get("label_z") or ""),
        _end(item.get("a_device") or item.get("a_node"), item.get("a_port")),
        _end(item.get("z_device") or item.get("z_node"), item.get("z_port")),
        _details(item),
    ]


def as_built_shown(check: AsBuiltCheck, *, rows: int) -> AsBuiltShown:
    result = check.result or {}
    summary = result.get("summary") or {}
    shown = AsBuiltShown(
        planned=check.planned_count,
        ok=check.ok_count,
        discovered=summary.get("discovered_links", 0),
        passed=check.passed,
    )
    columns = [
        _("Cable ID"),
        _("Label, A end"),
        _("Label, Z end"),
        _("A end"),
        _("Z end"),
        _("Details"),
    ]
    for kind, title in KIND_TITLES.items():
        items = result.get(kind) or []
        shown.counts.append((kind, str(title), len(items)))
        if items:
            shown.tables.append(
                Table(
                    kind=kind,
                    title=str(title),
                    help=str(KIND_HELP[kind]),
                    columns=columns,
                    rows=[_row(item) for item in items[:rows]],
                    total=len(items),
                )
            )
    return shown

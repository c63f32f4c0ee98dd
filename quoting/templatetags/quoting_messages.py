"""``{{ message|translated }}``: an engine Message in the active language."""

from __future__ import annotations

from decimal import Decimal

from django import template
from django.utils.translation import gettext, gettext_noop

from quoting.designs.svg.racks import rack_names
from quoting.engine.fabric.bom import bom_role_label
from quoting.engine.fabric.requirements import SUBNET_MANAGER_CHOICES as SUBNET_MANAGER_LABELS
from quoting.engine.messages import Message, listing
from quoting.engine.tco.names import option_name_message
from quoting.engine.tco.presets import MICROSECONDS, sharding_name
from quoting.kept_messages import kept_words
from quoting.templatetags.quoting_numbers import _decimal, _format, _trimmed, grouped, ratio

register = template.Library()


def _kept_names(kept: Message | str) -> Message | str:
    """A kept message as the engine words it now: results kept before printed a sharding by
    its code (fsdp), microseconds as "us" and an option's name as its English key."""
    if not isinstance(kept, Message):
        return MICROSECONDS if kept == "us" else kept
    now = {"sharding": sharding_name, "fabric": option_name_message}
    params = tuple(
        (name, now[name](value) if name in now and isinstance(value, str) else value)
        for name, value in kept.params
    )
    return Message(kept.template, params)


@register.filter
def translated(value: object) -> object:
    """A Message's template translated, nested Messages too; anything else unchanged."""
    if isinstance(value, Message):
        return value.render(gettext)
    return value


@register.filter
def bom_role(role: str) -> str:
    """A BOM role code (leaf, server-leaf, storage spine...) as words in the active language."""
    return bom_role_label(role or "").render(gettext) if role else ""


@register.filter
def name_in(row, names: dict | None) -> str:
    """A BOM row's product name from `names` (part number -> name in the active language), else
    the name the row carries. Rows are objects or snapshot dicts."""
    sku = getattr(row, "sku", None) or (row.get("sku") if isinstance(row, dict) else "")
    name = getattr(row, "name", None) or (row.get("name") if isinstance(row, dict) else "")
    return (names or {}).get(sku) or name


@register.filter
def assumption_text(assumption, part: str) -> str:
    """An assumption's label, unit or source in the active language: from the engine's object,
    or from a kept result (its "messages"; a result kept before them reads in English)."""
    if isinstance(assumption, dict):
        kept = (assumption.get("messages") or {}).get(part)
        if kept:
            return translated(_kept_names(Message.from_json(kept)))
        return _kept_names(assumption.get(part, ""))
    return translated(getattr(assumption, part, ""))


@register.filter
def milestone(label: str) -> str:
    """A payment milestone's name in the active language (quoting.quotes.models.milestone_label)."""
    from quoting.quotes.models import milestone_label

    return milestone_label(label)


@register.filter
def kept(text: str, message: dict | None = None) -> str:
    """A status text a service kept in English (an error), in the active language: worded from
    the message the row kept beside it (`{{ row.error|kept:row.error_message }}`), or, on a row
    kept before messages, recognised from its English (quoting.kept_texts)."""
    return kept_words(text, message)


@register.filter
def engine_label(text: str) -> str:
    """A fixed engine text marked with gettext_noop (a preset's or transport's label)."""
    return gettext(text) if text else ""


@register.filter
def option_name(name: str) -> str:
    """A TCO option's name in the active language (see quoting/engine/tco/names.py)."""
    return option_name_message(name or "").render(gettext) if name else ""


@register.filter
def option_names(names) -> str:
    """TCO options' names in the active language, joined as the proposal lists them."""
    return "; ".join(option_name(name) for name in names or ())


@register.filter
def listed(names) -> str:
    """Names listed in the active language: "a, b" in English, "a、b" in Chinese."""
    return listing(names or ()).render(gettext)


@register.filter(name="rack_names")
def rack_names_filter(racks) -> str:
    """A rack appendix's racks listed in the active language (quoting.designs.svg.racks)."""
    return rack_names(racks, gettext)


@register.filter
def subnet_manager_label(value: str) -> str:
    """A design's subnet manager code (on-switch, ufm-licence...) as its label."""
    return gettext(dict(SUBNET_MANAGER_LABELS).get(value, value)) if value else ""


# Assumptions a result keeps as a share (0.85) and a reader reads as a percentage (85 %).
_SHARE_KEYS = (
    "workload.mfu",
    "workload.overlap",
    "model.backward_share",
    "costs.availability",
    "costs.utilisation",
)
_SHARE_SUFFIXES = (".efficiency", ".busbw_efficiency")
_YEARLY_MONEY = ("costs.space_per_year", ".support_per_year", ".network_opex_per_year")
# The proposal's groups of assumptions, by key prefix, in the order they print.
ASSUMPTION_GROUPS = (
    (gettext_noop("Cluster and workload"), ("gpu.", "cluster.", "workload.")),
    (gettext_noop("Network"), ("model.", "transport.", "fabric.")),
    (gettext_noop("Costs"), ("costs.",)),
)


def _is_share(key: str) -> bool:
    return key in _SHARE_KEYS or (key.startswith("transport.") and key.endswith(_SHARE_SUFFIXES))


@register.filter
def assumption_value(assumption) -> str:
    """An assumption's value with its unit, as a reader reads it, in the active language:
    shares as percentages (0.85 → 85 %), the discount rate a year, money per year or per
    GPU-hour with its currency, hours a year. Formatted here, at view time, so a result kept
    with raw numbers prints the same way."""
    data = assumption if isinstance(assumption, dict) else assumption.as_dict()
    key, value, unit = data.get("key", ""), data.get("value"), str(data.get("unit") or "")
    number = _decimal(value)
    if number is None:
        return f"{value} {assumption_text(assumption, 'unit')}".strip()
    if unit == ":1":
        return ratio(value)
    if _is_share(key) or key == "costs.discount_rate":
        percent = _format(_trimmed((number * 100).quantize(Decimal("0.01"))))
        if key == "costs.discount_rate":
            return gettext("%(percent)s %% a year") % {"percent": percent}
        return f"{percent} %"
    if key.endswith(_YEARLY_MONEY):
        return gettext("%(amount)s %(currency)s a year") % {
            "amount": grouped(value),
            "currency": unit,
        }
    if key == "costs.gpu_hour_value":
        return gettext("%(amount)s %(currency)s per GPU-hour") % {
            "amount": grouped(value),
            "currency": unit,
        }
    if key == "costs.hours_per_year":
        return gettext("%(hours)s h a year") % {"hours": grouped(value)}
    return f"{grouped(value)} {assumption_text(assumption, 'unit')}".strip()


@register.filter
def assumption_groups(assumptions) -> list[tuple[str, list]]:
    """The assumptions in the proposal's groups (cluster and workload, network, costs), each
    group's title in the active language; a key in no group joins the last."""
    groups = [(title, []) for title, _ in ASSUMPTION_GROUPS]
    for assumption in assumptions or ():
        key = assumption.get("key", "") if isinstance(assumption, dict) else assumption.key
        index = next(
            (i for i, (_, prefixes) in enumerate(ASSUMPTION_GROUPS) if key.startswith(prefixes)),
            len(groups) - 1,
        )
        groups[index][1].append(assumption)
    return [(gettext(title), rows) for title, rows in groups if rows]


@register.filter
def in_pairs(rows) -> list[tuple]:
    """Rows laid out in two columns read down: (row i, row i + half), the last alone when odd."""
    rows = list(rows or ())
    half = (len(rows) + 1) // 2
    return [(rows[i], rows[i + half] if i + half < len(rows) else None) for i in range(half)]


@register.filter
def pair_with(left, right) -> tuple:
    """(left, right): the two cells of a row of in_pairs, to loop over in a template."""
    return (left, right)

"""Each engine input's contract, kept on the engine's dataclass fields.

A field's metadata holds a `Spec`: what kind of value it takes, its bounds or choices, and the
label and help text a person sees. The engine checks values against it (`field_errors`), and
the browser form and the REST serializer are built from it (quoting/designs/forms/contract.py and
quoting/designs/api/contract.py), so all three accept and refuse the same values on the same field.
Labels and help texts are English, marked with gettext_noop so the form can translate them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from decimal import Decimal
from functools import cache
from types import MappingProxyType
from typing import Any

SPEC = "spec"  # the metadata key

KINDS = ("int", "float", "decimal", "bool", "choice", "text", "part", "distance")


@dataclass(frozen=True, slots=True)
class Spec:
    """One input: `kind` is one of KINDS; "part" is a catalog part number (text the catalog
    checks later), "distance" metres or one of `choices` (named distance classes)."""

    kind: str
    label: str = ""
    help: str = ""
    low: Any = None  # None: no lower bound
    high: Any = None
    low_open: bool = False  # the lower bound itself is refused ("above 0")
    choices: tuple[tuple[Any, str], ...] = ()  # (value, label), labels marked for translation
    max_length: int | None = None
    blank: bool = True  # text: may be empty (or only spaces)
    pattern: str | None = None  # text: a regular expression the whole value matches
    pattern_error: str = ""  # what a value that does not match is told ("" : the pattern)
    step: str | None = None  # the form's input step: a hint for the browser, not a rule
    values: tuple = field(init=False, default=())  # the choices' values, kept for speed

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(value for value, _label in self.choices))


def spec(kind: str, **kwargs: Any) -> dict[str, Spec]:
    """Metadata for `dataclasses.field(metadata=...)`."""
    assert kind in KINDS, kind
    return {SPEC: Spec(kind, **kwargs)}


@cache
def specs(cls: type) -> Mapping[str, Spec]:
    """The dataclass's specified fields, in declaration order (read once per class)."""
    return MappingProxyType({f.name: f.metadata[SPEC] for f in fields(cls) if SPEC in f.metadata})


def default_of(cls: type, name: str) -> Any:
    """A field's default, or MISSING when it has none (the value is required)."""
    f = cls.__dataclass_fields__[name]
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    return MISSING


def is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> bool:
    return (
        isinstance(value, int | float | Decimal)
        and not isinstance(value, bool)
        and (math.isfinite(value) if not isinstance(value, Decimal) else value.is_finite())
    )


def number_text(value: Any) -> str:
    """A bound as a person writes it: 1,000,000 and 0.9, never 1e+06."""
    if value == int(value):
        return f"{int(value):,}"
    return f"{value}"


def value_error(s: Spec, value: Any) -> str | None:
    """Why `value` breaks the spec (an English message), or None when it fits."""
    if s.kind == "bool":
        return None if isinstance(value, bool) else "must be true or false."
    if s.kind == "choice":
        # 1.0 is not the choice 1, nor True, nor "1": the type must match too.
        if value in s.values and type(value) is type(s.values[s.values.index(value)]):
            return None
        return f"must be one of {', '.join(str(v) for v in s.values)}."
    if s.kind in ("text", "part"):
        if not isinstance(value, str) or (s.max_length and len(value) > s.max_length):
            return f"must be text of at most {s.max_length} characters."
        if not s.blank and not value.strip():
            return "must not be empty."
        if s.pattern and not re.fullmatch(s.pattern, value):
            return s.pattern_error or f"must match {s.pattern}."
        return None
    if s.kind == "distance" and isinstance(value, str):
        return None if value in s.values else f"use metres or one of {', '.join(s.values)}."
    if s.kind == "int" and not is_whole(value):
        return "give a whole number."
    if not is_number(value):
        return "give a number."
    return range_error(s, value)


def range_error(s: Spec, value: Any) -> str | None:
    too_low = s.low is not None and (value <= s.low if s.low_open else value < s.low)
    too_high = s.high is not None and value > s.high
    if not (too_low or too_high):
        return None
    if s.low is None:
        return f"must be at most {number_text(s.high)}."
    low = f"above {number_text(s.low)}" if s.low_open else f"at least {number_text(s.low)}"
    if s.high is None:
        return f"must be {low}."
    if not s.low_open:
        return f"must be between {number_text(s.low)} and {number_text(s.high)}."
    return f"must be {low} and at most {number_text(s.high)}."


def field_errors(obj: Any, prefix: str = "") -> dict[str, list[str]]:
    """Every specified field of a dataclass instance checked against its spec.

    A field whose default is None may be None (not given)."""
    errors: dict[str, list[str]] = {}
    for name, s, none_ok in _checked_fields(type(obj)):
        value = getattr(obj, name)
        if value is None and none_ok:
            continue
        message = value_error(s, value)
        if message:
            errors[prefix + name] = [message]
    return errors


@cache
def _checked_fields(cls: type) -> tuple[tuple[str, Spec, bool], ...]:
    return tuple((name, s, default_of(cls, name) is None) for name, s in specs(cls).items())

"""Serializer fields built from an engine dataclass's specs (quoting/engine/contract.py).

The same specs build the browser forms (quoting/designs/forms/contract.py) and are checked by
the engine, so the API, the page and the engine accept and refuse the same values on the same
field.
"""

from __future__ import annotations

from dataclasses import MISSING
from typing import Any

from django.core.validators import MinValueValidator, RegexValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from quoting.engine.contract import Spec, default_of, number_text, specs
from quoting.engine.fabric import DISTANCE_CLASSES, distance_parse
from quoting.engine.fabric.requirements import MAX_DISTANCE_M


class AboveValidator(MinValueValidator):
    """The value must be above the limit: the engine's open lower bounds ("above 0"). A
    MinValueValidator, so the schema states the floor (the description says "Above")."""

    message = "Ensure this value is greater than %(limit_value)s."
    code = "min_value"

    def compare(self, a, b):
        return a <= b


@extend_schema_field(
    {
        "oneOf": [
            {"type": "number", "minimum": 0, "maximum": MAX_DISTANCE_M},
            {"type": "string", "enum": list(DISTANCE_CLASSES)},
        ],
        "description": "Metres, or a named distance class.",
    }
)
class DistanceField(serializers.Field):
    """Metres (a number) or a named class such as "same-row"; the engine checks the range."""

    default_error_messages = {
        "invalid": f"Use metres or one of {', '.join(DISTANCE_CLASSES)}.",
    }

    def to_internal_value(self, data):
        if (
            isinstance(data, bool)
            or not isinstance(data, str | int | float)
            or (isinstance(data, str) and len(data) > 20)
        ):
            self.fail("invalid")
        try:
            return distance_parse(data)
        except ValueError:
            self.fail("invalid")

    def to_representation(self, value):
        return value


def serializer_field(s: Spec, **kwargs: Any) -> serializers.Field:
    """One serializer field from a spec; kwargs say required, default, allow_null."""
    if s.help:
        kwargs["help_text"] = s.help
    low = {} if s.low is None or s.low_open else {"min_value": s.low}
    bounds = {**low, "max_value": s.high}
    if s.low_open and s.kind != "distance":
        kwargs["validators"] = [AboveValidator(s.low)]
        extra = f"Above {number_text(s.low)}."
        kwargs["help_text"] = f"{kwargs['help_text']} {extra}" if s.help else extra
    if s.kind == "int":
        return serializers.IntegerField(**bounds, **kwargs)
    if s.kind == "float":
        return serializers.FloatField(**bounds, **kwargs)
    if s.kind == "decimal":
        # Exact: no float on the way, and no rounding to a number of places.
        return serializers.DecimalField(
            max_digits=None, decimal_places=None, coerce_to_string=False, **bounds, **kwargs
        )
    if s.kind == "bool":
        return serializers.BooleanField(**kwargs)
    if s.kind == "choice":
        return serializers.ChoiceField(choices=list(s.values), **kwargs)
    if s.kind == "distance":
        return DistanceField(**kwargs)
    if s.pattern:
        kwargs["validators"] = [RegexValidator(f"^{s.pattern}$", message=s.pattern_error or None)]
    return serializers.CharField(max_length=s.max_length, allow_blank=s.blank, **kwargs)


def serializer_fields(
    cls: type,
    names: tuple[str, ...] | None = None,
    *,
    null_means_default: bool = True,
    **overrides: dict,
) -> dict[str, serializers.Field]:
    """Serializer fields for the dataclass `cls` (all its specified fields, or `names`).

    A field without a default is required; one whose default is None may be left out (or be
    null, when `null_means_default`); any other takes the dataclass's default. `overrides` adds
    keyword arguments per field.
    """
    all_specs = specs(cls)
    built = {}
    for name in names or tuple(all_specs):
        default = default_of(cls, name)
        if default is MISSING:
            kwargs: dict[str, Any] = {"required": True}
        elif default is None:
            kwargs = {"required": False, "allow_null": null_means_default}
        else:
            kwargs = {"default": default}
        built[name] = serializer_field(all_specs[name], **(kwargs | overrides.get(name, {})))
    return built

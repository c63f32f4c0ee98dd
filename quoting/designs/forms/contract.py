"""Form fields built from an engine dataclass's specs (quoting/engine/contract.py).

The spec decides the field's type, bounds, choices, label and help text; a form decides only
what is its own (which fields it shows, which may be left empty, the first value it proposes).
"""

from __future__ import annotations

from dataclasses import MISSING, replace
from typing import Any

from django import forms
from django.core.validators import BaseValidator, RegexValidator
from django.utils.functional import lazy
from django.utils.text import format_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from quoting.engine.contract import Spec, default_of, specs
from quoting.engine.fabric import DISTANCE_CLASSES, distance_parse
from quoting.engine.fabric.requirements import DISTANCE_LABELS
from quoting.engine.messages import Message, listing


def _distance_names() -> str:
    return listing(gettext(DISTANCE_LABELS[name]) for name in DISTANCE_CLASSES).render(gettext)


# Lazy: the help is read in the language of each request, not of the import.
DISTANCE_HELP = lazy(lambda: gettext("Metres, or one of: %s.") % _distance_names(), str)()


class AboveValidator(BaseValidator):
    """The value must be above the limit: the engine's open lower bounds ("above 0")."""

    message = _("Ensure this value is greater than %(limit_value)s.")
    code = "min_value"

    def compare(self, a, b):
        return a <= b


class DistanceField(forms.CharField):
    """Metres, or a named distance class; the engine checks the range."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 20)
        kwargs.setdefault("help_text", DISTANCE_HELP)
        super().__init__(**kwargs)
        self.widget.attrs.update(list="distance-classes", autocomplete="off")

    def clean(self, value):
        value = super().clean(value)
        if value in self.empty_values:
            return None
        named = {gettext(label).lower(): name for name, label in DISTANCE_LABELS.items()}
        value = named.get(str(value).strip().lower(), value)
        try:
            return distance_parse(value)
        except ValueError as exc:
            raise forms.ValidationError(
                gettext("Use metres or one of: %s.") % _distance_names()
            ) from exc


def _translated(text: str):
    return _(text) if text else ""  # the engine marks its texts with gettext_noop


def form_field(s: Spec, *, required: bool, initial: Any = None) -> forms.Field:
    """One form field from a spec."""
    common: dict[str, Any] = {
        "label": _translated(s.label), "required": required, "initial": initial,
    }  # fmt: skip
    if s.help:
        common["help_text"] = _translated(s.help)
    low = {} if s.low is None or s.low_open else {"min_value": s.low}
    bounds = {**low, "max_value": s.high}
    validators = [AboveValidator(s.low)] if s.low_open and s.kind != "distance" else []
    if s.kind == "int":
        return forms.IntegerField(**common, **bounds)
    if s.kind in ("float", "decimal"):
        field_class = forms.FloatField if s.kind == "float" else forms.DecimalField
        field = field_class(**common, **bounds, validators=validators)
        if s.low_open:  # the browser's spinner stops there; the validator refuses the bound
            field.widget.attrs["min"] = s.low
        if s.step:
            field.widget.attrs["step"] = s.step
        return field
    if s.kind == "bool":
        return forms.BooleanField(**{**common, "required": False})
    if s.kind == "choice":
        choices = [(value, _translated(label)) for value, label in s.choices]
        if all(isinstance(value, int) for value in s.values):
            return forms.TypedChoiceField(**common, choices=choices, coerce=int)
        return forms.ChoiceField(**common, choices=choices)
    if s.kind == "part":
        return forms.ChoiceField(**common)  # the form lists the catalog's parts
    if s.kind == "distance":
        if s.help:  # what an empty field means, then how to fill it
            common["help_text"] = format_lazy("{} {}", common["help_text"], DISTANCE_HELP)
        return DistanceField(**common)
    if s.pattern:
        validators.append(
            RegexValidator(
                f"^{s.pattern}$", message=_(s.pattern_error) if s.pattern_error else None
            )
        )
    return forms.CharField(**common, max_length=s.max_length, validators=validators)


def form_fields(
    cls: type,
    names: tuple[str, ...],
    *,
    optional: frozenset[str] = frozenset(),
    initial: dict[str, Any] | None = None,
) -> dict[str, forms.Field]:
    """Form fields for `names` of the dataclass `cls`, in that order.

    A field is required unless its default is None or it is in `optional` (left empty it takes
    the dataclass's default); its first value is the default unless `initial` says otherwise.
    """
    all_specs = specs(cls)
    initial = initial or {}
    built = {}
    for name in names:
        default = default_of(cls, name)
        built[name] = form_field(
            all_specs[name],
            required=default is not None and name not in optional,
            initial=initial.get(name, None if default is MISSING else default),
        )
    return built


def engine_error_text(message: str | Message) -> str:
    """An engine error in the active language, as a sentence (the engine writes them lowercase,
    to follow a field name in the API's English)."""
    if isinstance(message, Message):
        return replace(message, template=_capitalized(message.template)).render(gettext)
    return gettext(_capitalized(message))


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def add_engine_errors(form: forms.Form, errors: dict[str, list[str | Message]]) -> None:
    """The engine's InvalidInput errors (its `messages`) beside the fields they name (else on
    the form), translated."""
    for field, messages in errors.items():
        for message in messages:
            form.add_error(field if field in form.fields else None, engine_error_text(message))

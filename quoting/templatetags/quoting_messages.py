"""``{{ message|translated }}``: an engine Message in the active language."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext

from quoting.engine.messages import Message

register = template.Library()


@register.filter
def translated(value: object) -> object:
    """A Message's template translated, nested Messages too; anything else unchanged."""
    if isinstance(value, Message):
        return value.render(gettext)
    return value

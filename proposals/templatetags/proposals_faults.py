"""A field's fault on the customer's answer forms (proposals.share.faults): its marks and its
message, so each input in the hand-written forms needs one tag for each."""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import mark_safe

register = template.Library()


@register.simple_tag
def fault_marks(faults, name: str) -> str:
    """The input's attributes when `name` is at fault: marked, its message named and, the first
    fault on the page, focused on load."""
    if not faults or name not in faults.messages:
        return ""
    marks = format_html(' aria-invalid="true" aria-describedby="fault-{}"', name)
    return marks + mark_safe(" autofocus") if faults.first == name else marks  # noqa: S308


@register.simple_tag
def fault_message(faults, name: str) -> str:
    """The message under the field, named by the input's aria-describedby."""
    if not faults or name not in faults.messages:
        return ""
    return format_html('<span class="error" id="fault-{}">{}</span>', name, faults.messages[name])

"""Reading time as staff read it: "45 s", "3 min 20 s", "1 h 5 min" (translated)."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext as _

register = template.Library()


@register.filter
def reading_time(seconds) -> str:
    try:
        seconds = max(int(seconds or 0), 0)
    except (TypeError, ValueError):
        return ""
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return _("%(hours)d h %(minutes)d min") % {"hours": hours, "minutes": minutes}
    if minutes:
        return _("%(minutes)d min %(seconds)d s") % {"minutes": minutes, "seconds": seconds}
    return _("%(seconds)d s") % {"seconds": seconds}

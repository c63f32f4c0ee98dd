"""The names of the options a design's comparison makes, and how to read them in a language.

A request's option names are its keys and stay in English; option_name_message() turns a name
made here back into a Message the edge translates. A name someone typed reads as typed.
"""

from __future__ import annotations

import re

from quoting.engine.messages import Message, gettext_noop, message

THIS_DESIGN = gettext_noop("This design ({family})")
OTHER_FAMILY = gettext_noop("{transport} on {family}")
UNTUNED = gettext_noop("{name} untuned")
COMMODITY = gettext_noop("2×100G RoCE (commodity)")

_PATTERNS = [
    (template, re.compile(re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+)", re.escape(template)) + "$"))
    for template in (UNTUNED, THIS_DESIGN, OTHER_FAMILY)
]


def option_name_message(name: str) -> Message:
    if name == COMMODITY:
        return message(COMMODITY)
    for template, pattern in _PATTERNS:
        if match := pattern.match(name):
            parts = {k: option_name_message(v) for k, v in match.groupdict().items()}
            return message(template, **parts)
    return message(name.replace("{", "{{").replace("}", "}}"))

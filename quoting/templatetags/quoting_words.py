"""``{{ text|lang_marked }}``: a text shown on a page of the other language (a fallback to the
other field of a bilingual pair: quoting.engine.written) carries its own `lang`."""

from __future__ import annotations

from django import template
from django.template.defaultfilters import linebreaksbr
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from quoting.engine.written import lang_differs

register = template.Library()


@register.filter
def lang_marked(text, lines: str = "") -> SafeString:
    """`text`, escaped, in `<span lang="…">` when it is written in another language than the
    page's; as it is otherwise (no extra element). `lang_marked:"linebreaksbr"` keeps its line
    breaks as the linebreaksbr filter does."""
    lang = lang_differs(text, get_language() or "")
    shown = (
        linebreaksbr(text, autoescape=True) if lines == "linebreaksbr" else conditional_escape(text)
    )
    if not lang:
        return shown
    return format_html('<span lang="{}">{}</span>', lang, shown)

"""``{{ text|lang_marked }}``: a text shown on a page of the other language (a fallback to the
other field of a bilingual pair: quoting.engine.written) carries its own `lang`;
``{{ typed|as_typed|lang_marked }}`` for a text typed where no language is kept, ``<img
alt="{{ name }}"{{ name|lang_attribute }}>`` for one in an attribute."""

from __future__ import annotations

from django import template
from django.template.defaultfilters import linebreaksbr
from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from quoting.engine.written import WrittenIn, lang_differs, written_as_typed

register = template.Library()


@register.filter
def lang_marked(text, lines: str = "") -> SafeString:
    """`text`, escaped, in `<span lang="…">` when it is written in another language than the
    page's; as it is otherwise (no extra element). `lang_marked:"linebreaksbr"` keeps its line
    breaks as the linebreaksbr filter does. A text of parts (WrittenParts: a label in the page's
    language around a name in another) has each part marked."""
    parts = getattr(text, "parts", None)
    if parts is not None:
        return format_html_join("", "{}", ((lang_marked(part, lines),) for part in parts))
    lang = lang_differs(text, get_language() or "")
    shown = (
        linebreaksbr(text, autoescape=True) if lines == "linebreaksbr" else conditional_escape(text)
    )
    if not lang:
        return shown
    return format_html('<span lang="{}">{}</span>', lang, shown)


@register.filter
def lang_attribute(text) -> SafeString:
    """` lang="…"` for an element whose attribute holds `text` (an image's alt) when it is
    written in another language than the page's; "" otherwise."""
    lang = lang_differs(text, get_language() or "")
    return format_html(' lang="{}"', lang) if lang else SafeString("")


@register.filter
def as_typed(text) -> WrittenIn:
    """A text typed into a field that has no language, with the language its script shows
    (quoting.engine.written.written_as_typed): for `|lang_marked`. A text that knows its
    language already keeps it."""
    if isinstance(text, WrittenIn) or getattr(text, "parts", None) is not None:
        return text
    return written_as_typed(str(text or ""))

"""Texts kept in both of the portal's languages (a field and its `_zh` twin): which language the
text a reader is shown is written in, so that a page in the other language can say so
(`lang="en"` on an English-only term in a Chinese proposal: WCAG 3.1.2; a screen reader reads
it in English and the page's Chinese fonts do not set it).

Pure Python: the models' fallbacks (`*_for(language)`, `description_shown`) return a
WrittenIn; the template filter `lang_marked` (quoting/templatetags/quoting_words.py) marks it.
"""

from __future__ import annotations

import re

ENGLISH, CHINESE = "en", "zh-hans"

# Han ideographs (CJK Unified, Extension A, Compatibility) and CJK punctuation/full-width forms.
_CHINESE_SCRIPT = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


class WrittenIn(str):
    """A text and the language it is written in: ENGLISH, CHINESE, or "" when not known."""

    language: str

    def __new__(cls, text: str = "", language: str = "") -> WrittenIn:
        written = super().__new__(cls, text)
        written.language = language
        return written

    def __reduce__(self):  # pickled (the cache) with its language
        return (WrittenIn, (str(self), self.language))


class WrittenParts(str):
    """A text made of parts, each a WrittenIn or a plain text: a label worded in the page's
    language around a name kept in another (a spares kit line: "备件套件：…— <English name>").
    `lang_marked` marks each part."""

    parts: tuple[str, ...]

    def __new__(cls, parts: tuple[str, ...] = ()) -> WrittenParts:
        written = super().__new__(cls, "".join(parts))
        written.parts = tuple(parts)
        return written

    def __reduce__(self):  # pickled (the cache) with its parts
        return (WrittenParts, (self.parts,))


def written_in(text: str, language: str) -> WrittenIn:
    """`text` as kept in the field for `language` (ENGLISH or CHINESE).

    The field's language is believed only when the text's script agrees: a term typed in
    Chinese into the English field (the only field before its Chinese twin) is not called
    English, it is left unknown; an English text in the Chinese field likewise.
    """
    chinese_script = bool(_CHINESE_SCRIPT.search(text))
    agrees = chinese_script if language.startswith("zh") else not chinese_script
    return WrittenIn(text, (CHINESE if language.startswith("zh") else ENGLISH) if agrees else "")


def written_either(own: str, other: str, language: str) -> WrittenIn:
    """`own`, kept for `language`, else `other`, kept for the other language."""
    if own:
        return written_in(own, language)
    return written_in(other, ENGLISH if language.startswith("zh") else CHINESE)


_LATIN_LETTER = re.compile(r"[A-Za-z]")


def written_as_typed(text: str) -> WrittenIn:
    """A text typed into a field that has no language (a payment milestone's name, the message
    of a share link's e-mail): Chinese when written in Chinese script, English when in Latin
    letters only, else not known (figures alone)."""
    if _CHINESE_SCRIPT.search(text or ""):
        return WrittenIn(text, CHINESE)
    return WrittenIn(text or "", ENGLISH if _LATIN_LETTER.search(text or "") else "")


def html_lang(language: str) -> str:
    """The HTML `lang` of a written language: en, zh-Hans."""
    return "zh-Hans" if language.startswith("zh") else "en"


def lang_differs(text: object, page_language: str) -> str:
    """The HTML `lang` to mark `text` with on a page in `page_language`: "" when the text is in
    the page's language, or its language is not known."""
    language = getattr(text, "language", "")
    if not language or not text or language[:2] == (page_language or ENGLISH)[:2]:
        return ""
    return html_lang(language)

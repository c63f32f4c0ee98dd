"""WeasyPrint, as the proposal PDF uses it (proposals/documents/pdf.py): the fetcher that reaches
nothing but `data:` URLs and our asset folder, the trimmed user-agent sheet, the per-thread font
configuration, the layout and the writing.

Its own module, imported by pdf.py on the first render and not before: WeasyPrint (Pango through
cffi, its CSS) takes ~0.8 s to import, a third of starting Django, and `manage.py check`, other
commands, a Celery worker that renders nothing and the tests' settings probes need none of it.
"""

from __future__ import annotations

import functools
import logging
import re
import threading

import weasyprint
from weasyprint.css.counters import CounterStyle
from weasyprint.html import UA as WEASYPRINT_UA
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import FatalURLFetchingError, URLFetcher

from proposals.documents.cid_fonts import cid_fonts_packed
from proposals.documents.fetching import ASSET_DIR, FetchRefused, inside_assets

# Its progress messages would fill a worker log at INFO.
logging.getLogger("weasyprint.progress").setLevel(logging.WARNING)


class _Refused(FetchRefused, FatalURLFetchingError):
    """FetchRefused as WeasyPrint's fatal fetching error, which stops the render."""


class ProposalURLFetcher(URLFetcher):
    def __init__(self, **kwargs) -> None:
        super().__init__(
            allowed_protocols=("data", "file"), allow_redirects=False, timeout=5, **kwargs
        )

    def fetch(self, url, headers=None):
        scheme = url.split(":", 1)[0].lower() if ":" in url else ""
        if scheme == "data":
            return super().fetch(url, headers)
        if scheme == "file" and inside_assets(url):
            return super().fetch(url, headers)
        raise _Refused(f"Refused to fetch {url[:200]!r}: only data: and our own assets.")


# WeasyPrint's default style sheet gives every element of the document a `::marker` and four
# footnote/note pseudo-elements (universal selectors), and computes a style for each: with a
# 200-line bill of materials that is ~10,000 styles nobody draws, a tenth of the render. The
# same sheet with markers on list items only (the only elements that show one) and without the
# footnote rules (a proposal has no footnotes) prints the same document.
_UNIVERSAL_PSEUDO = re.compile(r"^::(?:footnote|note)-[a-z-]+ \{[^}]*\}$", re.MULTILINE)


@functools.cache
def proposal_user_agent_sheet() -> weasyprint.CSS:
    text = _UNIVERSAL_PSEUDO.sub("", WEASYPRINT_UA.replace("\n::marker {", "\nli::marker {"))
    # Its @counter-style rules are WeasyPrint's own, already known to the renderer: parsed into
    # a throw-away registry, not added twice to the shared one.
    return weasyprint.CSS(string=text, counter_style=CounterStyle())


class ProposalHTML(weasyprint.HTML):
    def _ua_stylesheets(self, forms=False):
        return [proposal_user_agent_sheet()]


_fonts = threading.local()


def _font_config() -> FontConfiguration:
    """One font configuration per worker thread, kept across documents: building it (and the
    Pango font map behind it) costs ~20 ms a document. Per thread because Pango's font map is
    not meant to be shared between threads (the embedded mode renders in threads)."""
    if getattr(_fonts, "config", None) is None:
        _fonts.config = FontConfiguration()
    return _fonts.config


def laid_out(html: str) -> weasyprint.Document:
    document = ProposalHTML(
        string=html, base_url=ASSET_DIR.as_uri() + "/", url_fetcher=ProposalURLFetcher()
    )
    return document.render(presentational_hints=False, font_config=_font_config())


def written(document: weasyprint.Document) -> bytes:
    return document.write_pdf(presentational_hints=False, finisher=cid_fonts_packed)

"""The proposal PDF: our own template, rendered by WeasyPrint with a fetcher that reaches nothing
but `data:` URLs and our asset folder.

User text (customer names, line descriptions) reaches the template, autoescaped; should markup
ever slip through, the fetcher still refuses to read a local file or call a network address.
"""

from __future__ import annotations

import logging
from pathlib import Path
from urllib.parse import unquote, urlsplit

import weasyprint
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from weasyprint.urls import FatalURLFetchingError, URLFetcher

from quoting.models import QuoteRevision

from .selectors import proposal_content

# Its progress messages would fill a worker log at INFO.
logging.getLogger("weasyprint.progress").setLevel(logging.WARNING)

ASSET_DIR = (Path(settings.BASE_DIR) / "static" / "proposal").resolve()
TEMPLATE = "proposals/proposal.html"


class FetchRefused(FatalURLFetchingError):
    """A resource outside data: and our asset folder: the render stops (fails closed)."""


class ProposalURLFetcher(URLFetcher):
    def __init__(self, **kwargs) -> None:
        super().__init__(
            allowed_protocols=("data", "file"), allow_redirects=False, timeout=5, **kwargs
        )

    def fetch(self, url, headers=None):
        scheme = url.split(":", 1)[0].lower() if ":" in url else ""
        if scheme == "data":
            return super().fetch(url, headers)
        if scheme == "file" and _inside_assets(url):
            return super().fetch(url, headers)
        raise FetchRefused(f"Refused to fetch {url[:200]!r}: only data: and our own assets.")


def _inside_assets(url: str) -> bool:
    parts = urlsplit(url)
    if parts.netloc not in ("", "localhost"):
        return False
    # resolve() follows symlinks and "..", so a path can only pass by really being inside.
    path = Path(unquote(parts.path)).resolve()
    return path.is_file() and path.is_relative_to(ASSET_DIR)


def proposal_html(*, revision: QuoteRevision, language: str) -> str:
    with translation.override(language):
        content = proposal_content(revision=revision, language=language)
        return render_to_string(
            TEMPLATE,
            {"c": content, "language": language, "logo_src": "logo.svg", "for_print": True},
        )


def html_to_pdf(html: str) -> bytes:
    document = weasyprint.HTML(
        string=html, base_url=ASSET_DIR.as_uri() + "/", url_fetcher=ProposalURLFetcher()
    )
    return document.write_pdf(presentational_hints=False)


def proposal_pdf(*, revision: QuoteRevision, language: str) -> bytes:
    return html_to_pdf(proposal_html(revision=revision, language=language))

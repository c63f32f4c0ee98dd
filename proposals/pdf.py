"""The proposal PDF: our own template, rendered by WeasyPrint with a fetcher that reaches nothing
but `data:` URLs and our asset folder.

User text (customer names, line descriptions) reaches the template, autoescaped; should markup
ever slip through, the fetcher still refuses to read a local file or call a network address.
"""

from __future__ import annotations

import hashlib
import logging
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

import weasyprint
from django.conf import settings
from django.core.cache import cache as shared_cache
from django.template.loader import get_template, render_to_string
from django.templatetags.static import static
from django.utils import translation
from django.utils.safestring import mark_safe
from weasyprint.urls import FatalURLFetchingError, URLFetcher

from quoting.models import QuoteRevision
from quoting.services.snapshots import SNAPSHOT_VERSION

from .selectors import proposal_content, seller_printed

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


CONTENT_TEMPLATE = "proposals/_content.html"
SHARED_CONTENT_SECONDS = 7 * 24 * 3600  # kept a week after its last render; rendered again after


@cache
def _content_template_digest() -> str:
    """Part of the cache key: a deployment that changes the content template renders anew."""
    source = Path(get_template(CONTENT_TEMPLATE).origin.name).read_bytes()
    return hashlib.sha256(source).hexdigest()[:12]


def _shared_content_key(revision: QuoteRevision, language: str) -> str:
    quote = revision.quote
    # A sent revision never changes, but the quote's validity, the customer's and project's names,
    # the seller's profile and the owner's contact are printed in it and may be edited: they are
    # part of the key (one small query, against a render of the whole proposal).
    seller = seller_printed(owner_id=quote.owner_id)
    printed = f"{quote.valid_until}|{quote.customer.company}|{quote.project.name}|{seller}"
    digest = hashlib.sha256(printed.encode()).hexdigest()[:12]
    return (f"proposals:shared:{revision.pk}:{language}:{SNAPSHOT_VERSION}:"
            f"{_content_template_digest()}:{digest}")


def shared_content_html(*, revision: QuoteRevision, language: str) -> str:
    """The proposal as the share page shows it, for a sent (frozen) revision: rendered once per
    language and kept in the shared cache, so a customer's view costs no rendering. Without the
    cache (Redis down) it is rendered per view, as before."""
    key = _shared_content_key(revision, language)
    html = shared_cache.get(key)
    if html is None:
        with translation.override(language):
            content = proposal_content(revision=revision, language=language)
            html = render_to_string(CONTENT_TEMPLATE, {
                "c": content, "language": language, "logo_src": static("proposal/logo.svg")})
        shared_cache.set(key, str(html), SHARED_CONTENT_SECONDS)
    return mark_safe(html)  # noqa: S308 - our own template's output, autoescaped when rendered


def html_to_pdf(html: str) -> bytes:
    document = weasyprint.HTML(
        string=html, base_url=ASSET_DIR.as_uri() + "/", url_fetcher=ProposalURLFetcher()
    )
    return document.write_pdf(presentational_hints=False)


def proposal_pdf(*, revision: QuoteRevision, language: str) -> bytes:
    return html_to_pdf(proposal_html(revision=revision, language=language))

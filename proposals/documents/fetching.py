"""What the proposal PDF may read while it renders: `data:` URLs and our asset folder, nothing
else (renderer.ProposalURLFetcher). Apart from the renderer so that pdf.py and the services
know these without importing WeasyPrint (renderer.py says why)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from django.conf import settings

ASSET_DIR = (Path(settings.BASE_DIR) / "static" / "proposal").resolve()


class FetchRefused(BaseException):  # noqa: N818 - the name the services and tests know
    """A resource outside data: and our asset folder: the render stops (fails closed). The
    fetcher raises it as WeasyPrint's fatal fetching error too (renderer._Refused): a
    BaseException like that one, so that no `except Exception` on the way swallows it."""


def inside_assets(url: str) -> bool:
    parts = urlsplit(url)
    if parts.netloc not in ("", "localhost"):
        return False
    # resolve() follows symlinks and "..", so a path can only pass by really being inside.
    path = Path(unquote(parts.path)).resolve()
    return path.is_file() and path.is_relative_to(ASSET_DIR)

"""Who is asking: the client's address, behind as many proxies as the deployment trusts."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    """REMOTE_ADDR, or behind TRUSTED_PROXY_COUNT proxies the X-Forwarded-For entry the
    outermost trusted proxy added.

    Each proxy appends the address it saw, so with N trusted proxies the client is the N-th
    entry from the right; anything further left was written by the client and proves nothing.
    """
    trusted = getattr(settings, "TRUSTED_PROXY_COUNT", 0)
    remote = request.META.get("REMOTE_ADDR", "")
    if trusted <= 0:
        return remote
    forwarded = [
        part.strip()
        for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        if part.strip()
    ]
    if not forwarded:  # a request that did not come through the proxies
        return remote
    return forwarded[-min(trusted, len(forwarded))]

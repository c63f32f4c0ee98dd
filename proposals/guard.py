"""What stands in front of every /p/<token> route: the rate limit on misses, the one 404 for
every kind of bad token, the customer's language and the privacy headers."""

from __future__ import annotations

import functools
import hashlib

from django.conf import settings
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation

from .services import share_link_resolve

GUARD_DEFAULTS = {
    "PROPOSALS_LINK_MISSES_ALLOWED": 20,  # bad tokens per client address...
    "PROPOSALS_LINK_MISS_WINDOW": 600,  # ...per this many seconds, then 429 until it ends
}
SHARE_HEADERS = {
    "X-Robots-Tag": "noindex, nofollow",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    # No script at all; drawings are data: images; styles only from our static files.
    "Content-Security-Policy": (
        "default-src 'none'; img-src 'self' data:; style-src 'self'; form-action 'self'; "
        "base-uri 'none'; frame-ancestors 'none'"
    ),
}


def _setting(name: str) -> int:
    return getattr(settings, name, GUARD_DEFAULTS[name])


def _miss_key(request: HttpRequest) -> str:
    address = request.META.get("REMOTE_ADDR", "")
    return "proposals:link-miss:" + hashlib.sha256(address.encode()).hexdigest()[:32]


def _misses(request: HttpRequest) -> int:
    return cache.get(_miss_key(request), 0)


def _miss(request: HttpRequest) -> int:
    """Count one miss, atomically across processes (Redis INCR); the window starts at the first."""
    key = _miss_key(request)
    cache.add(key, 0, timeout=_setting("PROPOSALS_LINK_MISS_WINDOW"))
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr: a new window
        cache.add(key, 1, timeout=_setting("PROPOSALS_LINK_MISS_WINDOW"))
        return 1


def _too_many(request: HttpRequest) -> HttpResponse:
    response = render(request, "proposals/shared_429.html", status=429)
    response["Retry-After"] = str(_setting("PROPOSALS_LINK_MISS_WINDOW"))
    return response


def shared_route(view):
    """view(request, link) behind /p/<token>: unknown, expired and revoked tokens all get the
    same 404; a client past its misses gets 429 even for a good token, so guessing stays
    pointless."""

    @functools.wraps(view)
    def guarded(request: HttpRequest, token: str) -> HttpResponse:
        allowed = _setting("PROPOSALS_LINK_MISSES_ALLOWED")
        if _misses(request) >= allowed:
            response = _too_many(request)
        else:
            link = share_link_resolve(token)
            if link is None:
                over = _miss(request) > allowed
                response = (
                    _too_many(request)
                    if over
                    else render(request, "proposals/shared_404.html", status=404)
                )
            else:
                language = link.quote.customer.language
                with translation.override(language):
                    try:
                        response = view(request, link)
                    except Http404:  # the link's quote has nothing to show: the same 404
                        response = render(request, "proposals/shared_404.html", status=404)
                response.setdefault("Content-Language", language)
        for header, value in SHARE_HEADERS.items():
            response[header] = value
        return response

    return guarded

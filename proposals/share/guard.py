"""What stands in front of every /p/<token> route: the rate limit on misses, the one 404 for
every kind of bad token, the reader's language and the privacy headers."""

from __future__ import annotations

import functools
import hashlib

from django.conf import settings
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation

from portal.cache import count_in_window
from portal.clients import client_network
from proposals.share.services import share_link_resolve

GUARD_DEFAULTS = {
    "PROPOSALS_LINK_MISSES_ALLOWED": 20,  # bad tokens per client address (an IPv6 /64)...
    "PROPOSALS_LINK_MISS_WINDOW": 600,  # ...per this many seconds, then 429 for its misses
    # Bad tokens sharing their first characters, from anyone: someone completing a leaked or
    # half-copied token from many addresses is slowed down all the same.
    "PROPOSALS_LINK_PREFIX_MISSES_ALLOWED": 20,
    "PROPOSALS_LINK_PREFIX_LENGTH": 8,
    # Work a live link can ask of the server, counted per link from anyone: typed signatures
    # drawn for the accept form's preview (one already drawn is served from the cache, free)...
    "PROPOSALS_LINK_PREVIEWS_ALLOWED": 60,
    # ...and accept attempts (each checks or draws a signature); per this many seconds, then 429.
    "PROPOSALS_LINK_ACCEPTS_ALLOWED": 20,
    "PROPOSALS_LINK_WORK_WINDOW": 600,
}
# The kinds of work link_work_over counts, and the setting that allows each.
LINK_WORK = {
    "preview": "PROPOSALS_LINK_PREVIEWS_ALLOWED",
    "accept": "PROPOSALS_LINK_ACCEPTS_ALLOWED",
}
SHARE_HEADERS = {
    "X-Robots-Tag": "noindex, nofollow",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    # Scripts and styles only from our static files (the signature box, the choice's totals, the
    # reading-time beacons, all to the page's own origin); drawings are data: images.
    "Content-Security-Policy": (
        "default-src 'none'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; form-action 'self'; "
        "base-uri 'none'; frame-ancestors 'none'"
    ),
}


def _setting(name: str) -> int:
    return getattr(settings, name, GUARD_DEFAULTS[name])


def _key(kind: str, value: str) -> str:
    return f"proposals:link-miss:{kind}:" + hashlib.sha256(value.encode()).hexdigest()[:32]


def _miss_keys(request: HttpRequest, token: str) -> list[tuple[str, int]]:
    """(counter, how many misses it allows): one per client, one per token prefix."""
    prefix = token[: _setting("PROPOSALS_LINK_PREFIX_LENGTH")]
    return [
        (_key("client", client_network(request)), _setting("PROPOSALS_LINK_MISSES_ALLOWED")),
        (_key("prefix", prefix), _setting("PROPOSALS_LINK_PREFIX_MISSES_ALLOWED")),
    ]


def _count(key: str) -> int:
    """Count one miss, atomically across processes (Redis INCR); the window starts at the first.

    With Redis down the cache finds nothing and stores nothing (portal.cache): every count is
    1, so the limit fails open, and the cache logs the outage."""
    return count_in_window(cache, key, _setting("PROPOSALS_LINK_MISS_WINDOW"))


def _miss(request: HttpRequest, token: str) -> bool:
    """Count a bad token against its client and its prefix; True once either is past its limit."""
    over = [_count(key) > allowed for key, allowed in _miss_keys(request, token)]  # count both
    return any(over)


def _too_many(request: HttpRequest, *, quiet: bool = False) -> HttpResponse:
    if quiet:
        response = HttpResponse(status=429)
    else:
        response = render(request, "proposals/shared_429.html", status=429)
    response["Retry-After"] = str(_setting("PROPOSALS_LINK_MISS_WINDOW"))
    return response


def link_work_over(link, work: str) -> bool:
    """Count one `work` (a LINK_WORK kind) on this live link; True once past what the link is
    allowed in the window. Fails open as the miss counters do: with Redis down every count is 1.
    """
    key = f"proposals:link-work:{work}:{link.pk}"
    count = count_in_window(cache, key, _setting("PROPOSALS_LINK_WORK_WINDOW"))
    return count > _setting(LINK_WORK[work])


def link_work_refused(request: HttpRequest, message: str, *, quiet: bool = False) -> HttpResponse:
    """429 with `message` (in the reader's language): as plain text for `quiet` routes (an image
    the page asks for), else as the share pages' own 429 page."""
    if quiet:
        response = HttpResponse(message, status=429, content_type="text/plain; charset=utf-8")
    else:
        response = render(request, "proposals/shared_429.html", {"message": message}, status=429)
    response["Retry-After"] = str(_setting("PROPOSALS_LINK_WORK_WINDOW"))
    return response


def share_language(request: HttpRequest, link) -> str:
    """The reader's choice (`?lang=` on every share URL: no sign-in, no cookie, no script),
    else the customer's language."""
    asked = request.GET.get("lang", "")
    return asked if asked in dict(settings.LANGUAGES) else link.quote.customer.language


def shared_route(view=None, *, quiet: bool = False):
    """view(request, link) behind /p/<token>: unknown, expired and revoked tokens all get the
    same 404, and 429 once their client or their prefix has missed too often. `quiet` routes
    (the page's beacons, which nobody reads the answer of) drop a bad token with an empty 204
    instead of the 404 page, counted as a miss all the same.

    A live token is always served: the limit counts misses, and refusing good links for them
    let anyone's bad requests lock customers out (all of them, behind one proxy address). The
    token's 256 bits are what make guessing hopeless; the counters keep noisy guessers slow and
    visible.
    """
    if view is None:
        return functools.partial(shared_route, quiet=quiet)

    def not_found(request: HttpRequest) -> HttpResponse:
        if quiet:
            return HttpResponse(status=204)
        return render(request, "proposals/shared_404.html", status=404)

    @functools.wraps(view)
    def guarded(request: HttpRequest, token: str) -> HttpResponse:
        link = share_link_resolve(token)
        if link is None:
            if _miss(request, token):
                response = _too_many(request, quiet=quiet)
            else:
                response = not_found(request)
        else:
            language = share_language(request, link)
            request.share_language = language
            with translation.override(language):
                try:
                    response = view(request, link)
                except Http404:  # the link's quote has nothing to show: the same 404
                    response = not_found(request)
            response.setdefault("Content-Language", language)
        for header, value in SHARE_HEADERS.items():
            response[header] = value
        return response

    return guarded

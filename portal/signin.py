"""Sign-in throttling glue for django-axes: which address a client has, and what a locked-out
client is told."""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import ngettext


def client_address(request: HttpRequest) -> str:
    """REMOTE_ADDR, or behind TRUSTED_PROXY_COUNT proxies the address the outermost trusted proxy
    saw: that many entries from the right of X-Forwarded-For. Entries further left are whatever
    the client sent, so they are never used; a header shorter than the proxy chain or not an
    address falls back to REMOTE_ADDR."""
    remote = request.META.get("REMOTE_ADDR", "")
    proxies = getattr(settings, "TRUSTED_PROXY_COUNT", 0)
    if proxies <= 0:
        return remote
    chain = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    chain = [h for h in chain if h]
    if len(chain) < proxies:
        return remote
    candidate = chain[-proxies]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return remote


def lockout_message() -> str:
    minutes = max(1, int(settings.AXES_COOLOFF_TIME.total_seconds() // 60))
    return ngettext(
        "Too many failed sign-ins. Try again in %(minutes)d minute, or ask an administrator "
        "to unlock the account.",
        "Too many failed sign-ins. Try again in %(minutes)d minutes, or ask an administrator "
        "to unlock the account.",
        minutes,
    ) % {"minutes": minutes}


def lockout_response(request: HttpRequest, original_response=None, credentials=None
                     ) -> HttpResponse:
    """429 with the cool-off in words and in Retry-After; JSON for API clients."""
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse({"detail": lockout_message()}, status=429)
    else:
        response = render(request, "registration/locked_out.html",
                          {"message": lockout_message()}, status=429)
    response["Retry-After"] = str(int(settings.AXES_COOLOFF_TIME.total_seconds()))
    return response

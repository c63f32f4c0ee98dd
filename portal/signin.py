"""Sign-in throttling glue for django-axes: what a locked-out client is told (the client's
address comes from portal.clients)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import ngettext


def lockout_message() -> str:
    minutes = max(1, int(settings.AXES_COOLOFF_TIME.total_seconds() // 60))
    return ngettext(
        "Too many failed sign-ins. Try again in %(minutes)d minute, or ask an administrator "
        "to unlock the account.",
        "Too many failed sign-ins. Try again in %(minutes)d minutes, or ask an administrator "
        "to unlock the account.",
        minutes,
    ) % {"minutes": minutes}


def lockout_response(
    request: HttpRequest, original_response=None, credentials=None
) -> HttpResponse:
    """429 with the cool-off in words and in Retry-After; JSON for API clients."""
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse({"detail": lockout_message()}, status=429)
    else:
        response = render(
            request, "registration/locked_out.html", {"message": lockout_message()}, status=429
        )
    response["Retry-After"] = str(int(settings.AXES_COOLOFF_TIME.total_seconds()))
    return response

"""Sign-in throttling: three rules, none of which lets anyone shut a user out from elsewhere.

1. **The pair** (django-axes, AXES_LOCKOUT_PARAMETERS): after AXES_FAILURE_LIMIT failures for
   one username from one client, that client is refused for that username, even the right
   password, for AXES_COOLOFF_TIME. The user signs in from anywhere else.
2. **A growing wait** (here): past SIGNIN_USERNAME_SOFT_LIMIT failures for one username from
   anywhere, or SIGNIN_CLIENT_SOFT_LIMIT from one client for any usernames, within a window,
   each further failure makes *the client that failed* wait before its next try at that
   username: 2 s, 4 s, 8 s... up to SIGNIN_MAX_WAIT_SECONDS, answered 429 "wait N seconds". A
   client that has not failed is never made to wait, so guesses from elsewhere cannot keep the
   user's own right password out.
3. **A coarse budget** (here): past SIGNIN_CLIENT_BUDGET failures from one client in a window,
   each failure from it is answered 429 until the window ends. Only failures: the right password
   from there still signs in.

A client is its address as portal.clients says (behind TRUSTED_PROXY_COUNT proxies; an IPv6
client is its /64). The window is AXES_COOLOFF_TIME. Rules 2 and 3 count in the shared cache: with
Redis down (portal.cache) they count nothing and let everything through; rule 1 lives in the
database and goes on.
"""

from __future__ import annotations

import hashlib
import math
import time

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import ngettext

from portal.cache import count_in_window
from portal.clients import client_network


def _now() -> float:
    return time.time()  # wall-clock: the waits are shared by every process through the cache


def _key(kind: str, *values: str) -> str:
    digest = hashlib.sha256("\0".join(values).encode()).hexdigest()[:32]
    return f"signin:{kind}:{digest}"


def _window() -> tuple[int, float, int]:
    """(this window's number, seconds left in it, its length): fixed windows, so that the budget
    can say when it ends."""
    length = int(settings.AXES_COOLOFF_TIME.total_seconds())
    now = _now()
    number = int(now // length)
    return number, (number + 1) * length - now, length


def wait_after(failures: int, soft_limit: int) -> int:
    """Seconds the failing client waits once `failures` are counted: none up to the soft limit,
    then doubling from 2 s, never over SIGNIN_MAX_WAIT_SECONDS."""
    over = failures - soft_limit
    if over <= 0:
        return 0
    return min(2 ** min(over, 30), settings.SIGNIN_MAX_WAIT_SECONDS)


class SigninThrottleBackend:
    """Rule 2's refusal, before any password is checked. Placed after axes' backend (which has
    already refused a locked-out pair) and before the one that checks passwords; authenticates
    no one."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None or username is None:
            return None
        woken_at = cache.get(_key("wait", username, client_network(request)))
        seconds = math.ceil(woken_at - _now()) if woken_at else 0
        if seconds > 0:
            request.signin_wait = seconds
            # axes then records no failure (no password was tried) and answers through
            # AXES_LOCKOUT_CALLABLE, lockout_response below.
            request.axes_locked_out = True
            raise PermissionDenied("told to wait")
        request.signin_checked = True  # a password is checked: a failure counts
        return None


def signin_failed(sender, credentials: dict, request=None, **kwargs) -> None:
    """user_login_failed, received after axes' receiver: count a failed password for its username
    and its client, then make that client wait (rule 2) or answer 429 (rule 3)."""
    if request is None or not getattr(request, "signin_checked", False):
        return  # refused before a password was checked (the pair's lock, a wait): not a guess
    username, client = credentials.get("username") or "", client_network(request)
    number, left, length = _window()
    by_username = count_in_window(cache, f"{_key('username', username)}:{number}", length + 1)
    by_client = count_in_window(cache, f"{_key('client', client)}:{number}", length + 1)
    wait = max(
        wait_after(by_username, settings.SIGNIN_USERNAME_SOFT_LIMIT),
        wait_after(by_client, settings.SIGNIN_CLIENT_SOFT_LIMIT),
    )
    if wait:
        cache.set(_key("wait", username, client), _now() + wait, timeout=wait)
    if by_client > settings.SIGNIN_CLIENT_BUDGET:
        wait = max(wait, math.ceil(left))
    if wait and not getattr(request, "axes_locked_out", False):  # a fresh lock says more
        request.signin_wait = wait
        request.axes_locked_out = True  # AxesMiddleware answers with lockout_response


def lockout_message() -> str:
    minutes = max(1, int(settings.AXES_COOLOFF_TIME.total_seconds() // 60))
    return ngettext(
        "Too many failed sign-ins. Try again in %(minutes)d minute, or ask an administrator "
        "to unlock the account.",
        "Too many failed sign-ins. Try again in %(minutes)d minutes, or ask an administrator "
        "to unlock the account.",
        minutes,
    ) % {"minutes": minutes}


def wait_message(seconds: int) -> str:
    return ngettext(
        "Too many failed sign-ins. Wait %(seconds)d second before trying again.",
        "Too many failed sign-ins. Wait %(seconds)d seconds before trying again.",
        seconds,
    ) % {"seconds": seconds}


def lockout_response(
    request: HttpRequest, original_response=None, credentials=None
) -> HttpResponse:
    """429 with the wait in words and in Retry-After (a wait of rule 2 or 3, else the pair's
    cool-off); JSON for API clients."""
    wait = getattr(request, "signin_wait", None)
    if wait:
        seconds, message = wait, wait_message(wait)
    else:
        seconds, message = int(settings.AXES_COOLOFF_TIME.total_seconds()), lockout_message()
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse({"detail": message}, status=429)
    else:
        response = render(request, "registration/locked_out.html", {"message": message}, status=429)
    response["Retry-After"] = str(seconds)
    return response

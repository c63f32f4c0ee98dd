"""`Authorization: Bearer <token>` for systems; the browser keeps session auth with CSRF."""

from __future__ import annotations

import datetime as dt
import functools
import math

from django.utils import timezone
from rest_framework import authentication, exceptions, permissions, throttling

from integrations.models import ApiToken, TokenScope
from integrations.services import token_hash
from portal.cache import count_in_window
from portal.clients import client_network
from portal.models import User, role_annotations, roles_from_row
from portal.statements import Statement, columns

LAST_USED_RESOLUTION = dt.timedelta(minutes=1)


def _bearer(request) -> str | None:
    header = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" else None


@functools.cache
def _token_statement() -> Statement:
    user = f'"{User._meta.db_table}"'  # not aliased: the roles' subquery names the table
    fields, listed = columns({ApiToken: None, User: None}, {ApiToken: "t", User: user})
    roles = role_annotations()["_roles"]
    sql = (
        f"SELECT {listed}, {roles.sql} "  # noqa: S608 - names from the models, values parameters
        f'FROM "{ApiToken._meta.db_table}" t JOIN {user} ON {user}."id" = t."user_id" '
        f'WHERE t."token_hash" = %s'
    )
    return Statement(sql=sql, fields=fields, model=ApiToken, leading=tuple(roles.params))


def token_lookup(hashed: str) -> ApiToken | None:
    """The token of a hash with its user (`token.user`) and the user's roles (for the permission
    rules) in one statement, whatever its state (revoked, user disabled); None when unknown."""
    found = _token_statement().row([hashed])
    if found is None:
        return None
    instances, values = found
    token = instances[ApiToken]
    token.user, token._roles = instances[User], next(values)
    roles_from_row(token.user, token)
    return token


class ApiTokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request):
        raw = _bearer(request)
        if raw is None:
            return None
        if not raw or len(raw) > 200:
            raise exceptions.AuthenticationFailed("Invalid token.")
        token = token_lookup(token_hash(raw))
        # Unknown, revoked and disabled-user tokens answer alike: nothing to probe.
        if token is None or token.revoked_at is not None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("Invalid token.")
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
            # At most one write a minute per token, not one per request.
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
            token.last_used_at = now
        return token.user, token

    def authenticate_header(self, request):
        # Every caller without valid credentials gets 401 with this challenge (a session-only
        # call too): DRF answers 401 only when the first authentication class names one.
        return 'Bearer realm="api"'


class TokenScopePermission(permissions.BasePermission):
    """A read token may only GET/HEAD/OPTIONS; sessions and write tokens may do everything."""

    message = "This API token is read-only."

    def has_permission(self, request, view):
        if isinstance(request.auth, ApiToken) and request.auth.scope != TokenScope.WRITE:
            return request.method in permissions.SAFE_METHODS
        return True


class TokenRateThrottle(throttling.SimpleRateThrottle):
    """Per token (each CRM its own budget); session users are throttled per user.

    A fixed-window counter: one round trip to Redis per request (portal.cache). DRF's own
    keeps every request's timestamp of the window in one cache entry and reads and writes the
    whole list each time, which at 3000/hour is a 3000-item list per request. A window allows
    its budget and no more; a burst across a window's end may reach twice the rate for a
    moment, which a per-hour budget for integrations tolerates. Without Redis it lets requests
    through, as the cache is forgiving (portal.cache).
    """

    scope = "api_token"

    def allow_request(self, request, view):
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        now = self.timer()
        window = int(now // self.duration)
        self.window_ends = (window + 1) * self.duration
        count = count_in_window(self.cache, f"{self.key}:{window}", self.duration + 1)
        # Read by portal.api.middleware into RateLimit-Limit / -Remaining / -Reset.
        request._request.rate_limit = (
            self.num_requests,
            max(self.num_requests - count, 0),
            math.ceil(self.window_ends - now),
        )
        if count > self.num_requests:
            return self.throttle_failure()
        return True

    def wait(self):
        return max(self.window_ends - self.timer(), 0)

    def get_cache_key(self, request, view):
        if isinstance(request.auth, ApiToken):
            ident = request.auth.token_hash[:32]
        elif request.user and request.user.is_authenticated:
            ident = f"user-{request.user.pk}"
        else:  # the client as the share-link limiter and sign-in see it (an IPv6 /64)
            ident = client_network(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}

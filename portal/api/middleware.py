"""The edges of every answer: its request id, and under /api/ problem details for any error
answered outside DRF plus the token's rate-limit headers.

- X-Request-ID: the client's own when sane (1-128 of [A-Za-z0-9._-]), else a new uuid4 hex; on
  every response, in each log record of the request (RequestIdFilter) and in problem bodies.
- Under /api/, an error that does not come as a problem (Django's 404 and 500 handlers answer
  problems themselves; this catches anything else: a middleware's JSON, an HTML error page) is
  rewritten as one, keeping its status and headers.
- RateLimit-Limit / -Remaining / -Reset from TokenRateThrottle (integrations.auth), when a
  throttle counted the request (callers signed in by token or session; not anonymous ones).
"""

from __future__ import annotations

import json

from portal.api.exceptions import PROBLEM_CONTENT_TYPE, problem, status_title
from portal.api.request_ids import HEADER, current_request_id, request_id_of

API_PREFIX = "/api/"


class RequestIdMiddleware:
    """First of all middleware, so every answer (a 503 without a database included) has it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.request_id = request_id_of(request)
        # Not reset afterwards: Django logs a 4xx/5xx ("Not Found: ...") after the middleware
        # returns; the next request sets its own.
        current_request_id.set(request.request_id)
        response = self.get_response(request)
        if request.path.startswith(API_PREFIX):
            response = as_problem(request, response)
            add_rate_limit_headers(request, response)
        response[HEADER] = request.request_id
        return response


def _old_body(response) -> dict:
    if "json" not in response.get("Content-Type", ""):
        return {}
    try:
        body = json.loads(response.content)
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def as_problem(request, response):
    if (
        response.status_code < 400
        or response.streaming
        or response.get("Content-Type", "").startswith(PROBLEM_CONTENT_TYPE)
    ):
        return response
    old = _old_body(response)
    detail = old.pop("detail", None)
    errors = {k: v if isinstance(v, list) else [v] for k, v in old.items()} or None
    if detail:
        detail = str(detail)
    elif errors:
        detail = "Invalid input: " + ", ".join(errors) + "."
    else:
        detail = status_title(response.status_code) + "."
    body = problem(
        response.status_code,
        detail,
        errors=errors,
        request_id=request.request_id,
    )
    response.content = json.dumps(body).encode()
    response["Content-Type"] = PROBLEM_CONTENT_TYPE
    return response


def add_rate_limit_headers(request, response) -> None:
    limit = getattr(request, "rate_limit", None)
    if limit is None:
        return
    response["RateLimit-Limit"], response["RateLimit-Remaining"], response["RateLimit-Reset"] = (
        str(value) for value in limit
    )

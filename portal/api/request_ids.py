"""X-Request-ID: the client's own when sane (1-128 of [A-Za-z0-9._-]), else a new uuid4 hex.

Kept free of Django imports: the logging settings load RequestIdFilter before the apps.
"""

from __future__ import annotations

import contextvars
import logging
import re
import uuid

HEADER = "X-Request-ID"
SANE_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")

current_request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")


class RequestIdFilter(logging.Filter):
    """Adds `request_id` to every record ("-" outside a request)."""

    def filter(self, record):
        if not hasattr(record, "request_id"):
            record.request_id = current_request_id.get()
        return True


def request_id_of(request) -> str:
    asked = request.headers.get(HEADER, "")
    return asked if SANE_ID.fullmatch(asked) else uuid.uuid4().hex

"""Keep share-link tokens out of log records."""

from __future__ import annotations

import logging
import re

# /p/<token>..., in a path or inside a full URL or request line.
SHARE_PATH = re.compile(r"/p/[^/\s?\"']+")


def redact(text: str) -> str:
    return SHARE_PATH.sub("/p/[redacted]", text)


def redact_share_tokens(record: logging.LogRecord) -> bool:
    message = record.getMessage()
    if "/p/" in message:
        record.msg, record.args = redact(message), ()
    # Django's 404 log keeps the request on the record, and handlers such as AdminEmailHandler
    # print its path.
    request = getattr(record, "request", None)
    if request is not None and getattr(request, "path", "").startswith("/p/"):
        record.request = None
    return True

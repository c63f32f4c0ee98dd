"""Keep share-link tokens out of log records, however the path was spelled."""

from __future__ import annotations

import logging
import re

# /p/<token> in a path, a full URL, a request line or a query string; the slashes and the "p"
# may be percent-encoded (once or more: %2F, %252F, %70...) or doubled, in either case: the
# server decodes them before routing, so /%70/<token> and /p%2F<token> are the same page.
_SLASH = r"(?:/|%(?:25)*2f)"
_P = r"(?:p|%(?:25)*[57]0)"
_CHAR = r"(?:[^/\s?#\"'&<>%]|%(?!(?:25)*2f))"  # up to the next slash, encoded or not
SHARE_PATH = re.compile(rf"{_SLASH}+{_P}{_SLASH}+{_CHAR}+", re.IGNORECASE)


def redact(text: str) -> str:
    return SHARE_PATH.sub("/p/[redacted]", text)


def redact_share_tokens(record: logging.LogRecord) -> bool:
    message = record.getMessage()
    redacted = redact(message)
    if redacted != message:
        record.msg, record.args = redacted, ()
    if record.exc_info and not record.exc_text:  # a traceback may quote the path too
        record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
    # Django's request logs keep the request on the record, and handlers such as
    # AdminEmailHandler print its path.
    request = getattr(record, "request", None)
    if request is not None and SHARE_PATH.search(getattr(request, "path", "") or ""):
        record.request = None
    return True


class RedactShareTokens(logging.Filter):
    """redact_share_tokens for LOGGING's "filters" (settings: on every handler)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return redact_share_tokens(record)

"""Keep share-link tokens out of log records, however the path was spelled."""

from __future__ import annotations

import logging
import re
import unicodedata
from urllib.parse import unquote_to_bytes

# /p/<token> in a path, a full URL, a request line or a query string; the slashes and the "p"
# may be percent-encoded (once or more: %2F, %252F, %70...) or doubled, in either case: the
# server decodes them before routing, so /%70/<token> and /p%2F<token> are the same page.
_SLASH = r"(?:/|%(?:25)*2f)"
_P = r"(?:p|%(?:25)*[57]0)"
_CHAR = r"(?:[^/\s?#\"'&<>%]|%(?!(?:25)*2f))"  # up to the next slash, encoded or not
SHARE_PATH = re.compile(rf"{_SLASH}+{_P}{_SLASH}+{_CHAR}+", re.IGNORECASE)

# Other spellings of the /p/ prefix, which a server, a proxy or a reader of the log may take for
# it (issue 23, item 2): "/p/./T", "/p/%2e/T", "/p;/T", "/p\T", "/p%5CT", "/p%C0%AFT" (an
# overlong "/"), "/ｐ/T" (fullwidth). Each word of a line that could be a path is normalised
# as a server would read it: Django's escapes and percent-encoding decoded until nothing
# changes, overlong UTF-8 read as the character it spells, NFKC, backslashes as slashes, ";"
# parameters dropped, dot segments resolved. A word that then holds /p/<token> is written in
# that normal form with the token redacted. A segment that ".." would take away is looked at
# too (dot segments only dropped).
_WORD = re.compile(r"[^\s\"'<>]+")
_MAYBE = re.compile(r"[/\\%]|[^\x00-\x7f]")  # no slash, no escape, all ASCII: not a path
_OVERLONG = re.compile(
    rb"[\xc0\xc1][\x80-\xbf]|\xe0[\x80-\x9f][\x80-\xbf]|\xf0[\x80-\x8f][\x80-\xbf]{2}"
)
_LEAD_BITS = {2: 0x1F, 3: 0x0F, 4: 0x07}
# Django escapes the arguments of its request logs ("Not Found: /\uff50/T", "/p\\T").
_ESCAPED = re.compile(r"\\(?:x([0-9a-f]{2})|u([0-9a-f]{4})|U([0-9a-f]{8}))", re.IGNORECASE)
_PARAMS = re.compile(r";[^/?#]*")
_NORMAL_SHARE_PATH = re.compile(r"/+p/+[^/?#&\s]+", re.IGNORECASE)
_DECODE_ROUNDS = 4  # %2525252F is still a slash; deeper is nothing a server would decode


def _overlong(found: re.Match) -> bytes:
    """The character an overlong UTF-8 sequence spells (C0 AF is "/"), as a lax decoder reads
    it; a strict one would print it as U+FFFD and hide the slash from us."""
    lead, *rest = found.group()
    value = lead & _LEAD_BITS[len(found.group())]
    for byte in rest:
        value = (value << 6) | (byte & 0x3F)
    return chr(value).encode("utf-8")


def _unescaped(found: re.Match) -> str:
    code = int(next(group for group in found.groups() if group), 16)
    return chr(code) if code <= 0x10FFFF else found.group()


def _decoded(text: str, *, escapes: bool = True) -> str:
    for _ in range(_DECODE_ROUNDS):
        escaped = (_ESCAPED.sub(_unescaped, text) if escapes else text).encode(
            "utf-8", errors="surrogatepass"
        )
        raw = _OVERLONG.sub(_overlong, unquote_to_bytes(escaped))
        decoded = unicodedata.normalize("NFKC", raw.decode("utf-8", errors="replace"))
        if decoded == text:
            break
        text = decoded
    return text


def _dot_segments(path: str, *, resolve: bool) -> str:
    """RFC 3986's remove_dot_segments on the part before any query (resolve), or "." and ".."
    merely dropped (not resolve: what ".." would take away stays)."""
    path, mark, query = path.partition("?")
    kept: list[str] = []
    for segment in path.split("/"):
        if segment in (".", ".."):
            if segment == ".." and resolve and len(kept) > 1:
                kept.pop()
            continue
        kept.append(segment)
    return "/".join(kept) + mark + query


def share_path_normalised(word: str, *, resolve: bool = True, escapes: bool = True) -> str:
    """A word of a log line read as a path: decoded, NFKC, slashes, no ";" nor dot segments.
    `escapes`: read "\\xNN" and "\\uNNNN" as Django's escapes; a raw path can hold the same
    characters ("/p%5CXe7..." decodes to "/p\\Xe7...", a backslash and a token), so both
    readings are tried."""
    text = _PARAMS.sub("", _decoded(word, escapes=escapes).replace("\\", "/"))
    return _dot_segments(text, resolve=resolve)


def _word_redacted(found: re.Match) -> str:
    word = found.group()
    if not _MAYBE.search(word):
        return word
    for escapes in (True, False):
        for resolve in (True, False):
            normal = share_path_normalised(word, resolve=resolve, escapes=escapes)
            redacted = _NORMAL_SHARE_PATH.sub("/p/[redacted]", normal)
            if redacted != normal:
                return redacted
    return word


def redact(text: str) -> str:
    return SHARE_PATH.sub("/p/[redacted]", _WORD.sub(_word_redacted, text))


def holds_share_path(text: str) -> bool:
    return redact(text) != text


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
    if request is not None and holds_share_path(getattr(request, "path", "") or ""):
        record.request = None
    return True


class RedactShareTokens(logging.Filter):
    """redact_share_tokens for LOGGING's "filters" (settings: on every handler)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return redact_share_tokens(record)

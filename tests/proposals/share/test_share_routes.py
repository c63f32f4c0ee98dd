"""Share routes are matched on the decoded path, so odd spellings of /p/<token> are the same
page with the same guard; and no spelling of a token ever reaches a log line."""

from __future__ import annotations

import logging

import pytest

from proposals.share.logs import redact
from proposals.share.services import share_link_create

SPELLINGS = (
    "/p/{t}",
    "/%70/{t}",
    "/p%2F{t}",
    "/p%2f{t}",
    "/%2570/{t}",
    "/P/{t}",
    "/p//{t}",
    "/%70%2F{t}",
)


@pytest.fixture
def token(world, sent_quote):
    return share_link_create(quote=sent_quote, user=world.sales, recipient_name="Dr Li")[1]


@pytest.mark.parametrize("spelling", ["/%70/{t}", "/p%2F{t}", "/p%2f{t}", "/%70%2F{t}"])
def test_an_encoded_spelling_is_the_same_guarded_page(client, token, spelling):
    canonical = client.get(f"/p/{token}")
    odd = client.get(spelling.format(t=token))
    assert odd.status_code == canonical.status_code == 200
    for header in ("Content-Security-Policy", "Referrer-Policy", "Cache-Control", "X-Robots-Tag"):
        assert odd[header] == canonical[header]


@pytest.mark.parametrize("spelling", ["/P/{t}", "/p//{t}", "/%2570/{t}", "/p/{t}/"])
def test_other_spellings_are_not_found(client, token, spelling):
    assert client.get(spelling.format(t=token)).status_code == 404


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_no_spelling_of_a_token_reaches_the_logs(client, token, spelling, caplog):
    path = spelling.format(t=token)
    with caplog.at_level(logging.DEBUG):
        client.get(path)
        client.get(spelling.format(t="a-guessed-token-value"))
        # What runserver and gunicorn write for the raw request line.
        logging.getLogger("django.server").info('"GET %s HTTP/1.1" 200 512', path)
        logging.getLogger("gunicorn.access").info(
            '%(h)s "%(r)s" %(s)s', {"h": "127.0.0.1", "r": f"GET {path} HTTP/1.1", "s": "200"}
        )
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "/p/[redacted]" in text
    assert token not in text and "a-guessed-token-value" not in text


# Issue 23, item 2: spellings that do not serve the page but that a server, a proxy or a reader
# may take for /p/<token>; each reached the logs with its token.
ODD_SPELLINGS = (
    "/p/./{t}",  # a dot segment
    "/p/%2e/{t}",  # an encoded dot segment
    "/p;/{t}",  # a ";" parameter
    "/p\\{t}",  # a backslash
    "/p%5C{t}",  # an encoded backslash
    "/p%C0%AF{t}",  # an overlong UTF-8 slash
    "/\uff50/{t}",  # a fullwidth p
)


@pytest.mark.parametrize("spelling", ODD_SPELLINGS)
def test_odd_spellings_of_the_prefix_are_not_the_page_and_keep_the_token_out_of_the_logs(
    client, token, spelling, caplog
):
    path = spelling.format(t=token)
    with caplog.at_level(logging.DEBUG):
        assert client.get(path).status_code == 404
        logging.getLogger("django.server").info('"GET %s HTTP/1.1" 404 512', path)
        logging.getLogger("gunicorn.access").info(
            '%(h)s "%(r)s" %(s)s', {"h": "127.0.0.1", "r": f"GET {path} HTTP/1.1", "s": "404"}
        )
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert token not in text
    assert text.count("/p/[redacted]") >= 3  # Django's 404 line, runserver's, gunicorn's


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("GET /p/./AbC HTTP/1.1", "GET /p/[redacted] HTTP/1.1"),
        ("GET /p/%2e/AbC/pdf HTTP/1.1", "GET /p/[redacted]/pdf HTTP/1.1"),
        ("GET /p;x=1/AbC HTTP/1.1", "GET /p/[redacted] HTTP/1.1"),
        ("Not Found: /p\\AbC", "Not Found: /p/[redacted]"),
        ("GET /p%5cAbC HTTP/1.1", "GET /p/[redacted] HTTP/1.1"),
        ("GET /p%C0%AFAbC HTTP/1.1", "GET /p/[redacted] HTTP/1.1"),
        ("GET /p%E0%80%AFAbC HTTP/1.1", "GET /p/[redacted] HTTP/1.1"),
        ("Not Found: /\uff50/AbC", "Not Found: /p/[redacted]"),
        ("GET /%EF%BD%90/AbC HTTP/1.1", "GET /p/[redacted] HTTP/1.1"),  # fullwidth, as sent
        ("GET /\uff30\uff0fAbC HTTP/1.1", "GET /p/[redacted] HTTP/1.1"),  # fullwidth P and /
        ("GET /x/../p/AbC HTTP/1.1", "GET /p/[redacted] HTTP/1.1"),
        ("GET /p/AbC/.. HTTP/1.1", "GET /p/[redacted] HTTP/1.1"),  # what ".." takes away too
        ("GET /p/x/../AbC HTTP/1.1", "GET /p/[redacted] HTTP/1.1"),
        ("GET /a;b/c\\d/%2e/e HTTP/1.1", "GET /a;b/c\\d/%2e/e HTTP/1.1"),  # no /p/: as it was
    ],
)
def test_every_spelling_of_the_prefix_is_redacted_in_its_normal_form(text, expected):
    assert redact(text) == expected


def test_every_handler_of_the_settings_redacts_too(token):
    """The console handler carries the filter, for loggers that have none of their own."""
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(self.format(record))

    console = next(h for h in logging.getLogger().handlers if h.filters)
    keep = Keep()
    keep.filters = console.filters
    some = logging.getLogger("quoting.somewhere")
    some.addHandler(keep)
    try:
        some.warning("customer opened https://quotes.example.com/%%70/%s/pdf", token)
    finally:
        some.removeHandler(keep)
    assert records == ["customer opened https://quotes.example.com/p/[redacted]/pdf"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("GET /p/AbC-_x1 HTTP/1.1", "GET /p/[redacted] HTTP/1.1"),
        ("GET /%70/AbC HTTP/1.1", "GET /p/[redacted] HTTP/1.1"),
        ("GET /p%2FAbC/accept HTTP/1.1", "GET /p/[redacted]/accept HTTP/1.1"),
        ("GET /p/Ab%43d/pdf", "GET /p/[redacted]/pdf"),
        ("GET /login/?next=%2Fp%2FAbC&x=1", "GET /login/?next=/p/[redacted]&x=1"),
        ("GET /static/proposal/share.css", "GET /static/proposal/share.css"),
        ("GET /api/v1/projects/12/", "GET /api/v1/projects/12/"),
    ],
)
def test_redaction_keeps_the_route_and_drops_the_token(text, expected):
    assert redact(text) == expected


@pytest.mark.parametrize("head", ["Xe7", "xff", "u0041", "U0001F600"])
def test_a_token_that_reads_like_an_escape_is_still_redacted_after_a_backslash(head):
    """ "/p%5CXe7..." decodes to a backslash then the token: read as Django's "\\xe7" escape it
    would hide the token from the redaction, so the raw reading is tried too."""
    token = head + "mEaoGPEfE214fuqMX_HBGTTST86wdOnKirg"
    for spelling in ("/p%5C{t}", "/p\\{t}", '"GET /p%5c{t} HTTP/1.1" 404'):
        assert token not in redact(spelling.format(t=token)), spelling

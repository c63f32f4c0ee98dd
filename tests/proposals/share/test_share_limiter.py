"""The share-link limiter is fair: it counts misses per client (behind the trusted proxies) and
per token prefix, never refuses a live link, and fails open when the cache is down."""

from __future__ import annotations

import logging
import time

import pytest

from proposals.share.services import share_link_create

A, B = "198.51.100.1", "198.51.100.2"


@pytest.fixture
def token(world, sent_quote):
    return share_link_create(quote=sent_quote, user=world.sales, recipient_name="Dr Li")[1]


def _get(client, path, address, **headers):
    return client.get(path, REMOTE_ADDR=address, **headers)


def _guesses(client, count, address, **headers):
    return [
        _get(client, f"/p/guess{n:04d}-{'x' * 30}", address, **headers).status_code
        for n in range(count)
    ]


def test_21_misses_from_one_client_never_lock_a_live_link_for_anyone(client, token):
    codes = _guesses(client, 21, A)
    assert codes == [404] * 20 + [429]
    assert _get(client, f"/p/{token}", B).status_code == 200
    assert _get(client, f"/p/{token}", A).status_code == 200
    assert _get(client, f"/p/{token}/pdf", A).status_code in (200, 202)  # 202: PDF on its way


def test_behind_one_trusted_proxy_the_forwarded_client_is_counted(client, settings, token):
    settings.TRUSTED_PROXY_COUNT = 1
    proxy = "10.0.0.1"  # every customer arrives from the proxy's address
    # The client may write anything on the left; the proxy appends the address it saw.
    codes = _guesses(client, 21, proxy, HTTP_X_FORWARDED_FOR=f"1.2.3.4, {A}")
    assert codes[-1] == 429
    # Another customer behind the same proxy is not the guesser: a miss is a plain 404.
    assert _get(client, "/p/typo-of-mine", proxy, HTTP_X_FORWARDED_FOR=B).status_code == 404
    assert _get(client, f"/p/{token}", proxy, HTTP_X_FORWARDED_FOR=B).status_code == 200


def test_without_trusted_proxies_x_forwarded_for_is_ignored(client, settings, db):
    settings.TRUSTED_PROXY_COUNT = 0
    codes = [
        _get(client, f"/p/guess{n:04d}", A, HTTP_X_FORWARDED_FOR=f"203.0.113.{n}").status_code
        for n in range(21)
    ]
    assert codes[-1] == 429  # a forged header does not make a fresh client


def test_misses_on_one_token_prefix_are_counted_across_clients(client, settings, token):
    settings.PROPOSALS_LINK_PREFIX_MISSES_ALLOWED = 5
    prefix = token[:8]
    codes = [_get(client, f"/p/{prefix}{n:035d}", f"203.0.113.{n}").status_code for n in range(7)]
    assert codes == [404] * 5 + [429] * 2  # each from a new address, all sharing one prefix
    assert _get(client, "/p/other-prefix-guess", "203.0.113.99").status_code == 404
    assert _get(client, f"/p/{token}", "203.0.113.100").status_code == 200


def test_unknown_expired_and_revoked_misses_count_the_same(client, world, sent_quote, settings):
    from proposals.share.services import share_link_revoke

    settings.PROPOSALS_LINK_MISSES_ALLOWED = 2
    revoked, revoked_token = share_link_create(quote=sent_quote, user=world.sales)
    share_link_revoke(link=revoked, user=world.sales)
    first = [_get(client, f"/p/{t}", A) for t in ("unknown-token", revoked_token)]
    assert [r.status_code for r in first] == [404, 404]
    assert first[0].content == first[1].content
    assert _get(client, f"/p/{revoked_token}", A).status_code == 429


def test_with_the_cache_down_the_limiter_fails_open_and_says_so(client, settings, token, caplog):
    from portal import cache as portal_cache

    settings.CACHES = {
        "default": {
            "BACKEND": "portal.cache.ForgivingRedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",  # the discard port: nothing listens
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    portal_cache._paused_until.clear()
    settings.PROPOSALS_LINK_MISSES_ALLOWED = 2
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="portal.cache"):
        codes = _guesses(client, 5, A)
        good = _get(client, f"/p/{token}", A)
    assert codes == [404] * 5 and good.status_code == 200
    assert time.monotonic() - started < 10
    assert any("Redis cache unreachable" in r.getMessage() for r in caplog.records)
    portal_cache._paused_until.clear()

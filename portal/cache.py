"""The shared cache on Redis, which a Redis outage must not turn into errors.

Django's RedisCache raises on every call when Redis is unreachable, so a broker outage answered
500 on share pages (the link limiter) and on the whole API (the throttle). Here a failed call
behaves like Django's DummyCache (nothing stored, nothing found): rate limits fail open, pages
are served. After a failure Redis is left alone for a few seconds, so an outage costs a request
nothing rather than a connection timeout per cache call; one warning is logged per pause.
"""

from __future__ import annotations

import functools
import logging
import time

from django.conf import settings
from django.core.cache.backends.redis import RedisCache, RedisCacheClient

logger = logging.getLogger(__name__)

_paused_until: dict[str, float] = {}  # per LOCATION, per process


def _forgiving(fallback):
    """Run the Redis call unless Redis is paused; on a Redis error pause it and answer
    fallback(*args, **kwargs), what DummyCache would."""

    def decorate(method):
        @functools.wraps(method)
        def call(self, *args, **kwargs):
            import redis

            location = self._forgiving_location
            if time.monotonic() < _paused_until.get(location, 0.0):
                return fallback(*args, **kwargs)
            try:
                return method(self, *args, **kwargs)
            except redis.RedisError as exc:
                pause = settings.SERVICE_PAUSE_SECONDS  # how long Redis is skipped
                _paused_until[location] = time.monotonic() + pause
                logger.warning(
                    "Redis cache unreachable (%s): serving without it (rate limits open) for "
                    "the next %.0f s",
                    exc.__class__.__name__,
                    pause,
                )
                return fallback(*args, **kwargs)

        return call

    return decorate


def _answer(value):
    return lambda *args, **kwargs: value


def _default(key, default=None, version=None):
    return default


def _key_missing(*args, **kwargs):
    raise ValueError("Key not found: the cache is unavailable.")  # DummyCache's incr()


class _OneClientPerPool(RedisCacheClient):
    """Django's client builds a new redis.Redis (and copies its ~170 response callbacks) for
    every cache call: about 0.15 ms each, two or three times a request (issue 12). A redis.Redis
    is safe to share between threads (each call takes a connection from the pool), so one per
    pool serves them all."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class ForgivingRedisCache(RedisCache):
    """RedisCache that acts as an empty cache while Redis is down (see the module docstring).

    Set socket_connect_timeout / socket_timeout in OPTIONS: they bound the one call that finds
    Redis gone.
    """

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = _OneClientPerPool
        self._forgiving_location = ",".join(self._servers)

    get = _forgiving(_default)(RedisCache.get)
    add = _forgiving(_answer(False))(RedisCache.add)
    set = _forgiving(_answer(None))(RedisCache.set)
    touch = _forgiving(_answer(False))(RedisCache.touch)
    delete = _forgiving(_answer(False))(RedisCache.delete)
    get_many = _forgiving(lambda *a, **k: {})(RedisCache.get_many)
    has_key = _forgiving(_answer(False))(RedisCache.has_key)
    incr = _forgiving(_key_missing)(RedisCache.incr)
    set_many = _forgiving(lambda *a, **k: [])(RedisCache.set_many)
    delete_many = _forgiving(_answer(None))(RedisCache.delete_many)
    clear = _forgiving(_answer(None))(RedisCache.clear)

    @_forgiving(lambda key, timeout: 1)
    def count_in_window(self, key: str, timeout: int) -> int:
        """One more hit on the counter `key`, which starts at the first hit and lives `timeout`
        seconds; answers the count. One round trip (SET NX EX then INCR, pipelined), where
        add() and incr() (which asks EXISTS first) take three."""
        key = self.make_and_validate_key(key)
        client = self._cache.get_client(key, write=True)
        pipe = client.pipeline(transaction=False)
        pipe.set(key, 0, ex=timeout, nx=True)
        pipe.incr(key)
        return pipe.execute()[1]


def count_in_window(cache, key: str, timeout: int) -> int:
    """A fixed-window counter on any cache: one round trip on Redis (above); elsewhere (the
    local memory of tests and the embedded mode) add() then incr()."""
    # Asked of the object, not its class: django.core.cache.cache (what DRF's throttles hold)
    # is a proxy that forwards to the configured cache, never an instance of it.
    in_one_round_trip = getattr(cache, "count_in_window", None)
    if in_one_round_trip is not None:
        return in_one_round_trip(key, timeout)
    cache.add(key, 0, timeout=timeout)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr (or a dummy cache): a new window
        cache.add(key, 1, timeout=timeout)
        return 1

"""Health of what the portal depends on, for /healthz and load balancers.

/healthz answers within about HEALTH_TIMEOUT_SECONDS whatever the services do: the checks run
side by side in threads of their own, and one that has not answered by then is reported down
("Timeout"). A PostgreSQL or Redis that accepts connections and never answers made /healthz hang
until gunicorn killed its worker (31 s), so the balancer kept sending traffic to a node that
could not serve it. A check still stuck from an earlier call is waited on again rather than
started anew: at most one stuck thread per check and process.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future

from django.conf import settings
from django.db import connection, connections

HEALTH_TIMEOUT_SECONDS = 2.0

_in_flight: dict[object, Future] = {}
_lock = threading.Lock()


def database_health() -> dict:
    """SELECT 1 on a connection of this thread's own (a check thread: a new one each time, within
    DB_CONNECT_TIMEOUT), closed afterwards."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "down"; the reason is shown, not raised
        return {"ok": False, "vendor": connection.vendor, "error": exc.__class__.__name__}
    finally:
        connections.close_all()
    return {"ok": True, "vendor": connection.vendor}


def broker_health() -> dict:
    """Redis when configured; otherwise jobs run in-process and there is no broker to lose."""
    if not settings.REDIS_URL:
        return {"ok": True, "kind": "in-process"}
    import redis

    try:
        client = redis.Redis.from_url(
            settings.REDIS_URL,
            socket_timeout=HEALTH_TIMEOUT_SECONDS,
            socket_connect_timeout=HEALTH_TIMEOUT_SECONDS,
        )
        client.ping()
        client.close()
    except redis.RedisError as exc:
        return {"ok": False, "kind": "redis", "error": exc.__class__.__name__}
    return {"ok": True, "kind": "redis"}


def _started(check) -> Future:
    """The check's run in flight, or a new one in a daemon thread (a stuck one must not keep a
    worker from exiting)."""
    with _lock:
        future = _in_flight.get(check)
        if future is None or future.done():
            future = _in_flight[check] = Future()
            threading.Thread(target=_run, args=(check, future), daemon=True).start()
    return future


def _run(check, future: Future) -> None:
    try:
        future.set_result(check())
    except Exception as exc:  # reported as down by portal_health, never left unfinished
        future.set_exception(exc)


def portal_health(timeout: float | None = None) -> dict:
    """Both checks, each reported down ("Timeout") when it has not answered within `timeout`
    seconds (HEALTH_TIMEOUT_SECONDS, read at each call: a test may shorten it)."""
    timeout = HEALTH_TIMEOUT_SECONDS if timeout is None else timeout
    late = {
        "database": {"ok": False, "vendor": connection.vendor, "error": "Timeout"},
        "broker": {"ok": False, "kind": "redis", "error": "Timeout"},
    }
    running = {"database": _started(database_health), "broker": _started(broker_health)}
    deadline = time.monotonic() + timeout
    checks = {}
    for name, future in running.items():
        try:
            checks[name] = future.result(timeout=max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            checks[name] = late[name]
        except Exception as exc:
            checks[name] = {**late[name], "error": exc.__class__.__name__}
    return {"status": "ok" if all(c["ok"] for c in checks.values()) else "degraded", **checks}

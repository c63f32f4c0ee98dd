"""Health of what the portal depends on, for /healthz and load balancers."""

from __future__ import annotations

from django.conf import settings
from django.db import connection


def database_health() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "down"; the reason is shown, not raised
        return {"ok": False, "vendor": connection.vendor, "error": exc.__class__.__name__}
    return {"ok": True, "vendor": connection.vendor}


def broker_health() -> dict:
    """Redis when configured; otherwise jobs run in-process and there is no broker to lose."""
    if not settings.REDIS_URL:
        return {"ok": True, "kind": "in-process"}
    import redis

    try:
        client = redis.Redis.from_url(
            settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2
        )
        client.ping()
    except redis.RedisError as exc:
        return {"ok": False, "kind": "redis", "error": exc.__class__.__name__}
    return {"ok": True, "kind": "redis"}


def portal_health() -> dict:
    checks = {"database": database_health(), "broker": broker_health()}
    return {"status": "ok" if all(c["ok"] for c in checks.values()) else "degraded", **checks}

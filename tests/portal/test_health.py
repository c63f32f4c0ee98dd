import threading
import time
from unittest import mock

import pytest
from django.db import connection
from django.db.backends.utils import CursorWrapper
from django.db.utils import OperationalError

from portal import health
from tests.api_errors import error_code


@pytest.mark.django_db
def test_healthz_reports_database_and_broker_without_signing_in(client, settings):
    settings.REDIS_URL = ""
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"] == {"ok": True, "vendor": connection.vendor}
    assert body["broker"] == {"ok": True, "kind": "in-process"}
    assert response["Cache-Control"].startswith("max-age=0")


@pytest.mark.django_db
def test_healthz_sees_the_real_redis_broker(client, settings, redis_url):
    settings.REDIS_URL = redis_url
    body = client.get("/healthz").json()
    assert body["broker"] == {"ok": True, "kind": "redis"}


@pytest.mark.django_db
def test_healthz_answers_503_when_the_broker_is_down(client, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "degraded"
    assert body["broker"]["ok"] is False
    assert body["broker"]["error"] == "ConnectionError"


@pytest.mark.django_db
def test_healthz_answers_503_when_the_database_is_down(client, settings):
    settings.REDIS_URL = ""
    # On the class: the check runs in a thread of its own, with a connection of its own.
    with mock.patch.object(CursorWrapper, "execute", side_effect=OperationalError("down")):
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["database"] == {
        "ok": False,
        "vendor": connection.vendor,
        "error": "OperationalError",
    }


@pytest.mark.django_db
def test_healthz_answers_503_within_its_own_timeout_when_a_check_never_returns(
    client, settings, monkeypatch
):
    settings.REDIS_URL = ""
    # Its own timeout, shortened from 2 s: the test waits for it twice.
    monkeypatch.setattr(health, "HEALTH_TIMEOUT_SECONDS", 0.5)
    released, calls = threading.Event(), []

    def stuck() -> dict:
        calls.append(1)
        released.wait(30)
        return {"ok": True, "vendor": "stuck"}

    try:
        with mock.patch.object(health, "database_health", stuck):
            started = time.monotonic()
            response = client.get("/healthz")
            took = time.monotonic() - started
            # Asked again while that check is still stuck: it is waited on, not started twice.
            again = client.get("/healthz")
    finally:
        released.set()
    assert response.status_code == 503
    assert response.json()["database"] == {
        "ok": False,
        "vendor": connection.vendor,
        "error": "Timeout",
    }
    assert health.HEALTH_TIMEOUT_SECONDS - 0.1 < took < health.HEALTH_TIMEOUT_SECONDS + 0.5
    assert again.status_code == 503 and len(calls) == 1


def test_a_path_nothing_answers_under_the_api_is_a_json_404_and_a_page_elsewhere(client):
    api = client.get("/api/v1/proposals/-1.5e-38/pdf/")
    assert api.status_code == 404 and api["Content-Type"] == "application/problem+json"
    assert error_code(api) == "not_found" and api.json()["status"] == 404
    page = client.get("/no-such-page/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")

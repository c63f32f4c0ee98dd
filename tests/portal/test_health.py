from unittest import mock

import pytest
from django.db import connection
from django.db.utils import OperationalError


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
    with mock.patch.object(connection, "cursor", side_effect=OperationalError("down")):
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["database"] == {
        "ok": False,
        "vendor": connection.vendor,
        "error": "OperationalError",
    }


def test_a_path_nothing_answers_under_the_api_is_a_json_404_and_a_page_elsewhere(client):
    api = client.get("/api/v1/proposals/-1.5e-38/pdf/")
    assert api.status_code == 404 and api["Content-Type"] == "application/json"
    assert api.json() == {"detail": "Not found."}
    page = client.get("/no-such-page/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")

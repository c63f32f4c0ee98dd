"""Degrade, don't fail: the database out of reach answers 503 (a page, or the API's JSON error),
never a traceback; a broker out of reach never fails a committed write; the cache acts empty."""

from __future__ import annotations

import contextlib
import logging
import time
from unittest import mock

import pytest
from django.db import OperationalError, transaction
from django.db.backends.utils import CursorWrapper
from django.db.models.sql.compiler import SQLCompiler
from django.test import Client

from integrations.services import api_token_issue
from tests.api_errors import field_errors


@contextlib.contextmanager
def _database_down():
    """Every statement fails as with the server gone: the ORM's and the hand-written ones
    (portal.statements: the session's user, the share link and API token lookups)."""
    down = OperationalError("connection refused")
    with (
        mock.patch.object(SQLCompiler, "execute_sql", side_effect=down),
        mock.patch.object(CursorWrapper, "execute", side_effect=down),
    ):
        yield


@pytest.fixture
def quiet_client():
    """A client that gets the response a browser would, not the exception."""
    return Client(raise_request_exception=False)


def _assert_no_traceback(text: str) -> None:
    assert "Traceback" not in text and "OperationalError" not in text


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "heading"),
    [("en", "FabricQuote is temporarily unavailable"), ("zh-hans", "FabricQuote 暂时无法访问")],
)
def test_a_page_answers_a_503_page_in_the_readers_language(
    quiet_client, make_user, language, heading
):
    quiet_client.force_login(make_user("sales-user"))
    with _database_down():
        # The session and the user are read by middleware, before any view.
        staff = quiet_client.get("/quotes/", HTTP_ACCEPT_LANGUAGE=language)
        share = quiet_client.get("/p/some-token", HTTP_ACCEPT_LANGUAGE=language)
    for response in (staff, share):
        text = response.content.decode()
        assert response.status_code == 503 and response["Retry-After"]
        assert response["Content-Type"].startswith("text/html") and heading in text
        _assert_no_traceback(text)


@pytest.mark.django_db
def test_the_api_answers_a_503_in_its_error_shape(quiet_client, make_user):
    _, raw = api_token_issue(user=make_user("crm"), scope="read", name="CRM")
    with _database_down():
        response = quiet_client.get("/api/v1/customers/", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 503 and response["Retry-After"]
    body = response.json()
    assert response["Content-Type"] == "application/problem+json"
    assert body["code"] == "service_unavailable" and "temporarily unavailable" in body["detail"]
    assert not field_errors(response)
    _assert_no_traceback(response.content.decode())


@pytest.mark.django_db
def test_a_view_that_finds_the_database_down_answers_503_even_in_debug(client, settings):
    settings.DEBUG = True  # the middleware answers before Django's debug page could
    with mock.patch(
        "proposals.share.guard.share_link_resolve", side_effect=OperationalError("gone")
    ):
        response = client.get("/p/some-token")
    assert response.status_code == 503
    _assert_no_traceback(response.content.decode())


@pytest.mark.django_db
def test_other_errors_are_still_500(quiet_client):
    with mock.patch("proposals.share.guard.share_link_resolve", side_effect=RuntimeError("bug")):
        assert quiet_client.get("/p/some-token").status_code == 500


# --- the broker --------------------------------------------------------------------------------


@pytest.fixture
def broker_pause_reset():
    from portal import queueing

    queueing._paused_until = 0.0
    yield
    queueing._paused_until = 0.0  # later tests queue in-process again at once


@pytest.mark.django_db(transaction=True)
def test_a_committed_write_survives_the_broker_being_down(caplog, broker_pause_reset):
    from kombu.exceptions import OperationalError as BrokerError

    from portal.models import User
    from portal.queueing import enqueue_or_leave_to_sweeper

    tries = []

    def send(name, pk, queue=None):
        tries.append(pk)
        raise BrokerError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    with (
        caplog.at_level(logging.WARNING, logger="portal.queueing"),
        mock.patch("portal.queueing.enqueue", side_effect=send),
    ):
        with transaction.atomic():
            user = User.objects.create(username="kept")
            transaction.on_commit(lambda: enqueue_or_leave_to_sweeper("portal.ping", user.pk))
        assert User.objects.filter(username="kept").exists()
        assert "left to the sweeper" in caplog.text
        # The next requests do not wait for the broker again for a few seconds.
        assert enqueue_or_leave_to_sweeper("portal.ping", user.pk) is False
    assert tries == [user.pk]


def test_the_cache_acts_empty_and_fast_while_redis_is_down(caplog):
    from portal import cache as portal_cache
    from portal.cache import ForgivingRedisCache

    portal_cache._paused_until.clear()
    cache = ForgivingRedisCache(
        "redis://127.0.0.1:9/0", {"OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}
    )
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="portal.cache"):
        assert cache.get("k", "fallback") == "fallback"
        assert cache.add("k", 1) is False
        cache.set("k", 1)
        assert cache.get_many(["k"]) == {}
        with pytest.raises(ValueError):
            cache.incr("k")
    assert time.monotonic() - started < 5
    warnings = [r for r in caplog.records if "Redis cache unreachable" in r.getMessage()]
    assert len(warnings) == 1  # one per pause, not one per call
    portal_cache._paused_until.clear()

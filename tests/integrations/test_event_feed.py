"""The event feed (GET /api/v1/events/): every announced event, once, scoped to the customers
the caller may see; retention; WEBHOOKS_ALLOW_LOOPBACK from the environment."""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.utils import timezone

from integrations.models import Event, WebhookDelivery, WebhookEndpoint
from integrations.tasks import webhooks_purge_task
from integrations.webhooks import webhook_emit, webhook_secret_new
from tests.api_errors import field_errors
from tests.quoting.api_world import token_client
from tests.quoting.factories import CustomerFactory

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def qw(qw):
    """The conftest's world without the events its making announced (quote.created)."""
    Event.objects.all().delete()
    return qw


def _emit(customer_id, event_type="quote.sent", **data):
    webhook_emit(event_type=event_type, customer_id=customer_id, data={"n": 0, **data})


def test_every_event_is_stored_once_even_when_nobody_listens(qw):
    _emit(qw.world.customer.pk, n=1)
    event = Event.objects.get()
    assert not WebhookDelivery.objects.exists()
    items = token_client(qw.world.sales).get("/api/v1/events/").json()["results"]
    assert items == [
        {
            "type": "quote.sent",
            "id": event.event_id,
            "timestamp": event.timestamp.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "data": {"n": 1},
        }
    ]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", items[0]["timestamp"])


def test_the_feed_pages_after_an_event_and_shows_only_visible_customers(qw):
    theirs = CustomerFactory(team=qw.world.other_team, owner=qw.world.other_sales)
    for n in range(5):
        _emit(qw.world.customer.pk, n=n)
        _emit(theirs.pk, n=100 + n)
    _emit(qw.world.customer.pk, event_type="quote.accepted", n=5)
    api = token_client(qw.world.sales)
    seen, url = [], "/api/v1/events/?page_size=2"
    for _ in range(10):
        page = api.get(url)
        assert page.status_code == 200, page.content
        seen += [e["data"]["n"] for e in page.json()["results"]]
        url = page.json()["next"]
        if not page.json()["has_more"]:
            break
    assert seen == [0, 1, 2, 3, 4, 5]  # oldest first, another team's customer's events hidden
    assert api.get(url).json()["results"] == []  # caught up: `next` is the URL to poll
    assert "after=" in url
    # The other team sees its own.
    theirs_seen = token_client(qw.world.other_sales).get("/api/v1/events/").json()["results"]
    assert [e["data"]["n"] for e in theirs_seen] == [100, 101, 102, 103, 104]
    # A type filter, repeated or a comma list.
    only = api.get("/api/v1/events/?type=quote.accepted").json()["results"]
    assert [e["type"] for e in only] == ["quote.accepted"]
    both = api.get("/api/v1/events/?type=quote.accepted,quote.sent").json()["results"]
    assert len(both) == 6
    both = api.get("/api/v1/events/?type=quote.accepted&type=quote.sent").json()["results"]
    assert len(both) == 6
    third = Event.objects.filter(customer_id=qw.world.customer.pk).order_by("pk")[2]
    after = api.get(f"/api/v1/events/?after={third.event_id}").json()["results"]
    assert [e["data"]["n"] for e in after] == [3, 4, 5]


def test_an_unknown_after_or_type_or_page_size_is_a_400(qw):
    api = token_client(qw.world.sales)
    response = api.get("/api/v1/events/?after=msg_nope")
    assert response.status_code == 400
    assert "after" in field_errors(response)
    assert api.get("/api/v1/events/?type=quote.nope").status_code == 400
    assert api.get("/api/v1/events/?page_size=501").status_code == 400
    assert api.get("/api/v1/events/?page_size=0").status_code == 400
    assert api.get("/api/v1/events/?colour=red").status_code == 400
    assert api.get("/api/v1/events/?updated_since=nope").status_code == 400


def test_updated_since_on_the_feed(qw):
    _emit(qw.world.customer.pk, n=1)
    Event.objects.update(timestamp=timezone.now() - dt.timedelta(days=2))
    _emit(qw.world.customer.pk, n=2)
    since = (timezone.now() - dt.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    items = token_client(qw.world.sales).get(f"/api/v1/events/?updated_since={since}")
    assert [e["data"]["n"] for e in items.json()["results"]] == [2]


def test_events_and_deliveries_past_the_retention_are_purged(qw, settings):
    settings.WEBHOOKS_RETENTION_DAYS = 30
    endpoint = WebhookEndpoint.objects.create(
        url="https://crm.example/hook",
        secret=webhook_secret_new(),
        events=["quote.sent"],
        created_by=qw.world.sales,
    )
    gone = WebhookEndpoint.objects.create(
        url="https://crm.example/old",
        secret=webhook_secret_new(),
        events=["quote.sent"],
        created_by=qw.world.sales,
        deleted_at=timezone.now() - dt.timedelta(days=31),
    )
    old = timezone.now() - dt.timedelta(days=31)
    for n in range(2):
        Event.objects.create(event_id=f"msg_old{n}", type="quote.sent", timestamp=old, data={})
    Event.objects.create(event_id="msg_new", type="quote.sent", timestamp=timezone.now(), data={})
    for event_id in ("msg_old0", "msg_new"):
        WebhookDelivery.objects.create(
            endpoint=endpoint, event_id=event_id, event_type="quote.sent", payload={}
        )
    WebhookDelivery.objects.filter(event_id="msg_old0").update(created=old)
    assert webhooks_purge_task() == {"events": 2, "deliveries": 1, "endpoints": 1}
    assert list(Event.objects.values_list("event_id", flat=True)) == ["msg_new"]
    assert list(WebhookDelivery.objects.values_list("event_id", flat=True)) == ["msg_new"]
    assert not WebhookEndpoint.objects.filter(pk=gone.pk).exists()


def _settings_in_a_subprocess(module: str, **env) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("WEBHOOKS_", "DJANGO_"))}
    environ.update(env)
    return subprocess.run(  # noqa: S603
        [
            sys.executable,
            "-c",
            f"import {module} as s; print('LOOPBACK', s.WEBHOOKS_ALLOW_LOOPBACK)",
        ],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_loopback_comes_from_the_environment_and_production_refuses_it():
    assert "LOOPBACK False" in _settings_in_a_subprocess("portal.settings.base").stdout
    allowed = _settings_in_a_subprocess("portal.settings.base", WEBHOOKS_ALLOW_LOOPBACK="true")
    assert "LOOPBACK True" in allowed.stdout
    production = {
        "SECRET_KEY": "x" * 60,
        "ALLOWED_HOSTS": "portal.example",
        "TRUSTED_PROXY_COUNT": "1",
    }
    refused = _settings_in_a_subprocess(
        "portal.settings.production", WEBHOOKS_ALLOW_LOOPBACK="true", **production
    )
    assert refused.returncode != 0
    assert "WEBHOOKS_ALLOW_LOOPBACK" in refused.stderr
    fine = _settings_in_a_subprocess("portal.settings.production", **production)
    assert "LOOPBACK False" in fine.stdout, fine.stderr

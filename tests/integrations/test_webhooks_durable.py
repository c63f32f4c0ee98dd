"""Durable webhooks (issue 24): a schedule over days, disabling, the delivery log, redelivery,
the ping, secret rotation, and the fault drill of a receiver down for three days."""

from __future__ import annotations

import datetime as dt
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from unittest import mock

import pytest
from django.core import mail
from django.utils import timezone
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from integrations.models import (
    WEBHOOK_PING,
    DeliveryStatus,
    Event,
    WebhookDelivery,
    WebhookEndpoint,
)
from integrations.tasks import webhook_deliver, webhook_deliveries_requeue
from integrations.webhooks import (
    MAX_ATTEMPTS,
    WEBHOOK_RETRY_SCHEDULE,
    webhook_emit,
    webhook_retry_delay,
    webhook_secret_new,
)
from tests.quoting.api_world import token_client
from tests.service_helpers import serve_in_background


@pytest.fixture
def qw(qw):
    """The conftest's world without the events its making announced (quote.created)."""
    Event.objects.all().delete()
    return qw


class LoopbackReceiver:
    """A receiver on 127.0.0.1 answering `code`; `port` lets the drill bring it back on the same
    port after it was down."""

    def __init__(self, *, port: int = 0, code: int = 200):
        self.requests: list[tuple[dict, bytes]] = []
        self.code = code
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(receiver.code)
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hook"
        serve_in_background(self.server)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receivers():
    made: list[LoopbackReceiver] = []

    def make(**kwargs) -> LoopbackReceiver:
        made.append(LoopbackReceiver(**kwargs))
        return made[-1]

    yield make
    for r in made:
        r.close()


def verify_at(secret: str, headers: dict, body: bytes, at: dt.datetime | None = None) -> None:
    """The official library's check; `at` is the receiver's clock (the drill moves it)."""
    if at is None:
        Webhook(secret).verify(body, headers)
        return

    class Clock(dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return at

    with mock.patch("standardwebhooks.webhooks.datetime", Clock):
        Webhook(secret).verify(body, headers)


def _endpoint(qw, url, events=("quote.sent", "quote.accepted")) -> WebhookEndpoint:
    return WebhookEndpoint.objects.create(
        url=url, secret=webhook_secret_new(), events=list(events), created_by=qw.world.sales
    )


def _emit(qw, event_type="quote.sent", **data) -> None:
    webhook_emit(
        event_type=event_type,
        customer_id=qw.world.customer.pk,
        data={"quote": {"id": qw.quote.pk}, **data},
    )


def test_the_schedule_spans_more_than_three_days():
    assert sum(WEBHOOK_RETRY_SCHEDULE) >= 3 * 86400
    assert len(WEBHOOK_RETRY_SCHEDULE) + 1 == MAX_ATTEMPTS
    assert webhook_retry_delay(1) == WEBHOOK_RETRY_SCHEDULE[0]
    assert webhook_retry_delay(MAX_ATTEMPTS) is None  # the last try is the last


def test_a_receiver_down_for_three_days_gets_every_event_with_its_original_id(
    qw, receivers, django_capture_on_commit_callbacks
):
    down = receivers()
    port = down.port
    down.close()  # nothing listens: every try is a refused connection
    endpoint = _endpoint(qw, f"http://127.0.0.1:{port}/hook")
    start = timezone.now()
    clock = [start]

    def advance_to(moment: dt.datetime) -> None:
        # The beat's sweeper, run whenever a delivery is due (a minute late, as in production).
        while True:
            due = (
                WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING)
                .order_by("next_attempt_at")
                .values_list("next_attempt_at", flat=True)
                .first()
            )
            if due is None or due + dt.timedelta(seconds=61) > moment:
                break
            clock[0] = due + dt.timedelta(seconds=61)
            webhook_deliveries_requeue()
        clock[0] = moment

    with mock.patch("django.utils.timezone.now", side_effect=lambda: clock[0]):
        for offset_hours in (0, 1, 30):
            advance_to(start + dt.timedelta(hours=offset_hours))
            with django_capture_on_commit_callbacks(execute=True):
                _emit(qw, n=offset_hours)
        advance_to(start + dt.timedelta(days=3))
        pending = WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING)
        assert pending.count() == 3  # three days of failures, nothing given up
        assert all(d.attempts >= 5 for d in pending)
        up = receivers(port=port)  # the receiver is back
        advance_to(start + dt.timedelta(days=5))
        endpoint.refresh_from_db()
        assert endpoint.active and endpoint.disabled_at is None
        assert set(WebhookDelivery.objects.values_list("status", flat=True)) == {"delivered"}
        received_ids = [h["webhook-id"] for h, _b in up.requests]
        assert sorted(received_ids) == sorted(Event.objects.values_list("event_id", flat=True))
        for headers, body in up.requests:
            sent_at = dt.datetime.fromtimestamp(int(headers["webhook-timestamp"]), tz=dt.UTC)
            verify_at(endpoint.secret, headers, body, at=sent_at)
            assert json.loads(body)["id"] == headers["webhook-id"]
            assert sent_at > start + dt.timedelta(days=3)


def test_an_endpoint_failing_its_whole_schedule_is_disabled_and_its_creator_told(
    qw, receivers, django_capture_on_commit_callbacks
):
    qw.world.sales.email = "wang@example.com"
    qw.world.sales.save()
    r = receivers(code=503)
    endpoint = _endpoint(qw, r.url)
    with django_capture_on_commit_callbacks(execute=True):
        _emit(qw)
    delivery = WebhookDelivery.objects.get()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        attempts=MAX_ATTEMPTS - 1, next_attempt_at=timezone.now()
    )
    with django_capture_on_commit_callbacks(execute=True):
        webhook_deliver.apply(args=[delivery.pk])
    delivery.refresh_from_db()
    endpoint.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.FAILED, MAX_ATTEMPTS)
    assert not endpoint.active
    assert endpoint.disabled_at is not None
    assert "503" in endpoint.disabled_reason
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["wang@example.com"]
    assert r.url in mail.outbox[0].subject
    # Nothing more goes out while it is disabled.
    with django_capture_on_commit_callbacks(execute=True):
        _emit(qw)
    assert WebhookDelivery.objects.count() == 1
    # Re-enabled by its owner: the reason is cleared.
    api = token_client(qw.world.sales)
    response = api.patch(
        f"/api/v1/webhook-endpoints/{endpoint.pk}/", {"active": True}, format="json"
    )
    assert response.status_code == 200
    assert (response.json()["active"], response.json()["disabled_at"]) == (True, None)
    assert response.json()["disabled_reason"] == ""


def test_an_endpoint_that_answered_since_is_not_disabled(
    qw, receivers, django_capture_on_commit_callbacks
):
    r = receivers(code=503)
    endpoint = _endpoint(qw, r.url)
    with django_capture_on_commit_callbacks(execute=True):
        _emit(qw)
    failing = WebhookDelivery.objects.get()
    r.code = 200
    with django_capture_on_commit_callbacks(execute=True):
        _emit(qw)  # a later one gets through
    r.code = 503
    WebhookDelivery.objects.filter(pk=failing.pk).update(
        attempts=MAX_ATTEMPTS - 1, next_attempt_at=timezone.now()
    )
    webhook_deliver.apply(args=[failing.pk])
    endpoint.refresh_from_db()
    assert endpoint.active and endpoint.disabled_at is None
    assert mail.outbox == []


def test_the_delivery_log_outlives_the_endpoint(qw, receivers, django_capture_on_commit_callbacks):
    r = receivers()
    endpoint = _endpoint(qw, r.url)
    with django_capture_on_commit_callbacks(execute=True):
        _emit(qw)
        _emit(qw, event_type="quote.accepted")
    api = token_client(qw.world.sales)
    assert api.delete(f"/api/v1/webhook-endpoints/{endpoint.pk}/").status_code == 204
    assert api.get("/api/v1/webhook-endpoints/").json()["count"] == 0
    assert api.get(f"/api/v1/webhook-endpoints/{endpoint.pk}/").status_code == 404
    response = api.get(f"/api/v1/webhook-endpoints/{endpoint.pk}/deliveries/")
    assert response.status_code == 200
    items = response.json()["results"]
    assert [i["event_type"] for i in items] == ["quote.accepted", "quote.sent"]  # newest first
    first = items[1]
    assert set(first) >= {
        "id",
        "event_id",
        "event_type",
        "status",
        "attempts",
        "response_code",
        "response_excerpt",
        "attempt_log",
        "next_attempt_at",
        "delivered_at",
        "created",
        "body",
    }
    assert (first["status"], first["response_code"], first["response_excerpt"]) == (
        "delivered",
        200,
        "ok",
    )
    assert first["body"] == json.loads(r.requests[0][1])
    assert first["body"]["id"] == first["event_id"]
    filtered = api.get(f"/api/v1/webhook-endpoints/{endpoint.pk}/deliveries/?event_type=quote.sent")
    assert [i["event_type"] for i in filtered.json()["results"]] == ["quote.sent"]
    assert (
        api.get(f"/api/v1/webhook-endpoints/{endpoint.pk}/deliveries/?status=failed").json()[
            "results"
        ]
        == []
    )
    assert (
        api.get(f"/api/v1/webhook-endpoints/{endpoint.pk}/deliveries/?status=nope").status_code
        == 400
    )
    # A deleted endpoint hears nothing more, and is nobody else's to read.
    with django_capture_on_commit_callbacks(execute=True):
        _emit(qw)
    assert WebhookDelivery.objects.count() == 2
    other = token_client(qw.world.other_sales)
    assert other.get(f"/api/v1/webhook-endpoints/{endpoint.pk}/deliveries/").status_code == 404
    # Redelivering to it is refused.
    response = api.post(
        f"/api/v1/webhook-endpoints/{endpoint.pk}/deliveries/{first['id']}/redeliver/"
    )
    assert response.status_code == 409


def test_redelivering_one_sends_the_same_message_again(
    qw, receivers, django_capture_on_commit_callbacks
):
    r = receivers()
    endpoint = _endpoint(qw, r.url)
    with django_capture_on_commit_callbacks(execute=True):
        _emit(qw)
    original = WebhookDelivery.objects.get()
    api = token_client(qw.world.sales)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            f"/api/v1/webhook-endpoints/{endpoint.pk}/deliveries/{original.pk}/redeliver/"
        )
    assert response.status_code == 202
    assert response.json()["id"] != original.pk
    assert response.json()["event_id"] == original.event_id
    assert len(r.requests) == 2
    (h1, b1), (h2, b2) = r.requests
    assert h1["webhook-id"] == h2["webhook-id"] == original.event_id
    assert b1 == b2  # the same bytes
    verify_at(endpoint.secret, h2, b2)
    new = WebhookDelivery.objects.get(pk=response.json()["id"])
    assert (new.status, new.attempts) == (DeliveryStatus.DELIVERED, 1)
    missing = api.post(f"/api/v1/webhook-endpoints/{endpoint.pk}/deliveries/999999/redeliver/")
    assert missing.status_code == 404


def test_redelivering_since_a_time_sends_every_message_since_once(
    qw, receivers, django_capture_on_commit_callbacks
):
    r = receivers()
    endpoint = _endpoint(qw, r.url)
    earlier = timezone.now() - dt.timedelta(hours=2)
    with django_capture_on_commit_callbacks(execute=True):
        _emit(qw)
    WebhookDelivery.objects.update(created=earlier)  # before `since`
    since = timezone.now() - dt.timedelta(minutes=1)
    r.code = 500
    with django_capture_on_commit_callbacks(execute=True):
        _emit(qw)
        _emit(qw, event_type="quote.accepted")
    r.code = 200
    api = token_client(qw.world.sales)
    url = f"/api/v1/webhook-endpoints/{endpoint.pk}/redeliver/"
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"{url}?since={since.strftime('%Y-%m-%dT%H:%M:%SZ')}")
    assert response.status_code == 202
    assert response.json() == {"redelivered": 2}  # failed and pending alike; not the older one
    assert [json.loads(b)["type"] for _h, b in r.requests[-2:]] == [
        "quote.sent",
        "quote.accepted",
    ]
    assert api.post(f"{url}?since=yesterday").status_code == 400
    assert api.post(url).status_code == 400
    # A disabled endpoint: 409.
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(active=False)
    assert api.post(f"{url}?since=2026-01-01T00:00:00Z").status_code == 409


def test_a_ping_reaches_that_endpoint_only_and_is_not_in_the_feed(
    qw, receivers, django_capture_on_commit_callbacks
):
    r, other = receivers(), receivers()
    endpoint = _endpoint(qw, r.url)
    _endpoint(qw, other.url)
    api = token_client(qw.world.sales)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/v1/webhook-endpoints/{endpoint.pk}/ping/")
    assert response.status_code == 202
    assert response.json()["event_type"] == WEBHOOK_PING
    assert response.json()["body"]["type"] == WEBHOOK_PING
    ((headers, body),) = r.requests
    verify_at(endpoint.secret, headers, body)
    assert json.loads(body)["data"] == {"endpoint": endpoint.pk}
    assert other.requests == []
    assert not Event.objects.exists()
    assert api.get("/api/v1/events/").json()["results"] == []
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(active=False)
    assert api.post(f"/api/v1/webhook-endpoints/{endpoint.pk}/ping/").status_code == 409


def test_a_rotated_secret_signs_beside_the_old_one_during_the_overlap(
    qw, receivers, django_capture_on_commit_callbacks
):
    r = receivers()
    endpoint = _endpoint(qw, r.url)
    old = endpoint.secret
    api = token_client(qw.world.sales)
    response = api.post(
        f"/api/v1/webhook-endpoints/{endpoint.pk}/rotate-secret/",
        {"overlap_hours": 2},
        format="json",
    )
    assert response.status_code == 200
    new = response.json()["secret"]
    assert new.startswith("whsec_") and new != old
    expires = dt.datetime.fromisoformat(response.json()["previous_secret_expires_at"])
    assert dt.timedelta(hours=1, minutes=59) < expires - timezone.now() <= dt.timedelta(hours=2)
    assert "secret" not in api.get(f"/api/v1/webhook-endpoints/{endpoint.pk}/").json()
    with django_capture_on_commit_callbacks(execute=True):
        _emit(qw)
    headers, body = r.requests[-1]
    assert len(headers["webhook-signature"].split(" ")) == 2  # "v1,<new> v1,<old>"
    verify_at(new, headers, body)  # a receiver with either secret accepts
    verify_at(old, headers, body)
    # After the overlap only the new one signs.
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(
        previous_secret_expires_at=timezone.now() - dt.timedelta(seconds=1)
    )
    with django_capture_on_commit_callbacks(execute=True):
        _emit(qw)
    headers, body = r.requests[-1]
    assert len(headers["webhook-signature"].split(" ")) == 1
    verify_at(new, headers, body)
    with pytest.raises(WebhookVerificationError):
        verify_at(old, headers, body)
    # No overlap: the old secret stops at once. Out of range: 400.
    response = api.post(
        f"/api/v1/webhook-endpoints/{endpoint.pk}/rotate-secret/",
        {"overlap_hours": 0},
        format="json",
    )
    assert response.json()["previous_secret_expires_at"] is None
    assert (
        api.post(
            f"/api/v1/webhook-endpoints/{endpoint.pk}/rotate-secret/",
            {"overlap_hours": 169},
            format="json",
        ).status_code
        == 400
    )
    default = api.post(f"/api/v1/webhook-endpoints/{endpoint.pk}/rotate-secret/")
    assert default.status_code == 200
    assert default.json()["previous_secret_expires_at"] is not None  # 24 h by default

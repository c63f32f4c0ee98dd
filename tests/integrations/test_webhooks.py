"""Webhooks: Standard Webhooks signatures, sent after commit, retried with backoff, recorded."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from unittest import mock

import pytest
from celery.exceptions import Retry
from django.utils import timezone

from integrations.models import DeliveryStatus, WebhookDelivery, WebhookEndpoint
from integrations.tasks import webhook_deliver
from integrations.webhooks import webhook_retry_delay
from quoting.services.quotes import quote_mark_accepted, quote_send
from tests.quoting.api_world import quote_world_make, token_client


def verify_standard_webhook(secret: str, headers: dict, body: bytes) -> bool:
    """An independent check, as a receiver would write it from the Standard Webhooks spec."""
    key = base64.b64decode(secret.split("_", 1)[1])
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(
        version == "v1" and hmac.compare_digest(sig, expected)
        for version, _, sig in (s.partition(",") for s in headers["webhook-signature"].split())
    )


class Receiver:
    """A loopback HTTP server that answers the given status codes in turn, then 200."""

    def __init__(self, codes: list[int]):
        self.codes, self.requests = list(codes), []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                code = receiver.codes.pop(0) if receiver.codes else 200
                self.send_response(code)
                self.end_headers()
                self.wfile.write(b"ok" if code == 200 else b"try later")

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def qw(make_user):
    return quote_world_make(make_user)


@pytest.fixture
def receiver():
    made = []

    def make(codes=()):
        made.append(Receiver(list(codes)))
        return made[-1]

    yield make
    for r in made:
        r.close()


def _endpoint(api, url, events=("quote.sent", "quote.accepted")):
    response = api.post("/api/v1/webhook-endpoints/", {"url": url, "events": list(events)},
                        format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def test_a_sent_quote_is_announced_signed_after_commit(qw, receiver,
                                                       django_capture_on_commit_callbacks):
    r = receiver()
    created = _endpoint(token_client(qw.world.sales), r.url)
    assert created["secret"].startswith("whsec_")
    listed = token_client(qw.world.sales).get(f"/api/v1/webhook-endpoints/{created['id']}/")
    assert "secret" not in listed.json()  # shown once, on create
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        quote_send(quote=qw.quote, user=qw.world.sales, expected_version=qw.quote.version)
        assert r.requests == []  # nothing leaves before the transaction commits
    assert len(callbacks) == 1
    headers, body = r.requests[0]
    assert verify_standard_webhook(created["secret"], headers, body)
    event = json.loads(body)
    assert event["type"] == "quote.sent"
    assert event["data"]["number"] == qw.quote.number
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.response_code, delivery.attempts) == (
        DeliveryStatus.DELIVERED, 200, 1)
    assert headers["webhook-id"] == delivery.event_id


def test_a_tampered_body_fails_verification(qw, receiver, django_capture_on_commit_callbacks):
    r = receiver()
    secret = _endpoint(token_client(qw.world.sales), r.url)["secret"]
    with django_capture_on_commit_callbacks(execute=True):
        quote_send(quote=qw.quote, user=qw.world.sales, expected_version=qw.quote.version)
    headers, body = r.requests[0]
    assert not verify_standard_webhook(secret, headers, body.replace(b"sent", b"SENT"))


def test_a_500_is_retried_with_backoff_then_delivered(qw, receiver,
                                                      django_capture_on_commit_callbacks):
    r = receiver([500])
    _endpoint(token_client(qw.world.sales), r.url)
    with django_capture_on_commit_callbacks(execute=True):
        quote_send(quote=qw.quote, user=qw.world.sales, expected_version=qw.quote.version)
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.response_code) == (DeliveryStatus.PENDING, 500)
    wait = (delivery.next_attempt_at - timezone.now()).total_seconds()
    assert 25 < wait <= 30
    # In a worker the task asks Celery to run it again after the backoff...
    with mock.patch.object(webhook_deliver, "retry", side_effect=Retry()) as retry:
        delivery.status = DeliveryStatus.PENDING
        r.codes = [503]
        with pytest.raises(Retry):
            webhook_deliver.run(delivery.pk)
    retry.assert_called_once_with(countdown=60)  # the second failure waits twice as long
    # ...and that next run succeeds.
    webhook_deliver.apply(args=[delivery.pk])
    delivery.refresh_from_db()
    assert len(r.requests) == 3
    assert len({h["webhook-id"] for h, _b in r.requests}) == 1  # the same message each time
    assert delivery.status == DeliveryStatus.DELIVERED
    assert [a["code"] for a in delivery.attempt_log] == [500, 503, 200]
    assert (delivery.response_code, delivery.response_body, delivery.attempts) == (200, "ok", 3)
    assert [webhook_retry_delay(n) for n in (1, 2, 3)] == [30, 60, 120]


def test_a_refused_endpoint_is_given_up_and_the_answer_kept(qw, receiver,
                                                            django_capture_on_commit_callbacks):
    r = receiver([410])
    _endpoint(token_client(qw.world.sales), r.url)
    with django_capture_on_commit_callbacks(execute=True):
        quote_send(quote=qw.quote, user=qw.world.sales, expected_version=qw.quote.version)
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.response_code, delivery.attempts) == (
        DeliveryStatus.FAILED, 410, 1)
    assert delivery.response_body == "try later"


def test_a_rolled_back_change_sends_nothing(qw, receiver):
    from django.db import transaction

    r = receiver()
    _endpoint(token_client(qw.world.sales), r.url)
    with pytest.raises(RuntimeError), transaction.atomic():
        quote_send(quote=qw.quote, user=qw.world.sales, expected_version=qw.quote.version)
        raise RuntimeError
    assert not WebhookDelivery.objects.exists()
    assert r.requests == []


def test_events_reach_only_endpoints_whose_owner_sees_the_customer(
        qw, receiver, django_capture_on_commit_callbacks):
    mine, theirs = receiver(), receiver()
    _endpoint(token_client(qw.world.sales), mine.url)
    _endpoint(token_client(qw.world.other_sales), theirs.url)
    with django_capture_on_commit_callbacks(execute=True):
        quote_send(quote=qw.quote, user=qw.world.sales, expected_version=qw.quote.version)
        quote_mark_accepted(quote=qw.quote, name="Dr. Chen")
    assert [json.loads(b)["type"] for _h, b in mine.requests] == ["quote.sent", "quote.accepted"]
    assert theirs.requests == []
    assert WebhookEndpoint.objects.count() == 2

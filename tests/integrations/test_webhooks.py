"""Webhooks: Standard Webhooks signatures, sent after commit, retried with backoff, recorded."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import json
import re
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from unittest import mock

import pytest
from celery.exceptions import Retry
from django.utils import timezone

from integrations.models import DeliveryStatus, WebhookDelivery, WebhookEndpoint
from integrations.tasks import webhook_deliver, webhook_deliveries_requeue
from integrations.webhooks import (
    WEBHOOK_RETRY_SCHEDULE,
    webhook_retry_delay,
    webhook_secret_new,
)
from quoting.quotes.services.quotes import quote_mark_accepted, quote_send
from tests.conftest import service_missing
from tests.quoting.api_world import token_client
from tests.service_helpers import serve_in_background


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
    """A loopback HTTP server that answers the given status codes in turn, then 200.

    `body`, `headers` and `delay` (seconds before answering) shape every answer.
    """

    def __init__(
        self,
        codes: list[int],
        *,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        delay: float = 0,
    ):
        self.codes, self.requests = list(codes), []
        receiver, answer_body = self, body

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                code = receiver.codes.pop(0) if receiver.codes else 200
                time.sleep(delay)
                self.send_response(code)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                answer = b"ok" if code == 200 else b"try later"
                self.wfile.write(answer if answer_body is None else answer_body)

            do_GET = do_POST  # a followed redirect would arrive as a GET

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True  # a slow answer does not hold up the test's end
        self.server.handle_error = lambda *_: None  # a sender that hung up early is expected
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hook"
        serve_in_background(self.server)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    made = []

    def make(codes=(), **answer):
        made.append(Receiver(list(codes), **answer))
        return made[-1]

    yield make
    for r in made:
        r.close()


def _endpoint(api, url, events=("quote.sent", "quote.accepted")):
    response = api.post(
        "/api/v1/webhook-endpoints/", {"url": url, "events": list(events)}, format="json"
    )
    assert response.status_code == 201, response.json()
    return response.json()


def test_a_sent_quote_is_announced_signed_after_commit(
    qw, receiver, django_capture_on_commit_callbacks
):
    r = receiver()
    created = _endpoint(token_client(qw.world.sales), r.url)
    assert created["secret"].startswith("whsec_")
    listed = token_client(qw.world.sales).get(f"/api/v1/webhook-endpoints/{created['id']}/")
    assert "secret" not in listed.json()  # shown once, on create
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        quote_send(quote=qw.quote, user=qw.world.sales, expected_version=qw.quote.version)
        assert r.requests == []  # nothing leaves before the transaction commits
    # One delivery queued after the commit (beside it, the header counts' generation bump).
    assert len([c for c in callbacks if "_deliveries_queue" in c.__qualname__]) == 1
    headers, body = r.requests[0]
    assert verify_standard_webhook(created["secret"], headers, body)
    event = json.loads(body)
    assert list(event) == ["type", "id", "timestamp", "data"]  # the envelope, nothing else
    assert event["type"] == "quote.sent"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", event["timestamp"])
    assert event["id"] == headers["webhook-id"]
    assert event["data"]["quote"]["number"] == qw.quote.number
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.response_code, delivery.attempts) == (
        DeliveryStatus.DELIVERED,
        200,
        1,
    )
    assert headers["webhook-id"] == delivery.event_id


def test_a_tampered_body_fails_verification(qw, receiver, django_capture_on_commit_callbacks):
    r = receiver()
    secret = _endpoint(token_client(qw.world.sales), r.url)["secret"]
    with django_capture_on_commit_callbacks(execute=True):
        quote_send(quote=qw.quote, user=qw.world.sales, expected_version=qw.quote.version)
    headers, body = r.requests[0]
    assert not verify_standard_webhook(secret, headers, body.replace(b"sent", b"SENT"))


def test_a_500_is_retried_on_the_schedule_then_delivered(
    qw, receiver, django_capture_on_commit_callbacks
):
    r = receiver([500])
    _endpoint(token_client(qw.world.sales), r.url)
    with django_capture_on_commit_callbacks(execute=True):
        quote_send(quote=qw.quote, user=qw.world.sales, expected_version=qw.quote.version)
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.response_code) == (DeliveryStatus.PENDING, 500)
    wait = (delivery.next_attempt_at - timezone.now()).total_seconds()
    assert WEBHOOK_RETRY_SCHEDULE[0] - 5 < wait <= WEBHOOK_RETRY_SCHEDULE[0]
    # In a worker the task asks Celery to run it again after the (short) wait...
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
    with mock.patch.object(webhook_deliver, "retry", side_effect=Retry()) as retry:
        r.codes = [503]
        with pytest.raises(Retry):
            webhook_deliver.run(delivery.pk)
    retry.assert_called_once_with(countdown=WEBHOOK_RETRY_SCHEDULE[1])
    # ...a task that comes early (a duplicate) does nothing...
    webhook_deliver.apply(args=[delivery.pk])
    assert len(r.requests) == 2
    # ...and the run when it is due succeeds.
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
    webhook_deliver.apply(args=[delivery.pk])
    delivery.refresh_from_db()
    assert len(r.requests) == 3
    assert len({h["webhook-id"] for h, _b in r.requests}) == 1  # the same message each time
    assert len({b for _h, b in r.requests}) == 1  # the same bytes each time
    assert delivery.status == DeliveryStatus.DELIVERED
    assert [a["code"] for a in delivery.attempt_log] == [500, 503, 200]
    assert (delivery.response_code, delivery.response_body, delivery.attempts) == (200, "ok", 3)
    assert [webhook_retry_delay(n) for n in (1, 2, 3)] == list(WEBHOOK_RETRY_SCHEDULE[:3])


def test_a_long_wait_is_left_to_the_sweeper_not_the_broker(qw, receiver):
    r = receiver([503] * 5)
    endpoint = WebhookEndpoint.objects.create(
        url=r.url, secret=webhook_secret_new(), events=["quote.sent"], created_by=qw.world.sales
    )
    delivery = WebhookDelivery.objects.create(
        endpoint=endpoint,
        event_id="msg_1",
        event_type="quote.sent",
        payload={"type": "quote.sent", "id": "msg_1", "timestamp": "x", "data": {}},
        attempts=2,
        next_attempt_at=timezone.now(),
    )
    with mock.patch.object(webhook_deliver, "retry", side_effect=Retry()) as retry:
        webhook_deliver.run(delivery.pk)  # the third failure waits 30 min: no Celery retry
    retry.assert_not_called()
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.PENDING
    assert webhook_deliveries_requeue() == 0  # not due yet
    later = timezone.now() + dt.timedelta(seconds=WEBHOOK_RETRY_SCHEDULE[2] + 61)
    with mock.patch("django.utils.timezone.now", return_value=later):
        assert webhook_deliveries_requeue() == 1  # due: queued (and run, eagerly)
    delivery.refresh_from_db()
    assert delivery.attempts == 4


def test_a_refused_endpoint_is_given_up_and_the_answer_kept(
    qw, receiver, django_capture_on_commit_callbacks
):
    r = receiver([410])
    _endpoint(token_client(qw.world.sales), r.url)
    with django_capture_on_commit_callbacks(execute=True):
        quote_send(quote=qw.quote, user=qw.world.sales, expected_version=qw.quote.version)
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.response_code, delivery.attempts) == (
        DeliveryStatus.FAILED,
        410,
        1,
    )
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
    qw, receiver, django_capture_on_commit_callbacks
):
    mine, theirs = receiver(), receiver()
    _endpoint(token_client(qw.world.sales), mine.url)
    _endpoint(token_client(qw.world.other_sales), theirs.url)
    with django_capture_on_commit_callbacks(execute=True):
        quote_send(quote=qw.quote, user=qw.world.sales, expected_version=qw.quote.version)
        quote_mark_accepted(quote=qw.quote, name="Dr. Chen")
    assert [json.loads(b)["type"] for _h, b in mine.requests] == ["quote.sent", "quote.accepted"]
    assert theirs.requests == []
    assert WebhookEndpoint.objects.count() == 2


# --- Safe delivery (issue 13, finding 2): re-checked, pinned, no redirects, short, truncated.


def _deliver_one(qw, url, django_capture_on_commit_callbacks):
    WebhookEndpoint.objects.create(
        url=url, secret=webhook_secret_new(), events=["quote.sent"], created_by=qw.world.sales
    )
    with django_capture_on_commit_callbacks() as callbacks:
        quote_send(quote=qw.quote, user=qw.world.sales, expected_version=qw.quote.version)
    # Only the delivery: the send's PDFs (rendered after the commit too) are not these tests'
    # business, and their seconds would be counted in the delivery's.
    for callback in callbacks:
        if "_deliveries_queue" in callback.__qualname__:
            callback()
    return WebhookDelivery.objects.get()


def test_a_host_that_now_resolves_to_a_private_address_is_refused_without_connecting(
    qw, fake_dns, django_capture_on_commit_callbacks
):
    fake_dns({"crm.example": ["93.184.215.14"]})
    api = token_client(qw.world.sales)
    assert (
        api.post(
            "/api/v1/webhook-endpoints/",
            {"url": "https://crm.example/hook", "events": ["quote.sent"]},
            format="json",
        ).status_code
        == 201
    )  # public when registered...
    fake_dns({"crm.example": ["93.184.215.14", "10.0.0.1"]})  # ...internal by delivery time
    with (
        mock.patch("integrations.tasks.webhook_post") as post,
        django_capture_on_commit_callbacks(execute=True),
    ):
        quote_send(quote=qw.quote, user=qw.world.sales, expected_version=qw.quote.version)
    post.assert_not_called()
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.response_code) == (
        DeliveryStatus.FAILED,
        1,
        None,
    )  # refused for good, not retried
    assert "10.0.0.1" in delivery.attempt_log[0]["error"]


def test_a_redirect_is_not_followed_and_the_delivery_fails(
    qw, receiver, django_capture_on_commit_callbacks
):
    target = receiver()
    redirecting = receiver([302], headers={"Location": target.url}, body=b"")
    delivery = _deliver_one(qw, redirecting.url, django_capture_on_commit_callbacks)
    assert len(redirecting.requests) == 1
    assert target.requests == []  # the redirect's target got nothing, neither POST nor GET
    assert (delivery.status, delivery.response_code, delivery.attempts) == (
        DeliveryStatus.FAILED,
        302,
        1,
    )
    assert delivery.attempt_log[0]["error"] == "Redirects are not followed."


def test_the_stored_answer_is_cut_to_the_excerpt_size(
    qw, receiver, settings, django_capture_on_commit_callbacks
):
    r = receiver([410], body=b"x" * 100_000)
    delivery = _deliver_one(qw, r.url, django_capture_on_commit_callbacks)
    assert settings.WEBHOOKS_RESPONSE_EXCERPT_BYTES == 1024
    assert delivery.response_body == "x" * 1024


def test_a_slow_receiver_times_out_quickly_and_is_retried(
    qw, receiver, settings, django_capture_on_commit_callbacks
):
    assert settings.WEBHOOKS_TIMEOUT_SECONDS <= 5  # the shipped value: seconds, not minutes
    settings.WEBHOOKS_TIMEOUT_SECONDS = 0.5
    r = receiver(delay=3)
    started = time.monotonic()
    delivery = _deliver_one(qw, r.url, django_capture_on_commit_callbacks)
    assert time.monotonic() - started < 2.5
    assert (delivery.status, delivery.response_code) == (DeliveryStatus.PENDING, None)
    assert "timed out" in delivery.attempt_log[0]["error"]
    assert delivery.attempt_log[0]["duration_ms"] < 2000


def test_the_post_goes_to_the_checked_address_with_the_original_host_header(
    qw, receiver, fake_dns, monkeypatch, django_capture_on_commit_callbacks
):
    import socket

    r = receiver()
    fake_dns({"crm.example": ["127.0.0.1"]})  # loopback is allowed in tests only
    lookups = []
    resolve = socket.getaddrinfo

    def counting(host, *args, **kwargs):
        lookups.append(host)
        return resolve(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", counting)
    delivery = _deliver_one(
        qw, f"http://crm.example:{r.port}/hook?crm=1", django_capture_on_commit_callbacks
    )
    assert delivery.status == DeliveryStatus.DELIVERED
    assert lookups.count("crm.example") == 1  # resolved once; the connection used that answer
    headers, _body = r.requests[0]
    assert headers["host"] == f"crm.example:{r.port}"


def test_https_is_verified_against_the_host_name_while_connecting_to_the_checked_address(
    qw, fake_dns, tmp_path, monkeypatch, django_capture_on_commit_callbacks
):
    """A local TLS receiver with a certificate for crm.example only: the worker connects to
    127.0.0.1 yet sends crm.example as SNI and checks the certificate for it."""
    import shutil
    import ssl
    import subprocess

    if shutil.which("openssl") is None:
        service_missing("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(  # noqa: S603
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",  # noqa: S607
            "-subj",
            "/CN=crm.example",
            "-addext",
            "subjectAltName=DNS:crm.example",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    r = Receiver([])
    server_names = []
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.sni_callback = lambda _sock, name, _ctx: server_names.append(name)
    r.server.socket = context.wrap_socket(r.server.socket, server_side=True)
    trusting = ssl.create_default_context(cafile=str(cert))
    monkeypatch.setattr("integrations.targets.ssl.create_default_context", lambda: trusting)
    fake_dns({"crm.example": ["127.0.0.1"], "other.example": ["127.0.0.1"]})
    try:
        delivery = _deliver_one(
            qw, f"https://crm.example:{r.port}/hook", django_capture_on_commit_callbacks
        )
        assert delivery.status == DeliveryStatus.DELIVERED
        assert server_names == ["crm.example"]
        # The same receiver under another name: the certificate does not match, no delivery.
        WebhookEndpoint.objects.create(
            url=f"https://other.example:{r.port}/hook",
            secret=webhook_secret_new(),
            events=["quote.accepted"],
            created_by=qw.world.sales,
        )
        with django_capture_on_commit_callbacks(execute=True):
            quote_mark_accepted(quote=qw.quote, name="Dr. Chen")
        wrong = WebhookDelivery.objects.get(event_type="quote.accepted")
    finally:
        r.close()
    assert wrong.status == DeliveryStatus.PENDING
    assert "certificate" in wrong.attempt_log[0]["error"].lower()

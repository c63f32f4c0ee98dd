"""Idempotency-Key on POST: replay, conflict, in-flight, per owner."""

from __future__ import annotations

import hashlib

from integrations.models import IdempotencyRecord, IdempotencyStatus
from quoting.customers.models import Customer
from tests.quoting.api_world import token_client


def _post(client, body, key="key-1"):
    return client.post("/api/v1/customers/", body, format="json", HTTP_IDEMPOTENCY_KEY=key)


def test_the_same_key_and_body_replays_the_first_response_and_creates_one_customer(qw):
    client = token_client(qw.world.sales)
    first = _post(client, {"company": "Replay Ltd"})
    second = _post(client, {"company": "Replay Ltd"})
    assert first.status_code == second.status_code == 201
    assert second.json() == first.json()
    assert second["Idempotent-Replayed"] == "true"
    assert Customer.objects.filter(company="Replay Ltd").count() == 1


def test_the_same_key_with_another_body_gets_422(qw):
    client = token_client(qw.world.sales)
    assert _post(client, {"company": "First Ltd"}).status_code == 201
    response = _post(client, {"company": "Second Ltd"})
    assert response.status_code == 422
    assert not Customer.objects.filter(company="Second Ltd").exists()


def test_a_retry_while_the_first_request_runs_gets_409(qw):
    client = token_client(qw.world.sales)
    body = '{"company": "Running Ltd"}'
    # The first request with this key is still running (its record says so): store it as a
    # first attempt would, then retry with the same key and body.
    assert _post(client, {"company": "Warm-up Ltd"}, key="warm-up").status_code == 201
    owner = IdempotencyRecord.objects.get(key="warm-up").owner
    IdempotencyRecord.objects.create(
        owner=owner,
        user=qw.world.sales,
        key="running",
        status=IdempotencyStatus.IN_PROGRESS,
        fingerprint=_fingerprint("POST", "/api/v1/customers/", body.encode()),
    )
    response = client.post(
        "/api/v1/customers/", body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="running"
    )
    assert response.status_code == 409
    assert not Customer.objects.filter(company="Running Ltd").exists()


def _fingerprint(method: str, path: str, body: bytes) -> str:
    digest = hashlib.sha256()
    for part in (method.encode(), path.encode(), body):
        digest.update(part + b"\0")
    return digest.hexdigest()


def test_keys_are_per_token_not_shared(qw, make_user):
    mine, theirs = token_client(qw.world.sales), token_client(qw.world.sales)
    assert _post(mine, {"company": "Mine Ltd"}, key="k").status_code == 201
    response = _post(theirs, {"company": "Theirs Ltd"}, key="k")
    assert response.status_code == 201
    assert response.json()["company"] == "Theirs Ltd"


def test_a_refused_request_stores_nothing_so_the_fixed_retry_runs(qw):
    client = token_client(qw.world.sales)
    assert _post(client, {"company": ""}, key="fix-me").status_code == 400
    assert not IdempotencyRecord.objects.filter(key="fix-me").exists()


def test_an_overlong_key_is_a_field_error(qw):
    response = _post(token_client(qw.world.sales), {"company": "X"}, key="k" * 300)
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()

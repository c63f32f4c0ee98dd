"""Idempotency-Key on every write (POST, PATCH, DELETE): replay, conflict, in-flight, per owner.

A retry with the same key, method, path and body gets the first answer again, whatever the
endpoint: a create, a POST action (send, approve, a line added), a PATCH, a DELETE.
"""

from __future__ import annotations

from integrations.models import IdempotencyRecord, IdempotencyStatus
from portal.api.idempotency import fingerprint
from quoting.customers.models import Customer
from quoting.quotes.models import Approval, ApprovalDecision, Quote, QuoteLine, QuoteStatus
from tests.api_errors import error_code, field_errors
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
        fingerprint=fingerprint("POST", "/api/v1/customers/", {"company": "Running Ltd"}),
    )
    response = client.post(
        "/api/v1/customers/", body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="running"
    )
    assert response.status_code == 409
    assert not Customer.objects.filter(company="Running Ltd").exists()


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
    assert "Idempotency-Key" in field_errors(response)


# --- every write, not only the creates ----------------------------------------------------------


def _quote_url(qw, tail=""):
    return f"/api/v1/quotes/{qw.quote.pk}/{tail}"


def _etag(client, qw) -> str:
    return client.get(_quote_url(qw))["ETag"]


def test_a_retried_send_gets_the_first_answer_not_412(qw):
    client = token_client(qw.world.sales)
    etag = _etag(client, qw)
    answers = [
        client.post(
            _quote_url(qw, "send/"), {}, format="json", HTTP_IF_MATCH=etag, HTTP_IDEMPOTENCY_KEY="s"
        )
        for _ in range(2)
    ]
    assert [a.status_code for a in answers] == [200, 200], answers[1].json()
    assert answers[1].json() == answers[0].json()
    assert answers[1]["Idempotent-Replayed"] == "true"
    assert answers[1]["ETag"] == answers[0]["ETag"]
    assert Quote.objects.get(pk=qw.quote.pk).status == QuoteStatus.SENT


def test_a_retried_approve_gets_the_first_answer(qw):
    client = token_client(qw.world.sales)
    client.patch(
        _quote_url(qw), {"discount_percent": "19"}, format="json", HTTP_IF_MATCH=_etag(client, qw)
    )
    asked = client.post(
        _quote_url(qw, "request-approval/"), {}, format="json", HTTP_IF_MATCH=_etag(client, qw)
    )
    assert asked.status_code == 200, asked.json()
    manager = token_client(qw.world.manager)
    etag = _etag(manager, qw)
    answers = [
        manager.post(
            _quote_url(qw, "approve/"),
            {"reason": "Volume"},
            format="json",
            HTTP_IF_MATCH=etag,
            HTTP_IDEMPOTENCY_KEY="approve-1",
        )
        for _ in range(2)
    ]
    assert [a.status_code for a in answers] == [200, 200], answers[1].json()
    assert answers[1].json() == answers[0].json()
    assert answers[1]["Idempotent-Replayed"] == "true"
    assert Approval.objects.get().decision == ApprovalDecision.APPROVED


def test_a_retried_line_add_adds_one_line(qw):
    client = token_client(qw.world.sales)
    etag = _etag(client, qw)
    before = QuoteLine.objects.count()
    body = {"description": "Site survey", "quantity": 1, "unit_price": "5000.00"}
    answers = [
        client.post(
            _quote_url(qw, "lines/"),
            body,
            format="json",
            HTTP_IF_MATCH=etag,
            HTTP_IDEMPOTENCY_KEY="line-1",
        )
        for _ in range(2)
    ]
    assert [a.status_code for a in answers] == [201, 201], answers[1].json()
    assert answers[1].json() == answers[0].json()
    assert answers[1]["ETag"] == answers[0]["ETag"]
    assert QuoteLine.objects.count() == before + 1


def test_a_retried_patch_and_delete_get_the_first_answer_not_412_or_404(qw):
    client = token_client(qw.world.sales)
    etag = _etag(client, qw)
    patches = [
        client.patch(
            _quote_url(qw),
            {"discount_percent": "2.5"},
            format="json",
            HTTP_IF_MATCH=etag,
            HTTP_IDEMPOTENCY_KEY="patch-1",
        )
        for _ in range(2)
    ]
    assert [p.status_code for p in patches] == [200, 200], patches[1].json()
    assert patches[1].json() == patches[0].json()
    assert patches[1]["ETag"] == patches[0]["ETag"]

    url = _quote_url(qw, f"lines/{qw.quote.current_revision.lines.first().pk}/")
    etag = patches[0]["ETag"]
    deletes = [
        client.delete(url, HTTP_IF_MATCH=etag, HTTP_IDEMPOTENCY_KEY="delete-1") for _ in range(2)
    ]
    assert [d.status_code for d in deletes] == [204, 204]
    assert deletes[1]["Idempotent-Replayed"] == "true"


def test_the_same_json_reordered_and_reformatted_replays(qw):
    client = token_client(qw.world.sales)
    bodies = (
        '{"company": "Order Ltd", "notes": "n"}',
        '{\n "notes":"n",\n "company":  "Order Ltd"}',
    )
    answers = [
        client.post(
            "/api/v1/customers/", body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="o"
        )
        for body in bodies
    ]
    assert [a.status_code for a in answers] == [201, 201], answers[1].json()
    assert answers[1]["Idempotent-Replayed"] == "true"
    assert Customer.objects.filter(company="Order Ltd").count() == 1


def test_the_same_key_on_another_path_is_422_with_a_code(qw):
    client = token_client(qw.world.sales)
    assert _post(client, {"company": "Path Ltd"}, key="p").status_code == 201
    response = client.post(
        "/api/v1/projects/", {"company": "Path Ltd"}, format="json", HTTP_IDEMPOTENCY_KEY="p"
    )
    assert response.status_code == 422
    assert error_code(response) == "idempotency_key_reused"


def test_a_refused_action_stores_nothing(qw):
    client = token_client(qw.world.sales)
    response = client.post(
        _quote_url(qw, "send/"), {}, format="json", HTTP_IF_MATCH='"999"', HTTP_IDEMPOTENCY_KEY="f"
    )
    assert response.status_code == 412
    assert not IdempotencyRecord.objects.filter(key="f").exists()


def test_a_replay_says_the_language_its_kept_answer_is_in(qw):
    """A replay is the first answer as it was worded: its Content-Language is the first
    request's, whatever language the retry asks for."""
    client = token_client(qw.world.sales)
    body = {"company": "Words Ltd"}
    first = client.post(
        "/api/v1/customers/", body, format="json",
        HTTP_IDEMPOTENCY_KEY="words", HTTP_ACCEPT_LANGUAGE="zh-hans",
    )  # fmt: skip
    replay = client.post(
        "/api/v1/customers/", body, format="json",
        HTTP_IDEMPOTENCY_KEY="words", HTTP_ACCEPT_LANGUAGE="en",
    )  # fmt: skip
    assert replay["Idempotent-Replayed"] == "true" and replay.json() == first.json()
    assert first["Content-Language"] == replay["Content-Language"] == "zh-hans"

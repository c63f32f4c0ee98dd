"""Proposals and share links through the REST API, and the webhooks they announce."""

from __future__ import annotations

import hashlib
import io
import json
import logging
from unittest import mock

import pytest
from django.conf import settings
from django.core.management import call_command

from integrations.models import IdempotencyRecord, WebhookDelivery, WebhookEndpoint
from integrations.webhooks import webhook_secret_new
from proposals.documents.selectors import document_for
from proposals.models import DocumentStatus, ProposalDocument, ShareLink
from proposals.share.services import token_hash
from quoting.quotes.services.quotes import quote_create
from tests.api_errors import field_errors
from tests.proposals.conftest import sent_pdf
from tests.proposals.reading import open_and_read
from tests.quoting.api_world import token_client


@pytest.fixture
def endpoint(world):
    """A CRM endpoint hearing every event; deliveries are written but never sent here."""
    with mock.patch("integrations.webhooks.enqueue_or_leave_to_sweeper"):
        yield WebhookEndpoint.objects.create(
            url="https://crm.example/hook",
            secret=webhook_secret_new(),
            events=["quote.viewed", "quote.accepted", "quote.declined", "proposal.ready"],
            created_by=world.sales,
        )


def _link(api, quote, **body):
    response = api.post(f"/api/v1/quotes/{quote.pk}/share-links/", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def test_the_proposal_flow_post_202_poll_until_ready_then_the_pdf(
    world, sent_quote, endpoint, django_capture_on_commit_callbacks
):
    api = token_client(world.sales)
    revision = sent_quote.current_revision
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        asked = api.post(
            f"/api/v1/quotes/{sent_quote.pk}/proposal/", {"language": "en"}, format="json"
        )
    assert asked.status_code == 202, asked.content
    state = asked.json()
    assert state["status"] == DocumentStatus.PENDING and state["pdf_url"] is None
    assert asked["Location"] == state["url"]
    # The PDF the send requested (its render queued by the send), not a second one.
    assert state["id"] == document_for(revision=revision, language="en").pk and callbacks == []
    assert ProposalDocument.objects.filter(revision=revision, language="en").count() == 1
    assert api.get(state["url"]).json()["status"] == DocumentStatus.PENDING

    sent_pdf(revision, "en")  # the worker renders it
    polled = api.get(state["url"]).json()
    assert polled["status"] == DocumentStatus.READY, polled
    assert (polled["language"], polled["attempts"], polled["error"]) == ("en", 1, "")
    assert api.get(f"/api/v1/quotes/{sent_quote.pk}/proposal/?language=en").json() == polled

    pdf = api.get(polled["pdf_url"])
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF")
    assert hashlib.sha256(pdf.content).hexdigest() == polled["sha256"]
    assert len(pdf.content) == polled["size"]

    delivery = WebhookDelivery.objects.get()
    assert delivery.event_type == "proposal.ready"
    data = delivery.payload["data"]
    assert (data["quote"]["id"], data["quote"]["number"]) == (sent_quote.pk, sent_quote.number)
    assert data["revision"] == {"id": revision.pk, "label": "R1"}
    assert data["proposal"] == {
        "id": polled["id"],
        "language": "en",
        "draft": False,
        "sha256": polled["sha256"],
        "size": polled["size"],
        "pdf_url": settings.PORTAL_URL + f"/api/v1/proposals/{polled['id']}/pdf/",
    }


def test_the_pdf_of_a_document_not_ready_is_a_202_with_its_state_and_retry_after(
    world, sent_quote, caplog
):
    api = token_client(world.sales)
    # The send requested it; its render is queued, not done.
    state = api.get(f"/api/v1/quotes/{sent_quote.pk}/proposal/?language=en").json()
    assert state["status"] == DocumentStatus.PENDING
    caplog.clear()
    with caplog.at_level("INFO"):
        response = api.get(f"/api/v1/proposals/{state['id']}/pdf/", HTTP_ACCEPT="application/pdf")
    assert response.status_code == 202
    assert response["Content-Type"] == "application/json"
    assert response.json()["status"] == "pending" and response.json()["pdf_url"] is None
    assert int(response["Retry-After"]) > 0 and response["Location"] == state["url"]
    # Routine waiting: nothing at WARNING or above for monitoring to count.
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.records


def test_the_pdf_of_a_failed_or_retired_document_is_a_409(world, sent_quote):
    api = token_client(world.sales)
    state = api.post(f"/api/v1/quotes/{sent_quote.pk}/proposal/").json()
    for gone in (DocumentStatus.FAILED, DocumentStatus.RETIRED):
        ProposalDocument.objects.filter(pk=state["id"]).update(status=gone, error="")
        response = api.get(f"/api/v1/proposals/{state['id']}/pdf/", HTTP_ACCEPT="application/pdf")
        assert response.status_code == 409 and gone in response.json()["detail"]


def test_a_proposal_post_is_idempotent(world, sent_quote):
    api = token_client(world.sales)
    url, key = f"/api/v1/quotes/{sent_quote.pk}/proposal/", {"HTTP_IDEMPOTENCY_KEY": "k-1"}
    first = api.post(url, {"language": "en"}, format="json", **key)
    again = api.post(url, {"language": "en"}, format="json", **key)
    assert again.status_code == 202 and again["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]
    other = api.post(url, {"language": "zh-hans"}, format="json", **key)
    assert other.status_code == 422


def test_a_bad_language_is_a_field_error(world, sent_quote):
    response = token_client(world.sales).post(
        f"/api/v1/quotes/{sent_quote.pk}/proposal/", {"language": "fr"}, format="json"
    )
    assert response.status_code == 400 and "language" in field_errors(response)


def test_the_token_is_returned_once_and_stored_only_as_its_hash(client, world, sent_quote):
    api = token_client(world.sales)
    created = api.post(
        f"/api/v1/quotes/{sent_quote.pk}/share-links/",
        {"recipient_name": "Li Wei", "recipient_email": "li@example.com", "days": 7},
        format="json",
        HTTP_IDEMPOTENCY_KEY="not-replayed",  # the token must not be stored for a replay
    )
    assert created.status_code == 201, created.content
    body = created.json()
    token = body["token"]
    assert body["link_url"].endswith(f"/p/{token}")
    assert ShareLink.objects.get(pk=body["id"]).token_hash == token_hash(token)

    listed = api.get(f"/api/v1/quotes/{sent_quote.pk}/share-links/")
    assert listed.status_code == 200
    (row,) = listed.json()
    assert row["id"] == body["id"] and row["recipient_name"] == "Li Wei"
    assert "token" not in row and "token_hash" not in row and "link_url" not in row
    assert token not in listed.content.decode() and token_hash(token) not in listed.content.decode()

    assert not IdempotencyRecord.objects.exists()
    dump = io.StringIO()
    call_command("dumpdata", stdout=dump)
    assert token not in dump.getvalue()


def test_the_answer_that_carries_a_new_token_may_not_be_cached(world, sent_quote):
    api = token_client(world.sales)
    created = api.post(f"/api/v1/quotes/{sent_quote.pk}/share-links/", {}, format="json")
    assert created.status_code == 201 and "token" in created.json()
    assert created["Cache-Control"] == "no-store"


def test_a_view_is_counted_listed_and_announced_without_the_token(
    client, world, sent_quote, endpoint
):
    api = token_client(world.sales)
    created = _link(api, sent_quote, recipient_name="Li Wei")
    # A reader: the page, then its script's beacon after three seconds on the cover (issue 15).
    open_and_read(created["token"], {"cover": 3}, client=client, agent="Mozilla/5.0 (iPhone)")

    (row,) = api.get(f"/api/v1/quotes/{sent_quote.pk}/share-links/").json()
    assert row["use_count"] == 1 and row["last_used_at"] is not None
    assert row["recent_views"][0]["system"] == "iOS" and row["recent_views"][0]["is_mobile"]
    assert row["recent_views"][0]["kind"] == "real" and row["recent_views"][0]["seconds"] == 3
    assert row["recent_views"][0]["sections"] == {"cover": 3}

    delivery = WebhookDelivery.objects.get(event_type="quote.viewed")
    data = delivery.payload["data"]
    assert (
        data["quote"]["id"],
        data["quote"]["number"],
        data["revision"]["label"],
        data["share_link"]["id"],
    ) == (sent_quote.pk, sent_quote.number, "R1", created["id"])
    assert created["token"] not in json.dumps(delivery.payload)


def test_accepting_through_the_link_is_announced_once(client, world, sent_quote, endpoint):
    created = _link(token_client(world.sales), sent_quote)
    answer = client.post(
        f"/p/{created['token']}/accept",
        {"revision": 1, "name": "Li Wei", "title": "CTO", "agreed": "on"},
    )
    assert answer.status_code == 302
    (delivery,) = WebhookDelivery.objects.filter(event_type="quote.accepted")
    assert delivery.payload["data"]["acceptance"]["share_link"]["id"] == created["id"]
    assert created["token"] not in json.dumps(delivery.payload)


def test_a_revoked_link_answers_404(client, world, sent_quote):
    api = token_client(world.sales)
    created = _link(api, sent_quote)
    url = f"/api/v1/quotes/{sent_quote.pk}/share-links/{created['id']}/revoke/"
    revoked = api.post(url)
    assert revoked.status_code == 200
    assert revoked.json()["revoked_at"] is not None and revoked.json()["active"] is False
    assert api.post(url).json()["revoked_at"] == revoked.json()["revoked_at"]  # once
    assert client.get(f"/p/{created['token']}").status_code == 404


@pytest.mark.parametrize("days", [0, 366, "x"])
def test_a_link_lasts_1_to_365_days(world, sent_quote, days):
    response = token_client(world.sales).post(
        f"/api/v1/quotes/{sent_quote.pk}/share-links/", {"days": days}, format="json"
    )
    assert response.status_code == 400 and "days" in field_errors(response)


def test_a_draft_cannot_be_shared_and_a_read_token_cannot_share(world, sent_quote):
    draft = quote_create(project=world.project, user=world.sales)
    response = token_client(world.sales).post(f"/api/v1/quotes/{draft.pk}/share-links/")
    assert response.status_code == 409 and "status" in response.json()
    reader = token_client(world.sales, scope="read")
    assert reader.post(f"/api/v1/quotes/{sent_quote.pk}/share-links/").status_code == 403
    assert reader.get(f"/api/v1/quotes/{sent_quote.pk}/share-links/").status_code == 200


def test_a_link_of_another_quote_cannot_be_revoked_through_mine(world, sent_quote):
    api = token_client(world.sales)
    theirs = _link(api, sent_quote)
    mine = quote_create(project=world.project, user=world.sales)
    response = api.post(f"/api/v1/quotes/{mine.pk}/share-links/{theirs['id']}/revoke/")
    assert response.status_code == 404
    assert ShareLink.objects.get(pk=theirs["id"]).revoked_at is None


def test_a_crm_subscribes_to_views_and_ready_proposals_through_the_api(client, make_user, fake_dns):
    from integrations.services import api_token_issue

    fake_dns({"crm.example": ["93.184.215.14"]})  # a public address, answered without DNS

    user = make_user("crm-owner")
    _token, raw = api_token_issue(user=user, scope="write", name="crm")
    response = client.post(
        "/api/v1/webhook-endpoints/",
        {"url": "https://crm.example/hooks", "events": ["quote.viewed", "proposal.ready"]},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert response.status_code == 201, response.content
    assert set(response.json()["events"]) == {"quote.viewed", "proposal.ready"}

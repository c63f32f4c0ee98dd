"""quote.countersigned (issue 27): the seller's countersignature is an event of its own, signed
as every delivery is (Standard Webhooks), carrying the acceptance in the shape the other
acceptance events have, its countersignature filled; quote.signed_copy_ready still follows
with the copy made again."""

from __future__ import annotations

import json

from integrations.models import WebhookDelivery
from proposals.acceptance.services import acceptance_countersign
from proposals.models import Acceptance
from proposals.share.services import share_link_create
from tests.integrations.test_webhooks import _endpoint, receiver, verify_standard_webhook
from tests.proposals.acceptance.test_acceptance_signature import accept
from tests.proposals.conftest import quote_sent, sent_pdf
from tests.quoting.api_world import token_client

__all__ = ["receiver"]  # the fixture, shared with the other webhook tests


def _accepted(world, capture):
    quote = quote_sent(world)
    sent_pdf(quote.current_revision, "en")
    link, _token = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei")
    accept(link, capture)
    return quote


def test_countersigning_fires_quote_countersigned_signed_with_the_acceptance_and_signature(
    world, seeded, receiver, django_capture_on_commit_callbacks
):
    quote = _accepted(world, django_capture_on_commit_callbacks)
    r = receiver()
    created = _endpoint(token_client(world.sales), r.url, events=("quote.countersigned",))
    world.manager.first_name, world.manager.last_name = "Zhao", "Min"
    world.manager.job_title = "Sales Director"
    world.manager.save()

    with django_capture_on_commit_callbacks(execute=True):
        acceptance_countersign(quote=quote, user=world.manager)

    assert len(r.requests) == 1  # only the event subscribed to, once
    headers, body = r.requests[0]
    assert verify_standard_webhook(created["secret"], headers, body)
    assert not verify_standard_webhook(created["secret"], headers, body.replace(b"Zhao", b"Zha0"))
    event = json.loads(body)
    assert event["type"] == "quote.countersigned" and event["id"] == headers["webhook-id"]
    data = event["data"]
    assert data["quote"]["number"] == quote.number and data["revision"]["label"] == "R1"
    signature = data["acceptance"]["countersignature"]
    assert signature["name"] == "Zhao Min" and signature["title"] == "Sales Director"
    assert signature["user_id"] == world.manager.pk
    assert signature["countersigned_at"].endswith("Z")
    # The customer's acceptance as the other acceptance events carry it; the copy is made again.
    assert data["acceptance"]["signer"] == "Li Wei"
    assert data["acceptance"]["recorded_by"] == "share_link"
    assert data["acceptance"]["signed_status"] == "pending"
    assert data["acceptance"]["signed_pdf_url"] is None
    assert data["totals"]["total"]


def test_signed_copy_ready_still_follows_the_countersignature_with_the_new_copy(
    world, seeded, receiver, django_capture_on_commit_callbacks
):
    quote = _accepted(world, django_capture_on_commit_callbacks)
    first = Acceptance.objects.get().signed_sha256
    events = ("quote.countersigned", "quote.signed_copy_ready", "quote.accepted")
    _endpoint(token_client(world.sales), receiver().url, events=events)
    with django_capture_on_commit_callbacks(execute=True):
        acceptance_countersign(quote=quote, user=world.manager)

    kinds = list(WebhookDelivery.objects.order_by("pk").values_list("event_type", flat=True))
    assert kinds == ["quote.countersigned", "quote.signed_copy_ready"]
    ready = WebhookDelivery.objects.get(event_type="quote.signed_copy_ready").payload["data"]
    assert ready["acceptance"]["signed_sha256"] not in (None, first)
    assert ready["acceptance"]["countersignature"]["name"]

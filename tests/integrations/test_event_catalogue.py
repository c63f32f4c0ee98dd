"""The event catalogue (integrations.catalogue, docs/webhooks.md) against real deliveries: every
event is driven through the services a CRM's actions reach, and what an endpoint subscribed to
everything receives is validated against its component in the published OpenAPI document, with
no member the schema does not name.

EVENT_CATALOGUE_SAMPLES=<file> writes the deliveries' bodies there (the docs' samples).
"""

from __future__ import annotations

import datetime as dt
import json
import os

import jsonschema
import pytest

from integrations.catalogue import CATALOGUE
from integrations.models import WebhookDelivery, WebhookEndpoint, WebhookEvent
from integrations.webhooks import webhook_secret_new
from proposals.acceptance.services import (
    acceptance_countersign,
    share_accept,
    signed_copy_make,
)
from proposals.models import Acceptance
from proposals.share.services import share_link_create
from quoting.quotes.services.quotes import (
    quote_add_free_text,
    quote_create,
    quote_mark_declined,
    quote_revise,
    quote_send,
    quotes_expire_overdue,
)
from quoting.quotes.services.renewals import renewals_remind
from tests.api_schema import _document, _json_schema
from tests.proposals.choice_world import optional_line, quote_with_choices
from tests.proposals.conftest import sent_pdf
from tests.proposals.reading import link_read
from tests.proposals.signer_codes import code_emailed
from tests.quoting.factories import quote_reload
from tests.quoting.quotes.renewal_world import accepted, end_in, ending_on, support_priced


@pytest.fixture
def everything(world):
    return WebhookEndpoint.objects.create(
        url="https://crm.example/hook",
        secret=webhook_secret_new(),
        events=list(WebhookEvent.values),
        created_by=world.sales,
    )


def _a_quote_sent(world, description: str):
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_free_text(
        quote=quote,
        description=description,
        quantity=2,
        unit_price="2500.00",
        user=world.sales,
        expected_version=quote.version,
    )
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    return quote


def _every_event(world) -> None:
    # created, approval.requested, approval.decided, sent: a discount a manager approves.
    quote = quote_with_choices(world)
    revision = quote.current_revision
    link, _token = share_link_create(
        quote=quote, user=world.sales, recipient_name="Li Wei", recipient_email="li@example.com"
    )
    sent_pdf(revision, "en")  # proposal.ready
    link_read(link, revision)  # share_link.opened and quote.viewed
    share_accept(
        link=link,
        revision_number=1,
        name="Li Wei",
        title="CTO",
        agreed=True,
        language="en",
        alternative="Better",
        optional=[str(optional_line(quote, "Spare optics kit").key)],
        po_number="PO-7781",
        signer_code=code_emailed(link),  # the signer's e-mail verified: its members filled
    )
    signed_copy_make(acceptance_id=Acceptance.objects.get().pk)  # signed_copy_ready
    acceptance_countersign(quote=quote, user=world.manager)  # countersigned

    # revised (a sent quote edited), sent again, then declined.
    second = _a_quote_sent(world, "Site survey")
    quote_revise(quote=second, user=world.sales, expected_version=second.version)
    quote_send(quote=second, user=world.sales, expected_version=second.version)
    quote_mark_declined(quote=second, actor=world.sales, reason="Budget moved to next year")

    # expired: the daily job, the day after the validity date.
    third = quote_reload(_a_quote_sent(world, "Cabling plan"))
    assert quotes_expire_overdue(today=third.valid_until + dt.timedelta(days=1)) == 1

    # renewal.due, of a quote whose answer staff recorded (quote.accepted without a link).
    support_priced()
    renewed = accepted(world)
    end = end_in(120)
    ending_on(renewed, end)
    assert renewals_remind(today=end - dt.timedelta(days=90)) == 1


def _strict(node):
    """The catalogue's schemas with no member beyond those they name (the published document
    leaves objects open, so that new members are not a breaking change)."""
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    strict = {key: _strict(value) for key, value in node.items()}
    if "properties" in node:
        strict["additionalProperties"] = False
    return strict


def _component(name: str) -> dict:
    components = _document()["components"]["schemas"]
    return _strict(_json_schema(components[name], components))


def test_every_event_of_the_catalogue_has_a_component_and_is_in_the_oneof():
    components = _document()["components"]["schemas"]
    assert set(CATALOGUE) == set(WebhookEvent.values)
    refs = {ref["$ref"].rsplit("/", 1)[-1] for ref in components["WebhookEvent"]["oneOf"]}
    assert refs == {name for name, _, _ in CATALOGUE.values()}
    for event_type, (name, _, _) in CATALOGUE.items():
        assert components[name]["properties"]["type"]["enum"] == [event_type]
        assert components["WebhookEvent"]["discriminator"]["mapping"][event_type].endswith(name)


def test_every_event_is_delivered_as_its_schema_says(world, everything):
    _every_event(world)

    deliveries = list(WebhookDelivery.objects.filter(endpoint=everything).order_by("pk"))
    assert {d.event_type for d in deliveries} == set(WebhookEvent.values)
    for delivery in deliveries:
        name = CATALOGUE[delivery.event_type][0]
        body = delivery.payload
        assert body["type"] == delivery.event_type
        assert body["timestamp"].endswith("Z") or "+00:00" in body["timestamp"]
        if "id" in body:  # the envelope {"type", "id", "timestamp", "data"}
            jsonschema.validate(body, _component(name))
        else:  # before the feed's envelope: the data alone
            data_ref = _document()["components"]["schemas"][name]["properties"]["data"]["$ref"]
            jsonschema.validate(body["data"], _component(data_ref.rsplit("/", 1)[-1]))

    # Strict indeed: a member the catalogue does not name is refused.
    stray = json.loads(json.dumps(deliveries[0].payload))
    stray["data"]["quote"]["quote_id"] = stray["data"]["quote"]["id"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(stray, _component("QuoteCreatedEvent"))

    samples = os.environ.get("EVENT_CATALOGUE_SAMPLES")
    if samples:
        with open(samples, "w") as out:
            json.dump([d.payload for d in deliveries], out, indent=2)


def test_the_members_every_event_shares_name_the_same_quote_customer_and_project(world, everything):
    _every_event(world)
    for delivery in WebhookDelivery.objects.filter(endpoint=everything):
        data = delivery.payload["data"]
        assert data["customer"] == {
            "id": world.customer.pk,
            "external_id": world.customer.external_id,
            "company": world.customer.company,
        }
        assert data["project"]["id"] == world.project.pk
        assert data["quote"]["url"].endswith(f"/api/v1/quotes/{data['quote']['id']}/")
        # Every timestamp is RFC 3339 UTC; every date YYYY-MM-DD.
        for text in _texts(data):
            if len(text) >= 19 and text[4:5] == "-" and text[10:11] == "T":
                assert text.endswith("Z"), (delivery.event_type, text)
    by_type = {d.event_type: d.payload["data"] for d in WebhookDelivery.objects.order_by("pk")}
    # The share link's accept and its signed copy: one shape, the copy's fields filled.
    on_link, by_staff = (
        d.payload["data"]
        for d in WebhookDelivery.objects.filter(event_type="quote.accepted").order_by("pk")
    )
    signed = by_type["quote.signed_copy_ready"]
    assert on_link["acceptance"]["recorded_by"] == "share_link"
    assert on_link["acceptance"]["signed_pdf_url"] is None
    assert signed["acceptance"]["signed_pdf_url"] and signed["acceptance"]["signed_sha256"]
    assert signed["totals"] == on_link["totals"] and signed["revision"] == on_link["revision"]
    assert by_staff["acceptance"]["recorded_by"] == "staff"
    # The countersignature: the same acceptance, its seller's signature filled, null before.
    countersigned = by_type["quote.countersigned"]
    assert on_link["acceptance"]["countersignature"] is None
    assert countersigned["acceptance"]["countersignature"]["user_id"] == world.manager.pk
    assert countersigned["acceptance"]["signer"] == on_link["acceptance"]["signer"]
    assert countersigned["totals"] == on_link["totals"]
    assert by_type["quote.declined"]["revision"]["label"] == "R2"
    assert by_type["quote.expired"]["revision"]["label"] == "R1"


def _texts(node):
    if isinstance(node, dict):
        for value in node.values():
            yield from _texts(value)
    elif isinstance(node, list):
        for value in node:
            yield from _texts(value)
    elif isinstance(node, str):
        yield node

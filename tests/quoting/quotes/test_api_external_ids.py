"""A quote may name its contact and carry a CRM's id (issue 24, item 4): `contact` and
`external_id` written on create and on PATCH (with If-Match), read back on the quote and its
list, filtered on; a contact of another customer is a 400, a taken external id a 409."""

from __future__ import annotations

import pytest

from quoting.customers.models import Contact
from quoting.quotes.models import Quote, QuoteStatus
from tests.api_errors import error_code, field_errors
from tests.api_schema import assert_matches_schema
from tests.quoting.api_world import design_make, token_client
from tests.quoting.factories import CustomerFactory, ProjectFactory


def _create(api, qw, **extra):
    return api.post("/api/v1/quotes/", {"design": qw.design.pk, **extra}, format="json")


def _patch(api, quote, body):
    url = f"/api/v1/quotes/{quote.pk}/"
    etag = api.get(url)["ETag"]
    return api.patch(url, body, format="json", HTTP_IF_MATCH=etag)


def test_a_quote_is_created_with_its_contact_and_external_id(api, qw):
    response = _create(api, qw, contact=qw.contact.pk, external_id=" sf-opp-1 ")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["contact"], body["external_id"]) == (qw.contact.pk, "sf-opp-1")
    assert_matches_schema(body, "/api/v1/quotes/", "post", 201)
    quote = Quote.objects.get(pk=body["id"])
    assert (quote.contact, quote.external_id) == (qw.contact, "sf-opp-1")

    detail = api.get(f"/api/v1/quotes/{quote.pk}/").json()
    assert (detail["contact"], detail["external_id"]) == (qw.contact.pk, "sf-opp-1")
    listed = api.get("/api/v1/quotes/", {"external_id": "sf-opp-1"}).json()["results"]
    assert [(row["id"], row["contact"], row["external_id"]) for row in listed] == [
        (quote.pk, qw.contact.pk, "sf-opp-1")
    ]
    assert api.get("/api/v1/quotes/", {"external_id": "sf-opp-2"}).json()["results"] == []


def test_a_quote_without_them_says_null(api, qw):
    body = api.get(f"/api/v1/quotes/{qw.quote.pk}/").json()
    assert (body["contact"], body["external_id"]) == (None, None)
    listed = api.get("/api/v1/quotes/").json()["results"]
    assert (listed[0]["contact"], listed[0]["external_id"]) == (None, None)


def test_a_contact_of_another_customer_is_a_400(api, qw):
    world = qw.world
    sister = CustomerFactory(team=world.team, owner=world.sales, company="Qianhai Bank")
    theirs = Contact.objects.create(customer=sister, name="Wu Lei")
    response = _create(api, qw, contact=theirs.pk)
    assert response.status_code == 400
    assert "contact" in field_errors(response)
    assert Quote.objects.count() == 1

    refused = _patch(api, qw.quote, {"contact": theirs.pk})
    assert refused.status_code == 400 and "contact" in field_errors(refused)
    assert Quote.objects.get(pk=qw.quote.pk).contact is None


def test_a_contact_you_cannot_see_is_a_400(api, qw):
    world = qw.world
    elsewhere = CustomerFactory(
        team=world.other_team, owner=world.other_sales, company="Beijing Institute"
    )
    hidden = Contact.objects.create(customer=elsewhere, name="Li Na")
    response = _create(api, qw, contact=hidden.pk)
    assert response.status_code == 400 and "contact" in field_errors(response)


def test_patch_sets_and_clears_the_contact_and_external_id(api, qw):
    quote = qw.quote
    version, revision = quote.version, quote.current_revision_id
    response = _patch(api, quote, {"contact": qw.contact.pk, "external_id": "sf-opp-9"})
    assert response.status_code == 200, response.json()
    assert (response.json()["contact"], response.json()["external_id"]) == (
        qw.contact.pk,
        "sf-opp-9",
    )
    assert response.json()["version"] == version + 1
    assert response["ETag"] == f'"{version + 1}"'
    quote.refresh_from_db()
    assert quote.current_revision_id == revision  # not a term: no new revision

    cleared = _patch(api, quote, {"contact": None, "external_id": ""})
    assert cleared.status_code == 200
    assert (cleared.json()["contact"], cleared.json()["external_id"]) == (None, None)

    unchanged = _patch(api, quote, {"external_id": None})
    assert unchanged.status_code == 200 and unchanged.json()["version"] == version + 2


def test_patch_still_needs_if_match(api, qw):
    url = f"/api/v1/quotes/{qw.quote.pk}/"
    assert api.patch(url, {"contact": qw.contact.pk}, format="json").status_code == 428
    stale = api.patch(url, {"contact": qw.contact.pk}, format="json", HTTP_IF_MATCH='"99"')
    assert stale.status_code == 412
    assert Quote.objects.get(pk=qw.quote.pk).contact is None


def test_linking_a_sent_quote_keeps_it_sent(api, qw):
    url = f"/api/v1/quotes/{qw.quote.pk}/"
    sent = api.post(f"{url}send/", {}, format="json", HTTP_IF_MATCH=api.get(url)["ETag"])
    assert sent.status_code == 200, sent.json()
    response = _patch(api, qw.quote, {"contact": qw.contact.pk, "external_id": "sf-opp-3"})
    assert response.status_code == 200, response.json()
    quote = Quote.objects.get(pk=qw.quote.pk)
    assert quote.status == QuoteStatus.SENT
    assert quote.revisions.count() == 1


def test_a_taken_external_id_is_a_409_naming_the_quote(api, qw):
    assert _patch(api, qw.quote, {"external_id": "sf-opp-1"}).status_code == 200
    response = _create(api, qw, external_id="sf-opp-1")
    assert response.status_code == 409
    assert error_code(response) == "external_id_taken"
    assert response.json()["existing_id"] == qw.quote.pk
    assert Quote.objects.count() == 1  # the number taken for it is given back too


def test_a_taken_external_id_of_a_quote_you_cannot_see_is_not_named(api, qw):
    world = qw.world
    elsewhere = CustomerFactory(
        team=world.other_team, owner=world.other_sales, company="Beijing Institute"
    )
    project = ProjectFactory(customer=elsewhere, name="Their pod", owner=world.other_sales)
    design = design_make(project, name="Their design")
    theirs = token_client(world.other_sales).post(
        "/api/v1/quotes/", {"design": design.pk, "external_id": "sf-opp-x"}, format="json"
    )
    assert theirs.status_code == 201, theirs.json()
    response = _patch(api, qw.quote, {"external_id": "sf-opp-x"})
    assert response.status_code == 409
    assert error_code(response) == "external_id_taken"
    assert "existing_id" not in response.json()
    assert Quote.objects.get(pk=qw.quote.pk).external_id is None


@pytest.mark.parametrize("bad", ["x" * 101, "a/b"])
def test_external_id_is_at_most_100_characters_without_a_slash(api, qw, bad):
    response = _create(api, qw, external_id=bad)
    assert response.status_code == 400 and "external_id" in field_errors(response)

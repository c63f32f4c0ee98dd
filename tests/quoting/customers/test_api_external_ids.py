"""A CRM's own ids on customers, contacts and projects (issue 24, item 4): `external_id` read,
written, trimmed, cleared and filtered on; `PUT .../by-external-id/{external_id}/` creates or
updates by it, never shows a record the caller may not see, and eight concurrent PUTs of one new
id make one row; a duplicate company (or project name, or external id) is a 409 naming the
record that has it."""

from __future__ import annotations

import threading
from urllib.parse import quote as percent_encoded

import pytest
from django.db import connection

from quoting.customers.models import Contact, Customer, Project
from tests.api_errors import error_code, field_errors
from tests.quoting.api_world import token_client
from tests.quoting.factories import CustomerFactory, ProjectFactory, world_make

# Each resource: its list URL and a create body given the world (a body PUT takes as it is).
RESOURCES = {
    "customers": lambda world: {"company": "Qianhai Bank", "industry": "Banking"},
    "contacts": lambda world: {"customer": world.customer.pk, "name": "Chen Jie"},
    "projects": lambda world: {"customer": world.customer.pk, "name": "Inference pod"},
}
MODELS = {"customers": Customer, "contacts": Contact, "projects": Project}
# One field each resource's update may change, and its new value.
CHANGE = {
    "customers": ("industry", "Insurance"),
    "contacts": ("title", "CTO"),
    "projects": ("notes", "Phase 2"),
}


def _other_teams_record(world, resource: str, external_id: str):
    """A record of the other team (wang does not see it) holding `external_id`."""
    theirs = CustomerFactory(
        team=world.other_team, owner=world.other_sales, company="Beijing Institute"
    )
    if resource == "customers":
        theirs.external_id = external_id
        theirs.save()
        return theirs
    if resource == "contacts":
        return Contact.objects.create(customer=theirs, name="Li Na", external_id=external_id)
    return ProjectFactory(customer=theirs, name="Their pod", external_id=external_id)


@pytest.fixture
def api(world):
    return token_client(world.sales)


# --- read, write, clear, filter ------------------------------------------------------------------


@pytest.mark.parametrize("resource", RESOURCES)
def test_external_id_is_written_trimmed_read_and_cleared(world, api, resource):
    created = api.post(
        f"/api/v1/{resource}/",
        {**RESOURCES[resource](world), "external_id": "  crm-0042 "},
        format="json",
    )
    assert created.status_code == 201, created.json()
    assert created.json()["external_id"] == "crm-0042"
    url = f"/api/v1/{resource}/{created.json()['id']}/"
    assert api.get(url).json()["external_id"] == "crm-0042"

    changed = api.patch(url, {"external_id": "crm-0043"}, format="json")
    assert changed.status_code == 200 and changed.json()["external_id"] == "crm-0043"
    for cleared in ("", "   ", None):
        api.patch(url, {"external_id": "crm-0043"}, format="json")
        response = api.patch(url, {"external_id": cleared}, format="json")
        assert response.status_code == 200 and response.json()["external_id"] is None
    # Cleared ids are NULL, so any number of records may have none.
    second = api.post(
        f"/api/v1/{resource}/",
        {**RESOURCES[resource](world), **_renamed(resource), "external_id": ""},
        format="json",
    )
    assert second.status_code == 201 and second.json()["external_id"] is None


def _renamed(resource: str) -> dict:
    return {"company": "Futian Bank"} if resource == "customers" else {"name": "Second"}


@pytest.mark.parametrize("resource", RESOURCES)
def test_external_id_is_at_most_100_characters_without_a_slash(world, api, resource):
    body = RESOURCES[resource](world)
    for bad in ("x" * 101, "a/b"):
        response = api.post(f"/api/v1/{resource}/", {**body, "external_id": bad}, format="json")
        assert response.status_code == 400
        assert "external_id" in field_errors(response)
    assert not MODELS[resource].objects.exclude(external_id=None).exists()


@pytest.mark.parametrize("resource", RESOURCES)
def test_lists_filter_by_external_id(world, api, resource):
    made = api.post(
        f"/api/v1/{resource}/", {**RESOURCES[resource](world), "external_id": "sf:1"}, format="json"
    )
    listed = api.get(f"/api/v1/{resource}/", {"external_id": "sf:1"}).json()["results"]
    assert [row["id"] for row in listed] == [made.json()["id"]]
    assert api.get(f"/api/v1/{resource}/", {"external_id": "sf:2"}).json()["results"] == []
    # Another team's record with the id the caller asks for stays out of the list.
    _other_teams_record(world, resource, "sf:theirs")
    assert api.get(f"/api/v1/{resource}/", {"external_id": "sf:theirs"}).json()["results"] == []


# --- duplicates: 409 naming the existing record --------------------------------------------------


@pytest.mark.parametrize("resource", RESOURCES)
def test_a_taken_external_id_is_a_409_naming_the_record(world, api, resource):
    first = api.post(
        f"/api/v1/{resource}/",
        {**RESOURCES[resource](world), "external_id": "crm-1"},
        format="json",
    )
    second = api.post(
        f"/api/v1/{resource}/",
        {**RESOURCES[resource](world), **_renamed(resource), "external_id": "crm-1"},
        format="json",
    )
    assert second.status_code == 409
    assert error_code(second) == "external_id_taken"
    assert second.json()["existing_id"] == first.json()["id"]
    assert "external_id" in field_errors(second)
    assert MODELS[resource].objects.filter(external_id="crm-1").count() == 1


@pytest.mark.parametrize("resource", RESOURCES)
def test_a_taken_external_id_of_a_record_you_cannot_see_is_not_named(world, api, resource):
    theirs = _other_teams_record(world, resource, "crm-theirs")
    response = api.post(
        f"/api/v1/{resource}/",
        {**RESOURCES[resource](world), "external_id": "crm-theirs"},
        format="json",
    )
    assert response.status_code == 409
    assert error_code(response) == "external_id_taken"
    assert "existing_id" not in response.json() and theirs.pk


def test_a_duplicate_company_is_a_409_with_the_existing_id(world, api):
    response = api.post("/api/v1/customers/", {"company": world.customer.company}, format="json")
    assert response.status_code == 409
    assert error_code(response) == "duplicate"
    assert response.json()["existing_id"] == world.customer.pk
    assert "company" in field_errors(response)
    # Surrounding spaces do not make another company.
    again = api.post(
        "/api/v1/customers/", {"company": f" {world.customer.company} "}, format="json"
    )
    assert again.status_code == 409 and again.json()["existing_id"] == world.customer.pk
    assert Customer.objects.filter(company=world.customer.company).count() == 1


def test_renaming_a_customer_to_a_namesake_is_a_409_too(world, api):
    other = CustomerFactory(team=world.team, owner=world.sales, company="Qianhai Bank")
    response = api.patch(
        f"/api/v1/customers/{other.pk}/", {"company": world.customer.company}, format="json"
    )
    assert response.status_code == 409 and response.json()["existing_id"] == world.customer.pk


def test_a_duplicate_project_name_is_a_409_with_the_existing_id(world, api):
    response = api.post(
        "/api/v1/projects/",
        {"customer": world.customer.pk, "name": world.project.name},
        format="json",
    )
    assert response.status_code == 409
    assert error_code(response) == "duplicate"
    assert response.json()["existing_id"] == world.project.pk
    assert "name" in field_errors(response)


# --- upsert: PUT /api/v1/{resource}/by-external-id/{external_id}/ --------------------------------


@pytest.mark.parametrize("resource", RESOURCES)
def test_put_by_external_id_creates_then_updates(world, api, resource):
    url = f"/api/v1/{resource}/by-external-id/crm-7/"
    body = RESOURCES[resource](world)
    created = api.put(url, body, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["external_id"] == "crm-7"

    field, value = CHANGE[resource]
    updated = api.put(url, {**body, field: value}, format="json")
    assert updated.status_code == 200, updated.json()
    assert updated.json()["id"] == created.json()["id"]
    assert updated.json()[field] == value
    assert MODELS[resource].objects.filter(external_id="crm-7").count() == 1

    read = api.get(url)
    assert read.status_code == 200 and read.json()["id"] == created.json()["id"]
    assert api.get(f"/api/v1/{resource}/by-external-id/crm-8/").status_code == 404


@pytest.mark.parametrize("resource", RESOURCES)
def test_put_by_external_id_does_not_leak_a_record_you_cannot_see(world, api, resource):
    theirs = _other_teams_record(world, resource, "crm-theirs")
    before = {f.attname: getattr(theirs, f.attname) for f in theirs._meta.concrete_fields}
    url = f"/api/v1/{resource}/by-external-id/crm-theirs/"
    response = api.put(url, RESOURCES[resource](world), format="json")
    assert response.status_code == 409
    assert error_code(response) == "external_id_taken"
    assert "existing_id" not in response.json()
    theirs.refresh_from_db()
    assert {f.attname: getattr(theirs, f.attname) for f in theirs._meta.concrete_fields} == before
    assert api.get(url).status_code == 404


def test_the_read_by_external_id_has_an_etag(world, api):
    url = "/api/v1/customers/by-external-id/crm-1/"
    api.put(url, {"company": "Qianhai Bank"}, format="json")
    read = api.get(url)
    assert read.status_code == 200 and read["ETag"]
    assert api.get(url, HTTP_IF_NONE_MATCH=read["ETag"]).status_code == 304
    api.put(url, {"company": "Qianhai Bank", "region": "Guangdong"}, format="json")
    assert api.get(url, HTTP_IF_NONE_MATCH=read["ETag"]).status_code == 200


@pytest.mark.parametrize(
    "external_id", ["0015g00000ABCdEAAX", "hubspot:42", "crm.acme.com", "a-b_c:d.e", "acme co"]
)
def test_the_path_takes_crm_ids_with_dots_dashes_colons_and_underscores(world, api, external_id):
    url = f"/api/v1/customers/by-external-id/{percent_encoded(external_id, safe='')}/"
    response = api.put(url, {"company": "Qianhai Bank"}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["external_id"] == external_id
    assert api.get(url).json()["id"] == response.json()["id"]


def test_a_slash_is_never_part_of_the_path_id(world, api):
    response = api.put(
        "/api/v1/customers/by-external-id/a%2Fb/", {"company": "Qianhai Bank"}, format="json"
    )
    assert response.status_code == 404
    assert not Customer.objects.filter(company="Qianhai Bank").exists()


def test_a_body_external_id_must_be_the_paths(world, api):
    response = api.put(
        "/api/v1/customers/by-external-id/crm-1/",
        {"company": "Qianhai Bank", "external_id": "crm-2"},
        format="json",
    )
    assert response.status_code == 400 and "external_id" in field_errors(response)
    same = api.put(
        "/api/v1/customers/by-external-id/crm-1/",
        {"company": "Qianhai Bank", "external_id": "crm-1"},
        format="json",
    )
    assert same.status_code == 201


def test_put_creating_a_duplicate_company_is_a_409_with_the_existing_id(world, api):
    response = api.put(
        "/api/v1/customers/by-external-id/crm-1/",
        {"company": world.customer.company},
        format="json",
    )
    assert response.status_code == 409
    assert error_code(response) == "duplicate"
    assert response.json()["existing_id"] == world.customer.pk
    # The CRM links the existing record instead: a PATCH, then PUTs update it.
    api.patch(f"/api/v1/customers/{world.customer.pk}/", {"external_id": "crm-1"}, format="json")
    linked = api.put(
        "/api/v1/customers/by-external-id/crm-1/",
        {"company": world.customer.company, "region": "Guangdong"},
        format="json",
    )
    assert linked.status_code == 200 and linked.json()["id"] == world.customer.pk


def test_put_validates_the_body_as_a_create_does(world, api):
    response = api.put("/api/v1/customers/by-external-id/crm-1/", {}, format="json")
    assert response.status_code == 400 and "company" in field_errors(response)
    assert not Customer.objects.filter(external_id="crm-1").exists()


def test_the_schema_documents_the_upsert(client, world):
    client.force_login(world.sales)
    document = client.get("/api/schema/", {"format": "json"}).json()
    for resource in RESOURCES:
        operations = document["paths"][f"/api/v1/{resource}/by-external-id/{{external_id}}/"]
        assert set(operations) >= {"get", "put"}
        assert set(operations["put"]["responses"]) >= {"200", "201", "400", "409"}
    customer = document["components"]["schemas"]["Customer"]["properties"]
    assert customer["external_id"]["nullable"] is True


# --- eight concurrent PUTs with one new external id ----------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("resource", RESOURCES)
def test_eight_concurrent_puts_of_one_new_external_id_make_one_row(make_user, resource):
    world = world_make(make_user)
    clients = [token_client(world.sales) for _ in range(8)]
    body = RESOURCES[resource](world)
    url = f"/api/v1/{resource}/by-external-id/race-1/"
    start = threading.Barrier(len(clients))
    statuses: list[int] = []
    failures: list[BaseException] = []

    def put(client):
        try:
            start.wait()
            response = client.put(url, body, format="json")
            statuses.append(response.status_code)
            if response.status_code not in (200, 201):
                failures.append(AssertionError(response.content))
        except BaseException as error:  # noqa: BLE001 - reported below, not lost in a thread
            failures.append(error)
        finally:
            connection.close()  # this thread's own connection

    threads = [threading.Thread(target=put, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures
    assert sorted(statuses) == [200] * 7 + [201], statuses
    assert MODELS[resource].objects.filter(external_id="race-1").count() == 1

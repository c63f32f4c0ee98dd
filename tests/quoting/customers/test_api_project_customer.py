"""A project's customer is fixed once it has quotes, and a project never leaves its team
(issue 13, finding 7): PATCH /api/v1/projects/{id}/ moved a project, and its quotes stayed on
the old customer; a manager could move one across teams."""

from __future__ import annotations

from quoting.customers.models import Project
from quoting.quotes.models import Quote
from tests.api_errors import field_errors
from tests.quoting.api_world import token_client
from tests.quoting.factories import CustomerFactory, ProjectFactory


def _patch(client, project, body):
    return client.patch(f"/api/v1/projects/{project.pk}/", body, format="json")


def test_a_project_with_quotes_keeps_its_customer(qw):
    world = qw.world
    sister = CustomerFactory(team=world.team, owner=world.sales, company="Pengcheng Lab")
    response = _patch(token_client(world.sales), world.project, {"customer": sister.pk})
    assert response.status_code == 400
    assert "its customer can no longer change" in field_errors(response)["customer"][0]
    assert Project.objects.get(pk=world.project.pk).customer == world.customer
    assert Quote.objects.get(pk=qw.quote.pk).customer == world.customer


def test_other_fields_of_a_project_with_quotes_still_change(qw):
    world = qw.world
    response = _patch(
        token_client(world.sales),
        world.project,
        {"customer": world.customer.pk, "name": "GPU cluster, phase 2"},
    )
    assert response.status_code == 200, response.json()
    assert Project.objects.get(pk=world.project.pk).name == "GPU cluster, phase 2"


def test_a_project_without_quotes_moves_to_another_customer_of_its_team(qw):
    world = qw.world
    sister = CustomerFactory(team=world.team, owner=world.sales, company="Pengcheng Lab")
    empty = ProjectFactory(customer=world.customer, name="Next year")
    response = _patch(token_client(world.sales), empty, {"customer": sister.pk})
    assert response.status_code == 200, response.json()
    assert Project.objects.get(pk=empty.pk).customer == sister


def test_a_manager_cannot_move_a_project_across_teams(qw):
    world = qw.world
    elsewhere = CustomerFactory(
        team=world.other_team, owner=world.other_sales, company="Beijing Institute"
    )
    manager = token_client(world.manager)
    empty = ProjectFactory(customer=world.customer, name="Next year")
    for project in (empty, world.project):
        response = _patch(manager, project, {"customer": elsewhere.pk})
        assert response.status_code == 400
        assert "customer" in field_errors(response)
        assert Project.objects.get(pk=project.pk).customer == world.customer
    refused = _patch(manager, empty, {"customer": elsewhere.pk})
    assert "stays with its team" in field_errors(refused)["customer"][0]


def test_the_api_schema_says_so(qw, client):
    client.force_login(qw.world.sales)
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").content.decode()
    assert "Fixed once the project has quotes" in schema


def test_the_admin_keeps_the_same_rule(qw, admin_client):
    world = qw.world
    sister = CustomerFactory(team=world.team, owner=world.sales, company="Pengcheng Lab")
    url = f"/admin/quoting/project/{world.project.pk}/change/"
    response = admin_client.post(
        url,
        {
            "customer": sister.pk,
            "name": world.project.name,
            "owner": world.sales.pk,
            "requirements": "{}",
            "notes": "",
        },
    )
    assert response.status_code == 200  # the form again, with the error
    assert "its customer can no longer change" in response.content.decode()
    assert Project.objects.get(pk=world.project.pk).customer == world.customer

"""The project's plan (#26 item 7): which parts the customer asks for (GPU servers, network,
virtualization and cluster management, DR and backup), each yes/no with a note, on the project
page and the API."""

from __future__ import annotations

import re

import pytest

from quoting.customers.models import Project, plan_fields
from quoting.customers.services import project_create
from tests.api_errors import field_errors
from tests.quoting.api_world import token_client

pytestmark = pytest.mark.django_db


def test_a_project_asks_for_the_network_only_unless_told_otherwise(world):
    project = project_create(customer=world.customer, name="Phase 2", owner=world.sales)
    assert (
        project.needs_gpu_servers,
        project.needs_network,
        project.needs_cluster_management,
        project.needs_backup,
    ) == (False, True, False, False)
    assert Project.objects.get(pk=world.project.pk).needs_network  # the factory's, as before


def test_the_api_creates_reads_and_changes_the_plan(world):
    api = token_client(world.sales)
    created = api.post(
        "/api/v1/projects/",
        {
            "customer": world.customer.pk,
            "name": "Whole cluster",
            "needs_gpu_servers": True,
            "needs_gpu_servers_note": "16 x HGX B200",
            "needs_backup": True,
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    body = created.json()
    assert {name: body[name] for name in plan_fields()} == {
        "needs_gpu_servers": True,
        "needs_gpu_servers_note": "16 x HGX B200",
        "needs_network": True,
        "needs_network_note": "",
        "needs_cluster_management": False,
        "needs_cluster_management_note": "",
        "needs_backup": True,
        "needs_backup_note": "",
    }
    changed = api.patch(
        f"/api/v1/projects/{body['id']}/",
        {"needs_cluster_management": True, "needs_backup_note": "Keeps its Commvault"},
        format="json",
    )
    assert changed.status_code == 200, changed.json()
    project = Project.objects.get(pk=body["id"])
    assert project.needs_cluster_management and project.needs_gpu_servers  # the rest stays
    assert project.needs_backup_note == "Keeps its Commvault"
    assert api.get(f"/api/v1/projects/{project.pk}/").json()["needs_cluster_management"] is True


def test_a_plan_note_too_long_or_a_yes_no_that_is_not_one_is_a_400_at_its_field(world):
    api = token_client(world.sales)
    response = api.patch(
        f"/api/v1/projects/{world.project.pk}/",
        {"needs_backup_note": "x" * 501, "needs_gpu_servers": "perhaps"},
        format="json",
    )
    assert response.status_code == 400
    assert set(field_errors(response)) == {"needs_backup_note", "needs_gpu_servers"}
    project = Project.objects.get(pk=world.project.pk)
    assert (project.needs_backup_note, project.needs_gpu_servers) == ("", False)


def test_the_project_page_shows_and_saves_the_plan(client, world):
    client.force_login(world.sales)
    page = client.get(f"/projects/{world.project.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert re.search(r'<input[^>]*name="needs_network"[^>]*checked', html)
    assert not re.search(r'<input[^>]*name="needs_backup"[^>]*checked', html)
    saved = client.post(
        f"/projects/{world.project.pk}/plan/",
        {
            "needs_network": "on",
            "needs_backup": "on",
            "needs_backup_note": "Off-site copy in Guangzhou",
        },
    )
    assert saved.status_code == 302
    project = Project.objects.get(pk=world.project.pk)
    assert (project.needs_network, project.needs_backup, project.needs_gpu_servers) == (
        True,
        True,
        False,
    )
    assert project.needs_backup_note == "Off-site copy in Guangzhou"


def test_a_bad_note_on_the_page_is_shown_at_its_field_and_nothing_is_saved(client, world):
    client.force_login(world.sales)
    refused = client.post(
        f"/projects/{world.project.pk}/plan/",
        {"needs_backup": "on", "needs_backup_note": "x" * 501},
    )
    assert refused.status_code == 400
    html = refused.content.decode()
    assert 'id="err-needs_backup_note"' in html
    assert "at most 500 characters" in html.split('id="err-needs_backup_note"')[1][:300]
    assert not Project.objects.get(pk=world.project.pk).needs_backup


def test_another_teams_project_plan_cannot_be_changed(client, world):
    client.force_login(world.other_sales)
    response = client.post(f"/projects/{world.project.pk}/plan/", {"needs_backup": "on"})
    assert response.status_code == 404
    assert not Project.objects.get(pk=world.project.pk).needs_backup


def test_the_plan_form_is_in_chinese_for_a_chinese_reader(client, world):
    world.sales.language = "zh-hans"
    world.sales.save()
    client.force_login(world.sales)
    html = client.get(f"/projects/{world.project.pk}/").content.decode()
    assert "灾备与备份" in html and "保存方案" in html


def test_a_new_project_takes_its_plan_from_the_form(client, world):
    client.force_login(world.sales)
    url = f"/customers/{world.customer.pk}/projects/new/"
    html = client.get(url).content.decode()
    assert re.search(r'<input[^>]*name="needs_network"[^>]*checked', html)
    created = client.post(
        url,
        {
            "name": "Training cluster",
            "needs_network": "on",
            "needs_gpu_servers": "on",
            "needs_gpu_servers_note": "32 x B200",
        },
    )
    assert created.status_code == 302
    project = Project.objects.get(customer=world.customer, name="Training cluster")
    assert (project.needs_gpu_servers, project.needs_network, project.needs_backup) == (
        True,
        True,
        False,
    )
    assert project.needs_gpu_servers_note == "32 x B200"

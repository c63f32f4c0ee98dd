"""Customers, contacts and projects in the browser: lists, forms, scoping, and the project page
that turns a saved design into a quote."""

from __future__ import annotations

import pytest

from quoting.customers.models import Customer
from quoting.designs.services.saved import design_save
from quoting.quotes.models import Quote, Section
from tests.quoting.factories import CustomerFactory, ProjectFactory


@pytest.fixture
def sales(client, world):
    client.force_login(world.sales)
    return client


def _customer_data(**overrides):
    data = {
        "company": "Qianhai Bank",
        "team": "",
        "industry": "Banking",
        "region": "Shenzhen",
        "vat_zone": "china",
        "language": "zh-hans",
        "default_currency": "CNY",
        "notes": "",
        "contacts-TOTAL_FORMS": "1",
        "contacts-INITIAL_FORMS": "0",
        "contacts-0-name": "Chen Jie",
        "contacts-0-title": "CTO",
        "contacts-0-email": "chen@example.com",
        "contacts-0-phone": "",
    }
    return data | overrides


def test_a_sales_user_creates_a_customer_with_a_contact_in_their_team(sales, world):
    response = sales.post("/customers/new/", _customer_data(team=world.team.pk))
    customer = Customer.objects.get(company="Qianhai Bank")
    assert response.status_code == 302 and response["Location"] == f"/customers/{customer.pk}/"
    assert customer.owner == world.sales and customer.team == world.team
    assert [c.name for c in customer.contacts.all()] == ["Chen Jie"]
    assert "Chen Jie" in sales.get(response["Location"]).content.decode()


def test_a_sales_user_cannot_file_a_customer_under_another_team(sales, world):
    response = sales.post("/customers/new/", _customer_data(team=world.other_team.pk))
    assert response.status_code == 400
    assert not Customer.objects.filter(company="Qianhai Bank").exists()


def test_a_duplicate_company_is_an_inline_error(sales, world):
    response = sales.post(
        "/customers/new/", _customer_data(team=world.team.pk, company="Pengcheng University")
    )
    body = response.content.decode()
    assert response.status_code == 400 and "with this Team and Company already exists" in body
    assert Customer.objects.filter(company="Pengcheng University").count() == 1


def test_editing_a_customer_changes_it_and_adds_a_contact(sales, world):
    customer = world.customer
    data = _customer_data(team=world.team.pk, company="Pengcheng Lab", region="Nanshan")
    response = sales.post(f"/customers/{customer.pk}/edit/", data)
    assert response.status_code == 302
    customer.refresh_from_db()
    assert customer.company == "Pengcheng Lab" and customer.region == "Nanshan"
    assert customer.contacts.count() == 1


def test_another_teams_customer_and_project_are_404s(client, world):
    client.force_login(world.other_sales)
    customer, project = world.customer, world.project
    for url in (
        f"/customers/{customer.pk}/",
        f"/customers/{customer.pk}/edit/",
        f"/customers/{customer.pk}/projects/new/",
        f"/projects/{project.pk}/",
    ):
        assert client.get(url).status_code == 404, url
    assert client.post(f"/projects/{project.pk}/designs/1/quote/").status_code == 404
    assert "Pengcheng" not in client.get("/customers/").content.decode()
    assert "GPU cluster" not in client.get("/projects/").content.decode()


def test_a_manager_sees_every_teams_customers(client, world):
    CustomerFactory(team=world.other_team, owner=world.other_sales, company="Beijing Lab")
    client.force_login(world.manager)
    body = client.get("/customers/").content.decode()
    assert "Pengcheng University" in body and "Beijing Lab" in body


def test_the_lists_filter_and_search_and_swap_only_the_table(sales, world):
    CustomerFactory(team=world.team, owner=world.sales, company="Futian Securities")
    body = sales.get("/customers/?q=futian", HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in body and "Futian Securities" in body and "Pengcheng" not in body
    body = sales.get(f"/projects/?customer={world.customer.pk}").content.decode()
    assert "GPU cluster" in body
    other = CustomerFactory(team=world.other_team, owner=world.other_sales)
    # A customer the user cannot see is not a valid filter choice.
    body = sales.get(f"/projects/?customer={other.pk}").content.decode()
    assert "Select a valid choice" in body


def test_a_project_is_created_with_its_requirements_summary(sales, world, seeded):
    response = sales.post(
        f"/customers/{world.customer.pk}/projects/new/",
        {"name": "Inference pod", "gpu_count": 64, "nic_generation": "NDR", "notes": "Phase 2"},
    )
    project = world.customer.projects.get(name="Inference pod")
    assert response["Location"] == f"/projects/{project.pk}/"
    assert project.requirements["gpu_count"] == 64
    assert project.requirements["nic_generation"] == "NDR"
    body = sales.get(response["Location"]).content.decode()
    assert "<dt>GPUs</dt><dd>64</dd>" in body and "Phase 2" in body  # labelled, not gpu_count
    assert f'href="/designs/new/?project={project.pk}"' in body
    # The design page starts from these requirements: a design at once, ready to save.
    design_page = sales.get(f"/designs/new/?project={project.pk}").content.decode()
    assert "<svg" in design_page


def test_a_duplicate_project_name_is_an_inline_error(sales, world):
    response = sales.post(f"/customers/{world.customer.pk}/projects/new/", {"name": "GPU cluster"})
    assert response.status_code == 400 and "already exists" in response.content.decode()


def test_the_project_page_lists_designs_and_makes_a_quote_from_one(sales, world, seeded):
    design = design_save(
        project=world.project,
        name="128 GPUs NDR",
        requirements={"gpu_count": 128, "nic_generation": "NDR"},
        user=world.sales,
    )
    body = sales.get(f"/projects/{world.project.pk}/").content.decode()
    assert (
        "128 GPUs NDR" in body and "Make a quote" in body and f"project={world.project.pk}" in body
    )
    response = sales.post(f"/projects/{world.project.pk}/designs/{design.pk}/quote/")
    quote = Quote.objects.get(project=world.project)
    assert response["Location"] == f"/quotes/{quote.pk}/"
    page = sales.get(response["Location"]).content.decode()
    assert "The design" in page and design.result["switch_sku"] in page
    lines = quote.current_revision.lines
    # The design's bill of materials as required lines; the spares kit and the per-node
    # services beside them as optional ones (tests/quoting/quotes/test_spares_kit.py).
    assert lines.exclude(section=Section.OPTIONAL).count() == len(design.bom)
    assert lines.filter(section=Section.OPTIONAL).exists()


def test_a_design_of_another_project_cannot_be_quoted_here(sales, world, seeded):
    other_project = ProjectFactory(customer=world.customer, name="Other")
    design = design_save(
        project=other_project, name="D", requirements={"gpu_count": 16}, user=world.sales
    )
    response = sales.post(f"/projects/{world.project.pk}/designs/{design.pk}/quote/")
    assert response.status_code == 404

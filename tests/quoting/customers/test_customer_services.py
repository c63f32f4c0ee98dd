"""customer_update, contact_update and project_update: the one write behind the edit page and
PATCH on the API."""

from __future__ import annotations

import pytest

from quoting.customers.models import Contact
from quoting.customers.services import ContactEdit, contact_update, customer_update, project_update
from quoting.errors import InvalidValue
from quoting.quotes.services.quotes import quote_create
from tests.quoting.factories import CustomerFactory, TeamFactory


def test_customer_update_changes_fields_and_upper_cases_the_currency(world):
    customer = customer_update(
        customer=world.customer,
        user=world.sales,
        company=" Pengcheng Lab ",
        region="Nanshan",
        default_currency="usd",
    )
    customer.refresh_from_db()
    assert (customer.company, customer.region, customer.default_currency) == (
        "Pengcheng Lab",
        "Nanshan",
        "USD",
    )


def test_customer_update_adds_changes_and_removes_contacts_in_the_same_write(world):
    customer = world.customer
    kept = Contact.objects.create(customer=customer, name="Dr. Chen")
    gone = Contact.objects.create(customer=customer, name="Mr. Zhou")

    customer_update(
        customer=customer,
        user=world.sales,
        notes="Met in March",
        contacts=[
            ContactEdit(
                contact=kept,
                values={"name": "Dr. Chen Wei", "title": "CTO", "email": "", "phone": ""},
            ),
            ContactEdit(contact=gone, delete=True),
            ContactEdit(
                contact=None, values={"name": "Ms. Lin", "title": "", "email": "", "phone": ""}
            ),
        ],
    )

    names = sorted(customer.contacts.values_list("name", flat=True))
    assert names == ["Dr. Chen Wei", "Ms. Lin"]


def test_a_refused_contact_leaves_the_customer_unchanged(world):
    elsewhere = CustomerFactory(team=world.other_team, owner=world.other_sales)
    stranger = Contact.objects.create(customer=elsewhere, name="X")
    with pytest.raises(InvalidValue) as caught:
        customer_update(
            customer=world.customer,
            user=world.sales,
            region="Futian",
            contacts=[ContactEdit(contact=stranger, delete=True)],
        )
    assert caught.value.field == "contacts"
    world.customer.refresh_from_db()
    assert world.customer.region != "Futian" and Contact.objects.filter(pk=stranger.pk).exists()


def test_a_sales_user_cannot_move_a_customer_to_another_team(world):
    with pytest.raises(InvalidValue) as caught:
        customer_update(customer=world.customer, user=world.sales, team=world.other_team)
    assert caught.value.field == "team"
    world.customer.refresh_from_db()
    assert world.customer.team == world.team


def test_a_manager_moves_a_customer_to_another_team_unless_it_has_a_namesake_there(world):
    CustomerFactory(team=world.other_team, owner=world.other_sales, company=world.customer.company)
    with pytest.raises(InvalidValue) as caught:
        customer_update(customer=world.customer, user=world.manager, team=world.other_team)
    assert caught.value.field == "company"

    third = TeamFactory(name="Guangzhou")
    customer_update(customer=world.customer, user=world.manager, team=third)
    world.customer.refresh_from_db()
    assert world.customer.team == third


def test_renaming_a_customer_to_a_namesake_in_its_team_is_refused(world):
    CustomerFactory(team=world.team, owner=world.sales, company="Qianhai Bank")
    with pytest.raises(InvalidValue) as caught:
        customer_update(customer=world.customer, user=world.sales, company="Qianhai Bank")
    assert caught.value.field == "company"


def test_customer_update_refuses_a_field_it_does_not_know(world):
    with pytest.raises(TypeError):
        customer_update(customer=world.customer, user=world.sales, owner=world.manager)


def test_contact_update_strips_the_name(world):
    contact = Contact.objects.create(customer=world.customer, name="Dr. Chen")
    contact_update(contact=contact, name="  Dr. Chen Wei ", phone="+86 755 0000")
    contact.refresh_from_db()
    assert (contact.name, contact.phone) == ("Dr. Chen Wei", "+86 755 0000")


def test_project_update_renames_and_moves_within_the_team_before_any_quote(world):
    other_customer = CustomerFactory(team=world.team, owner=world.sales, company="Qianhai Bank")
    project = project_update(
        project=world.project, name="GPU cluster phase 2", customer=other_customer
    )
    project.refresh_from_db()
    assert (project.name, project.customer) == ("GPU cluster phase 2", other_customer)


def test_project_update_keeps_the_customer_of_a_project_with_quotes(world):
    quote_create(project=world.project, user=world.sales)
    other_customer = CustomerFactory(team=world.team, owner=world.sales, company="Qianhai Bank")
    with pytest.raises(InvalidValue) as caught:
        project_update(project=world.project, customer=other_customer)
    assert caught.value.field == "customer"
    project = project_update(project=world.project, notes="Phase 2 in Q3")
    assert project.notes == "Phase 2 in Q3" and project.customer == world.customer


def test_project_update_keeps_a_project_in_its_team(world):
    with pytest.raises(InvalidValue) as caught:
        project_update(
            project=world.project,
            customer=CustomerFactory(team=world.other_team, owner=world.other_sales),
        )
    assert caught.value.field == "customer"


def test_the_api_deletes_a_project_without_quotes_and_refuses_one_with_quotes(world):
    from quoting.customers.models import Project
    from tests.quoting.api_world import token_client

    api = token_client(world.sales)
    spare = Project.objects.create(customer=world.customer, name="Spare", owner=world.sales)
    quote_create(project=world.project, user=world.sales)

    assert api.delete(f"/api/v1/projects/{spare.pk}/").status_code == 204
    refused = api.delete(f"/api/v1/projects/{world.project.pk}/")
    assert refused.status_code == 409 and "refer to this one" in refused.json()["detail"]
    assert not Project.objects.filter(pk=spare.pk).exists()
    assert Project.objects.filter(pk=world.project.pk).exists()


def test_the_edit_page_renames_one_contact_and_removes_another_in_one_post(client, world):
    customer = world.customer
    kept = Contact.objects.create(customer=customer, name="Dr. Chen")
    gone = Contact.objects.create(customer=customer, name="Mr. Zhou")
    client.force_login(world.sales)
    response = client.post(
        f"/customers/{customer.pk}/edit/",
        {
            "company": customer.company,
            "team": world.team.pk,
            "vat_zone": "china",
            "language": "zh-hans",
            "default_currency": "CNY",
            "contacts-TOTAL_FORMS": "3",
            "contacts-INITIAL_FORMS": "2",
            "contacts-0-id": kept.pk,
            "contacts-0-name": "Dr. Chen Wei",
            "contacts-1-id": gone.pk,
            "contacts-1-name": "Mr. Zhou",
            "contacts-1-DELETE": "on",
            "contacts-2-name": "",
        },
    )
    assert response.status_code == 302
    assert list(customer.contacts.values_list("name", flat=True)) == ["Dr. Chen Wei"]

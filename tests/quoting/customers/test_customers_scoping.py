"""Who sees what (one selector per kind of object), saved designs, and the demo data."""

from __future__ import annotations

import pytest

from quoting.customers.models import Customer, Project, Team
from quoting.customers.selectors import customers_visible_to, projects_visible_to
from quoting.customers.services import customer_create, project_create
from quoting.designs.models import SavedDesign
from quoting.designs.services.saved import design_save
from quoting.engine.errors import InvalidInput
from quoting.errors import InvalidValue
from quoting.quotes.models import Quote, QuoteLine, QuoteRevision
from quoting.quotes.selectors import quotes_visible_to, revision_for_display, revision_totals
from quoting.quotes.services.demo import demo_data_ensure
from quoting.quotes.services.quotes import quote_create


@pytest.fixture
def quote(world):
    return quote_create(project=world.project, user=world.sales)


def test_a_sales_user_sees_only_their_teams_customers_projects_and_quotes(world, quote):
    assert list(customers_visible_to(user=world.sales)) == [world.customer]
    assert list(projects_visible_to(user=world.sales)) == [world.project]
    assert list(quotes_visible_to(user=world.sales)) == [quote]
    assert not customers_visible_to(user=world.other_sales).exists()
    assert not projects_visible_to(user=world.other_sales).exists()
    assert not quotes_visible_to(user=world.other_sales).exists()


def test_a_sales_user_of_another_team_cannot_open_the_quote_page(world, quote):
    with pytest.raises(QuoteRevision.DoesNotExist):  # as its docstring says; the page: 404
        revision_for_display(user=world.other_sales, quote_id=quote.pk)


def test_managers_and_superusers_see_every_team(world, quote, make_user):
    root = make_user("root", role=None, is_superuser=True)
    for user in (world.manager, root):
        assert list(quotes_visible_to(user=user)) == [quote]
        assert list(customers_visible_to(user=user)) == [world.customer]


def test_a_user_in_two_teams_sees_both_without_duplicates(world, make_user):
    from tests.quoting.factories import CustomerFactory

    both = make_user("sun", role="sales")
    world.team.members.add(both)
    world.other_team.members.add(both)
    other = CustomerFactory(team=world.other_team, owner=world.other_sales, company="Bank")
    assert sorted(c.company for c in customers_visible_to(user=both)) == [
        other.company,
        world.customer.company,
    ]


def test_inactive_and_anonymous_users_see_nothing(world, quote):
    from django.contrib.auth.models import AnonymousUser

    world.manager.is_active = False
    assert not quotes_visible_to(user=world.manager).exists()
    assert not customers_visible_to(user=AnonymousUser()).exists()


def test_a_company_appears_once_per_team(world):
    with pytest.raises(InvalidValue) as caught:
        customer_create(team=world.team, owner=world.sales, company=world.customer.company)
    assert caught.value.field == "company"
    assert customer_create(
        team=world.other_team, owner=world.other_sales, company=world.customer.company
    ).pk


def test_a_saved_design_keeps_its_requirements_and_result(world, seeded):
    design = design_save(
        project=world.project,
        name="128 GPUs",
        requirements={"gpu_count": 128, "switch_part_number": "MQM9790-NS2F"},
        user=world.sales,
    )
    assert design.requirements["gpu_count"] == 128
    assert design.result["gpu_count"] == 128 and design.bom
    world.project.refresh_from_db()
    assert world.project.requirements == design.requirements


def test_unknown_or_bad_requirements_are_refused_naming_the_field(world, seeded):
    with pytest.raises(InvalidInput) as caught:
        design_save(
            project=world.project,
            name="x",
            requirements={"gpu_count": 8, "gpus": 8},
            user=world.sales,
        )
    assert "gpus" in caught.value.errors
    with pytest.raises(InvalidInput) as caught:
        project_create(
            customer=world.customer, name="y", owner=world.sales, requirements={"colour": "green"}
        )
    assert "colour" in caught.value.errors
    with pytest.raises(InvalidInput) as caught:
        design_save(
            project=world.project, name="x", requirements={"gpu_count": 0}, user=world.sales
        )
    assert "gpu_count" in caught.value.errors
    assert not SavedDesign.objects.exists()


def _counts():
    return [m.objects.count() for m in (Team, Customer, Project, SavedDesign, Quote, QuoteLine)]


def test_the_demo_data_is_created_once_and_running_it_again_changes_nothing(seeded):
    made = demo_data_ensure()
    assert made == {"teams": 1, "customers": 2, "projects": 2, "designs": 2, "quotes": 1}
    before = _counts()
    assert demo_data_ensure() == {
        "teams": 0,
        "customers": 0,
        "projects": 0,
        "designs": 0,
        "quotes": 0,
    }
    assert _counts() == before

    team = Team.objects.get(name="Shenzhen sales")
    assert sorted(team.members.values_list("username", flat=True)) == ["manager", "sales"]
    university, securities = (
        Customer.objects.get(company__contains="University"),
        Customer.objects.get(company__contains="Securities"),
    )
    assert (university.language, university.default_currency) == ("zh-hans", "CNY")
    assert SavedDesign.objects.get(project__customer=university).result["gpu_count"] == 256
    assert SavedDesign.objects.get(project__customer=securities).result["gpu_count"] == 128
    quote = Quote.objects.get()
    assert (quote.customer, quote.status, quote.currency) == (university, "draft", "CNY")
    assert revision_totals(revision=quote.current_revision).total > 0
    sales = team.members.get(username="sales")
    assert list(quotes_visible_to(user=sales)) == [quote]

"""The page and the API are two doors to the same room: for every rule about who may do what
(send, approve, edit the terms, file a customer under a team) both give the same answer, for a
sales user, a manager, a superuser and a sales user of another team. The rules live in
quoting.quotes.permissions; the services enforce them and the quote page shows only what they allow.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from quoting.customers.models import Customer
from quoting.customers.permissions import teams_for_filing
from quoting.quotes.models import QuoteEvent, QuoteStatus
from quoting.quotes.services.quotes import quote_request_approval, quote_update_terms
from tests.api_errors import field_errors
from tests.quoting.api_world import quote_world_make, token_client
from tests.quoting.factories import TeamFactory, days_from_today, quote_reload

DOORS = ["page", "api"]
USERS = ["sales", "manager", "superuser", "other_sales"]
DONE = "done"


@pytest.fixture
def qw(make_user):
    world = quote_world_make(make_user)
    world.superuser = make_user("root", role=None, is_superuser=True, is_staff=True)
    return world


def _user(qw, who: str):
    return qw.superuser if who == "superuser" else getattr(qw.world, who)


def _outcome(response) -> str | int:
    return DONE if response.status_code in (200, 201, 302) else response.status_code


def _act(client, door: str, user, quote, action: str, **body):
    """One quote action (send, approve, ...) through one door; the answer as DONE or a status."""
    quote = quote_reload(quote)
    if door == "page":
        client.force_login(user)
        return _outcome(
            client.post(
                f"/quotes/{quote.pk}/{action}/", {"expected_version": quote.version, **body}
            )
        )
    api = token_client(user)
    return _outcome(
        api.post(
            f"/api/v1/quotes/{quote.pk}/{action}/",
            body,
            format="json",
            HTTP_IF_MATCH=f'"{quote.version}"',
        )
    )


def _page_offers(client, user, quote, label: str) -> bool | None:
    """Whether the quote page shows the button; None when the user may not see the quote."""
    client.force_login(user)
    response = client.get(f"/quotes/{quote.pk}/")
    if response.status_code == 404:
        return None
    return label in response.content.decode()


def _discounted(qw, percent: str = "15"):
    """A draft whose 15 % quote discount is beyond a sales user's 10 % and within a manager's
    25 % limit."""
    quote = qw.quote
    quote_update_terms(
        quote=quote,
        user=qw.world.sales,
        expected_version=quote.version,
        discount_percent=Decimal(percent),
    )
    return quote


# --- send ----------------------------------------------------------------------------------------

SEND_ANSWERS = {"sales": 409, "manager": DONE, "superuser": DONE, "other_sales": 404}


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("who", USERS)
def test_both_doors_let_the_same_people_send_a_15_percent_discount(client, qw, door, who):
    quote = _discounted(qw)
    user = _user(qw, who)
    offered = _page_offers(client, user, quote, "Mark sent")

    answer = _act(client, door, user, quote, "send")

    assert answer == SEND_ANSWERS[who]
    assert offered == (None if who == "other_sales" else answer == DONE)
    sent = quote_reload(quote).status == QuoteStatus.SENT
    assert sent == (answer == DONE)


# --- approve -------------------------------------------------------------------------------------

APPROVE_ANSWERS = {"sales": 403, "manager": DONE, "superuser": DONE, "other_sales": 404}


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("who", USERS)
def test_both_doors_let_the_same_people_approve_a_discount(client, qw, door, who):
    quote = _discounted(qw)
    quote_request_approval(quote=quote, user=qw.world.sales, expected_version=quote.version)
    user = _user(qw, who)
    offered = _page_offers(client, user, quote, "Approve")

    answer = _act(client, door, user, quote, "approve")

    assert answer == APPROVE_ANSWERS[who]
    assert offered == (None if who == "other_sales" else answer == DONE)
    approved = quote_reload(quote).status == QuoteStatus.APPROVED
    assert approved == (answer == DONE)


@pytest.mark.parametrize("door", DOORS)
def test_a_manager_cannot_approve_their_own_request_through_either_door(client, qw, door):
    quote = _discounted(qw, "20")
    manager = qw.world.manager
    qw.world.team.members.add(manager)
    # 20 % is within a manager's limit: ask as a sales user would, then decide on it yourself.
    quote_request_approval(quote=quote, user=qw.world.sales, expected_version=quote.version)
    quote.current_revision.approvals.update(requested_by=manager)

    assert _page_offers(client, manager, quote, "Approve") is False
    assert _act(client, door, manager, quote, "approve") == 403
    assert quote_reload(quote).status == QuoteStatus.AWAITING_APPROVAL


# --- the terms edit ------------------------------------------------------------------------------


def _terms(client, door: str, user, quote, **terms):
    quote = quote_reload(quote)
    if door == "page":
        client.force_login(user)
        current = quote.current_revision
        body = {
            "expected_version": quote.version,
            "discount_percent": current.discount_percent,
            "tax_percent": current.tax_percent,
            "valid_until": quote.valid_until.isoformat(),
        }
        return _outcome(client.post(f"/quotes/{quote.pk}/terms/", body | terms))
    api = token_client(user)
    return _outcome(
        api.patch(
            f"/api/v1/quotes/{quote.pk}/", terms, format="json", HTTP_IF_MATCH=f'"{quote.version}"'
        )
    )


TERMS_ANSWERS = {"sales": DONE, "manager": DONE, "superuser": DONE, "other_sales": 404}


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("who", USERS)
def test_one_terms_edit_bumps_the_version_once_through_either_door(client, qw, door, who):
    quote = qw.quote
    before = quote_reload(quote).version
    valid_until = days_from_today(60)

    answer = _terms(
        client,
        door,
        _user(qw, who),
        quote,
        discount_percent="5",
        tax_percent="0",
        valid_until=valid_until.isoformat(),
    )

    assert answer == TERMS_ANSWERS[who]
    after = quote_reload(quote)
    if answer != DONE:
        assert after.version == before
        return
    assert after.version == before + 1
    assert after.current_revision.discount_percent == Decimal(5)
    assert after.current_revision.tax_percent == 0 and after.valid_until == valid_until
    verbs = list(QuoteEvent.objects.filter(quote=quote).values_list("verb", flat=True))
    for verb in ("discount_changed", "tax_changed", "validity_changed"):
        assert verbs.count(verb) == 1


@pytest.mark.parametrize("door", DOORS)
def test_terms_posted_unchanged_leave_an_approved_quote_approved(client, qw, door):
    quote = _discounted(qw)
    quote_request_approval(quote=quote, user=qw.world.sales, expected_version=quote.version)
    assert _act(client, "api", qw.world.manager, quote, "approve") == DONE
    before = quote_reload(quote).version

    assert _terms(client, door, qw.world.sales, quote, discount_percent="15") == DONE

    after = quote_reload(quote)
    assert after.status == QuoteStatus.APPROVED and after.version == before


@pytest.mark.parametrize("door", DOORS)
def test_a_terms_edit_on_a_stale_version_changes_nothing(client, qw, door):
    quote = qw.quote
    stale = quote_reload(quote)
    _discounted(qw, "2")
    if door == "page":
        client.force_login(qw.world.sales)
        response = client.post(
            f"/quotes/{quote.pk}/terms/",
            {
                "expected_version": stale.version,
                "discount_percent": "7",
                "tax_percent": "13",
                "valid_until": stale.valid_until.isoformat(),
            },
        )
    else:
        response = token_client(qw.world.sales).patch(
            f"/api/v1/quotes/{quote.pk}/",
            {"discount_percent": "7"},
            format="json",
            HTTP_IF_MATCH=f'"{stale.version}"',
        )
    assert response.status_code == 412
    assert quote_reload(quote).current_revision.discount_percent == Decimal(2)


# --- filing a customer under a team --------------------------------------------------------------


def _page_team_choices(client, user) -> set[int]:
    client.force_login(user)
    form = client.get("/customers/new/").context["form"]
    return {team.pk for team in form.fields["team"].queryset}


def _file(client, door: str, user, team, company: str) -> str | int:
    if door == "page":
        client.force_login(user)
        return _outcome(
            client.post(
                "/customers/new/",
                {
                    "company": company,
                    "team": team.pk,
                    "vat_zone": "china",
                    "language": "zh-hans",
                    "default_currency": "CNY",
                    "contacts-TOTAL_FORMS": "0",
                    "contacts-INITIAL_FORMS": "0",
                },
            )
        )
    return _outcome(
        token_client(user).post(
            "/api/v1/customers/", {"company": company, "team": team.pk}, format="json"
        )
    )


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("who", USERS + ["two_team_sales"])
def test_both_doors_offer_and_accept_the_same_teams_to_file_a_customer_under(
    client, qw, make_user, door, who
):
    world = qw.world
    third = TeamFactory(name="Guangzhou")
    if who == "two_team_sales":
        user = make_user("sun", role="sales")
        world.team.members.add(user)
        third.members.add(user)
    else:
        user = _user(qw, who)
    expected = {
        "sales": {world.team.pk},
        "other_sales": {world.other_team.pk},
        "two_team_sales": {world.team.pk, third.pk},
        "manager": {world.team.pk, world.other_team.pk, third.pk},
        "superuser": {world.team.pk, world.other_team.pk, third.pk},
    }[who]

    assert _page_team_choices(client, user) == expected
    assert {team.pk for team in teams_for_filing(user=user)} == expected
    accepted = {
        team.pk
        for team in (world.team, world.other_team, third)
        if _file(client, door, user, team, f"Filed by {who} in {team.name}") == DONE
    }
    assert accepted == expected
    assert (
        set(
            Customer.objects.filter(company__startswith=f"Filed by {who}").values_list(
                "team", flat=True
            )
        )
        == expected
    )


def test_the_api_files_a_customer_under_the_users_only_team_when_none_is_given(qw):
    response = token_client(qw.world.sales).post(
        "/api/v1/customers/", {"company": "Qianhai Bank"}, format="json"
    )
    assert response.status_code == 201
    assert Customer.objects.get(company="Qianhai Bank").team == qw.world.team


@pytest.mark.parametrize("who", ["manager", "superuser"])
def test_a_user_of_every_team_must_name_the_team_through_the_api(qw, who):
    response = token_client(_user(qw, who)).post(
        "/api/v1/customers/", {"company": "Qianhai Bank"}, format="json"
    )
    assert response.status_code == 400 and "team" in field_errors(response)

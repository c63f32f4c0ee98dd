"""GET /api/v1/me/ and /api/v1/users/: who you are, and the users you share a team with."""

from __future__ import annotations

from rest_framework.test import APIClient

from tests.quoting.api_world import token_client


def _usernames(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [u["username"] for u in response.json()["results"]]


def test_me_with_a_token_names_the_user_their_teams_roles_and_the_tokens_scope(qw):
    response = token_client(qw.world.sales, scope="read").get("/api/v1/me/")
    assert response.status_code == 200, response.content
    me = response.json()
    assert (me["id"], me["username"], me["active"]) == (qw.world.sales.pk, "wang", True)
    assert me["roles"] == ["sales"]
    assert me["teams"] == [{"id": qw.world.team.pk, "name": "Shenzhen"}]
    assert me["may_view_margin"] is False
    assert me["token_scope"] == "read"


def test_me_in_a_browser_session_has_no_token_scope(qw):
    client = APIClient()
    client.force_login(qw.world.manager)
    me = client.get("/api/v1/me/").json()
    assert (me["username"], me["roles"], me["token_scope"]) == ("zhao", ["sales-manager"], None)
    assert me["may_view_margin"] is True


def test_me_without_credentials_is_refused():
    assert APIClient().get("/api/v1/me/").status_code in (401, 403)


def test_a_sales_user_sees_the_users_of_their_teams_only(qw, make_user):
    mate = make_user("chen", first_name="Chen", last_name="Jing")
    qw.world.team.members.add(mate)
    gone = make_user("gone", is_active=False)
    qw.world.team.members.add(gone)
    response = token_client(qw.world.sales).get("/api/v1/users/")
    assert _usernames(response) == ["chen", "wang"]  # not li (Beijing), zhao or the inactive
    chen = response.json()["results"][0]
    assert chen == {"id": mate.pk, "username": "chen", "name": "Chen Jing", "active": True}


def test_a_user_without_a_team_sees_themselves(make_user):
    loner = make_user("loner")
    assert _usernames(token_client(loner).get("/api/v1/users/")) == ["loner"]


def test_a_manager_sees_every_active_user_and_filters_by_username(qw, make_user):
    make_user("gone", is_active=False)
    client = token_client(qw.world.manager)
    assert _usernames(client.get("/api/v1/users/")) == ["li", "wang", "zhao"]
    assert _usernames(client.get("/api/v1/users/?username=li")) == ["li"]
    assert client.get(f"/api/v1/users/{qw.world.other_sales.pk}/").json()["username"] == "li"


def test_a_user_outside_your_teams_is_not_found(qw):
    response = token_client(qw.world.sales).get(f"/api/v1/users/{qw.world.other_sales.pk}/")
    assert response.status_code == 404


def test_the_quote_lists_owner_filter_takes_the_users_id_or_username(qw):
    client = token_client(qw.world.sales)
    me = client.get("/api/v1/me/").json()
    by_id = client.get(f"/api/v1/quotes/?owner={me['id']}").json()["results"]
    by_name = client.get("/api/v1/quotes/?owner=wang").json()["results"]
    assert [q["id"] for q in by_id] == [q["id"] for q in by_name] == [qw.quote.pk]
    assert by_id[0]["owner"] == "wang"
    assert client.get("/api/v1/quotes/?owner=nobody").status_code == 400

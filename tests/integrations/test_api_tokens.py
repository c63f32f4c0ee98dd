"""API tokens: hashed at rest, scoped, revocable, with a last-use time."""

from __future__ import annotations

import datetime as dt
import io

from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from integrations.auth import TokenRateThrottle
from integrations.models import ApiToken
from integrations.services import api_token_issue, api_token_revoke, token_hash
from tests.quoting.api_world import token_client


def _all_text_in_database() -> str:
    """Every char/text/JSON column of every table, as one string."""
    chunks = []
    with connection.cursor() as cursor:
        for model in apps.get_models():
            columns = [
                f.column
                for f in model._meta.concrete_fields
                if f.get_internal_type() in ("CharField", "TextField", "JSONField")
            ]
            if not columns:
                continue
            cols = ", ".join(connection.ops.quote_name(c) for c in columns)
            cursor.execute(f"SELECT {cols} FROM {connection.ops.quote_name(model._meta.db_table)}")  # noqa: S608
            chunks.extend(str(value) for row in cursor.fetchall() for value in row)
    return "\n".join(chunks)


def test_a_token_is_stored_only_as_its_sha256(make_user):
    user = make_user("crm")
    token, raw = api_token_issue(user=user, scope="write", name="HubSpot")
    assert token.token_hash == token_hash(raw)
    assert raw not in _all_text_in_database()
    assert raw[:10] == token.prefix  # only a prefix, to tell tokens apart


def test_the_command_prints_the_token_once_and_it_works(qw):
    out = io.StringIO()
    call_command(
        "issue_api_token",
        qw.world.sales.username,
        "--scope",
        "read",
        stdout=out,
        stderr=io.StringIO(),
    )
    raw = out.getvalue().strip()
    assert ApiToken.objects.get(token_hash=token_hash(raw)).scope == "read"
    response = token_client_raw(raw).get("/api/v1/customers/")
    assert response.status_code == 200


def token_client_raw(raw):
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def test_unknown_and_revoked_tokens_get_401(qw):
    assert token_client_raw("fq_not-a-token").get("/api/v1/customers/").status_code == 401
    token, raw = api_token_issue(user=qw.world.sales, scope="write", name="x")
    assert token_client_raw(raw).get("/api/v1/customers/").status_code == 200
    api_token_revoke(token=token)
    response = token_client_raw(raw).get("/api/v1/customers/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_anonymous_browser_calls_get_401_with_the_bearer_challenge(client, db):
    response = client.get("/api/v1/customers/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'


def test_a_read_token_can_get_but_not_post(qw):
    client = token_client(qw.world.sales, scope="read")
    assert client.get("/api/v1/quotes/").status_code == 200
    response = client.post("/api/v1/customers/", {"company": "Nope Ltd"}, format="json")
    assert response.status_code == 403
    assert not qw.world.customer.team.customers.filter(company="Nope Ltd").exists()


def test_last_used_is_recorded_at_most_once_a_minute(qw):
    token, raw = api_token_issue(user=qw.world.sales, scope="read", name="x")
    assert token.last_used_at is None
    token_client_raw(raw).get("/api/v1/customers/")
    first = ApiToken.objects.get(pk=token.pk).last_used_at
    assert first is not None
    token_client_raw(raw).get("/api/v1/customers/")
    assert ApiToken.objects.get(pk=token.pk).last_used_at == first
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=first - dt.timedelta(minutes=2))
    token_client_raw(raw).get("/api/v1/customers/")
    assert ApiToken.objects.get(pk=token.pk).last_used_at > first - dt.timedelta(seconds=1)
    assert ApiToken.objects.get(pk=token.pk).last_used_at <= timezone.now()


def test_a_token_of_a_deactivated_user_stops_working(qw):
    _token, raw = api_token_issue(user=qw.world.sales, scope="read", name="x")
    qw.world.sales.is_active = False
    qw.world.sales.save()
    assert token_client_raw(raw).get("/api/v1/customers/").status_code == 401


def test_a_token_gets_its_budget_per_window_then_429_until_the_next_window(qw, monkeypatch):
    monkeypatch.setattr(TokenRateThrottle, "THROTTLE_RATES", {"api_token": "3/minute"})
    clock = [6000.0]  # the start of a one-minute window
    monkeypatch.setattr(TokenRateThrottle, "timer", lambda self: clock[0])
    _, raw = api_token_issue(user=qw.world.sales, scope="read", name="crm")
    caller = token_client_raw(raw)
    assert [caller.get("/api/v1/quotes/").status_code for _ in range(3)] == [200, 200, 200]
    clock[0] += 20
    refused = caller.get("/api/v1/quotes/")
    assert refused.status_code == 429
    assert refused["Retry-After"] == "40"  # the window's end
    _, other = api_token_issue(user=qw.world.sales, scope="read", name="erp")
    assert token_client_raw(other).get("/api/v1/quotes/").status_code == 200  # its own budget
    clock[0] += 40
    assert caller.get("/api/v1/quotes/").status_code == 200


def test_a_token_acts_with_its_users_roles_read_with_it_in_one_statement(
    qw, django_assert_num_queries
):
    """The manager (in no team) sees every team's quote, the other team's sales user does not:
    the roles come with the token and its user, in the one statement that finds the token."""
    from integrations.auth import token_lookup

    manager, _ = api_token_issue(user=qw.world.manager, scope="read", name="CRM")
    with django_assert_num_queries(1):
        token = token_lookup(manager.token_hash)
        assert token.user == qw.world.manager
        assert token.user.has_role("sales-manager") and not token.user.has_role("sales")
        assert (token.scope, token.revoked_at) == ("read", None)
    assert token_lookup(token_hash("not-a-token")) is None

    url = f"/api/v1/quotes/{qw.quote.pk}/"
    assert token_client(qw.world.manager, scope="read").get(url).status_code == 200
    assert token_client(qw.world.other_sales, scope="read").get(url).status_code == 404

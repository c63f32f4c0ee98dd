"""PostgreSQL plans a statement once per connection, not on every request (issue 12): psycopg
prepares what a connection runs often, with parameters bound by the server."""

from __future__ import annotations

import json

import pytest
from django.db import connection

from proposals.models import LinkView
from proposals.share.services import share_link_create
from tests.conftest import service_missing
from tests.portal.test_settings import run_settings
from tests.proposals.conftest import quote_sent
from tests.quoting.api_world import token_client
from tests.quoting.factories import world_make

OPTIONS_PROBE = (
    "import json, django; from django.conf import settings; django.setup(); "
    "print(json.dumps(settings.DATABASES['default'].get('OPTIONS', {})))"
)
CURSORS_PROBE = (
    "import json, django; from django.conf import settings; django.setup(); "
    "print(json.dumps(settings.DATABASES['default'].get('DISABLE_SERVER_SIDE_CURSORS')))"
)
POSTGRES = {"DATABASE_URL": "postgres://u:p@db.example:5432/fq"}


def test_on_postgresql_statements_are_bound_by_the_server_and_prepared_after_five_runs():
    result = run_settings({**POSTGRES, "DB_PREPARE_THRESHOLD": ""}, code=OPTIONS_PROBE)
    assert result.returncode == 0, result.stderr
    options = json.loads(result.stdout)
    assert (options["server_side_binding"], options["prepare_threshold"]) == (True, 5)


@pytest.mark.parametrize("value", ["off", "OFF", "none"])
def test_preparing_can_be_turned_off_for_a_transaction_pooler(value):
    result = run_settings({**POSTGRES, "DB_PREPARE_THRESHOLD": value}, code=OPTIONS_PROBE)
    assert result.returncode == 0, result.stderr
    options = json.loads(result.stdout)
    assert "server_side_binding" not in options and "prepare_threshold" not in options


def test_sqlite_is_left_as_it_is(tmp_path):
    result = run_settings({"FABRICQUOTE_VAR_DIR": str(tmp_path)}, code=OPTIONS_PROBE)
    assert result.returncode == 0, result.stderr
    assert "server_side_binding" not in json.loads(result.stdout)


def _prepared() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


@pytest.mark.django_db(transaction=True)
def test_share_views_and_api_calls_reuse_their_plans_and_every_open_is_recorded(make_user, client):
    """The share page's lookup, its recorded open (one statement, no "SET LOCAL ...;" before it,
    which a prepared statement cannot hold) and the API token's lookup are prepared once the
    connection has run them a few times; nothing is lost on the way."""
    if connection.vendor != "postgresql":
        service_missing("prepared statements need PostgreSQL (set DATABASE_URL)")
    world = world_make(make_user)
    quote = quote_sent(world)
    link, token = share_link_create(quote=quote, user=world.sales)
    api = token_client(world.sales, scope="read")
    for _ in range(8):
        assert client.get(f"/p/{token}").status_code == 200
        assert api.get(f"/api/v1/quotes/{quote.pk}/").status_code == 200

    prepared = _prepared()
    assert any('FROM "proposals_sharelink" l' in sql and "$1" in sql for sql in prepared)
    assert any('INSERT INTO "proposals_linkview"' in sql for sql in prepared)
    assert any('FROM "integrations_apitoken" t' in sql for sql in prepared)
    assert LinkView.objects.filter(link=link).count() == 8


def test_choice_lists_are_fetched_in_one_round_trip_not_through_a_server_side_cursor():
    """A filter's dropdown (ModelChoiceIterator uses QuerySet.iterator()) asked PostgreSQL for
    DECLARE, FETCH, FETCH and CLOSE; fetched at once it is one statement."""
    result = run_settings({**POSTGRES, "DB_PREPARE_THRESHOLD": ""}, code=CURSORS_PROBE)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) is True


@pytest.mark.django_db
def test_the_quote_list_opens_no_server_side_cursor(make_user, client):
    if connection.vendor != "postgresql":
        service_missing("server-side cursors are PostgreSQL's (set DATABASE_URL)")
    import psycopg

    world = world_make(make_user)
    quote_sent(world)
    client.force_login(world.sales)
    cursors = []

    def record(execute, sql, params, many, context):
        cursors.append(isinstance(context["cursor"].cursor, psycopg.ServerCursor))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        assert client.get("/quotes/").status_code == 200
    assert cursors and not any(cursors)  # a named cursor: DECLARE, FETCH, FETCH, CLOSE

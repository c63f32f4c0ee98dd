"""The suite's PostgreSQL backend (tests/postgresql_delete_flush) empties tables with DELETE after
a test that commits: every table left empty, as Django's TRUNCATE leaves them."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection

from tests.conftest import service_missing


@pytest.mark.django_db
def test_a_flush_deletes_every_row_of_every_table(make_user):
    if connection.vendor != "postgresql":
        # In CI (CI=true, PostgreSQL) this fails rather than skips.
        service_missing("the DELETE flush is PostgreSQL's: set DATABASE_URL to run this test")
    tables = connection.introspection.django_table_names(only_existing=True)
    statements = connection.ops.sql_flush(no_style(), tables)
    assert statements[0] == "SET CONSTRAINTS ALL DEFERRED;"
    assert all(sql.startswith("DELETE FROM ") for sql in statements[1:])
    assert len(statements) == len(tables) + 1

    make_user("wang")  # a user, in a group, with the catalog's permissions: rows that refer
    # As TransactionTestCase flushes after a test (sequences are left as they are).
    call_command(
        "flush", verbosity=0, interactive=False, reset_sequences=False, inhibit_post_migrate=True
    )
    with connection.cursor() as cursor:
        left = {}
        for table in tables:
            cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(table)}")  # noqa: S608
            if count := cursor.fetchone()[0]:
                left[table] = count
    assert left == {}

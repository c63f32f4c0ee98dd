"""The suite's PostgreSQL backend (tests/postgresql_delete_flush) empties tables with DELETE after
a test that commits: every table left empty, as Django's TRUNCATE leaves them."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
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


def _seeded_rows() -> dict[str, list[dict]]:
    from catalog.models import SparesRatio
    from quoting.customers.models import VatRate
    from quoting.quotes.models.quotes import ApprovalRule

    return {
        model.__name__: list(model.objects.order_by("pk").values())
        for model in (VatRate, SparesRatio, ApprovalRule)
    }


@pytest.mark.django_db(transaction=True)  # commits, as the tests that are flushed after do
def test_after_a_flush_the_rows_the_migrations_seeded_are_back_with_their_keys(make_user):
    """A test that commits is cleaned up by a flush, then post_migrate (pytest-django's
    TransactionTestCase): a rolled-back test after it on the same worker still finds the VAT
    rates, spares ratios and approval rules (tests/migration_rows.py), whichever order xdist
    runs them in. A flush that restarts the sequences (TRUNCATE) leaves them past those rows."""
    from catalog.models import SparesRatio
    from quoting.customers.models import VatRate

    seeded = _seeded_rows()
    assert all(seeded.values()), seeded  # what the migrations left in the test database
    VatRate.objects.filter(country="CN").update(vat_percent=99)  # a test's own change: undone
    make_user("wang")

    for reset_sequences in (False, True):
        call_command(
            "flush",
            verbosity=0,
            interactive=False,
            reset_sequences=reset_sequences,
            inhibit_post_migrate=False,
        )
        assert _seeded_rows() == seeded
        assert not get_user_model().objects.exists()
        # The sequence is past the rows put back, even after a flush that restarted it.
        assert SparesRatio.objects.create(spare_class="test", percent=1).pk > max(
            row["id"] for row in seeded["SparesRatio"]
        )
        SparesRatio.objects.filter(spare_class="test").delete()

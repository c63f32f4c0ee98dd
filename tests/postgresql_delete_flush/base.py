"""PostgreSQL for the test suite (portal/settings/test.py): Django's backend, except that a flush
empties the tables with DELETE rather than TRUNCATE.

A test that commits (the browser and live-server tests, `transaction=True`) is cleaned up by a
flush of every table. One TRUNCATE of the 52 tables took about 3 s on the loaded 2-core machine
(PostgreSQL makes new files for each table and index); DELETE of the few rows a test leaves
takes 0.3 s. The end state is the same: every table empty, sequences left as they are (as
Django's own flush leaves them unless asked). Foreign keys are checked at commit, when every
table is empty, as Django's constraints are deferrable. A flush that resets sequences or
cascades to tables outside the list is left to Django.
"""

from __future__ import annotations

from django.db.backends.postgresql import base, operations


class DatabaseOperations(operations.DatabaseOperations):
    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if not tables or reset_sequences or allow_cascade:
            return super().sql_flush(
                style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        return [
            "SET CONSTRAINTS ALL DEFERRED;",
            # Table names from Django's introspection, quoted: nothing from outside.
            *(f"DELETE FROM {self.quote_name(table)};" for table in tables),  # noqa: S608
        ]


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations

"""The rows the data migrations seed (VAT rates, spares ratios, approval rules) survive the flush
that cleans up after a test that commits.

That flush empties every table, and then sends post_migrate, which makes the content types,
permissions and role groups again but not the migrations' rows: a rolled-back test that ran
after it on the same worker found no VAT rate, and which tests those were depended on how xdist
handed them out (the Makefile's `--dist load` kept the committing tests last). Now the rows are
read once, right after the test database is set up, and put back, with their keys, by a
post_migrate receiver (tests/conftest.py connects it) when a flush has emptied their table.
"""

from __future__ import annotations

_kept: dict = {}  # model -> its rows as migrate left them, in the worker's test database

# post_migrate makes these again after a flush (Django's content types and permissions, the
# role groups of portal.apps): not kept here.
_MADE_BY_POST_MIGRATE = {"contenttypes", "auth"}


def keep() -> None:
    """Reads the rows of every table but post_migrate's own (after migrate, before any test)."""
    from django.apps import apps

    _kept.clear()
    for model in apps.get_models(include_auto_created=True):
        meta = model._meta
        if meta.app_label in _MADE_BY_POST_MIGRATE or meta.proxy or not meta.managed:
            continue
        if rows := list(model._base_manager.order_by("pk")):
            _kept[model] = rows


def restore(sender, using="default", **kwargs) -> None:
    """post_migrate's receiver: after the last app's post_migrate (the role groups made), puts
    back the kept rows of each table that is empty, as a flush leaves it, and moves its
    sequence past them (a flush that resets sequences starts them at 1)."""
    from django.apps import apps
    from django.core.management.color import no_style
    from django.db import connections, transaction

    if not _kept or sender is not list(apps.get_app_configs())[-1]:
        return
    emptied = [model for model in _kept if not model._base_manager.using(using).exists()]
    if not emptied:
        return
    connection = connections[using]
    with transaction.atomic(using):  # foreign keys between them are checked at the end
        for model in emptied:
            model._base_manager.using(using).bulk_create(_kept[model])
        with connection.cursor() as cursor:
            for sql in connection.ops.sequence_reset_sql(no_style(), emptied):
                cursor.execute(sql)

"""Lookups on the hottest paths (every share-page view, every API call), written once as one SQL
statement from the models' metadata and read back into model instances as the ORM's own.

Why not the ORM: building and compiling the same joined query on every request cost more than
running it (0.4 ms of an API call's 0.7 ms authentication; issue 12). The statement is built
once per process; its values are converted by the fields' own database converters, and an
instance's fields left out of the statement load on first use (deferred), as with `.only()`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from django.db import connections, router
from django.db.models import Model


@dataclass(frozen=True)
class Statement:
    sql: str
    fields: dict  # model -> its fields, in the order of the statement's columns
    model: type[Model]  # the one the database is chosen for (router.db_for_read)
    leading: tuple = ()  # the statement's own parameters, before the caller's

    def row(self, params: list) -> tuple[dict, Iterator] | None:
        """(model -> instance, the columns after the models' own) of the first row, or None."""
        database = router.db_for_read(self.model)
        connection = connections[database]
        with connection.cursor() as cursor:
            cursor.execute(self.sql, [*self.leading, *params])
            row = cursor.fetchone()
        if row is None:
            return None
        values, instances = iter(row), {}
        for model, model_fields in self.fields.items():
            instances[model] = model.from_db(
                database,
                [f.attname for f in model_fields],
                [_converted(f, next(values), connection) for f in model_fields],
            )
        return instances, values


def columns(wanted: dict, alias: dict) -> tuple[dict, str]:
    """(model -> its fields, the SELECT list) for `wanted` (model -> attnames, or None for
    every concrete field), each column prefixed with the model's alias."""
    fields = {
        model: [f for f in model._meta.concrete_fields if names is None or f.attname in names]
        for model, names in wanted.items()
    }
    listed = ", ".join(
        f'{alias[model]}."{f.column}"'
        for model, model_fields in fields.items()
        for f in model_fields
    )
    return fields, listed


def _converted(field, value, connection):
    column = field.get_col(field.model._meta.db_table)
    for convert in (
        *connection.ops.get_db_converters(column),
        *column.get_db_converters(connection),
    ):
        value = convert(value, column, connection)
    return value

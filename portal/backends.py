"""The session's user loaded with its roles: one query per request instead of two."""

import functools

from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import ValidationError

from portal.models import User, role_annotations, roles_from_row
from portal.statements import Statement, columns


@functools.cache
def _user_statement() -> Statement:
    table = f'"{User._meta.db_table}"'  # not aliased: the roles' subquery names the table
    fields, listed = columns({User: None}, {User: table})
    roles = role_annotations()["_roles"]
    sql = (
        f"SELECT {listed}, {roles.sql} "  # noqa: S608 - names from the models
        f'FROM {table} WHERE {table}."id" = %s'
    )
    return Statement(sql=sql, fields=fields, model=User, leading=tuple(roles.params))


def user_with_roles(user_id) -> User | None:
    """The user of a primary key with its staff roles (User.has_role), in one statement built
    once (portal.statements: compiling the same ORM query cost more than running it, on every
    signed-in request); None for no such user or a key that is not one."""
    try:
        pk = User._meta.pk.to_python(user_id)
    except ValidationError:
        return None
    found = _user_statement().row([pk])
    if found is None:
        return None
    instances, values = found
    user = instances[User]
    user._roles = next(values)
    roles_from_row(user, user)
    return user


class RolesModelBackend(ModelBackend):
    """Django's ModelBackend; get_user() (every signed-in request) also reads the staff roles
    the permission rules ask about (User.has_role), in the same query."""

    def get_user(self, user_id):
        user = user_with_roles(user_id)
        if user is None or not self.user_can_authenticate(user):
            return None
        return user

"""Migrations run once, not once per worker and run: under pytest-xdist each worker's test
database is a copy (PostgreSQL's CREATE DATABASE ... TEMPLATE, about a second) of a migrated
template that the controller makes before the workers start.

Each worker used to migrate its own database: 87 migrations and their post_migrate, 45-70 s per
worker on the loaded 2-core machine, both at once. The copy holds what migrate left: the rows
the data migrations seed and the role groups included.

Outside CI the template is kept between runs under a name that says what it was made from
(test_<name>_migrated_<fingerprint>): every migration file's bytes, Django's version and the
roles' permissions (portal.services.ROLE_PERMISSIONS, which post_migrate writes). A change to
any of them makes a new template, and the old ones are dropped. A template is built under a
temporary name and renamed when complete, so that a run stopped half way leaves nothing a later
run would copy.

tests/conftest.py turns this on for a run of workers (-n 2) on PostgreSQL that neither keeps its
databases (--reuse-db) nor skips migrations (--nomigrations); anything else sets the databases
up as pytest-django does.
"""

from __future__ import annotations

import hashlib
import os

import pytest

WORKER_INPUT_KEY = "fabricquote_test_database_template"  # the template's name, for the workers
_template = pytest.StashKey[str]()  # in the controller


def migrates_once(config: pytest.Config) -> bool:
    """The controller of a run of xdist workers on PostgreSQL, creating its databases afresh."""
    from django.conf import settings

    return (
        not hasattr(config, "workerinput")
        and bool(getattr(config.option, "numprocesses", None))
        and not config.getvalue("reuse_db")
        and not config.getvalue("nomigrations")
        and settings.DATABASES["default"]["ENGINE"] == "tests.postgresql_delete_flush"
        and list(settings.DATABASES) == ["default"]
    )


def fingerprint() -> str:
    """What a migrated database depends on: the migrations (every app's, Django's own too), the
    Django that runs them, and the role groups post_migrate makes."""
    import sys

    import django
    from django.db.migrations.loader import MigrationLoader

    from portal.services import ROLE_PERMISSIONS

    digest = hashlib.sha256(f"{django.__version__}\n{sorted(ROLE_PERMISSIONS.items())}".encode())
    loader = MigrationLoader(None, ignore_no_migrations=True)
    for key, migration in sorted(loader.disk_migrations.items()):
        digest.update(repr(key).encode())
        with open(sys.modules[migration.__module__].__file__, "rb") as source:
            digest.update(source.read())
    return digest.hexdigest()[:12]


def _databases(cursor, prefix: str) -> list[str]:
    cursor.execute(
        "SELECT datname FROM pg_database WHERE starts_with(datname, %s) ORDER BY datname", [prefix]
    )
    return [name for (name,) in cursor.fetchall()]


def template_ensure(config: pytest.Config) -> None:
    """The migrated template of this run: the one kept from an earlier run when its fingerprint
    matches, else made now (as pytest-django makes a test database) and the stale ones dropped."""
    from django.db import connection
    from pytest_django.plugin import blocking_manager_key

    test_settings = connection.settings_dict["TEST"]
    base = test_settings.get("NAME") or f"test_{connection.settings_dict['NAME']}"
    prefix = f"{base}_migrated_"
    name = prefix + fingerprint()
    quote = connection.ops.quote_name
    with config.stash[blocking_manager_key].unblock():
        # CI migrates from scratch every run, as a fresh machine would: a kept template could
        # hide a migration that no longer runs on an empty database (a module it imports
        # changed, which the fingerprint does not see).
        fresh = os.environ.get("CI") == "true"
        with connection._nodb_cursor() as cursor:
            kept = not fresh and name in _databases(cursor, prefix)
        if not kept:
            building = f"{base}_building_{os.getpid()}"
            own_name, own_test_name = connection.settings_dict["NAME"], test_settings.get("NAME")
            test_settings["NAME"] = building
            try:
                connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
            finally:
                # The controller runs no test: its connection goes back to the real database
                # (closed: PostgreSQL renames and copies only a database nobody is connected to).
                connection.close()
                connection.settings_dict["NAME"], test_settings["NAME"] = own_name, own_test_name
            with connection._nodb_cursor() as cursor:
                for stale in _databases(cursor, prefix):  # this name too, when CI made it again
                    cursor.execute(f"DROP DATABASE IF EXISTS {quote(stale)}")
                cursor.execute(f"ALTER DATABASE {quote(building)} RENAME TO {quote(name)}")
    config.stash[_template] = name


def template_name(config: pytest.Config) -> str | None:
    return config.stash.get(_template, None)


# --- registered as a plugin in the workers (tests/conftest.py), where it overrides
# --- pytest-django's fixture of the same name


@pytest.fixture(scope="session")
def django_db_setup(
    request, django_test_environment, django_db_blocker, django_db_modify_db_settings
):
    """The worker's test database (test_<name>_gw0...: pytest-django's name for it) copied from
    the controller's template, dropped after the worker's last test."""
    from django.conf import settings
    from django.db import connection

    template = request.config.workerinput[WORKER_INPUT_KEY]
    quote = connection.ops.quote_name
    own_name = connection.settings_dict["NAME"]
    with django_db_blocker.unblock():
        name = connection.creation._get_test_db_name()
        with connection._nodb_cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {quote(name)}")
            cursor.execute(f"CREATE DATABASE {quote(name)} TEMPLATE {quote(template)}")
        connection.close()
        settings.DATABASES["default"]["NAME"] = connection.settings_dict["NAME"] = name
    yield
    with django_db_blocker.unblock():
        connection.close()
        with connection._nodb_cursor() as cursor:
            # WITH (FORCE), PostgreSQL 13+: a process a test ended with a KILL (a gunicorn or a
            # Celery worker: tests/service_helpers.py) can leave its server backend behind for a
            # moment, and a plain DROP then fails the worker's last test at teardown ("being
            # accessed by other users", seen once in CI). The tests are done with the database.
            cursor.execute(f"DROP DATABASE IF EXISTS {quote(name)} WITH (FORCE)")
        settings.DATABASES["default"]["NAME"] = connection.settings_dict["NAME"] = own_name

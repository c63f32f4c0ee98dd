"""Fixtures shared by the whole suite.

Services: tests that need Redis or a Celery worker take the `redis_url` fixture. Locally, with no
Redis, they are skipped with the reason; in CI (CI=true) a missing service is a failure, never a
silent skip.

Speed: the shipped catalog is imported once per session (`catalog_snapshot`) and inserted in
bulk by `seeded`; `make test` runs in pytest-xdist workers, each with its own test database
(pytest-django) and its own Redis database (`_redis_db_per_worker`). A module whose tests only
read one expensive world (an accepted quote and its signed copy) builds it once on
`module_world`; a test that commits is cleaned up by DELETEs, not a TRUNCATE of every table
(tests/postgresql_delete_flush, the test settings' database backend).
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from tests import api_contract, database_template, migration_rows, network_guard

IN_CI = os.environ.get("CI") == "true"


def _redis_db_per_worker() -> None:
    """Under pytest-xdist each worker takes its own Redis database: REDIS_URL's plus the worker's
    number (`-n 2` on redis://…/1 uses databases 1 and 2). Tests empty the cache with
    cache.clear(), a FLUSHDB, which on a shared database would also empty the other worker's
    cache and its Celery worker's queues mid-test.

    pytest-django has loaded the settings before this conftest is imported, so they are changed
    in place, before the first use of the cache or of Celery's configuration; REDIS_URL is
    changed too, for the `redis_url` fixture and the Celery workers started with it."""
    from urllib.parse import urlsplit, urlunsplit

    url, worker = os.environ.get("REDIS_URL", ""), os.environ.get("PYTEST_XDIST_WORKER", "")
    if not url or not worker.startswith("gw"):
        return
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    number = base + int(worker[2:])
    if number > 15:
        raise pytest.UsageError(
            f"worker {worker} would need Redis database {number} (of 0-15): "
            f"start REDIS_URL at a lower database than {base}, or run fewer"
        )
    url = urlunsplit(parts._replace(path=f"/{number}"))
    os.environ["REDIS_URL"] = url

    from asgiref.local import Local
    from django.conf import settings
    from django.core.cache import caches, close_caches

    settings.REDIS_URL = settings.CELERY_BROKER_URL = settings.CELERY_RESULT_BACKEND = url
    settings.CACHES = {
        **settings.CACHES,
        "default": {**settings.CACHES["default"], "LOCATION": url},
    }
    # What Django's own setting_changed receiver does for CACHES (django.test.signals).
    close_caches()
    caches._settings = caches.settings = caches.configure_settings(None)
    caches._connections = Local()

    from portal.celery import app

    if app.configured:
        app.conf.update(broker_url=url, result_backend=url)


def _development_signing_certificate() -> None:
    """Signed copies are signed (PAdES): with the development certificate `make run` makes, made
    here when it is missing (a fresh clone); every xdist worker ends up with the same one."""
    from django.conf import settings

    from proposals.documents.signing import development_certificate_create
    from proposals.management.commands.signing_certificate_dev import COMMON_NAME

    if str(settings.PROPOSALS_SIGNING_PKCS12) == str(settings.DEVELOPMENT_SIGNING_PKCS12):
        development_certificate_create(
            Path(settings.DEVELOPMENT_SIGNING_PKCS12), common_name=COMMON_NAME
        )


def pytest_configure(config):
    network_guard.install()  # loopback and unix sockets only, for the whole session
    api_contract.install()  # every /api/v1/ answer a test receives matches the published schema
    _redis_db_per_worker()
    _development_signing_certificate()
    from django.db.models.signals import post_migrate

    post_migrate.connect(migration_rows.restore, dispatch_uid="tests.migration_rows")
    if database_template.WORKER_INPUT_KEY in getattr(config, "workerinput", {}):
        # Its django_db_setup copies the controller's migrated database (pytest-django's
        # would migrate one more).
        config.pluginmanager.register(database_template, "fabricquote_database_template")


def pytest_sessionstart(session):
    """Under xdist the controller makes (or finds, from an earlier run) the migrated database the
    workers copy: before they start, as xdist starts them after this hook."""
    if database_template.migrates_once(session.config):
        database_template.template_ensure(session.config)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    if name := database_template.template_name(node.config):
        node.workerinput[database_template.WORKER_INPUT_KEY] = name


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """The test database (pytest-django's, or a worker's copy of the template), and the rows its
    migrations seeded kept, for a flush to put back (tests/migration_rows.py)."""
    with django_db_blocker.unblock():
        migration_rows.keep()


@pytest.fixture(autouse=True)
def loopback_only():
    """Fails a test that connected (or tried) beyond the loopback interface, or asked DNS."""
    network_guard.take_violations()
    yield
    if violations := network_guard.take_violations():
        pytest.fail("Tests may only talk to 127.0.0.1 / ::1: " + "; ".join(violations))


@pytest.fixture
def fake_dns():
    """`fake_dns({"crm.example": ["93.184.215.14"]})`: names answered from a table, not DNS.

    `"*"` answers every other name; an empty list is a name that does not exist.
    """

    def stub(answers: dict[str, list[str]]) -> None:
        network_guard.fake_names.update({name.lower(): list(a) for name, a in answers.items()})

    yield stub
    network_guard.fake_names.clear()


def service_missing(message: str) -> None:
    if IN_CI:
        pytest.fail(f"{message} (CI must provide it: see .ci/run)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def redis_url() -> str:
    import redis

    url = os.environ.get("REDIS_URL", "")
    if not url:
        service_missing("REDIS_URL is not set")
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        service_missing(f"Redis at {url} is not answering: {exc}")
    return url


def user_make(username: str = "alice", *, role: str | None = "sales", **extra):
    """A user with the password "pw", in the group of `role`: what `make_user` makes, for
    fixtures of a wider scope than a test (`module_world`)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    user = get_user_model().objects.create_user(username=username, password="pw", **extra)
    if role:
        group, _ = Group.objects.get_or_create(name=role)
        user.groups.add(group)
    return user


@pytest.fixture
def make_user(db):
    return user_make


@pytest.fixture
def sales_client(client, make_user):
    client.force_login(make_user("sales-user"))
    return client


@pytest.fixture(autouse=True)
def empty_cache():
    """Each test starts with an empty cache, and leaves one: ids repeat across tests (rolled-back
    sequences), so a count kept for user 1 in one test must not answer in the next. With
    REDIS_URL, clear() empties the worker's own Redis database (see `_redis_db_per_worker`)."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def english_outside_requests():
    """A request in Chinese must not leave later code in the test thread speaking Chinese."""
    from django.utils import translation

    translation.activate("en")
    yield
    translation.deactivate()


@pytest.fixture
def no_kept_texts(monkeypatch):
    """A row's status text worded by matching its English back (quoting.kept_texts) fails the
    test: a row kept with its message is worded from the message alone (#27 item 4). Texts the
    patterns do not know (a quote's number among an event's details) pass through as before."""
    from quoting.kept_texts import kept_text

    def refused(text):
        worded = kept_text(text)
        if worded != text:
            raise AssertionError(f"worded by matching its English: {text!r}")
        return worded

    monkeypatch.setattr("quoting.kept_messages.kept_text", refused)
    monkeypatch.setattr("quoting.quotes.display.kept_text", refused)


@pytest.fixture
def world(make_user):
    """Two teams, a sales user in each (wang, li), a manager (zhao), and one customer with a
    project: `tests/quoting/factories.py` `world_make`. A test file whose world needs more says
    so in a fixture of its own name built on this one."""
    from tests.quoting.factories import world_make

    return world_make(make_user)


@pytest.fixture
def qw(make_user):
    """The API tests' world (`tests/quoting/api_world.py`): the shared world, a design of SW-1
    and CB-1 and a draft quote made from it, and a contact."""
    from tests.quoting.api_world import quote_world_make

    return quote_world_make(make_user)


@dataclass(frozen=True)
class CatalogSnapshot:
    """The rows `catalog_load_seed()` writes into an empty catalog, read back once per session
    (per xdist worker): what `seeded` inserts in bulk instead of importing the CSV again."""

    result: Any  # catalog.services.ImportResult
    price_lists: list[dict]
    products: list[dict]
    prices: list[tuple[str, str, dict]]  # (price list name, part number, fields)
    # (switch part number, unit part number, fields): the PSUs and fans its switches hold
    units: list[tuple[str, str, dict]]


def _fields(row) -> dict:
    """A row's own values: no key, no foreign key, no timestamp (set again on insert)."""
    return {
        f.attname: getattr(row, f.attname)
        for f in row._meta.concrete_fields
        if not f.primary_key
        and not f.is_relation
        and not getattr(f, "auto_now", False)
        and not getattr(f, "auto_now_add", False)
    }


@pytest.fixture(scope="session")
def catalog_snapshot(django_db_setup, django_db_blocker) -> CatalogSnapshot | None:
    """The shipped catalog imported once, through the real `catalog_load_seed()` (every row
    validated), inside a transaction that is rolled back: its rows are kept in memory.

    Importing it took 1.0-1.7 s per test (a form and a uniqueness query per row); inserting the
    kept rows takes milliseconds. None (and a warning) when the import wrote anything but the
    catalog's tables (price lists, prices, products, replaceable units): `seeded` then imports
    per test, as before."""
    from django.apps import apps
    from django.db import transaction
    from django.utils import translation

    from catalog.models import PriceList, PriceListItem, Product, ReplaceableUnit
    from catalog.services import catalog_load_seed

    catalog = (PriceList, PriceListItem, Product, ReplaceableUnit)
    with django_db_blocker.unblock(), translation.override("en"), transaction.atomic():
        counts = {model: model.objects.count() for model in apps.get_models()}
        if any(counts[model] for model in catalog):  # e.g. a --reuse-db database left so
            warnings.warn(
                "the test database's catalog is not empty: `seeded` imports the CSV "
                "in every test (slow)",
                stacklevel=1,
            )
            return None
        result = catalog_load_seed()
        others = [
            model.__name__
            for model in apps.get_models()
            if model not in catalog and model.objects.count() != counts[model]
        ]
        snapshot = CatalogSnapshot(
            result=result,
            price_lists=[_fields(p) for p in PriceList.objects.order_by("pk")],
            products=[_fields(p) for p in Product.objects.order_by("pk")],
            prices=[
                (i.price_list.name, i.product.part_number, _fields(i))
                for i in PriceListItem.objects.select_related("price_list", "product").order_by(
                    "pk"
                )
            ],
            units=[
                (u.switch.part_number, u.unit.part_number, _fields(u))
                for u in ReplaceableUnit.objects.select_related("switch", "unit").order_by("pk")
            ],
        )
        transaction.set_rollback(True)
    if others:
        warnings.warn(
            f"catalog_load_seed() also wrote {others}: `seeded` imports the CSV in "
            "every test (slow) until tests/conftest.py's catalog_snapshot keeps them",
            stacklevel=1,
        )
        return None
    return snapshot


@pytest.fixture
def seeded(db, catalog_snapshot):
    """The shipped NVIDIA catalog with its reference prices, as `catalog_load_seed()` leaves it
    in an empty catalog (its ImportResult too): the session's snapshot inserted in bulk, in the
    import's order. Where the test already put products or prices in, the real import runs, so
    that it merges with them exactly as it would."""
    return catalog_seed(catalog_snapshot)


def catalog_seed(snap: CatalogSnapshot | None):
    """What `seeded` does, for fixtures of a wider scope than a test (`module_world`)."""
    from catalog.models import PriceList, PriceListItem, Product, ReplaceableUnit
    from catalog.services import WRITE_BATCH, catalog_load_seed

    if (
        snap is None
        or Product.objects.exists()
        or PriceList.objects.exists()
        or PriceListItem.objects.exists()
    ):
        return catalog_load_seed()
    lists = {
        p.name: p
        for p in PriceList.objects.bulk_create([PriceList(**row) for row in snap.price_lists])
    }
    products = {
        p.part_number: p
        for p in Product.objects.bulk_create(
            [Product(**row) for row in snap.products], batch_size=WRITE_BATCH
        )
    }
    PriceListItem.objects.bulk_create(
        [
            PriceListItem(price_list=lists[name], product=products[part], **row)
            for name, part, row in snap.prices
        ],
        batch_size=WRITE_BATCH,
    )
    ReplaceableUnit.objects.bulk_create(
        [
            ReplaceableUnit(switch=products[switch], unit=products[unit], **row)
            for switch, unit, row in snap.units
        ]
    )
    return replace(snap.result, currencies=list(snap.result.currencies))


@pytest.fixture(scope="module")
def module_world(django_db_setup, django_db_blocker, catalog_snapshot):
    """For a module whose tests only read one expensive world (a quote accepted and its signed
    copy: 15-25 s each on the loaded 2-core machine): `world` and `seeded` made once for the
    module, inside a transaction rolled back after its last test. Each test's own transaction
    (the `db` fixture) is a savepoint inside it, so what a test writes is still undone after
    it. A module-scoped fixture builds its world on this one; its tests take `db`.

    Not for modules with transactional tests or a live server (they commit, and would commit
    these rows too)."""
    yield from _world_for_the_module(django_db_blocker, catalog_snapshot, seed=True)


@pytest.fixture(scope="module")
def module_world_uncatalogued(django_db_setup, django_db_blocker):
    """`module_world` without the shipped catalog, for a module whose tests took `world` and not
    `seeded` (their products are the factories' own, e.g. tests/proposals/choice_world.py). A
    test that changes one of its objects in memory takes `world_fresh` of it."""
    yield from _world_for_the_module(django_db_blocker, None, seed=False)


def _world_for_the_module(django_db_blocker, snapshot, *, seed: bool):
    from django.db import transaction
    from django.utils import translation

    from tests.quoting.factories import world_make

    with django_db_blocker.unblock(), translation.override("en"), transaction.atomic():
        if seed:
            catalog_seed(snapshot)
        yield world_make(user_make)
        transaction.set_rollback(True)

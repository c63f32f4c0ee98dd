"""Fixtures shared by the whole suite.

Services: tests that need Redis or a Celery worker take the `redis_url` fixture. Locally, with no
Redis, they are skipped with the reason; in CI (CI=true) a missing service is a failure, never a
silent skip.
"""

from __future__ import annotations

import os

import pytest

from tests import network_guard

IN_CI = os.environ.get("CI") == "true"


def pytest_configure(config):
    network_guard.install()  # loopback and unix sockets only, for the whole session


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


@pytest.fixture
def make_user(db, django_user_model):
    from django.contrib.auth.models import Group

    def make(username: str = "alice", *, role: str | None = "sales", **extra):
        user = django_user_model.objects.create_user(username=username, password="pw", **extra)
        if role:
            group, _ = Group.objects.get_or_create(name=role)
            user.groups.add(group)
        return user

    return make


@pytest.fixture
def sales_client(client, make_user):
    client.force_login(make_user("sales-user"))
    return client


@pytest.fixture(autouse=True)
def empty_cache():
    """Each test starts with an empty local-memory cache: ids repeat across tests (rolled-back
    sequences), so a count kept for user 1 in one test must not answer in the next."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def english_outside_requests():
    """A request in Chinese must not leave later code in the test thread speaking Chinese."""
    from django.utils import translation

    translation.activate("en")
    yield
    translation.deactivate()


@pytest.fixture
def seeded(db):
    """The shipped NVIDIA catalog with its reference prices."""
    from catalog.services import catalog_load_seed

    return catalog_load_seed()

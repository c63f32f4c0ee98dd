"""What every request pays: its user with its roles in one query, one Redis round trip for a
rate-limit counter, and a Content-Security-Policy header built once."""

from __future__ import annotations

import pytest
from django.core.cache.backends.locmem import LocMemCache
from django.test import RequestFactory

from portal.models import SALES, SALES_MANAGER

pytestmark = pytest.mark.django_db


# --- the user and its roles ----------------------------------------------------------------------


def test_the_session_user_is_loaded_with_its_roles_in_one_query(
    make_user, django_assert_num_queries
):
    from portal.backends import RolesModelBackend

    manager = make_user("mgr", role=SALES_MANAGER)
    with django_assert_num_queries(1):
        user = RolesModelBackend().get_user(manager.pk)
        assert user.has_role(SALES_MANAGER)
        assert not user.has_role(SALES)


def test_an_inactive_user_is_not_loaded(make_user):
    from portal.backends import RolesModelBackend

    user = make_user("gone", is_active=False)
    assert RolesModelBackend().get_user(user.pk) is None


def test_a_group_outside_the_staff_roles_is_still_looked_up(make_user):
    from django.contrib.auth.models import Group

    from portal.backends import RolesModelBackend

    user = make_user("dir")
    user.groups.add(Group.objects.create(name="directors"))  # a deployment's own threshold role
    loaded = RolesModelBackend().get_user(user.pk)
    assert loaded.has_role(SALES)
    assert loaded.has_role("directors")
    assert not loaded.has_role("auditors")


def test_a_signed_in_page_asks_for_the_user_once(client, make_user, django_assert_max_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(make_user("mgr", role=SALES_MANAGER))
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/quotes/").status_code == 200
    groups = [q["sql"] for q in queries if 'FROM "auth_group"' in q["sql"]]
    assert groups == []  # the roles came with the user


def test_an_api_token_reads_its_user_and_roles_in_one_query(make_user):
    from integrations.auth import ApiTokenAuthentication
    from integrations.models import TokenScope
    from integrations.services import api_token_issue

    manager = make_user("mgr", role=SALES_MANAGER)
    _, raw = api_token_issue(user=manager, scope=TokenScope.READ, name="crm")
    request = RequestFactory().get("/api/v1/quotes/", HTTP_AUTHORIZATION=f"Bearer {raw}")
    ApiTokenAuthentication().authenticate(request)  # the first use writes last_used_at
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        user, _token = ApiTokenAuthentication().authenticate(request)
        assert user.has_role(SALES_MANAGER) and not user.has_role(SALES)
    assert len(queries) == 1


# --- counters ------------------------------------------------------------------------------------


def _counts(cache, key, timeout, times):
    from portal.cache import count_in_window

    return [count_in_window(cache, key, timeout) for _ in range(times)]


def test_a_window_counter_counts_from_one_on_the_local_cache():
    cache = LocMemCache("counter-test", {})
    assert _counts(cache, "k", 60, 3) == [1, 2, 3]
    assert _counts(cache, "other", 60, 1) == [1]


def test_a_window_counter_counts_in_one_round_trip_and_expires_on_redis(redis_url):
    import redis

    from portal.cache import ForgivingRedisCache

    cache = ForgivingRedisCache(redis_url, {"KEY_PREFIX": "counter-test"})
    cache.delete("k")
    assert _counts(cache, "k", 30, 3) == [1, 2, 3]
    raw = redis.Redis.from_url(redis_url)
    key = cache.make_and_validate_key("k")
    assert 0 < raw.ttl(key) <= 30  # the window was started by the first hit, not renewed
    assert cache.get("k") == 3  # the cache reads what the counter wrote
    cache.delete("k")


def test_the_shared_cache_builds_one_redis_client_per_pool_not_one_per_call(redis_url):
    """Django's Redis cache made a redis.Redis (copying its response callbacks) for every call."""
    from unittest import mock

    import redis

    from portal.cache import ForgivingRedisCache

    cache = ForgivingRedisCache(redis_url, {"KEY_PREFIX": "client-test"})
    cache.set("k", 1)
    with mock.patch.object(redis.Redis, "__init__", side_effect=AssertionError("built again")):
        for _ in range(3):
            cache.set("k", cache.get("k") + 1)
            cache.get_many(["k", "other"])
    assert cache.get("k") == 4
    cache.delete("k")


def test_the_throttles_shared_cache_counts_in_one_round_trip_too(redis_url, settings):
    """DRF's throttles hold django.core.cache.cache, a proxy: it must not fall back to the three
    round trips of add() and incr()."""
    from unittest import mock

    import redis
    from django.core.cache import cache

    settings.CACHES = {
        "default": {
            "BACKEND": "portal.cache.ForgivingRedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": "counter-proxy-test",
        }
    }
    cache.delete("k")
    with mock.patch.object(redis.Redis, "exists", side_effect=AssertionError("EXISTS asked")):
        assert _counts(cache, "k", 30, 3) == [1, 2, 3]
    cache.delete("k")


def test_a_window_counter_lets_requests_through_while_redis_is_down():
    from portal import cache as portal_cache
    from portal.cache import ForgivingRedisCache

    portal_cache._paused_until.clear()
    cache = ForgivingRedisCache(
        "redis://127.0.0.1:9/0", {"OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}
    )
    assert _counts(cache, "k", 30, 2) == [1, 1]
    portal_cache._paused_until.clear()


# --- the CSP header ------------------------------------------------------------------------------


def _django_csp_header(path="/api/v1/"):
    from csp.middleware import CSPMiddleware as Original
    from django.http import HttpResponse

    request = RequestFactory().get(path)
    middleware = Original(lambda r: HttpResponse())
    middleware.process_request(request)
    return middleware.process_response(request, HttpResponse())["Content-Security-Policy"]


def test_an_api_answer_carries_the_same_policy_django_csp_would_build(client):
    response = client.get("/api/v1/schema/")
    assert response["Content-Security-Policy"] == _django_csp_header()
    assert "nonce-" not in response["Content-Security-Policy"]


def test_a_page_with_scripts_still_gets_its_own_nonce(sales_client):
    first = sales_client.get("/quotes/")["Content-Security-Policy"]
    second = sales_client.get("/quotes/")["Content-Security-Policy"]
    assert "'nonce-" in first and first != second


def test_a_changed_policy_setting_changes_the_header(client, settings):
    client.get("/api/v1/schema/")
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {"default-src": ["'none'"]}}
    assert client.get("/api/v1/schema/")["Content-Security-Policy"] == "default-src 'none'"


def test_a_page_that_sets_its_own_policy_keeps_it(client):
    from django.http import HttpResponse

    from portal.middleware import CSPMiddleware

    request = RequestFactory().get("/p/x")
    middleware = CSPMiddleware(lambda r: HttpResponse())
    middleware.process_request(request)
    response = HttpResponse()
    response["Content-Security-Policy"] = "default-src 'none'"
    assert middleware.process_response(request, response)["Content-Security-Policy"] == (
        "default-src 'none'"
    )


@pytest.mark.parametrize("key", ["not-a-number", "", None, "99999999"])
def test_a_session_key_that_names_no_user_signs_nobody_in(make_user, key):
    from portal.backends import RolesModelBackend

    make_user("someone")
    assert RolesModelBackend().get_user(key) is None

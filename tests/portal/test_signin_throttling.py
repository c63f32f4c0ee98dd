"""Sign-in throttling (issues 13 and 23): guessing is cut off per username *and client*, slowed
per username and per client, and nothing anyone does from elsewhere keeps a user's right
password out.

- The pair: AXES_FAILURE_LIMIT failures for one username from one client lock that pair (429,
  even the right password) for AXES_COOLOFF_TIME.
- Past a soft limit for one username (from anywhere) or one client (any usernames), the client
  that failed waits, 2 s and doubling, before its next try at that username.
- Past a budget for one client, its failures are answered 429; its right passwords still sign in.
- A client is its address (behind TRUSTED_PROXY_COUNT proxies); an IPv6 client is its /64.
"""

import json

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.test import Client, RequestFactory

from portal import signin
from portal.clients import address_bucket, client_address

LIMIT = settings.AXES_FAILURE_LIMIT
USERNAME_SOFT_LIMIT = settings.SIGNIN_USERNAME_SOFT_LIMIT
CLIENT_SOFT_LIMIT = settings.SIGNIN_CLIENT_SOFT_LIMIT
LOGIN = "/accounts/login/"


def _guess(client, url, username, password="wrong", address="198.51.100.7", **extra):
    return client.post(
        url, {"username": username, "password": password}, REMOTE_ADDR=address, **extra
    )


def _signs_in(username, address, password="pw") -> int:
    """The status a fresh browser gets for the right password (302: signed in)."""
    return _guess(Client(), LOGIN, username, password, address=address).status_code


@pytest.fixture
def clock(monkeypatch):
    """portal.signin's clock, moved on by hand: waits end without sleeping."""

    class Clock:
        now = signin._now()

        def advance(self, seconds: float) -> None:
            self.now += seconds

    fake = Clock()
    monkeypatch.setattr(signin, "_now", lambda: fake.now)
    return fake


# --- nobody can lock a user out from elsewhere -------------------------------------------------


@pytest.mark.django_db
def test_failures_from_other_addresses_never_keep_the_right_password_out(client, make_user):
    make_user("manager")
    for index in range(3 * LIMIT):  # far past every limit, each from an address of its own
        response = _guess(client, LOGIN, "manager", address=f"203.0.113.{index + 1}")
        assert response.status_code in (200, 429)
    assert _signs_in("manager", "192.0.2.50") == 302


@pytest.mark.django_db
def test_one_username_from_one_address_is_locked_after_the_limit(client, make_user):
    make_user("bob")
    for _ in range(LIMIT - 1):
        assert _guess(client, LOGIN, "bob").status_code == 200
    locked = _guess(client, LOGIN, "bob")
    assert locked.status_code == 429
    assert "Too many failed sign-ins. Try again in 15 minutes" in locked.content.decode()
    assert int(locked["Retry-After"]) == settings.AXES_COOLOFF_TIME.total_seconds()
    # There the right password is refused too; from anywhere else bob signs in.
    assert _guess(client, LOGIN, "bob", password="pw").status_code == 429
    assert client.get("/").status_code == 302
    assert _signs_in("bob", "203.0.113.50") == 302


@pytest.mark.django_db
def test_one_address_guessing_many_usernames_locks_none_of_them_for_others(client, make_user):
    make_user("carol")
    for index in range(LIMIT):
        assert _guess(client, LOGIN, f"nobody-{index}").status_code == 200
    assert _guess(client, LOGIN, "carol", password="pw").status_code == 302


# --- a growing wait, for the client that failed ------------------------------------------------


@pytest.mark.django_db
def test_past_the_soft_limit_for_a_username_the_failing_client_waits_longer_each_time(
    client, make_user, clock
):
    make_user("dora")
    for index in range(USERNAME_SOFT_LIMIT):
        assert _guess(client, LOGIN, "dora", address=f"203.0.113.{index + 1}").status_code == 200
    told = _guess(client, LOGIN, "dora", address="198.51.100.7")
    assert told.status_code == 429 and told["Retry-After"] == "2"
    assert "Wait 2 seconds before trying again" in told.content.decode()
    # Told to wait: not even the right password is tried, and nothing more is counted.
    assert _guess(client, LOGIN, "dora", password="pw").status_code == 429
    attempt = AccessAttempt.objects.get(username="dora", ip_address="198.51.100.7")
    assert attempt.failures_since_start == 1
    clock.advance(2)
    again = _guess(client, LOGIN, "dora")
    assert again.status_code == 429 and again["Retry-After"] == "4"
    # Meanwhile dora herself, who has not failed, signs in at once; and so does the guesser's
    # address once its wait is over, with the right password.
    assert _signs_in("dora", "192.0.2.50") == 302
    clock.advance(4)
    assert _signs_in("dora", "198.51.100.7") == 302


@pytest.mark.django_db
def test_a_noisy_client_waits_only_for_the_usernames_it_failed(client, make_user, clock):
    make_user("erin")
    make_user("frank")
    for index in range(CLIENT_SOFT_LIMIT):
        assert _guess(client, LOGIN, f"nobody-{index}").status_code == 200
    told = _guess(client, LOGIN, "erin")
    assert told.status_code == 429 and told["Retry-After"] == "2"
    assert _guess(client, LOGIN, "erin", password="pw").status_code == 429
    assert _signs_in("frank", "198.51.100.7") == 302  # same address, a username it did not fail
    assert _signs_in("erin", "203.0.113.50") == 302


def test_the_wait_doubles_from_two_seconds_up_to_its_ceiling():
    waits = [signin.wait_after(failures, 5) for failures in range(4, 16)]
    assert waits == [0, 0, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300]
    assert settings.SIGNIN_MAX_WAIT_SECONDS == 300


# --- the coarse budget per client --------------------------------------------------------------


@pytest.mark.django_db
def test_past_its_budget_a_client_gets_429_for_failures_only(client, make_user, settings):
    settings.SIGNIN_CLIENT_SOFT_LIMIT = 1000  # the budget alone, without the per-client waits
    settings.SIGNIN_CLIENT_BUDGET = 8
    make_user("gus")
    for index in range(8):
        assert _guess(client, LOGIN, f"nobody-{index}").status_code == 200
    over = _guess(client, LOGIN, "nobody-8")
    assert over.status_code == 429
    assert 0 < int(over["Retry-After"]) <= settings.AXES_COOLOFF_TIME.total_seconds()
    assert _signs_in("gus", "198.51.100.7") == 302  # the right password still signs in
    assert _guess(client, LOGIN, "nobody-9").status_code == 429


# --- IPv6: a client is its /64 ------------------------------------------------------------------


def test_an_ipv6_client_is_counted_per_64_and_an_ipv4_one_per_address():
    assert address_bucket("2001:db8:1:2:aaaa:bbbb:cccc:dddd") == "2001:db8:1:2::"
    assert address_bucket("2001:DB8:1:2::1") == "2001:db8:1:2::"
    assert address_bucket("2001:db8:1:3::1") == "2001:db8:1:3::"
    assert address_bucket("::ffff:198.51.100.7") == "198.51.100.7"
    assert address_bucket("198.51.100.7") == "198.51.100.7"
    assert address_bucket("198.51.100.8") == "198.51.100.8"
    assert address_bucket("not-an-address") == "not-an-address"


@pytest.mark.django_db
def test_hopping_addresses_inside_one_ipv6_64_is_still_one_client(client, make_user):
    make_user("hana")
    for index in range(LIMIT):
        _guess(client, LOGIN, "hana", address=f"2001:db8:1:2::{index + 1:x}")
    assert _signs_in("hana", "2001:db8:1:2:ffff::9") == 429  # the same /64: locked
    assert _signs_in("hana", "2001:db8:1:3::1") == 302  # the next /64 is someone else


@pytest.mark.django_db
def test_the_share_link_limiter_counts_an_ipv6_64_as_one_client(client, settings):
    settings.PROPOSALS_LINK_MISSES_ALLOWED = 3
    settings.PROPOSALS_LINK_PREFIX_MISSES_ALLOWED = 1000
    for index in range(3):
        response = client.get(f"/p/bad-token-{index}", REMOTE_ADDR=f"2001:db8:5:6::{index + 1}")
        assert response.status_code == 404
    assert client.get("/p/bad-token-x", REMOTE_ADDR="2001:db8:5:6::ff").status_code == 429
    assert client.get("/p/bad-token-y", REMOTE_ADDR="2001:db8:5:7::1").status_code == 404


# --- what the limits stand on ------------------------------------------------------------------


@pytest.mark.django_db
def test_with_redis_down_the_waits_and_budget_open_and_the_pair_still_locks(
    client, make_user, monkeypatch
):
    from portal import cache as portal_cache
    from portal.cache import ForgivingRedisCache

    portal_cache._paused_until.clear()
    down = ForgivingRedisCache(
        "redis://127.0.0.1:9/0", {"OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}
    )
    monkeypatch.setattr(signin, "cache", down)
    make_user("ivan")
    try:
        for index in range(CLIENT_SOFT_LIMIT + 3):
            assert _guess(client, LOGIN, f"nobody-{index}").status_code == 200
        for _ in range(LIMIT):  # the pair lives in the database
            locked = _guess(client, LOGIN, "ivan")
        assert locked.status_code == 429
        assert _signs_in("ivan", "203.0.113.50") == 302
    finally:
        portal_cache._paused_until.clear()


@pytest.mark.django_db
def test_a_success_clears_its_own_failures_and_no_one_elses(client, make_user):
    make_user("jane")
    for _ in range(LIMIT - 1):
        _guess(client, LOGIN, "jane")
        _guess(client, LOGIN, "nobody")
    assert _guess(client, LOGIN, "jane", password="pw").status_code == 302
    assert not AccessAttempt.objects.filter(username="jane").exists()
    assert AccessAttempt.objects.get(username="nobody").failures_since_start == LIMIT - 1


@pytest.mark.django_db
def test_the_admin_login_is_throttled_too(client, make_user):
    make_user("admin-bob", is_staff=True)
    for _ in range(LIMIT):
        response = _guess(client, "/admin/login/", "admin-bob")
    assert response.status_code == 429
    assert _guess(client, "/admin/login/", "admin-bob", password="pw").status_code == 429


@pytest.mark.django_db
def test_fewer_failures_than_the_limit_still_let_the_right_password_in(client, make_user):
    make_user("dave")
    for _ in range(LIMIT - 2):
        _guess(client, LOGIN, "dave")
    assert _guess(client, LOGIN, "dave", password="pw").status_code == 302


@pytest.mark.django_db
def test_the_lockout_and_wait_pages_speak_chinese_to_a_chinese_browser(client, make_user):
    for _ in range(LIMIT):
        response = client.post(
            LOGIN, {"username": "x", "password": "y"}, HTTP_ACCEPT_LANGUAGE="zh-hans"
        )
    assert response.status_code == 429
    assert "登录失败次数过多" in response.content.decode()
    for index in range(USERNAME_SOFT_LIMIT):
        _guess(client, LOGIN, "y", address=f"203.0.113.{index + 1}")
    told = _guess(client, LOGIN, "y", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert told.status_code == 429 and "请等待 2 秒后再试" in told.content.decode()


@pytest.mark.django_db
def test_staff_see_and_clear_lockouts_in_the_admin(client, make_user, django_user_model):
    for _ in range(LIMIT):
        _guess(client, LOGIN, "eve")
    attempt = AccessAttempt.objects.get(username="eve")
    assert attempt.failures_since_start == LIMIT
    admin = django_user_model.objects.create_superuser("root", "root@example.com", "pw")
    client.force_login(admin)
    page = client.get("/admin/axes/accessattempt/")
    assert page.status_code == 200 and "eve" in page.content.decode()


def test_the_client_address_honours_the_trusted_proxy_count(settings):
    factory = RequestFactory()
    spoofed = factory.get(
        "/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="192.0.2.1, 198.51.100.7"
    )
    settings.TRUSTED_PROXY_COUNT = 0
    assert client_address(spoofed) == "10.0.0.2"  # no proxy trusted: the header is ignored
    settings.TRUSTED_PROXY_COUNT = 1
    assert client_address(spoofed) == "198.51.100.7"  # what our proxy saw, not what was sent
    settings.TRUSTED_PROXY_COUNT = 3
    assert client_address(spoofed) == "10.0.0.2"  # a chain shorter than the proxies: ignored
    settings.TRUSTED_PROXY_COUNT = 1
    junk = factory.get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="not-an-address")
    assert client_address(junk) == "10.0.0.2"


@pytest.mark.django_db
def test_behind_a_proxy_each_customer_address_is_counted_apart(client, settings, make_user):
    settings.TRUSTED_PROXY_COUNT = 1
    make_user("frank")
    for _ in range(LIMIT):
        _guess(client, LOGIN, "frank", address="10.0.0.2", HTTP_X_FORWARDED_FOR="198.51.100.7")
    via_proxy = {"REMOTE_ADDR": "10.0.0.2"}
    other = Client().post(
        LOGIN,
        {"username": "frank", "password": "pw"},
        HTTP_X_FORWARDED_FOR="203.0.113.50",
        **via_proxy,
    )
    assert other.status_code == 302
    guesser = Client().post(
        LOGIN,
        {"username": "frank", "password": "pw"},
        HTTP_X_FORWARDED_FOR="198.51.100.7",
        **via_proxy,
    )
    assert guesser.status_code == 429


def test_an_api_client_that_is_locked_out_or_told_to_wait_gets_json_429():
    from portal.signin import lockout_response

    locked = lockout_response(RequestFactory().post("/api/v1/anything/"))
    assert locked.status_code == 429 and locked["Content-Type"] == "application/json"
    assert "Too many failed sign-ins" in json.loads(locked.content)["detail"]
    assert locked["Retry-After"] == "900"
    request = RequestFactory().post("/api/v1/anything/")
    request.signin_wait = 7
    waiting = lockout_response(request)
    assert waiting["Retry-After"] == "7"
    assert "Wait 7 seconds" in json.loads(waiting.content)["detail"]

"""Issue 13 finding 4: password guessing on the login page and the admin is cut off after
AXES_FAILURE_LIMIT failures, per username and per client, with a clear 429."""

import json

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.test import RequestFactory

from portal.clients import client_address

LIMIT = settings.AXES_FAILURE_LIMIT


def _guess(client, url, username, password="wrong", address="198.51.100.7"):
    return client.post(url, {"username": username, "password": password}, REMOTE_ADDR=address)


@pytest.mark.django_db
def test_the_login_page_locks_a_username_after_the_stated_failures(client, make_user):
    make_user("bob")
    for _ in range(LIMIT - 1):
        assert _guess(client, "/accounts/login/", "bob").status_code == 200
    locked = _guess(client, "/accounts/login/", "bob")
    assert locked.status_code == 429
    assert "Too many failed sign-ins" in locked.content.decode()
    assert int(locked["Retry-After"]) == settings.AXES_COOLOFF_TIME.total_seconds()
    # The right password no longer works either, even from another address.
    right = _guess(client, "/accounts/login/", "bob", password="pw", address="203.0.113.50")
    assert right.status_code == 429
    assert client.get("/").status_code == 302


@pytest.mark.django_db
def test_one_client_guessing_many_usernames_is_locked_out(client, make_user):
    make_user("carol")
    for index in range(LIMIT):
        response = _guess(client, "/accounts/login/", f"nobody-{index}")
    assert response.status_code == 429
    # carol's own password from that address is refused; from elsewhere she signs in.
    assert _guess(client, "/accounts/login/", "carol", password="pw").status_code == 429
    other = _guess(client, "/accounts/login/", "carol", password="pw", address="203.0.113.50")
    assert other.status_code == 302


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
        _guess(client, "/accounts/login/", "dave")
    assert _guess(client, "/accounts/login/", "dave", password="pw").status_code == 302


@pytest.mark.django_db
def test_the_lockout_page_speaks_chinese_to_a_chinese_browser(client, make_user):
    for _ in range(LIMIT):
        response = client.post(
            "/accounts/login/", {"username": "x", "password": "y"}, HTTP_ACCEPT_LANGUAGE="zh-hans"
        )
    assert response.status_code == 429
    assert "登录失败次数过多" in response.content.decode()


@pytest.mark.django_db
def test_staff_see_and_clear_lockouts_in_the_admin(client, make_user, django_user_model):
    for _ in range(LIMIT):
        _guess(client, "/accounts/login/", "eve")
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
    for index in range(LIMIT):
        client.post(
            "/accounts/login/",
            {"username": f"nobody-{index}", "password": "x"},
            REMOTE_ADDR="10.0.0.2",
            HTTP_X_FORWARDED_FOR="198.51.100.7",
        )
    ok = client.post(
        "/accounts/login/",
        {"username": "frank", "password": "pw"},
        REMOTE_ADDR="10.0.0.2",
        HTTP_X_FORWARDED_FOR="203.0.113.50",
    )
    assert ok.status_code == 302


def test_an_api_client_that_is_locked_out_gets_json_429():
    from portal.signin import lockout_response

    response = lockout_response(RequestFactory().post("/api/v1/anything/"))
    assert response.status_code == 429 and response["Content-Type"] == "application/json"
    assert "Too many failed sign-ins" in json.loads(response.content)["detail"]
    assert response["Retry-After"] == "900"

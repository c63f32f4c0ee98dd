"""Webhook URLs may only point at the public Internet (issue 13, finding 2).

Names are answered by `fake_dns` (a table, never a DNS server) and nothing here connects: the
address check is all that runs.
"""

from __future__ import annotations

import ipaddress

import pytest

from integrations.models import WebhookEndpoint
from integrations.targets import WebhookTargetRefused, address_is_public, webhook_target_check
from tests.api_errors import field_errors
from tests.quoting.api_world import token_client

PUBLIC = "93.184.215.14"


@pytest.fixture
def development_rules(settings):
    """As a development setup: plain http allowed, loopback refused (as everywhere but tests)."""
    settings.WEBHOOKS_ALLOW_HTTP = True
    settings.WEBHOOKS_ALLOW_LOOPBACK = False


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.9.9.9",
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "100.127.255.254",
        "0.0.0.0",  # noqa: S104
        "224.0.0.1",
        "239.255.255.250",
        "240.0.0.1",
        "255.255.255.255",
        "192.0.0.8",
        "198.18.0.1",
        "::1",
        "::",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        "::ffff:169.254.169.254",
        "fc00::1",
        "fd12:3456::1",
        "fe80::1",
        "fec0::1",
        "ff02::1",
        "ff0e::1",
        "2002:7f00:1::1",
        "2002:a00:1::1",  # 6to4 around 127.0.0.1 and 10.0.0.1
        "64:ff9b::a9fe:a9fe",
        "64:ff9b::7f00:1",
        "64:ff9b:1::1",  # NAT64 of internal addresses
        "2001::1",
        "2001:db8::1",
        "::127.0.0.1",
    ],
)
def test_internal_and_special_addresses_are_not_public(address):
    assert not address_is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", [PUBLIC, "8.8.8.8", "2606:4700:4700::1111", "64:ff9b::808:808"])
def test_public_addresses_are_public(address):
    assert address_is_public(ipaddress.ip_address(address))


def _register(qw, url):
    return token_client(qw.world.sales).post(
        "/api/v1/webhook-endpoints/", {"url": url, "events": ["quote.sent"]}, format="json"
    )


@pytest.mark.usefixtures("development_rules")
@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://127.0.0.1:6379/", "127.0.0.1"),  # Redis
        ("http://127.0.0.1:5432/", "127.0.0.1"),  # PostgreSQL
        ("http://localhost/hook", "127.0.0.1"),
        ("http://[::1]:8000/hook", "::1"),
        ("https://[::ffff:127.0.0.1]/hook", "127.0.0.1"),
        ("http://0.0.0.0:8000/", "0.0.0.0"),  # noqa: S104
    ],
)
def test_registering_a_loopback_target_answers_400_with_a_message(qw, url, shown):
    response = _register(qw, url)
    assert response.status_code == 400, response.content
    message = field_errors(response)["url"][0]
    assert "public addresses" in message
    assert shown in message
    assert not WebhookEndpoint.objects.exists()


@pytest.mark.parametrize(
    "answers",
    [
        [PUBLIC, "10.0.0.1"],  # every address must be public, not just the first
        ["169.254.169.254"],  # the cloud metadata service
        ["2606:4700:4700::1111", "fd00::5"],
        ["::ffff:192.168.0.1"],
    ],
)
def test_a_name_that_resolves_to_any_internal_address_is_refused(qw, fake_dns, answers):
    fake_dns({"crm.example": answers})
    response = _register(qw, "https://crm.example/hook")
    assert response.status_code == 400
    assert "public addresses" in field_errors(response)["url"][0]
    assert not WebhookEndpoint.objects.exists()


def test_a_public_https_target_is_registered(qw, fake_dns):
    fake_dns({"crm.example": [PUBLIC, "2606:4700:4700::1111"]})
    assert _register(qw, "https://crm.example/hook").status_code == 201


def test_plain_http_is_refused_unless_the_setting_allows_it(qw, fake_dns, settings):
    fake_dns({"crm.example": [PUBLIC]})
    settings.WEBHOOKS_ALLOW_HTTP = False
    response = _register(qw, "http://crm.example/hook")
    assert response.status_code == 400
    assert field_errors(response)["url"] == ["Webhook URLs must start with https://."]
    settings.WEBHOOKS_ALLOW_HTTP = True
    assert _register(qw, "http://crm.example/hook").status_code == 201


def test_the_shipped_settings_allow_neither_http_nor_loopback():
    from portal.settings import base

    assert (base.WEBHOOKS_ALLOW_HTTP, base.WEBHOOKS_ALLOW_LOOPBACK) == (False, False)


def test_an_unknown_name_and_credentials_in_the_url_are_refused(qw, fake_dns):
    fake_dns({"nowhere.example": [], "crm.example": [PUBLIC]})
    unknown = field_errors(_register(qw, "https://nowhere.example/"))["url"][0]
    assert "could not be resolved" in unknown
    assert (
        "user name or password" in field_errors(_register(qw, "https://u:p@crm.example/"))["url"][0]
    )


@pytest.mark.usefixtures("development_rules")
def test_changing_the_url_to_an_internal_one_is_refused(qw, fake_dns):
    fake_dns({"crm.example": [PUBLIC], "intranet.example": ["192.168.10.4"]})
    api = token_client(qw.world.sales)
    created = api.post(
        "/api/v1/webhook-endpoints/",
        {"url": "https://crm.example/hook", "events": ["quote.sent"]},
        format="json",
    ).json()
    response = api.patch(
        f"/api/v1/webhook-endpoints/{created['id']}/",
        {"url": "https://intranet.example/hook"},
        format="json",
    )
    assert response.status_code == 400
    assert "192.168.10.4" in field_errors(response)["url"][0]
    assert WebhookEndpoint.objects.get().url == "https://crm.example/hook"


@pytest.mark.usefixtures("development_rules")
def test_the_admin_form_refuses_an_internal_target_inline(client, make_user):
    admin = make_user("root", role=None, is_staff=True, is_superuser=True)
    client.force_login(admin)
    response = client.post(
        "/admin/integrations/webhookendpoint/add/",
        {
            "url": "http://127.0.0.1:6379/",
            "events": '["quote.sent"]',
            "active": "on",
            "created_by": admin.pk,
            "deliveries-TOTAL_FORMS": "0",
            "deliveries-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 200
    assert "public addresses" in str(response.context["adminform"].form.errors["url"])
    assert not WebhookEndpoint.objects.exists()


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/",
        "http://2130706433/",
        "http://0x7f000001/",
        "http://127.1/",
    ],
)
def test_the_check_judges_the_resolved_address_whatever_its_spelling(settings, url):
    settings.WEBHOOKS_ALLOW_LOOPBACK = False
    with pytest.raises(WebhookTargetRefused) as refused:
        webhook_target_check(url)
    assert "127.0.0.1" in refused.value.message
    assert refused.value.retry is False


def test_loopback_is_allowed_only_with_the_test_allowance(settings):
    settings.WEBHOOKS_ALLOW_LOOPBACK = True
    assert webhook_target_check("http://127.0.0.1:8000/x?y=1").path == "/x?y=1"

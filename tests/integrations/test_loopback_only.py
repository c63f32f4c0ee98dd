"""The suite's own guard: nothing in the tests reaches beyond the loopback interface.

tests/network_guard.py is installed for the whole session; these tests show that it stops a
webhook delivery aimed at a public address before anything is sent, and lets loopback and unix
sockets through. The real connect and lookup are swapped here for stubs that cannot send
anything, so even a broken guard would not leave the machine.
"""

from __future__ import annotations

import socket

import pytest

from integrations.models import DeliveryStatus, WebhookDelivery, WebhookEndpoint
from integrations.webhooks import webhook_secret_new
from quoting.quotes.services.quotes import quote_send
from tests import network_guard
from tests.quoting.api_world import quote_world_make


def _must_not_run(*args, **kwargs):
    raise AssertionError(f"the guard let this through to the network: {args!r}")


@pytest.fixture
def nothing_can_leave(monkeypatch):
    monkeypatch.setitem(network_guard.real, "connect", _must_not_run)
    monkeypatch.setitem(network_guard.real, "connect_ex", _must_not_run)


def test_the_guard_is_installed_for_the_whole_suite():
    assert socket.socket.connect is network_guard._connect
    assert socket.getaddrinfo is network_guard._getaddrinfo


@pytest.mark.usefixtures("nothing_can_leave")
def test_a_delivery_to_a_public_address_is_stopped_and_fails_its_test(
    make_user, fake_dns, django_capture_on_commit_callbacks
):
    qw = quote_world_make(make_user)
    fake_dns({"crm.example": ["93.184.215.14"]})  # public: the webhook check lets it pass
    WebhookEndpoint.objects.create(
        url="https://crm.example/hook",
        secret=webhook_secret_new(),
        events=["quote.sent"],
        created_by=qw.world.sales,
    )
    with django_capture_on_commit_callbacks(execute=True):
        quote_send(quote=qw.quote, user=qw.world.sales, expected_version=qw.quote.version)
    # Taking the violations here keeps this test green; anywhere else they fail the test.
    violations = network_guard.take_violations()
    assert violations == ["the test suite tried to connect to '93.184.215.14' port 443"]
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == DeliveryStatus.PENDING  # seen as a refused connection
    assert "93.184.215.14" in delivery.attempt_log[0]["error"]


def test_a_dns_lookup_of_an_outside_name_is_stopped(monkeypatch):
    def numeric_only(host, port, family=0, type=0, proto=0, flags=0):  # noqa: A002
        if flags & socket.AI_NUMERICHOST:
            raise socket.gaierror(socket.EAI_NONAME, "not a number")
        return _must_not_run(host)

    monkeypatch.setitem(network_guard.real, "getaddrinfo", numeric_only)
    with pytest.raises(socket.gaierror):
        socket.getaddrinfo("pypi.org", 443)
    assert network_guard.take_violations() == [
        "the test suite tried to resolve 'pypi.org' through DNS (use fake_dns)"
    ]


def test_loopback_and_unix_sockets_pass(tmp_path):
    listening = socket.create_server(("127.0.0.1", 0))
    with listening, socket.create_connection(listening.getsockname(), timeout=2):
        pass
    path = str(tmp_path / "s")
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(path)
    unix.listen()
    with unix, socket.socket(socket.AF_UNIX) as client:
        client.connect(path)
    assert network_guard.violations == []

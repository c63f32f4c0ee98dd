"""Secrets made in the admin are shown once, in the answer to the POST that made them, and never
travel in a cookie (issue 13, finding 8: the token used to sit in the messages cookie)."""

from __future__ import annotations

import re

import pytest
from django.contrib.messages import get_messages

from integrations.models import ApiToken, WebhookEndpoint
from integrations.services import token_hash

TOKEN = re.compile(r"fq_[A-Za-z0-9_-]{40,}")


@pytest.fixture
def admin_client(client, make_user):
    client.force_login(make_user("root", role=None, is_staff=True, is_superuser=True))
    return client


def _cookies_text(response, client) -> str:
    return "\n".join(
        [
            *(m.OutputString() for m in response.cookies.values()),
            *(m.value for m in client.cookies.values()),
        ]
    )


def test_a_token_issued_in_the_admin_is_shown_once_and_never_put_in_a_cookie(
    admin_client, make_user
):
    crm = make_user("crm")
    response = admin_client.post(
        "/admin/integrations/apitoken/add/", {"name": "HubSpot", "user": crm.pk, "scope": "write"}
    )
    assert response.status_code == 200
    page = response.content.decode()
    raw = TOKEN.search(page).group()
    assert page.count(raw) == 1
    assert ApiToken.objects.get(token_hash=token_hash(raw)).user == crm
    assert "no-store" in response["Cache-Control"]
    assert raw not in _cookies_text(response, admin_client)
    # Nothing queued as a message either (the messages cookie is signed, not encrypted)...
    assert all(raw not in str(m) for m in get_messages(response.wsgi_request))
    # ...and the token's pages never show it again.
    token = ApiToken.objects.get()
    for url in (
        "/admin/integrations/apitoken/",
        f"/admin/integrations/apitoken/{token.pk}/change/",
    ):
        later = admin_client.get(url)
        assert later.status_code == 200
        assert raw not in later.content.decode()
        assert raw not in _cookies_text(later, admin_client)


def test_an_endpoint_added_in_the_admin_gets_a_secret_shown_once(admin_client, fake_dns):
    fake_dns({"crm.example": ["93.184.215.14"]})
    admin = admin_client.get("/admin/").wsgi_request.user
    response = admin_client.post(
        "/admin/integrations/webhookendpoint/add/",
        {
            "url": "https://crm.example/hook",
            "events": '["quote.sent"]',
            "active": "on",
            "created_by": admin.pk,
            "deliveries-TOTAL_FORMS": "0",
            "deliveries-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 200, response.content[:2000]
    secret = WebhookEndpoint.objects.get().secret
    assert secret.startswith("whsec_")
    assert response.content.decode().count(secret) == 1
    assert secret not in _cookies_text(response, admin_client)

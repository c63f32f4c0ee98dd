"""Object scoping: another team's sales user gets 404 on every detail and action endpoint,
and never sees the other team's rows in a list."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from integrations.models import WebhookEndpoint
from proposals.models import ProposalDocument, ShareLink
from quoting.designs.models import DesignInstallPack
from quoting.quotes.models import Approval
from tests.api_errors import field_errors
from tests.quoting.api_world import quote_world_make, token_client

# {q} quote, {c} customer, {p} project, {k} contact, {l} line, {w} webhook endpoint,
# {d} proposal document, {s} share link, {i} a design's installation pack (its asker's only),
# {t} a line's key
DETAIL_ENDPOINTS = [
    ("get", "/api/v1/customers/{c}/"),
    ("patch", "/api/v1/customers/{c}/"),
    ("delete", "/api/v1/customers/{c}/"),
    ("get", "/api/v1/contacts/{k}/"),
    ("patch", "/api/v1/contacts/{k}/"),
    ("delete", "/api/v1/contacts/{k}/"),
    ("get", "/api/v1/projects/{p}/"),
    ("patch", "/api/v1/projects/{p}/"),
    ("delete", "/api/v1/projects/{p}/"),
    ("get", "/api/v1/projects/{p}/designs/"),
    ("post", "/api/v1/projects/{p}/designs/"),
    ("get", "/api/v1/quotes/{q}/"),
    ("patch", "/api/v1/quotes/{q}/"),
    ("get", "/api/v1/quotes/{q}/revisions/"),
    ("get", "/api/v1/quotes/{q}/revisions/1/"),
    ("get", "/api/v1/quotes/{q}/revisions/diff/?a=1&b=1"),
    ("get", "/api/v1/quotes/{q}/events/"),
    ("get", "/api/v1/quotes/{q}/xlsx/"),
    ("get", "/api/v1/quotes/{q}/lines/"),
    ("post", "/api/v1/quotes/{q}/lines/"),
    ("patch", "/api/v1/quotes/{q}/lines/{l}/"),
    ("delete", "/api/v1/quotes/{q}/lines/{l}/"),
    ("post", "/api/v1/quotes/{q}/request-approval/"),
    ("post", "/api/v1/quotes/{q}/approve/"),
    ("post", "/api/v1/quotes/{q}/reject/"),
    ("post", "/api/v1/quotes/{q}/send/"),
    ("post", "/api/v1/quotes/{q}/revise/"),
    ("post", "/api/v1/quotes/{q}/renewal/"),
    ("patch", "/api/v1/quotes/{q}/terms/{t}/"),
    ("get", "/api/v1/quotes/{q}/proposal/?revision=1"),  # a draft: named
    ("post", "/api/v1/quotes/{q}/proposal/?revision=1"),
    ("get", "/api/v1/quotes/{q}/share-links/"),
    ("post", "/api/v1/quotes/{q}/share-links/"),
    ("post", "/api/v1/quotes/{q}/share-links/{s}/revoke/"),
    ("get", "/api/v1/proposals/{d}/"),
    ("get", "/api/v1/proposals/{d}/pdf/"),
    ("get", "/api/v1/install-packs/{i}/"),
    ("get", "/api/v1/install-packs/{i}/zip/"),
    ("get", "/api/v1/webhook-endpoints/{w}/"),
    ("patch", "/api/v1/webhook-endpoints/{w}/"),
    ("delete", "/api/v1/webhook-endpoints/{w}/"),
]

LIST_ENDPOINTS = [
    "/api/v1/customers/",
    "/api/v1/contacts/",
    "/api/v1/projects/",
    "/api/v1/quotes/",
    "/api/v1/approvals/",
    "/api/v1/webhook-endpoints/",
]


@pytest.fixture
def qw(make_user):
    qw = quote_world_make(make_user)
    Approval.objects.create(revision=qw.quote.current_revision, requested_by=qw.world.sales)
    WebhookEndpoint.objects.create(
        url="https://crm.example/hook",
        secret="whsec_AAAA",
        events=["quote.sent"],
        created_by=qw.world.sales,
    )
    ProposalDocument.objects.create(
        revision=qw.quote.current_revision,
        language="en",
        status="ready",
        pdf=b"%PDF-1.7",
        sha256="0" * 64,
        size=8,
    )
    ShareLink.objects.create(
        quote=qw.quote,
        token_hash="0" * 64,
        created_by=qw.world.sales,
        expires_at=timezone.now() + dt.timedelta(days=30),
    )
    DesignInstallPack.objects.create(
        requirements={"gpu_count": 4096},
        gpu_count=4096,
        status="ready",
        archive=b"PK\x05\x06" + b"\0" * 18,
        sha256="0" * 64,
        size=22,
        requested_by=qw.world.sales,
    )
    return qw


def _ids(qw) -> dict:
    return {
        "q": qw.quote.pk,
        "c": qw.world.customer.pk,
        "p": qw.world.project.pk,
        "k": qw.contact.pk,
        "l": qw.quote.current_revision.lines.first().pk,
        "t": qw.quote.current_revision.lines.first().key,
        "w": WebhookEndpoint.objects.get().pk,
        "d": ProposalDocument.objects.get().pk,
        "s": ShareLink.objects.get().pk,
        "i": DesignInstallPack.objects.get().pk,
    }


@pytest.mark.parametrize(("method", "template"), DETAIL_ENDPOINTS)
def test_another_teams_user_gets_404(qw, method, template):
    url = template.format(**_ids(qw))
    outsider = token_client(qw.world.other_sales)
    response = getattr(outsider, method)(url, {}, format="json", HTTP_IF_MATCH='"1"')
    assert response.status_code == 404, (url, response.status_code, response.content)


@pytest.mark.parametrize("url", LIST_ENDPOINTS)
def test_lists_never_show_another_teams_rows(qw, url):
    mine = token_client(qw.world.sales).get(url).json()
    theirs = token_client(qw.world.other_sales).get(url).json()
    assert mine["count"] >= 1
    assert theirs["count"] == 0


def test_a_design_or_customer_of_another_team_cannot_be_referenced(qw):
    outsider = token_client(qw.world.other_sales)
    quote = outsider.post("/api/v1/quotes/", {"design": qw.design.pk}, format="json")
    assert quote.status_code == 400
    assert "design" in field_errors(quote)
    project = outsider.post(
        "/api/v1/projects/", {"customer": qw.world.customer.pk, "name": "Sneaky"}, format="json"
    )
    assert project.status_code == 400
    assert "customer" in field_errors(project)


@pytest.mark.parametrize("template", [t for m, t in DETAIL_ENDPOINTS if m == "get"])
def test_the_owner_reaches_the_same_urls(qw, template):
    # Without this, a mistyped URL would pass the 404 matrix above for everyone.
    response = token_client(qw.world.sales).get(template.format(**_ids(qw)))
    assert response.status_code == 200, response.content

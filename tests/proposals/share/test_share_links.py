"""Share links: hashed tokens, one 404 for every bad token on every route, a rate limit on
misses, privacy headers, no token in logs, and the customer's answer through the page."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging

import pytest
from django.utils import timezone

from proposals.models import LinkView, ProposalDocument, ShareLink
from proposals.share.services import (
    client_from_user_agent,
    share_link_create,
    share_link_resolve,
    share_link_revoke,
)
from quoting.errors import IllegalTransition, InvalidValue
from quoting.quotes.models import QuoteStatus
from quoting.quotes.services.quotes import quote_create, quote_revise, quote_send
from tests.proposals.conftest import sent_pdf

ROUTES = ("", "/pdf", "/accept", "/decline")
IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
)


@pytest.fixture
def link_and_token(world, sent_quote, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        return share_link_create(quote=sent_quote, user=world.sales, recipient_name="Dr Li")


def _get(client, token, route="", **extra):
    return client.get(f"/p/{token}{route}", **extra)


def _post(client, token, route, data):
    return client.post(f"/p/{token}{route}", data)


# --- tokens --------------------------------------------------------------------------------------


def test_only_the_sha256_of_the_token_is_stored(link_and_token):
    link, token = link_and_token
    assert len(token) >= 43
    row = ShareLink.objects.filter(pk=link.pk).values().get()
    assert row["token_hash"] == hashlib.sha256(token.encode()).hexdigest()
    assert not any(token in str(value) for value in row.values())
    assert share_link_resolve(token) == link


def test_a_draft_quote_cannot_be_shared(world):
    draft = quote_create(project=world.project, user=world.sales)
    with pytest.raises(IllegalTransition):
        share_link_create(quote=draft, user=world.sales)


@pytest.mark.parametrize("days", [0, 366, "7", True])
def test_a_link_lasts_one_to_365_days(world, sent_quote, days):
    with pytest.raises(InvalidValue):
        share_link_create(quote=sent_quote, user=world.sales, days=days)


def test_links_expire_after_30_days_by_default(world, sent_quote):
    link, _ = share_link_create(quote=sent_quote, user=world.sales)
    assert abs(link.expires_at - timezone.now() - dt.timedelta(days=30)) < dt.timedelta(minutes=1)


def test_unknown_expired_and_revoked_tokens_get_the_same_404_on_every_route(
    client, world, sent_quote, link_and_token
):
    _, good = link_and_token
    expired, expired_token = share_link_create(quote=sent_quote, user=world.sales)
    ShareLink.objects.filter(pk=expired.pk).update(expires_at=timezone.now())
    revoked, revoked_token = share_link_create(quote=sent_quote, user=world.sales)
    share_link_revoke(link=revoked, user=world.sales)
    unknown = "x" * 43

    answers = set()
    for token in (unknown, expired_token, revoked_token):
        for route in ROUTES:
            response = (
                _post(client, token, route, {"revision": 1, "name": "x", "agreed": "on"})
                if route in ("/accept", "/decline")
                else _get(client, token, route)
            )
            answers.add((response.status_code, response.content))
    assert len(answers) == 1 and answers.pop()[0] == 404
    assert _get(client, good).status_code == 200


def test_misses_are_rate_limited_per_client_but_a_good_token_is_always_served(
    client, settings, link_and_token
):
    settings.PROPOSALS_LINK_MISSES_ALLOWED = 5
    _, good = link_and_token
    codes = [_get(client, f"guess-{n}").status_code for n in range(7)]
    assert codes == [404] * 5 + [429] * 2
    assert _get(client, "guess-8")["Retry-After"]
    assert _get(client, good).status_code == 200  # the limit counts misses, never a live link
    assert client.get("/p/guess-9", REMOTE_ADDR="10.0.0.9").status_code == 404  # per client


@pytest.mark.services
def test_the_miss_counter_is_shared_through_redis(client, settings, redis_url, link_and_token):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": "test-proposals-limit",
        }
    }
    settings.PROPOSALS_LINK_MISSES_ALLOWED = 3
    from django.core.cache import caches

    caches["default"].clear()
    try:
        codes = [_get(client, f"guess-{n}").status_code for n in range(5)]
        assert codes == [404, 404, 404, 429, 429]
    finally:
        caches["default"].clear()


def test_every_share_response_sends_the_privacy_headers(client, link_and_token):
    _, token = link_and_token
    for response in (_get(client, token), _get(client, token, "/pdf"), _get(client, "nope")):
        assert response["X-Robots-Tag"] == "noindex, nofollow"
        assert response["Referrer-Policy"] == "no-referrer"
        assert "no-store" in response["Cache-Control"]
        csp = response["Content-Security-Policy"]
        assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp


def test_tokens_never_reach_the_logs(client, caplog, link_and_token):
    _, token = link_and_token
    with caplog.at_level(logging.DEBUG):
        _get(client, token)
        _get(client, "a-guessed-token-value")
        logging.getLogger("django.server").info('"GET /p/%s HTTP/1.1" 404 12', token)
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "/p/[redacted]" in text
    assert token not in text and "a-guessed-token-value" not in text


# --- the customer's page ------------------------------------------------------------------------


def test_the_page_shows_the_proposal_in_the_customers_language_and_records_the_open(
    client, world, link_and_token
):
    link, token = link_and_token
    response = _get(client, token, HTTP_USER_AGENT=IPHONE, REMOTE_ADDR="203.0.113.7")
    assert response.status_code == 200
    page = response.content.decode()
    assert world.customer.company in page and link.quote.number in page
    assert response["Content-Language"] == world.customer.language
    view = LinkView.objects.get(link=link)
    assert (view.browser, view.os, view.is_mobile, view.revision_label) == (
        "Safari",
        "iOS",
        True,
        "R1",
    )
    # Recorded, not yet read: the page's script confirms a reader (issue 15).
    assert (view.kind, view.script_ran, view.seconds) == ("no_script", False, 0)
    link.refresh_from_db()
    assert link.use_count == 0 and link.last_used_at is None
    stored = [str(v) for row in LinkView.objects.values() for v in row.values()]
    assert not any("203.0.113.7" in value for value in stored)


def test_the_pdf_download_gives_the_stored_bytes_of_the_sent_revision(client, link_and_token):
    link, token = link_and_token
    waiting = _get(client, token, "/pdf?lang=en")  # requested at the send, not rendered yet
    assert waiting.status_code == 202 and int(waiting["Retry-After"]) > 0
    # The wait page asks again by itself, without script.
    assert f'http-equiv="refresh" content="{waiting["Retry-After"]}"' in waiting.content.decode()
    document = sent_pdf(link.quote.current_revision, "en")  # the worker renders it
    response = _get(client, token)
    download = _get(client, token, "/pdf?lang=en")
    assert download.status_code == 200 and download["Content-Type"] == "application/pdf"
    assert hashlib.sha256(download.content).hexdigest() == document.sha256
    assert download.content == bytes(document.pdf)
    assert response.status_code == 200


def test_the_customer_accepts_through_the_page(client, world, link_and_token):
    link, token = link_and_token
    _get(client, token)
    response = _post(
        client, token, "/accept", {"revision": 1, "name": "Li Wei", "title": "CTO", "agreed": "on"}
    )
    assert response.status_code == 302 and "?answered=1" in response["Location"]
    link.quote.refresh_from_db()
    assert link.quote.status == QuoteStatus.ACCEPTED
    event = link.quote.events.filter(verb="status_changed").last()
    assert event.details["name"] == "Li Wei" and event.details["title"] == "CTO"
    assert event.actor is None


def test_accepting_needs_a_name_and_the_tick(client, link_and_token):
    link, token = link_and_token
    response = _post(client, token, "/accept", {"revision": 1, "name": "Li Wei"})
    assert response.status_code == 400
    link.quote.refresh_from_db()
    assert link.quote.status == QuoteStatus.SENT


def test_the_customer_declines_with_a_reason(client, link_and_token):
    link, token = link_and_token
    _post(client, token, "/decline", {"revision": 1, "reason": "Over budget", "confirmed": "True"})
    link.quote.refresh_from_db()
    assert link.quote.status == QuoteStatus.DECLINED
    assert link.quote.events.filter(verb="status_changed").last().details["reason"] == "Over budget"


def test_an_expired_quote_cannot_be_accepted(client, link_and_token):
    link, token = link_and_token
    type(link.quote).objects.filter(pk=link.quote_id).update(
        valid_until=timezone.localdate() - dt.timedelta(days=1)
    )
    response = _post(
        client, token, "/accept?lang=en", {"revision": 1, "name": "Li", "agreed": "on"}
    )
    assert response.status_code == 409
    assert "can no longer be accepted" in response.content.decode()
    link.quote.refresh_from_db()
    assert link.quote.status == QuoteStatus.SENT


def test_a_revision_replaced_by_a_newer_sent_one_cannot_be_accepted(client, world, link_and_token):
    link, token = link_and_token
    quote = link.quote
    quote_revise(quote=quote, user=world.sales, expected_version=quote.version)  # R2, a draft
    page = _get(client, token).content.decode()
    assert "R1" in page  # the customer still reads the last sent revision, never the draft
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    response = _post(
        client, token, "/accept?lang=en", {"revision": 1, "name": "Li", "agreed": "on"}
    )
    assert response.status_code == 409  # they read R1; R2 is the offer now
    assert "replaced by a newer one" in response.content.decode()
    assert (
        _post(client, token, "/accept", {"revision": 2, "name": "Li", "agreed": "on"}).status_code
        == 302
    )


def test_client_info_is_coarse():
    assert client_from_user_agent(IPHONE) == ("Safari", "iOS", True)
    chrome = (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36"
    )
    assert client_from_user_agent(chrome) == ("Chrome", "Windows", False)
    wechat = "Mozilla/5.0 (Linux; Android 14) Chrome/116 Mobile Safari/537.36 MicroMessenger/8.0"
    assert client_from_user_agent(wechat) == ("WeChat", "Android", True)
    assert client_from_user_agent("") == ("Other", "Other", False)


# --- the staff panel -----------------------------------------------------------------------------


def test_staff_generate_poll_and_download_through_the_panel(
    client, world, sent_quote, django_capture_on_commit_callbacks
):
    client.force_login(world.sales)
    panel = client.get(f"/quotes/{sent_quote.pk}/proposal-panel/")
    assert panel.status_code == 200 and "Generate proposal" in panel.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/quotes/{sent_quote.pk}/proposal/generate/",
            {"language": "en"},
            HTTP_HX_REQUEST="true",
        )
    assert response.status_code == 200
    # A sent revision: the PDF its send requested, shown on the panel, not a second one.
    document = ProposalDocument.objects.get(revision=sent_quote.current_revision, language="en")
    assert f'id="proposal-doc-{document.pk}"' in response.content.decode()
    status = client.get(f"/proposals/{document.pk}/status/").content.decode()
    assert 'data-status="pending"' in status and 'hx-trigger="every 1s"' in status
    sent_pdf(sent_quote.current_revision, "en")  # the worker renders it
    status = client.get(f"/proposals/{document.pk}/status/").content.decode()
    assert 'data-status="ready"' in status and "hx-trigger" not in status  # polling stops
    pdf = client.get(f"/proposals/{document.pk}/pdf/")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")


def test_a_pending_document_polls_every_second(client, world, sent_quote):
    client.force_login(world.sales)
    document = ProposalDocument.objects.create(revision=sent_quote.current_revision, language="en")
    status = client.get(f"/proposals/{document.pk}/status/").content.decode()
    assert 'hx-trigger="every 1s"' in status and 'data-status="pending"' in status


def test_staff_create_list_and_revoke_links(client, world, sent_quote):
    client.force_login(world.sales)
    created = client.post(
        f"/quotes/{sent_quote.pk}/share-links/",
        {"recipient_name": "Dr Li", "recipient_email": "li@example.com", "days": 14},
    ).content.decode()
    link = ShareLink.objects.get()
    assert "Dr Li" in created and "/p/" in created  # the URL, shown this once
    assert abs(link.expires_at - timezone.now() - dt.timedelta(days=14)) < dt.timedelta(minutes=1)
    client.post(f"/share-links/{link.pk}/revoke/")
    link.refresh_from_db()
    assert link.revoked_at is not None


def test_the_staff_panel_showing_a_new_link_may_not_be_cached(client, world, sent_quote):
    client.force_login(world.sales)
    created = client.post(
        f"/quotes/{sent_quote.pk}/share-links/", {"recipient_name": "Dr Li", "days": 30}
    )
    assert created.status_code == 200 and "/p/" in created.content.decode()
    assert created["Cache-Control"] == "no-store"


def test_another_teams_quote_answers_404_on_every_staff_route(client, world, sent_quote):
    document = ProposalDocument.objects.create(revision=sent_quote.current_revision, language="en")
    link, _ = share_link_create(quote=sent_quote, user=world.sales)
    client.force_login(world.other_sales)
    q = sent_quote.pk
    assert client.get(f"/quotes/{q}/proposal-panel/").status_code == 404
    assert client.get(f"/quotes/{q}/proposal/").status_code == 404
    assert client.post(f"/quotes/{q}/proposal/generate/").status_code == 404
    assert client.post(f"/quotes/{q}/share-links/", {"days": 3}).status_code == 404
    assert client.post(f"/share-links/{link.pk}/revoke/").status_code == 404
    assert client.get(f"/proposals/{document.pk}/status/").status_code == 404
    assert client.get(f"/proposals/{document.pk}/pdf/").status_code == 404
    link.refresh_from_db()
    assert link.revoked_at is None and ShareLink.objects.count() == 1


def test_staff_routes_need_a_sign_in(client, sent_quote):
    response = client.get(f"/quotes/{sent_quote.pk}/proposal-panel/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]

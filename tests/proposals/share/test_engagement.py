"""Engagement you can trust (issue 15, item 4): each open records reading time per section
through beacons; scanners, previews, HEAD requests, opens with no script and opens under two
seconds are counted apart and never fire quote.viewed nor tell the owner; bad beacons record
nothing; beacons of bad tokens are dropped and counted as misses."""

from __future__ import annotations

import datetime as dt
import json
import re
from unittest import mock

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from integrations.models import WebhookDelivery, WebhookEndpoint
from integrations.webhooks import webhook_secret_new
from proposals.models import LinkView, OpenKind, ShareLink
from proposals.share import engagement, services
from proposals.share.engagement import (
    BEACON_MAX_BYTES,
    MAX_VIEW_SECONDS,
    SECTIONS,
    BeaconRefused,
    beacon_parse,
    seconds_clamped,
    seconds_merged,
)
from proposals.share.scanners import SCANNER_AGENTS, is_scanner, scanner_named
from proposals.share.services import share_link_create, share_link_revoke
from quoting.quotes.models import Notification, NotificationKind
from tests.proposals.reading import (
    BROWSER,
    beacon_post,
    open_and_read,
    page_open,
    page_read,
)
from tests.quoting.api_world import token_client

A = "198.51.100.7"


@pytest.fixture
def shared(world, sent_quote):
    link, token = share_link_create(quote=sent_quote, user=world.sales, recipient_name="Dr Li")
    return link, token


@pytest.fixture
def listening(world):
    """A CRM endpoint on loopback hearing quote.viewed; deliveries are written, never sent."""
    with mock.patch("integrations.webhooks.enqueue_or_leave_to_sweeper"):
        yield WebhookEndpoint.objects.create(
            url="http://127.0.0.1:9/hook",
            secret=webhook_secret_new(),
            events=["quote.viewed"],
            created_by=world.sales,
        )


def _opened_notes():
    return Notification.objects.filter(kind=NotificationKind.LINK_OPENED).count()


def _viewed():
    return WebhookDelivery.objects.filter(event_type="quote.viewed").count()


# --- scanners and previews: the one list, each rule ----------------------------------------------

# Agents as they arrive (vendors' documentation and logs).
SCANNERS_SEEN = {
    "Outlook preview": "Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17328; Pro)",
    "Office link check": "Microsoft Office Existence Discovery",
    "Bing preview (Safe Links)": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 "
    "(KHTML, like Gecko) BingPreview/1.0b",
    "Teams / Skype": "Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5",
    "Mimecast": "Mozilla/5.0 (compatible; Mimecast URL Protect)",
    "Proofpoint": "Proofpoint URL Defense (urldefense.com)",
    "Barracuda": "Mozilla/5.0 (compatible; Barracuda Link Protection)",
    "Slack": "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
    "Twitter": "Twitterbot/1.0",
    "Facebook": "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    "LinkedIn": "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
    "WhatsApp": "WhatsApp/2.23.20.0 A",
    "Telegram": "TelegramBot (like TwitterBot)",
    "Discord": "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
    "Google": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Baidu": "Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)",
    "curl": "curl/8.5.0",
    "requests": "python-requests/2.32.3",
    "a crawler's link": "SomeNewFetcher/0.1 (+https://fetcher.example/about)",
    "headless Chrome (a link sandbox)": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 "
    "(KHTML, like Gecko) HeadlessChrome/131.0.0.0 "
    "Safari/537.36",
}

# Readers, including in-app browsers of the apps whose previews are listed above.
BROWSERS_SEEN = {
    "Chrome": BROWSER,
    "Safari on iPhone": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) "
    "AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 "
    "Safari/604.1",
    "Firefox": "Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0",
    "Edge": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
    "WeChat": "Mozilla/5.0 (Linux; Android 14; V2244A) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Version/4.0 Chrome/116.0 Mobile Safari/537.36 XWEB/1160065 MicroMessenger/8.0.47",
    "Facebook app": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/442.0.0.38.109]",
    "LinkedIn app": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Mobile/15E148 [LinkedInApp]/9.29.8",
    "a CUBOT phone": "Mozilla/5.0 (Linux; Android 11; CUBOT X30) AppleWebKit/537.36 (KHTML, like "
    "Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
    "Sogou browser": "Mozilla/5.0 (Windows NT 10.0; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/80.0.3987.87 Safari/537.36 SE 2.X MetaSr 1.0 SogouMobileBrowser",
    "DingTalk": "Mozilla/5.0 (iPhone; CPU iPhone OS 16_0 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Mobile/15E148 AliApp(DingTalk/7.0.10) Language/zh-Hans-CN",
}


@pytest.mark.parametrize("agent", SCANNERS_SEEN.values(), ids=SCANNERS_SEEN.keys())
def test_known_scanner_and_preview_agents_are_scanners(agent):
    assert is_scanner(agent), agent


@pytest.mark.parametrize("agent", BROWSERS_SEEN.values(), ids=BROWSERS_SEEN.keys())
def test_browsers_and_in_app_browsers_are_readers(agent):
    assert scanner_named(agent) == "", agent


@pytest.mark.parametrize(("marker", "name"), SCANNER_AGENTS)
def test_every_marker_of_the_list_is_found_in_any_case(marker, name):
    assert scanner_named(f"Mozilla/5.0 (compatible; {marker.upper()}/1.0)") == name


def test_no_user_agent_at_all_is_a_scanner():
    assert is_scanner("") and is_scanner("   ")


# --- the beacon's contract -----------------------------------------------------------------------


def _body(sections, open_key="k" * 22) -> bytes:
    return json.dumps({"open": open_key, "sections": sections}).encode()


def test_a_beacon_is_read_with_its_sections():
    beacon = beacon_parse(_body({"cover": 3, "bom": 12.5}))
    assert (beacon.open_key, beacon.sections) == ("k" * 22, {"cover": 3.0, "bom": 12.5})


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b"{not json", 400),
        (b"\xff\xfe", 400),
        (b"[]", 400),
        (_body({"cover": 3}, open_key=""), 400),
        (_body({"cover": 3}, open_key="x" * 33), 400),
        (json.dumps({"open": "abc"}).encode(), 400),
        (_body({"pricing-page": 3}), 400),  # a section the page does not have
        (_body({"cover": "3"}), 400),
        (_body({"cover": True}), 400),
        (_body({"cover": None}), 400),
        (b'{"open": "abc", "sections": {"cover": NaN}}', 400),
        (b'{"open": "abc", "sections": {"cover": Infinity}}', 400),
        (_body({"cover": 1}, open_key="k" * 10) + b" " * BEACON_MAX_BYTES, 413),
        (b"[" * 1_000, 400),  # json recursed into a RecursionError: a 500
        (b'{"open": "abc", "sections": {"cover": ' + b"[" * 40, 400),
    ],
)
def test_a_malformed_beacon_is_refused(body, status):
    with pytest.raises(BeaconRefused) as refused:
        beacon_parse(body)
    assert refused.value.status == status


def test_seconds_are_never_negative_nor_more_than_the_view_has_existed():
    assert seconds_clamped({"cover": -5, "bom": 4}, elapsed=10) == {"cover": 0, "bom": 4}
    # 10 s old (+0.5 s of slack): 1e9 s of reading is 10.5 s at most, shares kept.
    clamped = seconds_clamped({"cover": 1e9, "bom": 1e9}, elapsed=10)
    assert clamped == {"cover": 5.25, "bom": 5.25}
    assert seconds_clamped({"tco": 1e308 * 10}, elapsed=10) == {"tco": 10.5}  # inf
    assert seconds_clamped({"tco": 1e9}, elapsed=10 * MAX_VIEW_SECONDS) == {"tco": MAX_VIEW_SECONDS}


def test_beacons_may_come_twice_late_or_out_of_order():
    kept = {"cover": 10, "bom": 4}
    assert seconds_merged(kept, {"cover": 8, "bom": 6, "tco": 1}, elapsed=60) == {
        "cover": 10,
        "bom": 6,
        "tco": 1,
    }


def test_the_page_marks_every_section_of_the_beacon_and_nothing_else(client, seeded, world):
    from tests.proposals.conftest import quote_rich

    quote = quote_rich(world)
    _, token = share_link_create(quote=quote, user=world.sales)
    page = client.get(f"/p/{token}").content.decode()
    marked = set(re.findall(r'data-section="([^"]+)"', page))
    assert marked == set(SECTIONS)


# --- opens: real, or counted apart ---------------------------------------------------------------


def test_an_open_is_recorded_unconfirmed_and_tells_nobody(client, world, shared, listening):
    link, token = shared
    response, open_key = page_open(client, token)
    assert response.status_code == 200 and open_key
    view = LinkView.objects.get(link=link)
    assert (view.kind, view.open_key, view.script_ran) == (OpenKind.NO_SCRIPT, open_key, False)
    assert (_opened_notes(), _viewed()) == (0, 0)
    assert ShareLink.objects.get(pk=link.pk).use_count == 0


def test_two_seconds_of_reading_make_the_open_real_tell_the_owner_and_fire_quote_viewed(
    client, world, shared, listening
):
    link, token = shared
    _, open_key = page_open(client, token)
    assert page_read(client, token, open_key, {"cover": 2.5, "design": 1}).status_code == 204

    view = LinkView.objects.get(link=link)
    assert (view.kind, view.script_ran, view.seconds) == (OpenKind.REAL, True, 4)
    assert view.sections == {"cover": 2, "design": 1}  # whole seconds, in page order
    link.refresh_from_db()
    assert link.use_count == 1 and link.last_used_at is not None
    assert _opened_notes() == 1 and Notification.objects.get().recipient == world.sales
    data = WebhookDelivery.objects.get(event_type="quote.viewed").payload["data"]
    assert (data["share_link"]["id"], data["revision"]["label"]) == (link.pk, "R1")
    assert data["viewed"]["at"] == view.at.isoformat(timespec="seconds").replace("+00:00", "Z")


def test_a_real_open_reaches_the_event_feed_when_no_webhook_listens(client, world, shared):
    """A CRM without webhooks catches up from /api/v1/events/: the open is there too."""
    link, token = shared
    open_and_read(token, {"cover": 3}, client=client)
    assert not WebhookDelivery.objects.exists()
    feed = token_client(world.sales).get("/api/v1/events/?type=share_link.opened,quote.viewed")
    events = [(e["type"], e["data"]["share_link"]["id"]) for e in feed.json()["results"]]
    assert events == [("share_link.opened", link.pk), ("quote.viewed", link.pk)]


def test_an_open_under_two_seconds_is_short_until_a_later_beacon_says_more(
    client, world, shared, listening
):
    link, token = shared
    _, open_key = page_open(client, token)
    page_read(client, token, open_key, {"cover": 1.4}, ago=30)
    view = LinkView.objects.get(link=link)
    assert (view.kind, view.script_ran) == (OpenKind.SHORT, True)
    assert (_opened_notes(), _viewed(), ShareLink.objects.get(pk=link.pk).use_count) == (0, 0, 0)

    page_read(client, token, open_key, {"cover": 1.4, "bom": 5}, ago=0)  # the running total
    view.refresh_from_db()
    assert (view.kind, view.sections, view.seconds) == (OpenKind.REAL, {"cover": 1, "bom": 5}, 6)
    assert (_opened_notes(), _viewed()) == (1, 1)


def test_a_beacon_saying_more_than_the_open_has_lasted_is_clamped_and_not_real(
    client, world, shared, listening
):
    """A forged beacon right after the page: -50 s is 0, 1e9 s is the time since the page was
    served (half a second of slack): a glance, not a reader."""
    link, token = shared
    _, open_key = page_open(client, token)
    body = {"open": open_key, "sections": {"cover": -50, "bom": 1e9}}
    assert beacon_post(client, token, body).status_code == 204
    view = LinkView.objects.get(link=link)
    assert view.seconds <= 1 and "cover" not in view.sections
    assert view.kind == OpenKind.SHORT
    assert (_opened_notes(), _viewed()) == (0, 0)


@pytest.mark.parametrize("agent", [SCANNERS_SEEN["Outlook preview"], SCANNERS_SEEN["Slack"], ""])
def test_a_scanner_or_preview_is_counted_apart_even_if_it_runs_script_for_long(
    client, world, shared, listening, agent
):
    link, token = shared
    _, open_key = page_open(client, token, agent=agent)
    page_read(client, token, open_key, {"cover": 30, "tco": 60})
    view = LinkView.objects.get(link=link)
    assert view.kind == OpenKind.SCANNER and view.scanner
    assert view.seconds == 90  # recorded, never counted as reading
    assert (_opened_notes(), _viewed(), ShareLink.objects.get(pk=link.pk).use_count) == (0, 0, 0)


def test_a_head_request_is_counted_apart_gets_no_page_and_tells_nobody(
    client, world, shared, listening
):
    link, token = shared
    response = client.head(f"/p/{token}", HTTP_USER_AGENT=BROWSER)
    assert response.status_code == 200 and response.content == b""
    view = LinkView.objects.get(link=link)
    assert (view.kind, view.open_key) == (OpenKind.HEAD, None)
    assert (_opened_notes(), _viewed()) == (0, 0)


def test_opens_with_no_script_never_count(client, world, shared, listening):
    link, token = shared
    for _ in range(3):
        page_open(client, token)
    assert list(LinkView.objects.values_list("kind", flat=True)) == [OpenKind.NO_SCRIPT] * 3
    assert (_opened_notes(), _viewed(), ShareLink.objects.get(pk=link.pk).use_count) == (0, 0, 0)


# --- exactly once -------------------------------------------------------------------------------


def test_each_real_open_fires_quote_viewed_once_and_the_link_tells_the_owner_once(
    client, world, shared, listening
):
    link, token = shared
    first = open_and_read(token)
    for sections in ({"cover": 3}, {"cover": 3}, {"cover": 5, "terms": 2}):  # again, and more
        page_read(client, token, first, sections)
    open_and_read(token)  # a second reader of the same link
    assert LinkView.objects.filter(kind=OpenKind.REAL).count() == 2
    assert ShareLink.objects.get(pk=link.pk).use_count == 2
    assert (_opened_notes(), _viewed()) == (1, 2)


def test_two_beacons_racing_to_confirm_one_open_confirm_it_once(
    client, world, shared, listening, monkeypatch
):
    """The second beacon reads the open as unconfirmed before the first writes: only one
    UPDATE finds it unconfirmed, so one quote.viewed and one notification."""
    link, token = shared
    _, open_key = page_open(client, token)
    LinkView.objects.filter(open_key=open_key).update(at=timezone.now() - dt.timedelta(seconds=30))
    merged = engagement.seconds_merged
    raced = []

    def racing(*args, **kwargs):
        if not raced:  # between the first beacon's read and its write, another one lands
            raced.append(True)
            assert (
                beacon_post(Client(), token, {"open": open_key, "sections": {"bom": 4}}).status_code
                == 204
            )
        return merged(*args, **kwargs)

    monkeypatch.setattr(services, "seconds_merged", racing)
    assert (
        beacon_post(client, token, {"open": open_key, "sections": {"cover": 3}}).status_code == 204
    )
    assert raced
    assert LinkView.objects.get(open_key=open_key).kind == OpenKind.REAL
    assert ShareLink.objects.get(pk=link.pk).use_count == 1
    assert (_opened_notes(), _viewed()) == (1, 1)


# --- bad beacons record nothing; bad tokens are misses --------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        _body({"pricing-page": 3}),
        _body({"cover": "long"}),
    ],
)
def test_a_malformed_beacon_on_a_live_link_is_400_and_records_nothing(client, shared, body):
    link, token = shared
    _, open_key = page_open(client, token)
    if b"kkkk" in body:
        body = body.replace(b"k" * 22, open_key.encode())
    assert beacon_post(client, token, body).status_code == 400
    assert LinkView.objects.get(link=link).script_ran is False


def test_a_beacon_nested_a_thousand_deep_is_400_before_it_is_parsed(client, shared):
    link, token = shared
    page_open(client, token)
    with mock.patch("json.loads", side_effect=AssertionError("parsed")) as loads:
        response = beacon_post(client, token, b"[" * 1_000)
    assert response.status_code == 400 and not loads.called
    assert response.json() == {
        "detail": "JSON parse error - objects and arrays may nest at most 32 levels."
    }
    assert LinkView.objects.get(link=link).script_ran is False


def test_an_oversized_beacon_is_413_unread(client, shared):
    link, token = shared
    _, open_key = page_open(client, token)
    body = json.dumps({"open": open_key, "sections": {"cover": 3}, "pad": "x" * 2000})
    assert beacon_post(client, token, body).status_code == 413
    assert LinkView.objects.get(link=link).script_ran is False


def test_a_beacon_for_another_links_open_is_dropped(client, world, shared, sent_quote):
    link, token = shared
    _, other_token = share_link_create(quote=sent_quote, user=world.sales)
    _, open_key = page_open(client, token)
    assert page_read(client, other_token, open_key, {"cover": 5}).status_code == 204
    assert LinkView.objects.get(link=link).kind == OpenKind.NO_SCRIPT
    assert _opened_notes() == 0


def test_only_post_reaches_the_beacon(client, shared):
    assert client.get(f"/p/{shared[1]}/beacon").status_code == 405


def _bad_tokens(world, sent_quote):
    expired_link, expired = share_link_create(quote=sent_quote, user=world.sales)
    ShareLink.objects.filter(pk=expired_link.pk).update(
        expires_at=timezone.now() - dt.timedelta(minutes=1)
    )
    revoked_link, revoked = share_link_create(quote=sent_quote, user=world.sales)
    share_link_revoke(link=revoked_link, user=world.sales)
    return {"unknown": "no-such-token-" + "x" * 30, "expired": expired, "revoked": revoked}


def test_beacons_of_unknown_expired_or_revoked_tokens_are_dropped_silently(
    client, world, sent_quote
):
    for kind, token in _bad_tokens(world, sent_quote).items():
        response = beacon_post(
            client, token, {"open": "k" * 22, "sections": {"cover": 5}}, REMOTE_ADDR=A
        )
        assert (response.status_code, response.content) == (204, b""), kind
    assert not LinkView.objects.exists() and _opened_notes() == 0


def test_beacons_of_bad_tokens_are_misses_like_any_other(client, world, sent_quote, settings):
    """The same counters as the page: past the limit a client's misses get 429, beacons and
    pages alike."""
    settings.PROPOSALS_LINK_MISSES_ALLOWED = 5
    codes = [
        beacon_post(
            client, f"guess{n:04d}-{'x' * 30}", {"open": "k", "sections": {}}, REMOTE_ADDR=A
        ).status_code
        for n in range(6)
    ]
    assert codes == [204] * 5 + [429]
    assert client.get("/p/another-guess-" + "y" * 30, REMOTE_ADDR=A).status_code == 429
    assert client.get("/p/another-guess-" + "y" * 30, REMOTE_ADDR="203.0.113.9").status_code == 404


# --- what it costs -------------------------------------------------------------------------------


def _statements(captured) -> list[str]:
    return [
        q["sql"]
        for q in captured.captured_queries
        if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT", "BEGIN"))
    ]


def test_a_view_is_two_statements_and_a_beacon_three(client, world, shared):
    """The kept page: the token lookup and the open's INSERT. A beacon: the lookup, the open
    read under its lock, its update. Confirming a reader adds the link's count (and, on the
    link's first, the owner's notification)."""
    link, token = shared
    page_open(client, token)  # renders and keeps the page
    with CaptureQueriesContext(connection) as view:
        _, open_key = page_open(client, token)
    assert len(_statements(view)) == 2, _statements(view)

    LinkView.objects.filter(open_key=open_key).update(at=timezone.now() - dt.timedelta(seconds=120))
    with CaptureQueriesContext(connection) as short:
        beacon_post(client, token, {"open": open_key, "sections": {"cover": 1}})
    assert len(_statements(short)) == 3, _statements(short)
    with CaptureQueriesContext(connection) as again:  # the same beacon again: nothing to write
        beacon_post(client, token, {"open": open_key, "sections": {"cover": 1}})
    assert len(_statements(again)) == 2, _statements(again)
    with CaptureQueriesContext(connection) as first_real:
        beacon_post(client, token, {"open": open_key, "sections": {"cover": 1, "bom": 20}})
    first_real_statements = _statements(first_real)  # read now: the next request resets them

    second = open_and_read(token)  # a later reader: no notification
    with CaptureQueriesContext(connection) as later:
        beacon_post(client, token, {"open": second, "sections": {"cover": 3, "tco": 9}})
    assert len(_statements(later)) == 3, _statements(later)
    _, third = page_open(client, token)
    LinkView.objects.filter(open_key=third).update(at=timezone.now() - dt.timedelta(seconds=60))
    with CaptureQueriesContext(connection) as later_real:
        beacon_post(client, token, {"open": third, "sections": {"cover": 3}})
    # A confirmed reader: the link's count, then quote.viewed in the event feed (its subjects,
    # the revision read, the event, the endpoints that listen).
    assert len(_statements(later_real)) == 9, _statements(later_real)
    # The first real open also reads the owner and writes the notification.
    # Once per link, the first real open also reads the owner (quote, user) and the
    # recipient's name (not read with the token) and writes the notification.
    # And it announces share_link.opened beside quote.viewed (two events, two endpoint reads).
    assert len(first_real_statements) == 15, first_real_statements
    assert _opened_notes() == 1


# --- what the quote's owner sees -----------------------------------------------------------------


def _engaged(client, token):
    """Two readers, a mail scanner, a link checker and a page where no script ran."""
    open_and_read(token, {"cover": 20, "bom": 95})
    open_and_read(token, {"cover": 10, "tco": 3600})
    _, scanned = page_open(client, token, agent=SCANNERS_SEEN["Mimecast"])
    page_read(client, token, scanned, {"cover": 40})
    client.head(f"/p/{token}", HTTP_USER_AGENT=SCANNERS_SEEN["Outlook preview"])
    page_open(client, token)


def _panel(client, world, quote, language):
    world.sales.language = language
    world.sales.save()
    client.force_login(world.sales)
    response = client.get(f"/quotes/{quote.pk}/proposal-panel/")
    assert response.status_code == 200
    return response.content.decode()


def test_the_panel_shows_readers_and_scanners_apart_with_reading_time_per_section(
    client, world, shared, sent_quote
):
    link, token = shared
    _engaged(Client(), token)
    panel = _panel(client, world, sent_quote, "en")
    row = panel[panel.index(f'data-link="{link.pk}"') :]
    assert re.search(r"data-opens>2<", row)
    assert re.search(r"data-glance-opens>1<", row)  # the page where no script ran
    assert re.search(r"data-scanner-opens>2<", row)  # Mimecast, and the link checker's HEAD
    assert 'data-reading="3725"' in row and "1 h 2 min" in row
    sections = dict(re.findall(r'data-section="(\w+)" data-seconds="(\d+)"', row))
    assert sections == {"cover": "30", "bom": "95", "tco": "3600"}
    assert "Cover: 30 s" in row and "Bill of materials: 1 min 35 s" in row
    assert "Total cost of ownership: 1 h 0 min" in row
    assert "scanner or preview (Mimecast)" in row and "no script ran" in row
    assert "HEAD request" in row
    last = ShareLink.objects.get(pk=link.pk).last_used_at
    assert timezone.localtime(last).strftime("%Y-%m-%d %H:%M") in row


def test_the_panel_says_opens_come_from_the_customers_browser_and_can_be_forged(
    client, world, shared, sent_quote
):
    """Issue 23, item 5: a link holder can send beacons; staff are told what the counts are."""
    _engaged(Client(), shared[1])
    assert "anyone holding the link can inflate them" in _panel(client, world, sent_quote, "en")
    assert "持有链接的任何人都能" in _panel(client, world, sent_quote, "zh-hans")


def test_the_panel_reads_in_chinese(client, world, shared, sent_quote):
    from tests.portal.test_chinese_complete import english_words, report, visible_text

    link, token = shared
    _engaged(Client(), token)
    panel = _panel(client, world, sent_quote, "zh-hans")
    for chinese in (
        "扫描与预览",
        "阅读时长",
        "最近打开",
        "封面：30 秒",
        "物料清单：1 分 35 秒",
        "1 小时 2 分",
        "扫描或预览",
        "未运行脚本",
        "仅请求头（链接检查）",
    ):
        assert chinese in panel, chinese
    # Recorded device and vendor names are shown as recorded; an unknown one reads "其他".
    assert "其他 / 其他" in panel  # the test client's browser and system
    devices = (
        "Chrome",
        "Windows",
        "Mimecast",
        "Microsoft Office",
        world.customer.company,
        "Dr",
        "Li",
        sent_quote.number,
    )
    found = english_words(visible_text(panel), user_data=devices)
    assert not found, report({"proposal panel": found})


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_racing_beacons_confirm_each_open_once_and_tell_the_owner_once(make_user):
    """Sixteen connections at once: two beacons for each of eight opens of one link. Each open
    becomes real once (eight quote.viewed), the link's first real open tells the owner once."""
    import threading

    from proposals.share.engagement import Beacon
    from proposals.share.services import link_view_beacon, link_view_record
    from tests.conftest import service_missing
    from tests.proposals.conftest import quote_sent
    from tests.quoting.factories import world_make

    if connection.vendor != "postgresql":
        service_missing("row locks need PostgreSQL (set DATABASE_URL)")
    world = world_make(make_user)
    quote = quote_sent(world)
    link, _token = share_link_create(quote=quote, user=world.sales)
    with mock.patch("integrations.webhooks.enqueue_or_leave_to_sweeper"):
        WebhookEndpoint.objects.create(
            url="http://127.0.0.1:9/hook",
            secret=webhook_secret_new(),
            events=["quote.viewed"],
            created_by=world.sales,
        )
        keys = [
            link_view_record(link=link, user_agent=BROWSER, revision=quote.current_revision)
            for _ in range(8)
        ]
        LinkView.objects.update(at=timezone.now() - dt.timedelta(seconds=60))
        start, errors = threading.Barrier(16), []

        def beacon(open_key, seconds):
            try:
                start.wait(timeout=30)
                link_view_beacon(link=link, beacon=Beacon(open_key, {"cover": seconds}))
            except Exception as error:  # noqa: BLE001 - reported below
                errors.append(error)
            finally:
                connection.close()

        threads = [
            threading.Thread(target=beacon, args=(key, seconds))
            for key in keys
            for seconds in (3, 4)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)

    assert errors == []
    assert LinkView.objects.filter(kind=OpenKind.REAL).count() == 8
    assert ShareLink.objects.get(pk=link.pk).use_count == 8
    assert (_opened_notes(), _viewed()) == (1, 8)

"""The header's counts (work queues, unread notifications) are kept per user in the cache and
are right again on the very next page after each event that changes them (portal.header_counts).

Each test signs in, loads a page (the counts are counted and kept), makes one event happen
through its service or its page, and reads the header of the next page.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from portal.header_counts import WORK_GENERATION
from proposals.share.services import share_link_create
from quoting.customers.services import customer_update
from quoting.quotes.models import Notification
from quoting.quotes.services.notifications import notification_mark_read
from quoting.quotes.services.quotes import (
    quote_approve,
    quote_create,
    quote_mark_accepted,
    quote_mark_declined,
    quote_reject,
    quote_revise,
    quote_send,
    quote_update_terms,
)
from tests.portal.test_work_queues import _asking, _beijing, _quote, _sent
from tests.proposals.reading import link_read, open_and_read
from tests.quoting.factories import (
    ProductFactory,
    days_from_today,
    price_set,
    quote_reload,
)

pytestmark = pytest.mark.django_db

BADGES = re.compile(
    r'href="/#(approvals|waiting)">[^<]*<span class="badge[^"]*">(\d+)</span>'
    r'|href="/inbox/">Inbox <span class="badge count">(\d+)<'
)


@pytest.fixture(name="world")
def world_with_sw1(world):
    """The shared world, and SW-1 priced 10,000.00 CNY."""
    price_set(ProductFactory(part_number="SW-1"), "CNY", "10000.00")
    return world


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _header(client) -> dict[str, int]:
    """The badges of the next page: {"approvals": n, "waiting": n, "inbox": n}, zeros left out."""
    page = client.get("/quotes/").content.decode()
    found = {}
    for queue, count, unread in BADGES.findall(page):
        if unread:
            found["inbox"] = int(unread)
        else:
            found[queue] = int(count)
    return found


def _header_queries(client) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        client.get("/quotes/")
    return [
        q["sql"]
        for q in captured
        if "quoting_notification" in q["sql"] or '"unanswered"' in q["sql"]
    ]


# --- kept --------------------------------------------------------------------------------------


def test_the_counts_are_counted_once_and_then_kept(world):
    _quote(world.sales, world.project, valid_days=3)
    sales = _signed_in(world.sales)
    assert _header(sales) == {"waiting": 1}
    assert len(_header_queries(sales)) == 0  # nothing happened: neither count is asked again
    assert _header(sales) == {"waiting": 1}


def test_another_day_counts_again(world, monkeypatch):
    _quote(world.sales, world.project, valid_days=0)  # valid until today
    sales = _signed_in(world.sales)
    assert _header(sales) == {"waiting": 1}
    tomorrow = timezone.localdate() + dt.timedelta(days=1)
    monkeypatch.setattr(timezone, "localdate", lambda *args, **kwargs: tomorrow)
    assert _header(sales) == {}


def test_a_count_kept_between_the_bump_and_the_commit_is_not_used_after_the_commit(
    world, django_capture_on_commit_callbacks
):
    """Another request may count from the data before the commit, after the first bump: the
    bump after the commit drops what it kept."""
    manager = _signed_in(world.manager)
    assert _header(manager) == {}
    with django_capture_on_commit_callbacks() as after_commit:
        _asking(world.sales, world.project)
    _header(manager)  # counted under the first bump, kept
    assert not _header_queries(manager)
    for callback in after_commit:
        callback()
    assert len(_header_queries(manager)) == 2  # the work counts, and the inbox: they were told


def test_a_cache_without_generations_still_counts_right(world):
    from django.core.cache import cache

    sales = _signed_in(world.sales)
    assert _header(sales) == {}
    cache.delete(WORK_GENERATION)  # evicted, or Redis was emptied
    _quote(world.sales, world.project, valid_days=3)
    assert _header(sales) == {"waiting": 1}
    cache.clear()
    _quote(world.sales, world.project, valid_days=3)
    assert _header(sales) == {"waiting": 2}


# --- each event --------------------------------------------------------------------------------


def test_an_approval_request_shows_to_the_manager_at_once(world):
    manager = _signed_in(world.manager)
    assert _header(manager) == {}
    _asking(world.sales, world.project)
    assert _header(manager) == {"approvals": 1, "inbox": 1}


def test_an_approval_decided_leaves_the_queue_and_tells_the_owner(world):
    approved, rejected = _asking(world.sales, world.project), _asking(world.sales, world.project)
    manager, sales = _signed_in(world.manager), _signed_in(world.sales)
    assert _header(manager) == {"approvals": 2, "inbox": 2}
    assert _header(sales) == {}
    quote_approve(quote=approved, user=world.manager, expected_version=approved.version)
    assert _header(manager) == {"approvals": 1, "inbox": 2}
    assert _header(sales) == {"inbox": 1}
    quote_reject(
        quote=rejected, user=world.manager, reason="Too deep", expected_version=rejected.version
    )
    assert _header(manager) == {"inbox": 2}
    assert _header(sales) == {"inbox": 2}


def test_a_new_quote_valid_for_days_only_waits_at_once(world):
    sales = _signed_in(world.sales)
    assert _header(sales) == {}
    quote_create(project=world.project, user=world.sales, valid_until=days_from_today(2))
    assert _header(sales) == {"waiting": 1}


def test_a_validity_moved_into_the_week_waits_at_once(world):
    quote = _quote(world.sales, world.project, valid_days=30)
    sales = _signed_in(world.sales)
    assert _header(sales) == {}
    quote_update_terms(
        quote=quote,
        user=world.sales,
        expected_version=quote.version,
        valid_until=days_from_today(5),
    )
    assert _header(sales) == {"waiting": 1}


def test_the_first_open_of_a_sent_quote_waits_and_tells_the_owner_at_once(world):
    quote = _sent(world.sales, world.project)
    link, token = share_link_create(quote=quote, user=world.sales, recipient_name="Dr Li")
    sales = _signed_in(world.sales)
    assert _header(sales) == {}
    Client().get(f"/p/{token}")  # a page view alone (a scanner's, say) is not a reader's open
    assert _header(sales) == {}
    open_and_read(token)  # the customer opens and reads it
    assert _header(sales) == {"waiting": 1, "inbox": 1}
    Client().get(f"/p/{token}")  # again: nothing changes, nothing is counted again
    assert not _header_queries(sales)


def test_sending_again_asks_for_a_new_open_and_the_next_open_waits_again(world):
    quote = _sent(world.sales, world.project)
    link, token = share_link_create(quote=quote, user=world.sales, recipient_name="Dr Li")
    open_and_read(token)
    sales = _signed_in(world.sales)
    assert _header(sales) == {"waiting": 1, "inbox": 1}
    quote_revise(quote=quote, user=world.sales, expected_version=quote_reload(quote).version)
    assert _header(sales) == {"inbox": 1}  # a draft again: nothing to answer
    quote_send(quote=quote, user=world.sales, expected_version=quote_reload(quote).version)
    assert _header(sales) == {"inbox": 1}  # R2 not opened yet
    open_and_read(token)  # read since R2 was sent (not the link's first open)
    assert _header(sales) == {"waiting": 1, "inbox": 1}


def test_an_answer_leaves_the_queue_at_once(world):
    accepted, declined = _sent(world.sales, world.project), _sent(world.sales, world.project)
    for quote in (accepted, declined):
        link, _token = share_link_create(quote=quote, user=world.sales)
        link_read(link, quote.current_revision)
    sales = _signed_in(world.sales)
    assert _header(sales)["waiting"] == 2
    quote_mark_accepted(quote=accepted, expected_version=quote_reload(accepted).version)
    assert _header(sales)["waiting"] == 1
    quote_mark_declined(quote=declined, expected_version=quote_reload(declined).version)
    assert "waiting" not in _header(sales)


def test_the_customers_answer_on_the_link_leaves_the_queue_at_once(world):
    quote = _sent(world.sales, world.project)
    _link, token = share_link_create(quote=quote, user=world.sales, recipient_name="Dr Li")
    customer = Client()
    open_and_read(token, client=customer)
    sales = _signed_in(world.sales)
    assert _header(sales) == {"waiting": 1, "inbox": 1}
    answer = customer.post(
        f"/p/{token}/accept",
        {
            "revision": quote_reload(quote).current_revision.number,
            "name": "Li Wei",
            "title": "",
            "agreed": "on",
        },
    )
    assert answer.status_code in (200, 302, 303)
    assert _header(sales) == {"inbox": 2}


def test_reading_notifications_lowers_the_badge_at_once(world):
    for _ in range(3):
        _asking(world.sales, world.project)
    manager = _signed_in(world.manager)
    assert _header(manager)["inbox"] == 3
    first = Notification.objects.filter(recipient=world.manager).first()
    notification_mark_read(user=world.manager, notification=first)
    assert _header(manager)["inbox"] == 2
    assert manager.post("/inbox/read-all/").status_code == 302
    assert "inbox" not in _header(manager)


def test_a_customer_moved_to_another_team_leaves_its_managers_queue_at_once(world):
    world.team.members.add(world.manager)  # zhao manages the Shenzhen team
    _quote(world.sales, world.project, valid_days=3)
    manager = _signed_in(world.manager)
    assert _header(manager) == {"waiting": 1}
    world.other_team.members.add(world.sales)  # wang may file under Beijing too
    customer_update(customer=world.customer, user=world.sales, team=world.other_team)
    assert _header(manager) == {}


def test_another_teams_event_is_counted_right_too(world):
    sales = _signed_in(world.sales)
    assert _header(sales) == {}
    _quote(world.other_sales, _beijing(world), valid_days=3)
    assert _header(sales) == {}  # counted again (one generation for all), still none of theirs

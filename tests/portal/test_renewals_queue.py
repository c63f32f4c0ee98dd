"""The home page's "Renewals due" queue: support and licences ending within 90 days, one entry per
quote with what ends, when, how many days are left and the reminder reached (90, 60, 30), a
button that makes the renewal quote; scoped like the other follow-ups, and as cheap with many
rows as with one."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from portal.work import work_queues
from quoting.quotes.models import Quote
from quoting.quotes.services.renewals import quote_renewal_create
from tests.portal.test_chinese_complete import english_words, visible_text
from tests.quoting.factories import CustomerFactory, ProjectFactory
from tests.quoting.quotes.renewal_world import (
    SUPPORT_NAME,
    accepted,
    end_in,
    ending_on,
    support_priced,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(name="world")
def world_with_support(world):
    """The shared world with zhao managing the Shenzhen team, SW-1 sold once and SUP-1 sold by
    the year."""
    world.team.members.add(world.manager)
    support_priced()
    return world


def _card(client) -> str:
    page = client.get("/").content.decode()
    found = re.search(r'<article class="card" id="renewals">.*?</article>', page, re.S)
    assert found, "the home page has no renewals card"
    return found.group(0)


@pytest.mark.parametrize(
    ("days", "reminder", "warn"), [(75, 90, False), (45, 60, False), (10, 30, True)]
)
def test_a_contract_ending_within_90_days_is_listed_with_its_end_and_reminder(
    client, world, days, reminder, warn
):
    quote = accepted(world)
    end = end_in(days)
    ending_on(quote, end)
    client.force_login(world.sales)
    card = _card(client)
    assert quote.number in card and "Pengcheng University" in card and SUPPORT_NAME in card
    left = (end - timezone.localdate()).days
    assert f"ends {end.isoformat()}, in {left} days" in card
    badge = re.search(r'<span class="badge( warn)?" data-reminder="(\d+)">≤ (\d+) days', card)
    assert badge.group(2) == badge.group(3) == str(reminder)
    assert bool(badge.group(1)) is warn
    assert f'action="/quotes/{quote.pk}/renewal/"' in card


def test_a_contract_ending_later_or_being_renewed_is_not_listed(client, world):
    far = accepted(world)
    ending_on(far, end_in(120))
    renewed = accepted(world)
    ending_on(renewed, end_in(20))
    quote_renewal_create(quote=renewed, user=world.sales)
    client.force_login(world.sales)
    card = _card(client)
    assert far.number not in card and renewed.number not in card
    assert "No support or licence ends within 90 days." in card


def test_the_button_makes_the_renewal_quote_and_opens_it(client, world):
    quote = accepted(world)
    ending_on(quote, end_in(20))
    client.force_login(world.sales)
    response = client.post(f"/quotes/{quote.pk}/renewal/")
    renewal = Quote.objects.get(renewal_of=quote)
    assert response.status_code == 302 and response["Location"] == f"/quotes/{renewal.pk}/"
    assert quote.number not in _card(client)


def test_a_manager_follows_their_teams_renewals_and_another_team_sees_none(client, world):
    quote = accepted(world)
    ending_on(quote, end_in(20))
    client.force_login(world.manager)
    assert quote.number in _card(client)
    assert f"· {world.sales.username}" in _card(client)  # whose quote it is
    client.force_login(world.other_sales)
    assert quote.number not in _card(client)


def test_the_queue_reads_in_chinese(client, world):
    quote = accepted(world)
    ending_on(quote, end_in(20))
    world.sales.language = "zh-hans"
    world.sales.save(update_fields=["language"])
    client.force_login(world.sales)
    card = _card(client)
    assert "天内到期的续约" in card and "创建续约报价" in card
    panel = client.get(f"/quotes/{quote.pk}/renewals/").content.decode()
    assert "支持与许可" in panel
    shown = (quote.number, world.sales.username, SUPPORT_NAME, "Pengcheng University")
    for text in (card, panel):
        assert not english_words(visible_text(text), user_data=shown), visible_text(text)


def test_the_queue_costs_as_many_queries_however_many_contracts_are_due(world):
    def cost() -> int:
        with CaptureQueriesContext(connection) as captured:
            queues = work_queues(user=world.sales)
        return len(captured), queues.renewals.count

    ending_on(accepted(world), end_in(20))
    few, count = cost()
    assert count == 1
    for n in range(4):
        customer = CustomerFactory(team=world.team, owner=world.sales, company=f"Lab {n}")
        project = ProjectFactory(customer=customer)
        ending_on(accepted(world, project=project), end_in(30 + n))
    many, count = cost()
    assert count == 5
    assert many == few


def test_the_queue_lists_the_soonest_end_first(world):
    later, sooner = accepted(world), accepted(world)
    ending_on(later, end_in(60))
    ending_on(sooner, end_in(5))
    due = work_queues(user=world.sales).renewals.due
    assert [d.quote.pk for d in due] == [sooner.pk, later.pk]
    assert (
        due[0].ends_on == end_in(5) and due[0].days_left == (end_in(5) - timezone.localdate()).days
    )
    assert isinstance(due[0].ends_on, dt.date)

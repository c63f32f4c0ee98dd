"""What waits for whom: the home page's queues (approvals to decide, quotes running out, offers
opened but not answered) and the header's counts, each scoped to what the user may see."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from portal.models import User
from portal.work import NO_WORK, work_counts, work_queues
from proposals.share.services import share_link_create
from quoting.quotes.services.quotes import (
    quote_add_product,
    quote_create,
    quote_mark_accepted,
    quote_request_approval,
    quote_send,
    quote_set_discount,
    quote_update_terms,
)
from tests.proposals.reading import link_read
from tests.quoting.factories import (
    CustomerFactory,
    ProductFactory,
    ProjectFactory,
    days_from_today,
    price_set,
    quote_reload,
)


@pytest.fixture(name="world")
def world_with_a_team_manager(world):
    """The shared world with zhao in the Shenzhen team (managing it), and SW-1 priced 10,000.00
    CNY."""
    world.team.members.add(world.manager)
    price_set(ProductFactory(part_number="SW-1"), "CNY", "10000.00")
    return world


def _quote(user, project, *, valid_days: int = 30, discount: int = 0):
    quote = quote_create(project=project, user=user, valid_until=days_from_today(valid_days))
    quote_add_product(
        quote=quote, sku="SW-1", quantity=1, user=user, expected_version=quote.version
    )
    if discount:
        quote_set_discount(
            quote=quote,
            discount_percent=discount,
            user=user,
            expected_version=quote_reload(quote).version,
        )
    return quote_reload(quote)


def _sent(user, project, *, valid_days: int = 30):
    quote = _quote(user, project, valid_days=valid_days)
    quote_send(quote=quote, user=user, expected_version=quote.version)
    return quote_reload(quote)


def _opened(quote, user):
    link, _token = share_link_create(quote=quote, user=user, recipient_name="Mr Chen")
    link_read(link, quote.current_revision)  # opened and read: not a scanner (issue 15)
    return link


def _asking(user, project, discount: int = 15):
    quote = _quote(user, project, discount=discount)
    quote_request_approval(quote=quote, user=user, expected_version=quote.version)
    return quote_reload(quote)


def _beijing(world):
    """A project of the other team (Beijing), which the Shenzhen sales engineer may not see."""
    customer = CustomerFactory(
        team=world.other_team, owner=world.other_sales, company="Tsinghua Lab"
    )
    return ProjectFactory(customer=customer, name="Beijing cluster")


def _fresh(user) -> User:
    return User.objects.get(pk=user.pk)  # no roles loaded yet: as on a new request


def _home(client, user) -> str:
    client.force_login(user)
    response = client.get("/")
    assert response.status_code == 200
    return response.content.decode()


def _section(page: str, section_id: str) -> str:
    start = page.index(f'id="{section_id}"')
    return page[start : page.index("</article>", start)]


# --- approvals -----------------------------------------------------------------------------------


def test_a_manager_sees_each_approval_waiting_for_them_linked_to_its_quote(client, world):
    asking = _asking(world.sales, world.project)
    page = _home(client, world.manager)
    approvals = _section(page, "approvals")
    assert f'href="/quotes/{asking.pk}/"' in approvals and asking.number in approvals
    assert "15 % asked by wang" in approvals and "above your limit" not in approvals
    assert 'href="/#approvals">Approvals <span class="badge warn">1</span>' in page


def test_a_manager_may_not_decide_their_own_request_so_it_is_not_in_their_queue(
    client, world, make_user
):
    other_manager = make_user("qian", role="sales-manager")
    asking = _asking(world.manager, world.project, discount=30)  # above the manager's 25 %
    assert work_counts(user=_fresh(world.manager)).approvals == 0
    assert asking.number not in _section(_home(client, world.manager), "approvals")
    queues = work_queues(user=_fresh(other_manager))
    assert queues.counts.approvals == 1 and queues.approvals[0].number == asking.number
    assert queues.approvals[0].beyond_my_limit  # 30 % > 25 %: they may only reject it


def test_sales_engineers_decide_no_approvals_and_see_no_approval_queue(client, world):
    _asking(world.sales, world.project)
    assert work_counts(user=_fresh(world.sales)).approvals is None
    page = _home(client, world.sales)
    assert 'id="approvals"' not in page and "#approvals" not in page


def test_a_decided_or_edited_request_leaves_the_queue(world):
    asking = _asking(world.sales, world.project)
    assert work_counts(user=_fresh(world.manager)).approvals == 1
    quote_set_discount(
        quote=asking, discount_percent=12, user=world.sales, expected_version=asking.version
    )  # the request is withdrawn
    assert work_counts(user=_fresh(world.manager)).approvals == 0


# --- expiring ------------------------------------------------------------------------------------


def test_open_quotes_expiring_within_seven_days_are_listed_soonest_first(client, world):
    in_three = _quote(world.sales, world.project, valid_days=3)
    today = _sent(world.sales, world.project, valid_days=0)
    in_seven = _quote(world.sales, world.project, valid_days=7)
    in_eight = _quote(world.sales, world.project, valid_days=8)
    accepted = _sent(world.sales, world.project, valid_days=2)
    quote_mark_accepted(quote=accepted, expected_version=accepted.version)

    queues = work_queues(user=_fresh(world.sales))
    assert [quote.number for quote in queues.expiring] == [
        today.number,
        in_three.number,
        in_seven.number,
    ]
    assert queues.counts.expiring == 3
    page = _home(client, world.sales)
    waiting = _section(page, "waiting")
    assert f'href="/quotes/{in_three.pk}/"' in waiting
    assert in_eight.number not in waiting and accepted.number not in waiting


def test_a_quote_past_its_date_is_no_longer_expiring_soon(world):
    quote = _quote(world.sales, world.project, valid_days=2)
    later = timezone.localdate() + dt.timedelta(days=3)
    assert work_counts(user=_fresh(world.sales), today=later).expiring == 0
    assert work_counts(user=_fresh(world.sales)).expiring == 1
    quote_update_terms(
        quote=quote,
        user=world.sales,
        expected_version=quote.version,
        valid_until=days_from_today(20),
    )
    assert work_counts(user=_fresh(world.sales)).expiring == 0


# --- opened, not answered ------------------------------------------------------------------------


def test_a_sent_quote_whose_link_was_opened_waits_for_an_answer(client, world):
    opened = _sent(world.sales, world.project)
    _opened(opened, world.sales)
    unopened = _sent(world.sales, world.project)
    share_link_create(quote=unopened, user=world.sales)
    answered = _sent(world.sales, world.project)
    _opened(answered, world.sales)
    quote_mark_accepted(quote=answered, expected_version=quote_reload(answered).version)

    queues = work_queues(user=_fresh(world.sales))
    assert [quote.number for quote in queues.unanswered] == [opened.number]
    assert queues.unanswered[0].last_opened is not None
    waiting = _section(_home(client, world.sales), "waiting")
    assert f'href="/quotes/{opened.pk}/"' in waiting and "last opened" in waiting
    assert unopened.number not in waiting and answered.number not in waiting


def test_the_queue_of_opened_quotes_says_a_link_holder_can_forge_opens(client, world):
    """Issue 23, item 5: an open is a beacon from the customer's browser, which anyone holding
    the link can send."""
    _opened(_sent(world.sales, world.project), world.sales)
    waiting = _section(_home(client, world.sales), "waiting")
    assert "anyone holding the link can inflate them" in waiting
    world.sales.language = "zh-hans"
    world.sales.save()
    assert "持有链接的任何人都能" in _section(_home(client, world.sales), "waiting")


def test_the_header_counts_the_sales_engineers_follow_ups(client, world):
    _quote(world.sales, world.project, valid_days=3)
    _opened(_sent(world.sales, world.project), world.sales)
    client.force_login(world.sales)
    page = client.get("/quotes/").content.decode()
    assert 'href="/#waiting">Waiting <span class="badge">2</span>' in page


# --- scoping -------------------------------------------------------------------------------------


def test_another_teams_quotes_do_not_appear_in_a_sales_engineers_queues(client, world):
    beijing = _beijing(world)
    theirs = _opened(_sent(world.other_sales, beijing, valid_days=2), world.other_sales).quote
    counts = work_counts(user=_fresh(world.sales))
    assert (counts.expiring, counts.unanswered) == (0, 0)
    assert theirs.number not in _home(client, world.sales)
    assert work_counts(user=_fresh(world.other_sales)).waiting == 2


def test_a_manager_follows_up_their_teams_quotes_but_not_another_teams(client, world):
    ours = _sent(world.sales, world.project, valid_days=2)
    _opened(ours, world.sales)
    theirs = _sent(world.other_sales, _beijing(world), valid_days=2)
    _opened(theirs, world.other_sales)
    queues = work_queues(user=_fresh(world.manager))
    assert [quote.number for quote in queues.expiring] == [ours.number]
    assert [quote.number for quote in queues.unanswered] == [ours.number]
    waiting = _section(_home(client, world.manager), "waiting")
    assert ours.number in waiting and "wang" in waiting  # whose quote it is
    assert theirs.number not in waiting


def test_a_sales_engineer_sees_only_their_own_quotes_not_a_teammates(world, make_user):
    teammate = make_user("sun", role="sales")
    world.team.members.add(teammate)
    _sent(teammate, world.project, valid_days=2)
    assert work_counts(user=_fresh(world.sales)).expiring == 0
    assert work_counts(user=_fresh(teammate)).expiring == 1


def test_a_catalog_manager_has_no_queues_and_pays_one_query_at_most(
    client, world, make_user, django_assert_max_num_queries
):
    catalog_manager = _fresh(make_user("zhou", role="catalog-manager"))
    with django_assert_max_num_queries(1):
        assert work_counts(user=catalog_manager) is NO_WORK
    page = _home(client, catalog_manager)
    assert 'id="waiting"' not in page and "#waiting" not in page


# --- cost ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["sales", "sales-manager"])
def test_the_header_counts_cost_two_queries_however_many_quotes(
    world, role, django_assert_max_num_queries
):
    user = world.sales if role == "sales" else world.manager
    for days in range(12):
        quote = _sent(world.sales, world.project, valid_days=days)
        _opened(quote, world.sales)
    for _ in range(3):
        _asking(world.sales, world.project)
    user = _fresh(user)
    with django_assert_max_num_queries(2):  # the user's roles, then one aggregate
        counts = work_counts(user=user)
    assert (counts.expiring, counts.unanswered) == (8, 12)  # valid for 0 to 7 more days
    assert counts.approvals == (3 if role == "sales-manager" else None)


def test_the_header_adds_no_query_when_the_page_already_has_the_counts(client, world):
    client.force_login(world.sales)
    client.get("/")
    with CaptureQueriesContext(connection) as captured:
        client.get("/")
    aggregates = [q for q in captured if "COUNT(" in q["sql"] and "quoting_quote" in q["sql"]]
    assert len(aggregates) == 1  # the home page's counts serve its header too


# --- language ------------------------------------------------------------------------------------


def test_the_queues_read_in_chinese(client, world):
    _asking(world.sales, world.project)
    world.manager.language = "zh-hans"
    world.manager.save()
    page = _home(client, world.manager)
    for chinese in ("待审批", "7 天内到期", "已打开未答复"):
        assert chinese in page
    for english in ("Approvals waiting", "Expiring within", "Opened, not answered", "asked by"):
        assert english not in page

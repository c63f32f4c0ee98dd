"""The quote list, in the browser and the API, runs as many queries for 30 quotes as for 3, with
every filter; its date filters take whole days in the portal's time zone."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from integrations.models import ApiToken
from quoting.quotes.models import Quote
from quoting.quotes.selectors import quotes_visible_to
from quoting.quotes.services.quotes import quote_add_product, quote_create, quote_send
from tests.quoting.api_world import token_client
from tests.quoting.factories import ProductFactory, price_set, quote_reload


@pytest.fixture(name="world")
def world_with_a_leaf_switch(world):
    """The shared world, and SW-1 "Leaf switch" priced 10,000.00 CNY."""
    price_set(ProductFactory(part_number="SW-1", name="Leaf switch"), "CNY", "10000.00")
    return world


def _quotes_make(world, count: int) -> list[Quote]:
    made = []
    for _ in range(count):
        quote = quote_create(project=world.project, user=world.sales)
        quote_add_product(
            quote=quote, sku="SW-1", quantity=1, user=world.sales, expected_version=quote.version
        )
        made.append(quote_reload(quote))
    return made


def _queries(client, url: str) -> int:
    client.get(url)  # warm: the header's counts are counted once and kept
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200, url
    return len(captured)


def _urls(world) -> list[str]:
    today = timezone.localdate().isoformat()
    filters = ["", "?status=draft", f"?owner={world.sales.pk}", f"?customer={world.customer.pk}",
               f"?created_from={today}&created_to={today}", "?q=Pengcheng"]  # fmt: skip
    return [
        *(f"/quotes/{query}" for query in filters),
        *(f"/api/v1/quotes/{query}" for query in filters),
        "/api/v1/quotes/?ordering=-updated_at",
        "/api/v1/quotes/?ordering=-created_at",
    ]


@pytest.mark.parametrize("who", ["sales", "manager"])
def test_the_quote_list_and_the_api_list_run_as_many_queries_for_30_quotes_as_for_3(
    client, world, who
):
    user = getattr(world, who)
    client.force_login(user)
    api = token_client(user, scope="read")
    quotes = _quotes_make(world, 3)

    def counts():
        # A token records its use at most once a minute: the first call writes, the rest read.
        ApiToken.objects.filter(user=user).update(last_used_at=timezone.now())
        return {url: _queries(api if "/api/" in url else client, url) for url in _urls(world)}

    few = counts()
    quotes += _quotes_make(world, 27)
    quote_send(quote=quotes[0], user=world.sales, expected_version=quotes[0].version)
    assert counts() == few
    listed = api.get("/api/v1/quotes/").json()
    assert listed["count"] == 30 and len(listed["results"]) == 30


def test_the_created_filters_take_whole_days_in_the_portals_time_zone(client, world):
    client.force_login(world.sales)
    late, early = _quotes_make(world, 2)
    day = dt.date(2026, 3, 1)
    local = timezone.get_current_timezone()
    Quote.objects.filter(pk=late.pk).update(
        created_at=dt.datetime.combine(day, dt.time(23, 59), tzinfo=local)
    )
    Quote.objects.filter(pk=early.pk).update(
        created_at=dt.datetime.combine(day + dt.timedelta(days=1), dt.time(0, 0), tzinfo=local)
    )

    def listed(query):
        return {row["number"] for row in token_client(world.sales).get(
            f"/api/v1/quotes/?{query}").json()["results"]}  # fmt: skip

    assert listed("created_from=2026-03-01&created_to=2026-03-01") == {late.number}
    assert listed("created_from=2026-03-02") == {early.number}
    assert listed("created_to=2026-03-01") == {late.number}
    assert listed("created_from=2026-03-03") == set()


def test_a_manager_sees_every_quote_and_an_inactive_one_none(world):
    quotes = _quotes_make(world, 2)
    assert set(quotes_visible_to(user=world.manager)) == set(quotes)
    assert set(quotes_visible_to(user=world.other_sales)) == set()
    world.manager.is_active = False
    assert set(quotes_visible_to(user=world.manager)) == set()


def test_the_lists_total_is_counted_once_and_kept_until_a_quote_changes(client, world):
    """No COUNT of every matching quote on every view (issue 12: 100,000 quotes): the total is
    kept until a quote is created or written, and each user's scope and filter is its own."""
    _quotes_make(world, 5)
    api = token_client(world.sales, scope="read")
    api.get("/api/v1/quotes/")  # the token's use is recorded once a minute
    with CaptureQueriesContext(connection) as captured:
        first = api.get("/api/v1/quotes/?page_size=2").json()
    assert len(captured) == 2  # the token with its user, then the page; the total was kept
    assert not any("COUNT(" in query["sql"].upper() for query in captured)
    assert first["count"] == 5 and len(first["results"]) == 2 and first["next"]

    _quotes_make(world, 1)  # a new quote: counted again, at once
    assert api.get("/api/v1/quotes/?page_size=2").json()["count"] == 6
    quote = Quote.objects.filter(status="draft").first()
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    assert api.get("/api/v1/quotes/?status=draft").json()["count"] == 5
    assert api.get("/api/v1/quotes/?status=sent").json()["count"] == 1
    assert (
        token_client(world.other_sales, scope="read").get("/api/v1/quotes/").json()["count"] == 0
    )  # another scope, another entry
    client.force_login(world.sales)
    assert "6 quotes" in client.get("/quotes/").content.decode()
    _quotes_make(world, 1)
    assert "7 quotes" in client.get("/quotes/").content.decode()


def test_every_page_of_the_api_list_is_whole_and_counted(world):
    made = _quotes_make(world, 5)
    api = token_client(world.sales, scope="read")

    def numbers(query):
        answer = api.get(f"/api/v1/quotes/?page_size=2&{query}")
        assert answer.status_code == 200, (query, answer.content)
        body = answer.json()
        assert body["count"] == 5
        return [row["number"] for row in body["results"]]

    newest_first = [quote.number for quote in reversed(made)]
    assert numbers("page=1") == newest_first[:2]
    assert numbers("page=2") == newest_first[2:4]
    assert numbers("page=3") == newest_first[4:]  # the last page, shorter
    assert numbers("page=last") == newest_first[4:]
    assert numbers("page=2&status=draft&ordering=number") == sorted(newest_first)[2:4]
    assert api.get("/api/v1/quotes/?page_size=2&page=4").status_code == 404
    assert api.get("/api/v1/quotes/?page=0").status_code == 404


def test_an_empty_api_list_counts_nothing(world):
    body = token_client(world.other_sales, scope="read").get("/api/v1/quotes/").json()
    assert (body["count"], body["results"]) == (0, [])


def test_a_quotes_status_reads_in_the_pages_language():
    from django.utils import translation

    from quoting.quotes.models import Quote, QuoteStatus

    for status in QuoteStatus:
        quote = Quote(status=status)
        for language in ("en", "zh-hans"):
            with translation.override(language):
                assert str(quote.get_status_display()) == str(status.label)
    assert Quote(status="unknown").get_status_display() == "unknown"

"""Renewals: support and licences sold by the year run from the acceptance for their term; 90, 60
and 30 days before the end they are due, listed for their sellers, announced once per reminder
(renewal.due), and renewed by a draft quote priced at today's prices that starts where the old
term ends."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from unittest import mock

import pytest
from django.utils import timezone

from catalog.models import Category, PricingBasis, Unit
from integrations.models import WebhookDelivery, WebhookEndpoint, WebhookEvent
from integrations.webhooks import webhook_secret_new
from quoting.errors import IllegalTransition, MissingPrices
from quoting.quotes.models import (
    LineKind,
    Notification,
    NotificationKind,
    Quote,
    QuoteEvent,
    QuoteEventVerb,
    QuoteLine,
    QuoteStatus,
    Section,
)
from quoting.quotes.renewals import (
    months_added,
    quote_term_lines,
    renewals_due,
    term_lines_ending,
)
from quoting.quotes.services.quotes import (
    quote_add_product,
    quote_create,
    quote_mark_accepted,
    quote_mark_declined,
    quote_send,
)
from quoting.quotes.services.renewals import quote_renewal_create, renewals_remind
from tests.api_errors import field_errors
from tests.quoting.api_world import token_client
from tests.quoting.factories import ProductFactory, price_set, quote_reload
from tests.quoting.quotes.renewal_world import (
    accepted,
    end_in,
    ending_on,
    support_line,
    support_priced,
)

pytestmark = pytest.mark.django_db

END = dt.date(2027, 3, 15)  # when the support line of the reminder tests ends


@pytest.fixture(name="world")
def world_with_support(world):
    """The shared world with SW-1 sold once and SUP-1, support sold by the year."""
    support_priced()
    return world


# --- terms ---------------------------------------------------------------------------------------


def test_a_support_line_sold_by_the_year_runs_a_year_from_the_acceptance(world):
    quote = accepted(world)
    today = timezone.localdate()
    terms = quote_term_lines(quote=quote)
    assert [term.line.sku for term in terms] == ["SUP-1"]  # the switch is bought once
    assert terms[0].line.term_months == 12 and terms[0].line.starts_on == today
    assert terms[0].ends_on == months_added(today, 12)


@pytest.mark.parametrize(
    ("day", "months", "expected"),
    [
        (dt.date(2026, 5, 15), 12, dt.date(2027, 5, 15)),
        (dt.date(2026, 1, 31), 1, dt.date(2026, 2, 28)),
        (dt.date(2027, 12, 31), 2, dt.date(2028, 2, 29)),
        (dt.date(2028, 2, 29), 12, dt.date(2029, 2, 28)),
        (dt.date(2026, 3, 31), -1, dt.date(2026, 2, 28)),
        (dt.date(2026, 11, 30), 3, dt.date(2027, 2, 28)),
    ],
)
def test_months_are_added_on_the_same_day_or_on_the_months_last_day(day, months, expected):
    assert months_added(day, months) == expected


@pytest.mark.parametrize(
    ("days_left", "reminder"),
    [(91, None), (90, 90), (61, 90), (60, 60), (31, 60), (30, 30), (1, 30), (0, 30), (-1, None)],
)
def test_a_term_is_due_from_90_days_before_its_end_until_it_ends(world, days_left, reminder):
    quote = accepted(world)
    ending_on(quote, END)
    due = renewals_due(user=world.sales, today=END - dt.timedelta(days=days_left))
    if reminder is None:
        assert due == []
    else:
        assert [(t.line.sku, t.ends_on, t.days_left, t.reminder) for t in due] == [
            ("SUP-1", END, days_left, reminder)
        ]


def test_lines_not_booked_are_never_due(world):
    """An optional support line the customer did not take has a term but no start."""
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=quote,
        sku="SUP-1",
        quantity=1,
        user=world.sales,
        expected_version=quote.version,
        section=Section.OPTIONAL,
    )
    quote_add_product(
        quote=quote, sku="SW-1", quantity=1, user=world.sales, expected_version=quote.version
    )
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    quote_mark_accepted(quote=quote, actor=world.sales, expected_version=quote.version)
    assert quote_term_lines(quote=quote_reload(quote)) == []
    assert term_lines_ending(quotes=Quote.objects.all(), within=400) == []


def test_a_quote_being_renewed_is_not_due_until_its_renewal_is_declined(world):
    quote = accepted(world)
    ending_on(quote, END)
    today = END - dt.timedelta(days=40)
    renewal = quote_renewal_create(quote=quote, user=world.sales)
    assert renewals_due(user=world.sales, today=today) == []
    quote_send(quote=renewal, user=world.sales, expected_version=renewal.version)
    quote_mark_declined(quote=renewal, actor=world.sales, expected_version=renewal.version)
    assert [t.line.sku for t in renewals_due(user=world.sales, today=today)] == ["SUP-1"]


def test_another_teams_sales_engineer_never_sees_the_renewal(world):
    ending_on(accepted(world), END)
    today = END - dt.timedelta(days=10)
    assert len(renewals_due(user=world.sales, today=today)) == 1
    assert renewals_due(user=world.other_sales, today=today) == []


# --- the daily reminders -------------------------------------------------------------------------


@pytest.fixture
def endpoint(world):
    with mock.patch("integrations.webhooks.enqueue_or_leave_to_sweeper"):
        yield WebhookEndpoint.objects.create(
            url="https://crm.example/hook",
            secret=webhook_secret_new(),
            events=["renewal.due"],
            created_by=world.sales,
        )


def _announced() -> list[dict]:
    return [
        d.payload["data"]["renewal"]
        for d in WebhookDelivery.objects.filter(event_type="renewal.due").order_by("pk")
    ]


def test_renewal_due_is_an_event_an_endpoint_may_subscribe_to():
    assert "renewal.due" in WebhookEvent.values


def test_the_daily_job_announces_renewal_due_once_per_reminder(world, endpoint):
    quote = accepted(world)
    ending_on(quote, END)
    days = [100, 90, 90, 75, 60, 59, 30, 10, 0, -1]
    sent = [renewals_remind(today=END - dt.timedelta(days=d)) for d in days]
    assert sent == [0, 1, 0, 0, 1, 0, 1, 0, 0, 0]
    assert [data["days_before"] for data in _announced()] == [90, 60, 30]
    data = WebhookDelivery.objects.filter(event_type="renewal.due").earliest("pk").payload["data"]
    assert data["quote"]["id"] == quote.pk and data["quote"]["number"] == quote.number
    assert data["customer"]["id"] == world.customer.pk and data["quote"]["currency"] == "CNY"
    assert data["revision"]["id"] == quote.booked_revision_id
    # What renewing the ending terms costs at the booked prices: the support line's amount.
    assert data["totals"]["currency"] == "CNY"
    support = support_line(quote)
    amount = support.quantity * support.unit_price * (100 - support.discount_percent) / 100
    assert data["totals"]["subtotal"] == f"{amount:.2f}"
    first = data["renewal"]
    assert first["ends_on"] == END.isoformat()
    support = support_line(quote)
    assert first["lines"] == [
        {
            "key": str(support.key),
            "sku": "SUP-1",
            "description": "Enterprise support, 1 year",
            "quantity": 2,
            "term_months": 12,
            "starts_on": months_added(END, -12).isoformat(),
            "ends_on": END.isoformat(),
            "days_left": 90,
        }
    ]
    assert support_line(quote).renewal_notified == 30
    # The owner is told in the portal's inbox too, once per reminder.
    inbox = Notification.objects.filter(quote=quote, kind=NotificationKind.RENEWAL_DUE)
    assert [note.recipient for note in inbox] == [quote.owner] * 3
    assert f"end on {END.isoformat()}, in 30 days" in inbox.order_by("-pk")[0].message()


def test_a_term_first_seen_late_gets_only_the_latest_reminder_it_reached(world, endpoint):
    ending_on(accepted(world), END)
    assert renewals_remind(today=END - dt.timedelta(days=45)) == 1
    assert renewals_remind(today=END - dt.timedelta(days=20)) == 1
    assert [data["days_before"] for data in _announced()] == [60, 30]


def test_a_quote_being_renewed_gets_no_reminder(world, endpoint):
    quote = accepted(world)
    ending_on(quote, END)
    quote_renewal_create(quote=quote, user=world.sales)
    assert renewals_remind(today=END - dt.timedelta(days=90)) == 0
    assert _announced() == []


def test_the_daily_job_is_scheduled_and_registered_by_name(settings):
    from portal.celery import app

    scheduled = {job["task"] for job in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "quoting.renewals_remind" in scheduled
    assert "quoting.renewals_remind" in app.tasks


def _booked_with_an_alternative_and_optional_support(world) -> Quote:
    """The quote with a larger alternative (4 switches as quoted, 6 in "Larger"), support per
    switch at 1,000.00 a year and an optional year of on-site support at 2,000.00, accepted
    with "Larger" and the optional support."""
    from tests.quoting.servers_world import quote_with_a_larger_alternative

    per_switch = ProductFactory(
        part_number="SUP-DEV",
        category=Category.SUPPORT,
        unit=Unit.YEAR,
        pricing_basis=PricingBasis.PER_DEVICE,
    )
    on_site = ProductFactory(part_number="SUP-OPT", category=Category.SUPPORT, unit=Unit.YEAR)
    price_set(per_switch, "CNY", "1000.00")
    price_set(on_site, "CNY", "2000.00")
    quote = quote_with_a_larger_alternative(world)
    quote_add_product(
        quote=quote, sku="SUP-DEV", quantity=1, user=world.sales, expected_version=quote.version
    )
    quote.refresh_from_db()
    optional = quote_add_product(
        quote=quote,
        sku="SUP-OPT",
        quantity=1,
        section=Section.OPTIONAL,
        user=world.sales,
        expected_version=quote.version,
    )
    quote.refresh_from_db()
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    quote_mark_accepted(
        quote=quote,
        actor=world.sales,
        expected_version=quote.version,
        alternative="Larger",
        optional=[str(optional.key)],
    )
    return quote_reload(quote)


def test_the_reminder_names_and_prices_the_support_the_renewal_quote_renews(world, endpoint):
    """Booked with an alternative of 6 switches and an optional support line: the reminder, the
    list of renewals due and the renewal quote all read the booked choice, 6 years of support
    per switch (not the 4 the offer as quoted holds) and the optional support."""
    quote = _booked_with_an_alternative_and_optional_support(world)
    stored = QuoteLine.objects.get(revision=quote.booked_revision, sku="SUP-DEV")
    assert stored.quantity == 4  # the offer as quoted, as the database keeps it
    ending_on(quote, END)
    today = END - dt.timedelta(days=90)

    assert renewals_remind(today=today) == 1
    [delivery] = WebhookDelivery.objects.filter(event_type="renewal.due")
    data = delivery.payload["data"]
    reminded = {line["sku"]: line["quantity"] for line in data["renewal"]["lines"]}
    assert reminded["SUP-DEV"] == 6 and reminded["SUP-OPT"] == 1
    listed = {t.line.sku: t.line.quantity for t in renewals_due(user=world.sales, today=today)}
    # What the renewal quote is made from (quote_renewal_create reads these terms).
    booked = {t.line.sku: t.line for t in quote_term_lines(quote=quote)}
    assert listed == reminded == {sku: line.quantity for sku, line in booked.items()}
    # Its totals are the booked lines' amounts: 6 × 1,000.00 of support per switch among them.
    assert (booked["SUP-DEV"].quantity, booked["SUP-DEV"].unit_price) == (6, Decimal("1000.00"))
    subtotal = sum(
        line.quantity * line.unit_price * (100 - line.discount_percent) / 100
        for line in booked.values()
    )
    assert data["totals"]["subtotal"] == f"{subtotal:.2f}"

    renewal = quote_renewal_create(quote=quote, user=world.sales)
    renewed = {ln.sku: ln.quantity for ln in renewal.current_revision.lines.all()}
    # Support per switch included: the renewal quote prices it on the switches installed.
    assert renewed == reminded


# --- the API -------------------------------------------------------------------------------------


def test_the_api_lists_the_renewals_due_of_your_quotes_only(world):
    quote = accepted(world)
    end = end_in(20)
    ending_on(quote, end)
    support = support_line(quote)
    mine = token_client(world.sales, scope="read").get("/api/v1/renewals/")
    assert mine.status_code == 200
    assert mine.json()["count"] == 1
    assert mine.json()["results"] == [
        {
            "quote": quote.pk,
            "number": quote.number,
            "customer": world.customer.pk,
            "company": "Pengcheng University",
            "line_key": str(support.key),
            "sku": "SUP-1",
            "description": "Enterprise support, 1 year",
            "quantity": 2,
            "term_months": 12,
            "starts_on": months_added(end, -12).isoformat(),
            "ends_on": end.isoformat(),
            "days_left": (end - timezone.localdate()).days,
            "currency": "CNY",
            "reminded": None,
        }
    ]
    theirs = token_client(world.other_sales, scope="read").get("/api/v1/renewals/")
    assert theirs.status_code == 200 and theirs.json()["count"] == 0


def test_within_narrows_the_list_to_that_many_days(world):
    ending_on(accepted(world), end_in(45))
    client = token_client(world.sales, scope="read")
    assert client.get("/api/v1/renewals/", {"within": 30}).json()["count"] == 0
    assert client.get("/api/v1/renewals/", {"within": 60}).json()["count"] == 1
    assert client.get("/api/v1/renewals/").json()["count"] == 1  # 90 by default


@pytest.mark.parametrize("within", ["abc", "-1", "367", "1.5"])
def test_a_bad_within_is_a_400_naming_it(world, within):
    response = token_client(world.sales, scope="read").get("/api/v1/renewals/", {"within": within})
    assert response.status_code == 400
    assert list(field_errors(response)) == ["within"]


# --- the renewal quote ---------------------------------------------------------------------------


def test_a_renewal_quote_is_priced_at_todays_prices_and_starts_where_the_term_ends(world):
    quote = accepted(world)
    end = end_in(40)
    ending_on(quote, end)
    price_set(ProductFactory(part_number="SUP-1"), "CNY", "15000.00")  # the price list changed
    response = token_client(world.sales).post(f"/api/v1/quotes/{quote.pk}/renewal/")
    assert response.status_code == 201, response.content
    body = response.json()
    renewal = Quote.objects.get(pk=body["id"])
    assert body["status"] == "draft" and response["ETag"] == f'"{renewal.version}"'
    assert renewal.renewal_of_id == quote.pk
    assert (renewal.customer_id, renewal.project_id, renewal.currency) == (
        quote.customer_id,
        quote.project_id,
        "CNY",
    )
    lines = list(renewal.current_revision.lines.all())
    assert [(ln.sku, ln.quantity, ln.unit_price) for ln in lines] == [
        ("SUP-1", 2, Decimal("15000.00"))
    ]  # the switch, bought once, is not renewed
    assert (lines[0].section, lines[0].term_months, lines[0].starts_on) == (
        Section.SUPPORT,
        12,
        end,
    )
    created = QuoteEvent.objects.get(quote=renewal, verb=QuoteEventVerb.CREATED)
    assert created.details["renewal_of"] == quote.number


def test_accepting_the_renewal_keeps_its_start_at_the_old_end(world):
    quote = accepted(world)
    end = end_in(40)
    ending_on(quote, end)
    renewal = quote_renewal_create(quote=quote, user=world.sales)
    quote_send(quote=renewal, user=world.sales, expected_version=renewal.version)
    quote_mark_accepted(quote=renewal, actor=world.sales, expected_version=renewal.version)
    [term] = quote_term_lines(quote=quote_reload(renewal))
    assert (term.line.starts_on, term.ends_on) == (end, months_added(end, 12))
    assert renewals_due(user=world.sales) == []  # the old term is renewed, the new one far off


def test_a_free_text_line_with_a_term_keeps_its_price_and_discount(world):
    quote = accepted(world, free_text_term=True)
    renewal = quote_renewal_create(quote=quote, user=world.sales)
    free = renewal.current_revision.lines.get(kind=LineKind.FREE_TEXT)
    assert (free.description, free.unit_price, free.discount_percent, free.term_months) == (
        "On-site spares service, yearly",
        Decimal("3000.00"),
        Decimal("10.00"),
        12,
    )
    assert free.section == Section.SUPPORT


def test_a_second_renewal_is_refused_while_the_first_is_alive(world):
    quote = accepted(world)
    first = quote_renewal_create(quote=quote, user=world.sales)
    client = token_client(world.sales)
    response = client.post(f"/api/v1/quotes/{quote.pk}/renewal/")
    assert response.status_code == 409
    assert first.number in field_errors(response)["renewal"][0]
    quote_send(quote=first, user=world.sales, expected_version=first.version)
    quote_mark_declined(quote=first, actor=world.sales, expected_version=first.version)
    assert client.post(f"/api/v1/quotes/{quote.pk}/renewal/").status_code == 201


def test_only_an_accepted_quote_with_a_term_can_be_renewed(world):
    draft = quote_create(project=world.project, user=world.sales)
    response = token_client(world.sales).post(f"/api/v1/quotes/{draft.pk}/renewal/")
    assert response.status_code == 409 and "status" in response.json()
    no_term = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=no_term, sku="SW-1", quantity=1, user=world.sales, expected_version=no_term.version
    )
    quote_send(quote=no_term, user=world.sales, expected_version=no_term.version)
    quote_mark_accepted(quote=no_term, actor=world.sales, expected_version=no_term.version)
    with pytest.raises(IllegalTransition) as refused:
        quote_renewal_create(quote=no_term, user=world.sales)
    assert refused.value.field == "lines"


def test_a_product_without_a_price_today_refuses_the_renewal_and_makes_no_quote(world):
    quote = accepted(world)
    ProductFactory(part_number="SUP-1").prices.all().delete()
    before = Quote.objects.count()
    with pytest.raises(MissingPrices):
        quote_renewal_create(quote=quote, user=world.sales)
    assert Quote.objects.count() == before
    response = token_client(world.sales).post(f"/api/v1/quotes/{quote.pk}/renewal/")
    assert response.status_code == 400 and "SUP-1" in field_errors(response)["lines"][0]


def test_another_teams_quote_cannot_be_renewed_nor_its_start_moved(world):
    quote = accepted(world)
    outsider = token_client(world.other_sales)
    assert outsider.post(f"/api/v1/quotes/{quote.pk}/renewal/").status_code == 404
    key = support_line(quote).key
    moved = outsider.patch(
        f"/api/v1/quotes/{quote.pk}/terms/{key}/",
        {"starts_on": "2026-01-01"},
        format="json",
        HTTP_IF_MATCH=f'"{quote.version}"',
    )
    assert moved.status_code == 404


def test_a_read_token_cannot_create_a_renewal(world):
    quote = accepted(world)
    response = token_client(world.sales, scope="read").post(f"/api/v1/quotes/{quote.pk}/renewal/")
    assert response.status_code == 403
    assert not Quote.objects.filter(renewal_of=quote).exists()


# --- moving a term's start -----------------------------------------------------------------------


def _patch_start(client, quote, key, body, version=None):
    return client.patch(
        f"/api/v1/quotes/{quote.pk}/terms/{key}/",
        body,
        format="json",
        HTTP_IF_MATCH=f'"{version or quote.version}"',
    )


def test_staff_move_a_terms_start_and_its_end_and_reminders_follow(world, endpoint):
    quote = accepted(world)
    ending_on(quote, end_in(30))
    renewals_remind()
    assert support_line(quote).renewal_notified == 30
    start = timezone.localdate() + dt.timedelta(days=14)  # installed two weeks after
    key = support_line(quote).key
    response = _patch_start(token_client(world.sales), quote, key, {"starts_on": start.isoformat()})
    assert response.status_code == 200, response.content
    assert response.json()["starts_on"] == start.isoformat()
    assert response.json()["ends_on"] == months_added(start, 12).isoformat()
    assert response["ETag"] == f'"{quote_reload(quote).version}"'
    support = support_line(quote)
    assert (support.starts_on, support.renewal_notified) == (start, None)
    event = QuoteEvent.objects.filter(quote=quote, verb=QuoteEventVerb.LINE_CHANGED).last()
    assert event.details["after"] == {"starts_on": start.isoformat()}
    assert quote_reload(quote).status == QuoteStatus.ACCEPTED


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"starts_on": "not a date"}, "starts_on"),
        ({"starts_on": "2026-02-30"}, "starts_on"),
        ({}, "starts_on"),
        ({"starts_on": None}, "starts_on"),
        ({"starts_on": "1999-01-01"}, "starts_on"),  # more than a year before the acceptance
        ({"starts_on": "2099-01-01"}, "starts_on"),  # more than two years after it
    ],
)
def test_a_bad_start_is_a_400_naming_the_field(world, body, field):
    quote = accepted(world)
    response = _patch_start(token_client(world.sales), quote, support_line(quote).key, body)
    assert response.status_code == 400, response.content
    assert list(field_errors(response)) == [field]


def test_a_line_without_a_term_is_a_400_on_line_key(world):
    quote = accepted(world)
    switch = QuoteLine.objects.get(revision=quote.booked_revision, sku="SW-1")
    response = _patch_start(
        token_client(world.sales),
        quote,
        switch.key,
        {"starts_on": timezone.localdate().isoformat()},
    )
    assert response.status_code == 400 and list(field_errors(response)) == ["line_key"]


def test_moving_a_start_needs_the_quotes_version(world):
    quote = accepted(world)
    client, key = token_client(world.sales), support_line(quote).key
    today = timezone.localdate().isoformat()
    missing = client.patch(f"/api/v1/quotes/{quote.pk}/terms/{key}/", {"starts_on": today})
    assert missing.status_code == 428
    stale = _patch_start(client, quote, key, {"starts_on": today}, version=quote.version - 1)
    assert stale.status_code == 412


def test_a_draft_has_no_term_to_start(world):
    quote = quote_create(project=world.project, user=world.sales)
    line = quote_add_product(
        quote=quote, sku="SUP-1", quantity=1, user=world.sales, expected_version=quote.version
    )
    response = _patch_start(
        token_client(world.sales), quote, line.key, {"starts_on": timezone.localdate().isoformat()}
    )
    assert response.status_code == 409 and list(field_errors(response)) == ["status"]


# --- the quote page ------------------------------------------------------------------------------


def test_the_accepted_quotes_page_shows_its_terms_and_makes_the_renewal(client, world):
    quote = accepted(world)
    end = end_in(25)
    ending_on(quote, end)
    client.force_login(world.sales)
    page = client.get(f"/quotes/{quote.pk}/")
    assert f'hx-get="/quotes/{quote.pk}/renewals/"' in page.content.decode()
    panel = client.get(f"/quotes/{quote.pk}/renewals/").content.decode()
    assert "Enterprise support, 1 year" in panel and end.isoformat() in panel
    assert f'action="/quotes/{quote.pk}/renewal/"' in panel
    response = client.post(f"/quotes/{quote.pk}/renewal/")
    renewal = Quote.objects.get(renewal_of=quote)
    assert response.status_code == 302 and response["Location"] == f"/quotes/{renewal.pk}/"
    panel = client.get(f"/quotes/{quote.pk}/renewals/").content.decode()
    assert renewal.number in panel and f'action="/quotes/{quote.pk}/renewal/"' not in panel
    assert quote.number in client.get(f"/quotes/{renewal.pk}/renewals/").content.decode()


def test_the_page_moves_a_terms_start_and_refuses_a_bad_date_with_a_400(client, world):
    quote = accepted(world)
    key = support_line(quote).key
    client.force_login(world.sales)
    start = timezone.localdate() + dt.timedelta(days=7)
    moved = client.post(
        f"/quotes/{quote.pk}/terms/{key}/",
        {"starts_on": start.isoformat(), "expected_version": quote.version},
    )
    assert moved.status_code == 302 and support_line(quote).starts_on == start
    bad = client.post(
        f"/quotes/{quote.pk}/terms/{key}/",
        {"starts_on": "soon", "expected_version": quote_reload(quote).version},
    )
    assert bad.status_code == 400
    assert "Enter the date the term starts" in bad.content.decode()


def test_the_page_refuses_a_second_renewal_with_a_409(client, world):
    quote = accepted(world)
    quote_renewal_create(quote=quote, user=world.sales)
    client.force_login(world.sales)
    response = client.post(f"/quotes/{quote.pk}/renewal/")
    assert response.status_code == 409
    assert Quote.objects.filter(renewal_of=quote).count() == 1

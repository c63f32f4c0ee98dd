"""Quote numbers: `Q-<year>-<00042>`, unique and gapless per series and year, also when many
quotes are created at the same moment (a locked counter row plus a unique constraint)."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from django.db import IntegrityError, connection, transaction
from django.test import override_settings

from quoting.quotes.models import Quote, QuoteCounter
from quoting.quotes.services.quotes import quote_create
from tests.conftest import service_missing
from tests.quoting.factories import world_make


def _pretend_today_is(monkeypatch, day: dt.date):
    from django.utils import timezone

    monkeypatch.setattr(timezone, "localdate", lambda *args, **kwargs: day)


def test_numbers_follow_each_other_per_series_and_year(world, monkeypatch):
    _pretend_today_is(monkeypatch, dt.date(2026, 3, 1))
    numbers = [quote_create(project=world.project, user=world.sales).number for _ in range(3)]
    assert numbers == ["Q-2026-00001", "Q-2026-00002", "Q-2026-00003"]
    with override_settings(QUOTING_NUMBER_SERIES="QX"):
        assert quote_create(project=world.project, user=world.sales).number == "QX-2026-00001"
    _pretend_today_is(monkeypatch, dt.date(2027, 1, 1))
    assert quote_create(project=world.project, user=world.sales).number == "Q-2027-00001"


def test_a_creation_that_fails_does_not_use_up_a_number(world):
    first = quote_create(project=world.project, user=world.sales)
    with pytest.raises(RuntimeError), transaction.atomic():
        quote_create(project=world.project, user=world.sales)
        raise RuntimeError("something later in the same transaction failed")
    assert quote_create(project=world.project, user=world.sales).seq == first.seq + 1


def test_the_database_refuses_a_second_quote_with_the_same_sequence(world):
    quote = quote_create(project=world.project, user=world.sales)
    QuoteCounter.objects.update(last=0)  # a counter gone wrong must not give a duplicate
    with pytest.raises(IntegrityError), transaction.atomic():
        quote_create(project=world.project, user=world.sales)
    assert Quote.objects.get().number == quote.number


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_concurrent_creations_get_distinct_gapless_numbers_on_postgresql(make_user):
    if connection.vendor != "postgresql":
        service_missing(
            "concurrent numbering needs PostgreSQL row locks (set DATABASE_URL); "
            "SQLite serialises all writers, so it cannot show the race"
        )
    world = world_make(make_user)
    threads_count = 12
    barrier = threading.Barrier(threads_count)
    numbers, errors = [], []

    def create() -> None:
        try:
            barrier.wait(timeout=30)
            numbers.append(quote_create(project=world.project, user=world.sales).number)
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)
        finally:
            connection.close()  # each thread has its own connection

    threads = [threading.Thread(target=create) for _ in range(threads_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    year = Quote.objects.values_list("year", flat=True).first()
    assert sorted(numbers) == [f"Q-{year}-{n:05d}" for n in range(1, threads_count + 1)]
    assert QuoteCounter.objects.get(series="Q", year=year).last == threads_count

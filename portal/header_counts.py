"""The counts in every signed-in page's header (the work queues' "Approvals N" and "Waiting N",
the inbox's unread badge), kept per user in the shared cache until an event changes them.

Counting them on every page cost a query of three counted subqueries and a COUNT (issue 12).
Each kind of count has a generation in the cache; a user's entry remembers the generations its
counts were computed at and is used only while they still hold (and on the same day: "expiring
within 7 days" moves at midnight). The services of the events that change the counts bump the
generations:
- the work queues: any write to a quote (its version bump: approval requested or decided, sent,
  answered, edited, expired), a new quote, a share link opened for the first time since the
  revision was sent, a customer moved to another team. One generation for everyone: one event
  changes the queues of the quote's owner, its team's managers and every approver;
- the inbox: a notification created for a user, or read by them. One generation per user.

A bump happens at once and again after the commit: the first makes the counts right for the rest
of the transaction (and for tests, whose transaction never commits); the second drops whatever
another request counted from the data before the commit under the first. Changes that go around
the services (the admin, roles, team members, the discount limits) show within ENTRY_SECONDS.
Nothing here imports the apps: the services of quoting and proposals import it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

ENTRY_SECONDS = 60  # the most a change made around the services shows late
WORK_GENERATION = "header-counts:generation:work"


def _inbox_generation(user_id: int) -> str:
    return f"header-counts:generation:inbox:{user_id}"


def _entry(user_id: int) -> str:
    return f"header-counts:{user_id}"


def _bump(keys: list[str]) -> None:
    for key in keys:
        try:
            cache.incr(key)
        except ValueError:  # never set, or lost: start above any value an old entry can hold
            cache.add(key, time.time_ns(), timeout=None)


def _bump_now_and_after_commit(keys: list[str]) -> None:
    if not keys:
        return
    _bump(keys)
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(lambda: _bump(keys))


def work_counts_changed() -> None:
    """Someone's work queues may have changed: every user's header counts them again."""
    _bump_now_and_after_commit([WORK_GENERATION])


def inbox_changed(*, user_ids: Iterable[int]) -> None:
    """These users' unread notifications changed."""
    _bump_now_and_after_commit([_inbox_generation(pk) for pk in set(user_ids)])


@dataclass(frozen=True, slots=True)
class _Kept:
    generation: int
    day: dt.date
    value: Any


class HeaderCounts:
    """One signed-in user's header counts for one request: read from the cache (one round trip
    for both) the first time either is asked for; a count whose generation moved is counted
    again, only when it is asked for (the home page brings its own work counts)."""

    def __init__(self, *, user_id: int, work: Callable[[], Any], inbox: Callable[[], int]):
        self._user_id = user_id
        self._count = {"work": work, "inbox": inbox}
        self._generation_keys = {"work": WORK_GENERATION, "inbox": _inbox_generation(user_id)}
        self._found: dict[str, Any] | None = None
        self._values: dict[str, Any] = {}

    @property
    def work(self):
        return self._value("work")

    @property
    def inbox(self) -> int:
        return self._value("inbox")

    def _value(self, name: str):
        if name in self._values:
            return self._values[name]
        entry_key = _entry(self._user_id)
        if self._found is None:
            self._found = cache.get_many([*self._generation_keys.values(), entry_key])
        kept: dict[str, _Kept] = self._found.get(entry_key) or {}
        generation_key = self._generation_keys[name]
        generation, old = self._found.get(generation_key), kept.get(name)
        today = timezone.localdate()
        if (
            generation is not None
            and old is not None
            and (old.generation, old.day) == (generation, today)
        ):
            value = old.value
        else:
            value = self._count[name]()
            if generation is None:  # never bumped yet, or lost: start one above any old entry
                first = time.time_ns()
                generation = first if cache.add(generation_key, first, timeout=None) else None
            if generation is not None:
                kept = {**kept, name: _Kept(generation, today, value)}
                self._found[entry_key] = kept
                cache.set(entry_key, kept, ENTRY_SECONDS)
        self._values[name] = value
        return value


# --- the totals of the quote lists ----------------------------------------------------------------

LIST_COUNT_PREFIX = "list-count:"


def quotes_counted(quotes, *, key: str) -> int:
    """COUNT of a quote list's queryset (one user's visible quotes, filtered), kept in the shared
    cache until any quote changes (the work generation: every write to a quote and every new quote
    bumps it) or ENTRY_SECONDS pass (a quote deleted around the services).

    A list page shows its total without counting every matching quote on every view: with
    100,000 quotes that count was most of the page (issue 12). `key` names what decides the rows
    (portal.api.pagination.list_count_key: the user and the filters asked for), so each user's scope
    and each filter is its own entry, without compiling the count's SQL on every view."""
    key = LIST_COUNT_PREFIX + hashlib.sha256(key.encode()).hexdigest()[:32]
    found = cache.get_many([WORK_GENERATION, key])
    generation, kept = found.get(WORK_GENERATION), found.get(key)
    if generation is not None and kept is not None and kept[0] == generation:
        return kept[1]
    value = quotes.count()
    if generation is None:  # never bumped yet, or lost: start one above any old entry
        first = time.time_ns()
        generation = first if cache.add(WORK_GENERATION, first, timeout=None) else None
    if generation is not None:
        cache.set(key, (generation, value), ENTRY_SECONDS)
    return value

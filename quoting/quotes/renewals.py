"""Reads of renewals: the support and licences a customer bought for a term, when each ends, and
which are due for renewal.

A line runs for a term when it is one of the booked lines of an accepted quote (what
quoting.quotes.selectors.booked_choice books: the chosen alternative with the support that
follows it, the optional lines included, each at the quantity and price booked), of a quantity
above 0 (a line booked at 0 sold nothing: no reminder, no renewal), with a term
(`term_months`: 12 for a product sold by the year) and a start (`starts_on`: the acceptance
date, set when the quote is booked, or the date staff moved it to; a renewal quote's lines
start where the lines they renew end).

It ends on `starts_on` plus `term_months` months (months_added: the same day of the month, or
the month's last day when it has none): the first day it no longer covers, and the day its
renewal starts.

It is **due** when it ends within DUE_DAYS days (today included; a term that has ended is no
longer listed) and its quote is not being renewed: no quote renews it (`Quote.renewal_of`)
other than a declined or expired one. A renewal quote renews every term of the quote it
renews, so a quote being renewed leaves the queue whole.

The reminders, the queue, the API and the renewal quote read a quote's terms through one
function (booked_term_lines), so a reminder names and prices the support the renewal quote
renews: with an alternative booked, support per switch is as many as the alternative's switches,
not the offer's as quoted that the database holds.
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import ExpressionWrapper, F, IntegerField, QuerySet
from django.db.models.functions import ExtractMonth, ExtractYear
from django.utils import timezone

from portal.models import User
from quoting.quotes.models import Quote, QuoteLine, QuoteRevision, QuoteStatus
from quoting.quotes.selectors import (
    REVISION_SNAPSHOTS,
    booked_choice,
    offer_devices,
    offer_hardware,
    quotes_visible_to,
)

# The reminders, in days before the end: each is announced once per line (renewal.due).
REMINDER_DAYS = (90, 60, 30)
DUE_DAYS = REMINDER_DAYS[0]
MAX_WITHIN_DAYS = 366  # how far ahead a list may look (the API's ?within=)
# A renewal quote in these states renews nothing: the terms it was for are due again.
RENEWAL_CLOSED = (QuoteStatus.DECLINED, QuoteStatus.EXPIRED)


def months_added(day: dt.date, months: int) -> dt.date:
    """`day` moved by `months` months (negative: back), on the same day of the month, or on the
    month's last day when it has none: 31 January + 1 month is 28 (29) February. Past the
    calendar's end: date.max."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    if year > dt.MAXYEAR:
        return dt.date.max
    if year < dt.MINYEAR:
        return dt.date.min
    return dt.date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def _month_index(day: dt.date) -> int:
    return day.year * 12 + day.month - 1


# The month a term ends in, as _month_index numbers it: the end date's month whatever its day
# (months_added clamps the day, never the month), so the database narrows the rows to whole
# months and the exact day is checked on the few it returns.
_END_MONTH = ExpressionWrapper(
    ExtractYear("starts_on") * 12 + ExtractMonth("starts_on") - 1 + F("term_months"),
    output_field=IntegerField(),
)


@dataclass(frozen=True, slots=True)
class TermLine:
    """A booked line with a term: the line (its revision, quote, customer, owner and product
    loaded), when its term ends and how many days are left until then (negative: ended)."""

    line: QuoteLine
    ends_on: dt.date
    days_left: int

    @property
    def quote(self) -> Quote:
        return self.line.revision.quote

    @property
    def reminder(self) -> int | None:
        """The reminder it has reached (30, 60 or 90 days before the end), None outside them."""
        if not 0 <= self.days_left <= DUE_DAYS:
            return None
        return min(days for days in REMINDER_DAYS if self.days_left <= days)


def _term_line(line: QuoteLine, today: dt.date) -> TermLine:
    ends_on = months_added(line.starts_on, line.term_months)
    return TermLine(line=line, ends_on=ends_on, days_left=(ends_on - today).days)


def booked_term_lines(
    *,
    quote: Quote,
    lines: Iterable[QuoteLine] | None = None,
    today: dt.date | None = None,
) -> list[TermLine]:
    """The lines of `quote`'s booked choice (booked_choice) with a term, a start and a quantity,
    in the quote's order, ended or not: the chosen alternative's lines and the support that follows
    them (unsaved copies at the booked quantity and price, same pk and key), the optional lines
    the customer included. The one reading of a quote's terms, for the reminders, the queue,
    the API and the renewal quote. `lines`: the booked revision's every line, each with its
    product, when already read. Empty until the quote is booked."""
    choice = booked_choice(quote=quote, lines=lines)
    if choice is None:
        return []
    today = today or timezone.localdate()
    revision = quote.booked_revision
    terms = []
    for line in choice.lines:
        # A line booked at quantity 0 sold nothing: nothing to remind of, nor to renew.
        if not line.term_months or line.starts_on is None or not line.quantity:
            continue
        # A copy (support following the alternative) is made without its revision: given the
        # one already read, so that a row's quote and customer cost no query.
        if not QuoteLine.revision.is_cached(line):
            line.revision = revision
        terms.append(_term_line(line, today))
    return terms


@dataclass(frozen=True, slots=True)
class InstalledBase:
    """What the customer owns, as a renewal quote prices its support on it (services.support):
    the switches and the hardware of the booked choice of the quote the renewals began from."""

    devices: int  # offer_devices: as many as the booked support per device covered
    hardware: Decimal  # offer_hardware: each line at its booked net price (after its discount)


def installed_base(quote: Quote) -> InstalledBase | None:
    """The installed base a renewal quote (`renewal_of`) renews support for; None for any other
    quote (or one renewing a quote never booked).

    A renewal quote holds no hardware: its support priced per device or as a share of the
    hardware is priced on the booked choice of the quote it renews (the chosen alternative's
    switches and hardware, as booked_term_lines reads its terms), read afresh at each edit so
    it is never priced on the renewal's own lines. The hardware is at the booked lines' net
    prices, each after its own discount, what the customer paid for it: the booked quote
    discount is left out as on any offer (offer_hardware), since the renewal quote's own
    discount applies to the support line. A renewal of a renewal (the third year) renews the
    equipment first bought: the quote at the start of the chain, since a renewal holds none."""
    if quote.renewal_of_id is None:
        return None
    seen = {quote.pk}
    renewed = _renewed(quote.renewal_of_id)
    while renewed.renewal_of_id is not None and renewed.renewal_of_id not in seen:
        seen.add(renewed.pk)
        renewed = _renewed(renewed.renewal_of_id)
    choice = booked_choice(quote=renewed)
    if choice is None:
        return None
    return InstalledBase(offer_devices(choice.lines), offer_hardware(choice.lines))


def _renewed(quote_id: int) -> Quote:
    return (
        Quote.objects.select_related("booked_revision")
        .defer(*(f"booked_revision__{name}" for name in REVISION_SNAPSHOTS))
        .get(pk=quote_id)
    )


def _being_renewed(quote_ids: set[int]) -> set[int]:
    """Those of `quote_ids` that a live renewal (neither declined nor expired) renews. A query of
    its own, not a NOT EXISTS per line: SQLite's statistics count a column of NULLs as one value
    and then scan every quote for each line."""
    renewals = Quote.objects.filter(renewal_of__in=quote_ids).exclude(status__in=RENEWAL_CLOSED)
    return set(renewals.order_by().values_list("renewal_of", flat=True)) if quote_ids else set()


def _booked_term_lines(quotes: QuerySet[Quote]) -> QuerySet[QuoteLine]:
    """Lines with a term and a start on the booked revision of an accepted quote of `quotes`,
    read with what a row shows: the candidates, which booked_term_lines then tells apart.

    For a user's quotes the booked revisions are read first (one query, on the quotes'
    indexes), then only their lines: the database cannot estimate how few lines end in a few
    months and would rather read every line. A sales engineer's queue among 50,000 quotes
    (500,000 lines) costs about 15 ms on PostgreSQL (bench/bench_renewals.py). Everyone's quotes
    (the daily reminders) are read in one query."""
    lines = QuoteLine.objects.filter(term_months__gt=0, starts_on__isnull=False)
    if quotes.query.has_filters():
        booked = quotes.filter(status=QuoteStatus.ACCEPTED, booked_revision__isnull=False)
        lines = lines.filter(
            revision__in=list(booked.order_by().values_list("booked_revision", flat=True))
        )
    else:
        lines = lines.filter(
            revision__quote__status=QuoteStatus.ACCEPTED,
            revision=F("revision__quote__booked_revision"),
        )
    return (
        lines.select_related("revision__quote__customer", "revision__quote__owner", "product")
        .defer(*(f"revision__{name}" for name in REVISION_SNAPSHOTS))
        .order_by()  # sorted by their end once read
    )


def term_lines_ending(
    *, quotes: QuerySet[Quote], today: dt.date | None = None, within: int = DUE_DAYS
) -> list[TermLine]:
    """The booked term lines of `quotes` (booked_term_lines) that end from `today` to `within`
    days later, whose quote is not being renewed: soonest first (then by quote number and line).
    Four queries (three for everyone's quotes), whatever the number of lines: the candidates
    ending in those months, every line of their booked revisions (the booked choice prices
    support by the whole configuration), the live renewals."""
    today = today or timezone.localdate()
    last = today + dt.timedelta(days=within)
    candidates = list(
        _booked_term_lines(quotes)
        .annotate(end_month=_END_MONTH)
        .filter(end_month__gte=_month_index(today), end_month__lte=_month_index(last))
    )
    rows = []
    ending = {line.pk for line in candidates}
    for revision, lines in _booked_revisions_lines(candidates).items():
        quote = revision.quote
        quote.booked_revision = revision  # the candidates' revision is the quote's booked one
        rows.extend(
            term
            for term in booked_term_lines(quote=quote, lines=lines, today=today)
            if term.line.pk in ending
        )
    rows = [row for row in rows if 0 <= row.days_left <= within]
    renewed = _being_renewed({row.quote.pk for row in rows})
    rows = [row for row in rows if row.quote.pk not in renewed]
    rows.sort(key=lambda r: (r.ends_on, r.quote.year, r.quote.seq, r.line.position))
    return rows


def _booked_revisions_lines(
    candidates: list[QuoteLine],
) -> dict[QuoteRevision, list[QuoteLine]]:
    """Every line of the candidates' revisions (one query), each with its product and its
    revision as the candidates read it (with the quote, customer and owner)."""
    revisions = {line.revision_id: line.revision for line in candidates}
    lines = defaultdict(list)
    if not revisions:
        return {}
    read = QuoteLine.objects.filter(revision__in=list(revisions)).select_related("product")
    for line in read.order_by("revision", "position"):
        line.revision = revisions[line.revision_id]
        lines[line.revision].append(line)
    return lines


def renewals_due(
    *, user: User, today: dt.date | None = None, within: int = DUE_DAYS
) -> list[TermLine]:
    """term_lines_ending() of the quotes `user` may see (quotes_visible_to)."""
    return term_lines_ending(quotes=quotes_visible_to(user=user), today=today, within=within)


def quote_term_lines(*, quote: Quote, today: dt.date | None = None) -> list[TermLine]:
    """Every booked line of `quote` with a term and a start, in the quote's order, ended or
    not (booked_term_lines); none until the quote is accepted."""
    if quote.status != QuoteStatus.ACCEPTED:
        return []
    return booked_term_lines(quote=quote, today=today)


def quote_renewals(*, quote: Quote) -> list[Quote]:
    """The quotes that renew `quote`, newest first."""
    return list(Quote.objects.filter(renewal_of=quote).order_by("-year", "-seq"))


def open_renewal(renewals: Iterable[Quote]) -> Quote | None:
    """The renewal still alive (not declined nor expired) among `renewals`, if any."""
    return next((quote for quote in renewals if quote.status not in RENEWAL_CLOSED), None)


# --- the home page's queue -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RenewalDue:
    """One quote's terms due for renewal, as the home page lists them."""

    quote: Quote
    terms: list[TermLine]

    @property
    def ends_on(self) -> dt.date:
        return self.terms[0].ends_on

    @property
    def days_left(self) -> int:
        return self.terms[0].days_left

    @property
    def reminder(self) -> int | None:
        return self.terms[0].reminder


@dataclass(frozen=True, slots=True)
class RenewalQueue:
    due: list[RenewalDue]  # at most `limit` quotes, the soonest end first
    count: int  # quotes with a term due, in all
    within_days: int = DUE_DAYS


def renewal_queue(
    *, quotes: QuerySet[Quote], today: dt.date | None = None, limit: int = 20
) -> RenewalQueue:
    """The quotes of `quotes` with terms due, each with its due lines, soonest end first."""
    by_quote: dict[int, RenewalDue] = {}
    for term in term_lines_ending(quotes=quotes, today=today):
        due = by_quote.setdefault(term.quote.pk, RenewalDue(quote=term.quote, terms=[]))
        due.terms.append(term)
    return RenewalQueue(due=list(by_quote.values())[:limit], count=len(by_quote))

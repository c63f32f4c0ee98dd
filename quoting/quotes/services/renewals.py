"""Writes of renewals: the renewal quote, moving a term's start, and the daily reminders.

What a term is, when it ends and when it is due: quoting.quotes.renewals.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext

from portal.models import User
from quoting.errors import IllegalTransition, InvalidValue
from quoting.quotes.events import event_date
from quoting.quotes.models import (
    TOTALLED_SECTIONS,
    LineKind,
    NotificationKind,
    Quote,
    QuoteEvent,
    QuoteEventVerb,
    QuoteLine,
    QuoteStatus,
    Section,
)
from quoting.quotes.renewals import (
    DUE_DAYS,
    TermLine,
    months_added,
    open_renewal,
    quote_renewals,
    quote_term_lines,
    term_lines_ending,
)
from quoting.quotes.selectors import lines_totals
from quoting.quotes.services.notifications import notify
from quoting.quotes.services.quotes import (
    YEAR_TERM_MONTHS,
    _announce,
    _claim,
    _edits_quote,
    _event,
    quote_add_free_text,
    quote_add_product,
    quote_create,
)

# How far staff may move a term's start from the acceptance date: a year back (support bought
# late for hardware already running), two years on (an installation that slipped).
START_MONTHS_BEFORE = 12
START_MONTHS_AFTER = 24
# A free-text line renews in its own part of the plan; one only offered renews as a service.
FREE_TEXT_SECTIONS = TOTALLED_SECTIONS


# --- the renewal quote ---------------------------------------------------------------------------


def _renewable(quote: Quote) -> list[TermLine]:
    """The terms a renewal of `quote` renews; refuses (409) what cannot be renewed."""
    if quote.status != QuoteStatus.ACCEPTED:
        raise IllegalTransition(
            gettext("Only an accepted quote has support or licences to renew."), field="status"
        )
    terms = quote_term_lines(quote=quote)
    if not terms:
        raise IllegalTransition(
            gettext(
                "This quote booked no support or licence with a term: there is nothing to renew."
            ),
            field="lines",
        )
    alive = open_renewal(quote_renewals(quote=quote))
    if alive is not None:
        raise IllegalTransition(
            gettext(
                "%(number)s already renews this quote (%(status)s); work on it, or decline it "
                "first."
            )
            % {"number": alive.number, "status": alive.get_status_display().lower()},
            field="renewal",
        )
    return terms


def _renewal_line(term: TermLine, *, quote: Quote, user: User) -> QuoteLine:
    """The line of the renewal quote `quote` for `term`: a catalog product priced now from the
    price lists, as any product added to a quote (support per device or as a share of the
    hardware then priced on the installed base: services.support); a free-text line (or a
    product no longer in the catalog) at the price it was sold at."""
    line = term.line
    if line.kind != LineKind.FREE_TEXT and line.product is not None:
        return quote_add_product(
            quote=quote,
            sku=line.product.part_number,
            quantity=line.quantity,
            user=user,
            expected_version=quote.version,
        )
    return quote_add_free_text(
        quote=quote,
        description=line.description,
        quantity=line.quantity,
        unit_price=line.unit_price,
        discount_percent=line.discount_percent,
        section=line.section if line.section in FREE_TEXT_SECTIONS else Section.SERVICES,
        user=user,
        expected_version=quote.version,
    )


def quote_renewal_create(*, quote: Quote, user: User) -> Quote:
    """A draft quote renewing the terms of the accepted `quote`: same customer, project and
    currency, owned by `user`, `renewal_of` = `quote`. One line per booked line with a term, the
    same quantity, priced now (quote_add_product: today's price lists; line discounts are not
    carried over), for a year starting on the day the old term ends (kept when the renewal is
    accepted). Free-text lines keep their price and discount. Support per device or as a share
    of the hardware is priced on the installed base the customer booked
    (renewals.installed_base), now and after every edit of the renewal quote.

    Refused (409) unless `quote` is accepted with such lines and no live renewal (only a
    declined or expired one); a product without a price now refuses it all (MissingPrices).
    The old quote is locked meanwhile, so two clicks make one renewal."""
    with transaction.atomic():
        old = (
            Quote.objects.select_for_update(of=("self",))
            .select_related("customer", "project")
            .get(pk=quote.pk)
        )
        terms = _renewable(old)
        new = quote_create(project=old.project, user=user, currency=old.currency)
        new.renewal_of = old
        new.save(update_fields=["renewal_of"])
        # The new quote's "created" event says what it renews.
        created = QuoteEvent.objects.get(quote=new, verb=QuoteEventVerb.CREATED)
        created.details = {**created.details, "renewal_of": old.number}
        created.save(update_fields=["details"])
        for term in terms:
            line = _renewal_line(term, quote=new, user=user)
            QuoteLine.objects.filter(pk=line.pk).update(
                term_months=YEAR_TERM_MONTHS, starts_on=term.ends_on
            )
    return Quote.objects.select_related("current_revision").get(pk=new.pk)


# --- moving a term's start -----------------------------------------------------------------------


def _start_window(quote: Quote) -> tuple[dt.date, dt.date]:
    booked = timezone.localdate(quote.booked_at) if quote.booked_at else timezone.localdate()
    return months_added(booked, -START_MONTHS_BEFORE), months_added(booked, START_MONTHS_AFTER)


@_edits_quote
def quote_term_start_set(
    *, quote: Quote, line_key, starts_on: dt.date, user: User, expected_version: int
) -> TermLine:
    """Move the start of a booked line's term (`line_key`: the line's key), e.g. to the day the
    equipment was installed: its end moves with it, and its reminders start over for the new
    end. Any date from a year before to two years after the acceptance. An audit event
    (line_changed) records the old and new start; nothing else on the accepted quote changes.
    """
    if not isinstance(starts_on, dt.date) or isinstance(starts_on, dt.datetime):
        raise InvalidValue(gettext("Enter a date such as 2026-05-01."), field="starts_on")
    _claim(quote, expected_version=expected_version)
    if quote.status != QuoteStatus.ACCEPTED:
        raise IllegalTransition(
            gettext("Only the booked lines of an accepted quote have a term to start."),
            field="status",
        )
    terms = {str(term.line.key): term for term in quote_term_lines(quote=quote)}
    term = terms.get(str(line_key))
    if term is None:
        raise InvalidValue(gettext("No booked line with a term has this key."), field="line_key")
    earliest, latest = _start_window(quote)
    if not earliest <= starts_on <= latest:
        raise InvalidValue(
            gettext(
                "A term starts from %(earliest)s to %(latest)s: a year before to two years after "
                "the acceptance."
            )
            % {"earliest": earliest, "latest": latest},
            field="starts_on",
        )
    line = term.line
    if starts_on != line.starts_on:
        QuoteLine.objects.filter(pk=line.pk).update(starts_on=starts_on, renewal_notified=None)
        _event(
            quote,
            QuoteEventVerb.LINE_CHANGED,
            actor=user,
            revision=line.revision,
            line=line.sku or line.description[:60],
            before={"starts_on": line.starts_on},
            after={"starts_on": starts_on},
        )
        line.starts_on, line.renewal_notified = starts_on, None
    today = timezone.localdate()
    ends_on = months_added(starts_on, line.term_months)
    return TermLine(line=line, ends_on=ends_on, days_left=(ends_on - today).days)


# --- the daily reminders -------------------------------------------------------------------------


def _announced(term: TermLine) -> dict:
    line = term.line
    return {
        "key": str(line.key),
        "sku": line.sku,
        "description": line.description,
        "quantity": line.quantity,
        "term_months": line.term_months,
        "starts_on": event_date(line.starts_on),
        "ends_on": event_date(term.ends_on),
        "days_left": term.days_left,
    }


def _remind(quote: Quote, reminder: int, terms: list[TermLine]) -> bool:
    """Announce renewal.due for the `terms` of `quote` that have not yet had `reminder` (or a
    later one), in one transaction: the lines are claimed (renewal_notified) under their row
    locks, so two runs at once announce each reminder once."""
    with transaction.atomic():
        claimed = set(
            QuoteLine.objects.select_for_update()
            .filter(pk__in=[term.line.pk for term in terms])
            .filter(Q(renewal_notified__isnull=True) | Q(renewal_notified__gt=reminder))
            .values_list("pk", flat=True)
        )
        if not claimed:
            return False
        QuoteLine.objects.filter(pk__in=claimed).update(renewal_notified=reminder)
        ending = [term for term in terms if term.line.pk in claimed]
        revision = ending[0].line.revision
        _announce(
            quote,
            "renewal.due",
            revision=revision,
            # What renewing these terms would cost at the booked prices (the renewal quote
            # prices them afresh).
            totals=lines_totals([term.line for term in ending], revision=revision),
            renewal={
                "days_before": reminder,
                "ends_on": event_date(ending[0].ends_on),
                "lines": [_announced(term) for term in ending],
            },
        )
        notify(
            kind=NotificationKind.RENEWAL_DUE,
            quote=quote,
            recipients=[quote.owner],
            actor=None,
            ends_on=ending[0].ends_on.isoformat(),
            days=ending[0].days_left,
        )
    return True


def renewals_remind(*, today: dt.date | None = None) -> int:
    """Daily: for every term due (quoting.quotes.renewals) that has reached a reminder (90, 60
    or 30 days before its end) it was not yet given, announce `renewal.due` (a webhook), one
    per quote and reminder. A term first seen late gets only the latest reminder it reached (a
    term starting 45 days before its end: 60, then 30). Returns how many were announced; a
    second run the same day announces nothing. The quote's owner is told in the portal's
    inbox too."""
    today = today or timezone.localdate()
    waiting: dict[tuple[int, int], list[TermLine]] = defaultdict(list)
    for term in term_lines_ending(quotes=Quote.objects.all(), today=today, within=DUE_DAYS):
        notified = term.line.renewal_notified
        if notified is None or notified > term.reminder:
            waiting[(term.quote.pk, term.reminder)].append(term)
    announced = 0
    for (_quote_id, reminder), terms in waiting.items():
        announced += _remind(terms[0].quote, reminder, terms)
    return announced

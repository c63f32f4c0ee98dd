"""What waits for a user: the home page's work queues and the header's counts.

Four queues, each a filter on the quotes the user may see
(quoting.quotes.selectors.quotes_visible_to):
- approvals: quotes whose discount the user may decide
  (quoting.quotes.permissions.approvals_to_decide);
- expiring: open quotes whose validity ends within EXPIRING_DAYS (today included);
- unanswered: sent quotes whose share link was opened after the revision was sent, with no
  answer yet (a sent quote is one neither accepted nor declined);
- renewals: booked support and licences ending within 90 days, of quotes not being renewed
  (quoting.quotes.renewals), one entry per quote; listed on the page, not counted in the header.
The last three are the user's own quotes; a sales manager also sees those of their teams.

Read from the portal shell because they join quoting and proposals (quoting knows nothing of
proposals). The counts are one query of three scalar counts (plus the user's roles, which the
page has often loaded already), cheap enough for every page's header: bench/bench_work_counts.py.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Exists, F, Func, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from portal.models import SALES, SALES_MANAGER, User
from proposals.models import ShareLink
from quoting.quotes.models import (
    Approval,
    ApprovalDecision,
    Quote,
    QuoteStatus,
    worst_choice_words,
)
from quoting.quotes.permissions import approval_beyond, approvals_to_decide
from quoting.quotes.renewals import RenewalQueue, renewal_queue
from quoting.quotes.selectors import CURRENT_REVISION_SNAPSHOTS, quotes_visible_to

EXPIRING_DAYS = 7
QUEUE_LENGTH = 20  # the home page lists this many of each queue; the count says how many in all

# A quote in these states has a validity that still matters (a draft must be sent before it).
OPEN_STATUSES = (
    QuoteStatus.DRAFT,
    QuoteStatus.AWAITING_APPROVAL,
    QuoteStatus.APPROVED,
    QuoteStatus.SENT,
)


@dataclass(frozen=True, slots=True)
class WorkCounts:
    approvals: int | None  # None: the user decides no approvals (no badge at all)
    expiring: int
    unanswered: int

    @property
    def waiting(self) -> int:
        """The sales engineer's follow-ups: quotes running out and offers read but unanswered."""
        return self.expiring + self.unanswered


@dataclass(frozen=True, slots=True)
class WorkQueues:
    counts: WorkCounts
    # annotated: requested_by_name, requested_at, requested_discount, requested_margin,
    # requested_worst (the worst choice the link offers, in the reader's language),
    # requested_role, beyond_my_limit
    approvals: list[Quote]
    expiring: list[Quote]
    unanswered: list[Quote]  # annotated: last_opened
    expiring_days: int = EXPIRING_DAYS
    # Support and licences ending within 90 days (quoting.quotes.renewals), of the same quotes as
    # the follow-ups; not counted in the header.
    renewals: RenewalQueue | None = None


NO_WORK = WorkCounts(approvals=None, expiring=0, unanswered=0)


def _works_on_quotes(user: User) -> bool:
    return (
        user.is_authenticated
        and user.is_active
        and (user.has_role(SALES) or user.has_role(SALES_MANAGER))
    )


def _mine(user: User) -> Q:
    """The user's own quotes; a manager's also those of their teams' customers."""
    mine = Q(owner=user)
    if user.has_role(SALES_MANAGER):
        mine |= Q(customer__team__in=user.teams.values("pk"))
    return mine


def _expiring(today: dt.date) -> Q:
    return Q(
        status__in=OPEN_STATUSES,
        valid_until__gte=today,
        valid_until__lte=today + dt.timedelta(days=EXPIRING_DAYS),
    )


def _unanswered() -> Q:
    opened_since_sent = ShareLink.objects.filter(
        quote=OuterRef("pk"), last_used_at__gte=OuterRef("current_revision__sent_at")
    )
    return Q(status=QuoteStatus.SENT) & Q(Exists(opened_since_sent))


def _count(quotes: QuerySet[Quote]) -> Subquery:
    """COUNT(*) of `quotes` as a scalar subquery (a plain function, so no GROUP BY)."""
    return Subquery(quotes.order_by().annotate(n=Func(F("pk"), function="COUNT")).values("n"))


def work_counts(*, user: User, today: dt.date | None = None) -> WorkCounts:
    """The header's counts, in one query: one scalar count per queue, each narrowed first by
    the (status, valid_until) index, so closed quotes (most of them, in time) cost nothing."""
    if not _works_on_quotes(user):
        return NO_WORK
    today = today or timezone.localdate()
    visible = quotes_visible_to(user=user)
    mine = visible.filter(_mine(user))
    counts = {
        "expiring": _count(mine.filter(_expiring(today))),
        "unanswered": _count(mine.filter(_unanswered())),
    }
    decide = approvals_to_decide(user=user)
    if decide is not None:
        counts["approvals"] = _count(visible.filter(decide))
    row = User.objects.filter(pk=user.pk).values(**counts).get()
    return WorkCounts(
        approvals=row.get("approvals"), expiring=row["expiring"], unanswered=row["unanswered"]
    )


def _listed(user: User) -> QuerySet[Quote]:
    return quotes_visible_to(user=user).defer(*CURRENT_REVISION_SNAPSHOTS)


def work_queues(*, user: User, today: dt.date | None = None) -> WorkQueues:
    """The home page's queues: at most QUEUE_LENGTH quotes each, the most urgent first."""
    counts = work_counts(user=user, today=today)
    if counts is NO_WORK:
        return WorkQueues(counts=counts, approvals=[], expiring=[], unanswered=[])
    today = today or timezone.localdate()
    mine = _mine(user)
    approvals: list[Quote] = []
    decide = approvals_to_decide(user=user)
    if decide is not None and counts.approvals:
        pending = Approval.objects.filter(
            revision=OuterRef("current_revision"), decision=ApprovalDecision.PENDING
        )
        approvals = list(
            _listed(user)
            .filter(decide)
            .annotate(
                requested_at=Subquery(pending.values("requested_at")[:1]),
                requested_discount=Subquery(pending.values("discount_percent")[:1]),
                requested_margin=Subquery(pending.values("margin_percent")[:1]),
                requested_worst_text=Subquery(pending.values("worst_choice")[:1]),
                requested_worst_key=Subquery(pending.values("worst_choice_key")[:1]),
                requested_role=Subquery(pending.values("required_role")[:1]),
                requested_by_name=Subquery(pending.values("requested_by__username")[:1]),
            )
            .order_by("requested_at", "pk")[:QUEUE_LENGTH]
        )
        beyond = approval_beyond(user=user)
        for quote in approvals:  # they may still reject it, or leave it to a higher approver
            quote.beyond_my_limit = beyond(quote.requested_role)
            # In the reader's language, not the requester's (kept by key since quoting/0025).
            quote.requested_worst = worst_choice_words(
                quote.requested_worst_key, quote.requested_worst_text
            )
    expiring = []
    if counts.expiring:
        expiring = list(
            _listed(user)
            .filter(mine, _expiring(today))
            .order_by("valid_until", "pk")[:QUEUE_LENGTH]
        )
    unanswered = []
    if counts.unanswered:
        opened = ShareLink.objects.filter(quote=OuterRef("pk")).order_by(
            F("last_used_at").desc(nulls_last=True)
        )
        unanswered = list(
            _listed(user)
            .filter(mine, _unanswered())
            .annotate(last_opened=Subquery(opened.values("last_used_at")[:1]))
            .order_by("valid_until", "pk")[:QUEUE_LENGTH]
        )
    renewals = renewal_queue(
        quotes=quotes_visible_to(user=user).filter(mine), today=today, limit=QUEUE_LENGTH
    )
    return WorkQueues(
        counts=counts,
        approvals=approvals,
        expiring=expiring,
        unanswered=unanswered,
        renewals=renewals,
    )

"""Who may do what: the one place the pages, the API and the services ask.

Each rule is written once. A `*_check` function raises the reason a user may not (a QuoteError
the view or the API turns into a message or a status code); a `may_*` function answers the same
rule as a yes or no, for a page deciding which buttons to show. Object scoping (which customers,
projects and quotes a user sees at all) is quoting.customers.selectors.customers_visible_to and
friends, built on `sees_every_team`; the team a customer is filed under is
quoting.customers.permissions.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q

from portal.models import SALES_MANAGER, User
from quoting.customers.selectors import sees_every_team
from quoting.errors import (
    ApprovalRequired,
    IllegalTransition,
    NotAllowed,
    QuoteError,
)
from quoting.quotes.models import TRANSITIONS, Approval, ApprovalDecision, Quote, QuoteRevision
from quoting.quotes.models import QuoteStatus as Status
from quoting.quotes.selectors import discount_threshold, revision_largest_discount

__all__ = [
    "QuoteActions",
    "approval_decide_check",
    "approvals_to_decide",
    "may_decide_approvals",
    "quote_actions",
    "quote_send_check",
    "sees_every_team",
]

# A quote in these states takes line and term edits (an edit makes it a draft again).
EDITABLE_STATUSES = (Status.DRAFT, Status.AWAITING_APPROVAL, Status.APPROVED)


# --- quotes: sending and approvals ---------------------------------------------------------------


def may_decide_approvals(*, user: User) -> bool:
    return user.has_role(SALES_MANAGER)


def _send_refusal(*, quote: Quote, needs_approval: bool) -> str | None:
    """Why the quote may not be sent now: "deciding", "status", "discount", or None."""
    if quote.status == Status.AWAITING_APPROVAL:
        return "deciding"
    if Status.SENT not in TRANSITIONS[quote.status]:
        return "status"
    if quote.status != Status.APPROVED and needs_approval:
        return "discount"
    return None


def quote_send_check(
    *, quote: Quote, revision: QuoteRevision, user: User, needs_approval: bool
) -> None:
    """Whether `user` may send `quote` as it stands: not while a manager is deciding, only from
    a state that leads to sent, and a discount beyond the user's limit only once approved.
    `needs_approval` is revision_needs_approval() of `revision` for `user`."""
    refusal = _send_refusal(quote=quote, needs_approval=needs_approval)
    if refusal == "deciding":
        raise ApprovalRequired("A manager has not decided on the discount yet.")
    if refusal == "status":
        raise IllegalTransition(
            f"A quote that is {quote.get_status_display().lower()} cannot be sent.", field="status"
        )
    if refusal == "discount":
        raise ApprovalRequired(
            f"A discount of {revision_largest_discount(revision=revision)} % is above your "
            f"limit of {discount_threshold(user=user)} % (measured on what the customer pays "
            f"against list prices, lines and quote discounts together): ask a manager to "
            f"approve it first.",
            field="discount_percent",
        )


def approvals_to_decide(*, user: User) -> Q | None:
    """The quotes whose approval `user` may decide, as a filter on Quote: _decide_refusal's
    rule as a query (a manager, a quote awaiting approval, a pending request on its current
    revision that someone else made). None for a user who decides none. Whether the manager
    may approve or only reject (their own limit) is approval_decide_check's, on the page."""
    if not may_decide_approvals(user=user):
        return None
    pending = Approval.objects.filter(
        revision=OuterRef("current_revision"), decision=ApprovalDecision.PENDING
    ).exclude(requested_by=user)
    return Q(status=Status.AWAITING_APPROVAL) & Q(Exists(pending))


def _decide_refusal(*, user: User, quote: Quote, approval: Approval | None) -> QuoteError | None:
    if not may_decide_approvals(user=user):
        return NotAllowed("Only a sales manager can approve or reject a discount.")
    if (
        quote.status != Status.AWAITING_APPROVAL
        or approval is None
        or approval.decision != ApprovalDecision.PENDING
    ):
        return IllegalTransition("This quote is not waiting for an approval.", field="status")
    if approval.requested_by_id == user.pk:
        return NotAllowed("You cannot decide on your own request; ask another manager.")
    return None


def approval_decide_check(
    *, user: User, quote: Quote, approval: Approval | None, approve: bool
) -> None:
    """Managers decide, never on their own request, and approve only up to their own limit."""
    refusal = _decide_refusal(user=user, quote=quote, approval=approval)
    if refusal is not None:
        raise refusal
    limit = discount_threshold(user=user)
    if approve and limit is not None and approval.discount_percent > limit:
        raise NotAllowed(
            f"A discount of {approval.discount_percent} % is above your own "
            f"limit of {limit} %; it needs a higher approver."
        )


@dataclass(frozen=True, slots=True)
class QuoteActions:
    """What the quote page offers `user` on one revision (the services refuse the rest)."""

    editable: bool
    request_approval: bool
    decide: bool
    send: bool
    record_answer: bool
    revise: bool

    def offered(self) -> dict[str, bool]:
        return {
            "request_approval": self.request_approval,
            "decide": self.decide,
            "send": self.send,
            "record_answer": self.record_answer,
            "revise": self.revise,
        }


def quote_actions(
    *,
    user: User,
    quote: Quote,
    revision: QuoteRevision,
    needs_approval: bool,
    pending: Approval | None,
) -> QuoteActions:
    """The same rules as quote_send_check and approval_decide_check, as yes or no.

    `needs_approval` is revision_needs_approval() for this user (the page has computed it);
    `pending` the revision's pending approval, if any.
    """
    is_current = revision.pk == quote.current_revision_id
    return QuoteActions(
        editable=is_current and not revision.is_frozen and quote.status in EDITABLE_STATUSES,
        request_approval=is_current and quote.status == Status.DRAFT and needs_approval,
        decide=_decide_refusal(user=user, quote=quote, approval=pending) is None,
        send=is_current and _send_refusal(quote=quote, needs_approval=needs_approval) is None,
        record_answer=quote.status == Status.SENT,
        revise=quote.status in (Status.SENT, Status.DECLINED, Status.EXPIRED),
    )

"""Who may do what: the one place the pages, the API and the services ask.

Each rule is written once. A `*_check` function raises the reason a user may not (a QuoteError
the view or the API turns into a message or a status code); a `may_*` function answers the same
rule as a yes or no, for a page deciding which buttons to show. Object scoping (which customers,
projects and quotes a user sees at all) is quoting.customers.selectors.customers_visible_to and
friends, built on `sees_every_team`; the team a customer is filed under is
quoting.customers.permissions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q
from django.utils.translation import gettext as _

from portal.models import CATALOG_MANAGER, DIRECTOR, SALES_MANAGER, User
from quoting.customers.selectors import sees_every_team
from quoting.errors import (
    ApprovalRequired,
    ExportCheckRequired,
    IllegalTransition,
    NotAllowed,
    QuoteError,
)
from quoting.quotes.models import TRANSITIONS, Approval, ApprovalDecision, Quote, QuoteRevision
from quoting.quotes.models import QuoteStatus as Status
from quoting.quotes.selectors import (
    ExportNote,
    GateVerdict,
    approval_rules,
    revision_gate,
    sender_rule,
)

__all__ = [
    "QuoteActions",
    "approval_beyond",
    "approval_decide_check",
    "approvals_to_decide",
    "export_check_sendable",
    "countersign_check",
    "may_countersign",
    "may_decide_approvals",
    "may_edit_cost",
    "may_view_margin",
    "quote_actions",
    "quote_send_check",
    "sees_every_team",
]

# A quote in these states takes line and term edits (an edit makes it a draft again).
EDITABLE_STATUSES = (Status.DRAFT, Status.AWAITING_APPROVAL, Status.APPROVED)


# --- quotes: sending and approvals ---------------------------------------------------------------


def may_decide_approvals(*, user: User) -> bool:
    return user.has_role(SALES_MANAGER) or user.has_role(DIRECTOR)


def may_countersign(*, user: User) -> bool:
    """The seller's countersignature binds the company: a sales manager or a director gives it
    (those who decide approvals), not the quote's salesperson alone."""
    return user.is_active and (user.has_role(SALES_MANAGER) or user.has_role(DIRECTOR))


def countersign_check(*, user: User) -> None:
    if not may_countersign(user=user):
        raise NotAllowed(
            _("Only a sales manager or a director may countersign an accepted offer."),
            field="acceptance",
        )


def may_view_margin(*, user: User) -> bool:
    """Cost and margin are the reseller's own: the `quoting.view_margin` permission (managers'
    and directors' roles by default; sales when an admin grants it)."""
    return user.is_active and user.may_view_margin()


def may_edit_cost(*, user: User) -> bool:
    """A line's unit cost is corrected by those who know it: managers and catalog managers."""
    return may_view_margin(user=user) and (
        user.has_role(SALES_MANAGER) or user.has_role(DIRECTOR) or user.has_role(CATALOG_MANAGER)
    )


def approval_beyond(*, user: User) -> Callable[[str], bool]:
    """Whether an approval the gate sent to a role is above `user`'s own rule: they see it in
    their queue and may reject it, and leave approving it to that role. An approval requested
    before the rules existed ("" role) is a sales manager's. One read of the rules per call."""
    rules = approval_rules()
    mine = sender_rule(user=user, rules=rules)
    levels = {rule.role: rule.level for rule in rules}

    def beyond(required_role: str) -> bool:
        return mine is not None and levels.get(required_role or SALES_MANAGER, 0) > mine.level

    return beyond


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
    *, quote: Quote, revision: QuoteRevision, user: User, gate: GateVerdict
) -> None:
    """Whether `user` may send `quote` as it stands: not while a manager is deciding, only from
    a state that leads to sent, and beyond the user's approval rule only once approved.
    `gate` is revision_gate() of `revision` for `user`."""
    needs_approval = quote.status != Status.APPROVED and gate.needs_approval
    refusal = _send_refusal(quote=quote, needs_approval=needs_approval)
    if refusal == "deciding":
        raise ApprovalRequired(_("A manager has not decided on the discount yet."))
    if refusal == "status":
        raise IllegalTransition(
            _("A quote that is %(status)s cannot be sent.")
            % {"status": quote.get_status_display().lower()},
            field="status",
        )
    if refusal == "discount":
        raise ApprovalRequired(_beyond_rule_message(gate), field="discount_percent")


def export_check_sendable(note: ExportNote | None) -> None:
    """A revision whose export-control note (revision_export_note) nobody acknowledged for its
    contents as they are is not sent: the staff read the note first. Not legal advice."""
    if note is None or note.checked is not None:
        return
    error = ExportCheckRequired(
        _(
            "Export control: %(count)s line(s) carry an export classification and the "
            "customer is in a listed destination (%(country)s). Read the export-control note on "
            "the quote page and confirm you have checked it before sending."
        )
        % {"count": len(note.lines), "country": note.destination},
        field="export_check",
    )
    error.problem_extra = note.as_problem()
    raise error


def _role_words(role: str) -> str:
    """The role that decides, as words in the active language (its group's code otherwise)."""
    words = {SALES_MANAGER: _("sales manager"), DIRECTOR: _("director")}
    return words.get(role or SALES_MANAGER, role)


def _pct(value) -> str:
    """10.00 prints as 10, 12.50 as 12.5: limits read as people wrote them."""
    return f"{value.normalize():f}"


def _beyond_rule_message(gate: GateVerdict) -> str:
    """Why the worst configuration the link offers is beyond the sender's rule, in the rule's
    own terms: discount below list, margin, total."""
    worst, rule = gate.worst, gate.limit
    reasons = []
    if worst.discount_percent > 0 and worst.below_list * 100 > rule.max_discount_percent:
        reasons.append(
            _("A discount of %(discount)s %% is above your limit of %(limit)s %%")
            % {"discount": worst.discount_percent, "limit": _pct(rule.max_discount_percent)}
        )
    margin = worst.margin_percent
    if (
        margin is not None
        and rule.min_margin_percent is not None
        and worst.margin * 100 < rule.min_margin_percent
    ):
        reasons.append(
            _("a margin of %(margin)s %% is below your floor of %(floor)s %%")
            % {"margin": margin, "floor": _pct(rule.min_margin_percent)}
        )
    if rule.max_total is not None and worst.total > rule.max_total:
        reasons.append(
            _("a total of %(total)s is above your limit of %(limit)s %(currency)s")
            % {"total": worst.total, "limit": rule.max_total, "currency": rule.max_total_currency}
        )
    reason = "; ".join(reasons) or _("This is beyond your approval rule")
    return _(
        "%(reason)s (worst choice: %(choice)s; measured on what the customer pays against list "
        "prices, lines and quote discounts together, in every configuration the link offers): "
        "ask a manager to approve it first."
    ) % {"reason": f"{reason[0].upper()}{reason[1:]}", "choice": worst.label()}


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
        return NotAllowed(_("Only a sales manager can approve or reject a discount."))
    if (
        quote.status != Status.AWAITING_APPROVAL
        or approval is None
        or approval.decision != ApprovalDecision.PENDING
    ):
        return IllegalTransition(_("This quote is not waiting for an approval."), field="status")
    if approval.requested_by_id == user.pk:
        return NotAllowed(_("You cannot decide on your own request; ask another manager."))
    return None


def approval_decide_check(
    *, user: User, quote: Quote, approval: Approval | None, approve: bool
) -> None:
    """Managers decide, never on their own request, and approve only what their own rule
    covers (every configuration the link offers, measured as the gate measures it)."""
    refusal = _decide_refusal(user=user, quote=quote, approval=approval)
    if refusal is not None:
        raise refusal
    if approve:
        gate = revision_gate(revision=approval.revision, user=user)
        if gate.needs_approval:
            worst = gate.worst
            measured = _("%(discount)s %% below list") % {"discount": worst.discount_percent}
            if worst.margin_percent is not None:
                measured += _(", %(margin)s %% margin") % {"margin": worst.margin_percent}
            raise NotAllowed(
                _("This is above your own limit (%(choice)s: %(measured)s); a %(role)s decides it.")
                % {
                    "choice": worst.label(),
                    "measured": measured,
                    "role": _role_words(gate.required_role),
                }
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

    `needs_approval` is revision_gate().needs_approval for this user (the page has computed it);
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

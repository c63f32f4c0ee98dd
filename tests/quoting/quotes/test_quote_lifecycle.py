"""The lifecycle: discount approvals, sending, the customer's answer, expiry, the audit trail and
optimistic concurrency."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from quoting.errors import (
    ApprovalRequired,
    IllegalTransition,
    InvalidValue,
    NotAllowed,
    QuoteExpired,
    StaleVersion,
)
from quoting.quotes.models import (
    TRANSITIONS,
    Approval,
    ApprovalDecision,
    ApprovalRule,
    QuoteStatus,
)
from quoting.quotes.selectors import approval_rules, quote_audit_trail, sender_rule
from quoting.quotes.services.quotes import (
    quote_add_product,
    quote_approve,
    quote_create,
    quote_mark_accepted,
    quote_mark_declined,
    quote_reject,
    quote_request_approval,
    quote_send,
    quote_set_discount,
    quote_set_terms,
    quote_update_line,
    quotes_expire_overdue,
)
from quoting.quotes.tasks import quotes_expire_overdue_task
from tests.quoting.factories import (
    ProductFactory,
    days_from_today,
    price_set,
    quote_reload,
    world_make,
)


@pytest.fixture
def draft(world):
    """A draft with one 10,000.00 line, owned by the sales user."""
    price_set(ProductFactory(part_number="SW-1"), "CNY", "10000.00")
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=quote, sku="SW-1", quantity=1, user=world.sales, expected_version=quote.version
    )
    return quote


def _discount(quote, user, percent):
    quote_set_discount(
        quote=quote, discount_percent=percent, user=user, expected_version=quote.version
    )


# --- approvals -----------------------------------------------------------------------------------


def _limit(user):
    rule = sender_rule(user=user, rules=approval_rules())
    return None if rule is None else rule.max_discount_percent


def test_rules_are_per_role_and_superusers_have_none(world, make_user):
    assert _limit(world.sales) == Decimal(10)
    assert _limit(world.manager) == Decimal(25)
    assert _limit(make_user("nobody", role=None)) == Decimal(0)
    assert _limit(make_user("root", role=None, is_superuser=True)) is None
    ApprovalRule.objects.update_or_create(
        role="sales", defaults={"level": 1, "max_discount_percent": Decimal(12)}
    )
    assert _limit(world.sales) == Decimal(12)


def test_sales_can_send_a_discount_up_to_their_threshold_without_approval(world, draft):
    _discount(draft, world.sales, 10)
    quote_send(quote=draft, user=world.sales, expected_version=draft.version)
    assert draft.status == QuoteStatus.SENT


def test_sales_cannot_send_15_percent_until_a_manager_approves_then_they_can(world, draft):
    line = draft.current_revision.lines.get()
    quote_update_line(
        quote=draft,
        line=line,
        discount_percent=15,
        user=world.sales,
        expected_version=draft.version,
    )
    with pytest.raises(ApprovalRequired) as caught:
        quote_send(quote=draft, user=world.sales, expected_version=draft.version)
    assert "15.00 % is above your limit of 10 %" in caught.value.message
    assert caught.value.status_code == 409

    approval = quote_request_approval(
        quote=draft, user=world.sales, expected_version=draft.version, note="Strategic account"
    )
    assert (draft.status, approval.discount_percent) == (
        QuoteStatus.AWAITING_APPROVAL,
        Decimal("15.00"),
    )
    with pytest.raises(ApprovalRequired):
        quote_send(quote=draft, user=world.sales, expected_version=draft.version)

    quote_approve(quote=draft, user=world.manager, reason="Competitive bid")
    approval.refresh_from_db()
    assert (approval.decision, approval.decided_by, approval.reason) == (
        ApprovalDecision.APPROVED,
        world.manager,
        "Competitive bid",
    )
    assert approval.decided_at is not None
    quote_send(quote=draft, user=world.sales, expected_version=draft.version)
    assert draft.status == QuoteStatus.SENT


def test_an_edit_after_approval_voids_it(world, draft):
    _discount(draft, world.sales, 15)
    quote_request_approval(quote=draft, user=world.sales, expected_version=draft.version)
    quote_approve(quote=draft, user=world.manager)
    _discount(draft, world.sales, 20)
    assert draft.status == QuoteStatus.DRAFT
    with pytest.raises(ApprovalRequired):
        quote_send(quote=draft, user=world.sales, expected_version=draft.version)


def test_an_edit_while_awaiting_approval_withdraws_the_request(world, draft):
    _discount(draft, world.sales, 15)
    approval = quote_request_approval(quote=draft, user=world.sales, expected_version=draft.version)
    _discount(draft, world.sales, 5)
    approval.refresh_from_db()
    assert (draft.status, approval.decision) == (QuoteStatus.DRAFT, ApprovalDecision.WITHDRAWN)
    quote_send(quote=draft, user=world.sales, expected_version=draft.version)


def test_a_rejection_sends_the_quote_back_to_draft_with_the_reason(world, draft):
    _discount(draft, world.sales, 15)
    quote_request_approval(quote=draft, user=world.sales, expected_version=draft.version)
    with pytest.raises(InvalidValue):
        quote_reject(quote=draft, user=world.manager, reason=" ")
    approval = quote_reject(quote=draft, user=world.manager, reason="Margin too thin")
    assert quote_reload(draft).status == QuoteStatus.DRAFT
    assert approval.decision == ApprovalDecision.REJECTED


def test_only_managers_approve_never_their_own_request_and_only_up_to_their_limit(
    world, draft, make_user
):
    _discount(draft, world.sales, 15)
    quote_request_approval(quote=draft, user=world.sales, expected_version=draft.version)
    with pytest.raises(NotAllowed) as caught:
        quote_approve(quote=draft, user=world.other_sales)
    assert caught.value.status_code == 403

    # A manager asking for 30 % (above their own 25 %) needs someone else, above 25 %.
    quote_reject(quote=draft, user=world.manager, reason="Try 30 % with the director")
    _discount(draft, world.manager, 30)
    quote_request_approval(quote=draft, user=world.manager, expected_version=draft.version)
    with pytest.raises(NotAllowed, match="own request"):
        quote_approve(quote=draft, user=world.manager)
    with pytest.raises(NotAllowed, match="above your own limit"):
        quote_approve(quote=draft, user=make_user("qian", role="sales-manager"))
    quote_approve(quote=draft, user=make_user("director", role=None, is_superuser=True))
    assert quote_reload(draft).status == QuoteStatus.APPROVED


def test_approval_is_refused_when_nothing_needs_it(world, draft):
    _discount(draft, world.sales, 5)
    with pytest.raises(InvalidValue):
        quote_request_approval(quote=draft, user=world.sales, expected_version=draft.version)
    with pytest.raises(IllegalTransition):
        quote_approve(quote=draft, user=world.manager)
    assert not Approval.objects.exists()


# --- the lifecycle -------------------------------------------------------------------------------


def test_the_state_machine_has_one_table_and_accepted_is_final():
    assert set(TRANSITIONS) == set(QuoteStatus.values)
    assert TRANSITIONS[QuoteStatus.ACCEPTED] == frozenset()
    assert QuoteStatus.ACCEPTED not in TRANSITIONS[QuoteStatus.EXPIRED]
    assert QuoteStatus.SENT not in TRANSITIONS[QuoteStatus.AWAITING_APPROVAL]


def test_illegal_transitions_are_refused(world, draft):
    with pytest.raises(IllegalTransition):
        quote_mark_accepted(quote=draft)  # a draft was never sent
    with pytest.raises(IllegalTransition):
        quote_mark_declined(quote=draft)
    quote_send(quote=draft, user=world.sales, expected_version=draft.version)
    with pytest.raises(IllegalTransition):
        quote_send(quote=draft, user=world.sales, expected_version=draft.version)
    quote_mark_declined(quote=draft, reason="Budget moved to next year")
    with pytest.raises(IllegalTransition):
        quote_mark_accepted(quote=draft)
    assert quote_reload(draft).status == QuoteStatus.DECLINED


def test_an_empty_quote_cannot_be_sent(world):
    quote = quote_create(project=world.project, user=world.sales)
    with pytest.raises(InvalidValue) as caught:
        quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    assert caught.value.field == "lines"


def test_a_quote_past_its_validity_cannot_be_sent(world, draft, monkeypatch):
    _pretend_today_is(monkeypatch, days_from_today(31))  # the default validity is 30 days
    with pytest.raises(QuoteExpired) as caught:
        quote_send(quote=draft, user=world.sales, expected_version=draft.version)
    assert caught.value.field == "valid_until"


def _pretend_today_is(monkeypatch, day: dt.date):
    from django.utils import timezone

    monkeypatch.setattr(timezone, "localdate", lambda *args, **kwargs: day)


def test_the_expiry_job_expires_overdue_sent_quotes_once_and_they_cannot_be_accepted(world, draft):
    quote_send(quote=draft, user=world.sales, expected_version=draft.version)
    other = quote_create(project=world.project, user=world.sales)  # a draft: left alone
    later = draft.valid_until + dt.timedelta(days=1)
    assert quotes_expire_overdue(today=draft.valid_until) == 0  # valid through its last day
    assert quotes_expire_overdue(today=later) == 1
    assert quotes_expire_overdue(today=later) == 0  # idempotent
    assert quote_reload(draft).status == QuoteStatus.EXPIRED
    assert quote_reload(other).status == QuoteStatus.DRAFT
    with pytest.raises(QuoteExpired) as caught:
        quote_mark_accepted(quote=draft)
    assert "can no longer be accepted" in caught.value.message
    event = quote_audit_trail(quote=draft).filter(details__after="expired").get()
    assert event.actor is None  # the system did it


def test_a_sent_quote_past_validity_cannot_be_accepted_even_before_the_job_runs(
    world, draft, monkeypatch
):
    quote_send(quote=draft, user=world.sales, expected_version=draft.version)
    _pretend_today_is(monkeypatch, draft.valid_until + dt.timedelta(days=1))
    with pytest.raises(QuoteExpired):
        quote_mark_accepted(quote=draft)


def test_the_beat_task_takes_no_arguments_and_runs_the_expiry_service(world, draft, monkeypatch):
    from django.conf import settings

    quote_send(quote=draft, user=world.sales, expected_version=draft.version)
    entry = settings.CELERY_BEAT_SCHEDULE["quotes-expire-overdue"]
    assert entry["task"] == quotes_expire_overdue_task.name
    assert quotes_expire_overdue_task.apply().get() == 0
    _pretend_today_is(monkeypatch, draft.valid_until + dt.timedelta(days=1))
    assert quotes_expire_overdue_task.apply().get() == 1
    assert quotes_expire_overdue_task.apply().get() == 0


def test_an_expired_quote_can_be_revised_into_a_new_draft(world, draft):
    quote_send(quote=draft, user=world.sales, expected_version=draft.version)
    quotes_expire_overdue(today=draft.valid_until + dt.timedelta(days=1))
    draft.refresh_from_db()  # the job changed it
    quote_set_terms(
        quote=draft,
        valid_until=days_from_today(60),
        user=world.sales,
        expected_version=draft.version,
    )
    assert (draft.status, draft.current_revision.number) == (QuoteStatus.DRAFT, 2)


# --- audit trail ---------------------------------------------------------------------------------


def test_every_state_and_price_change_is_in_the_audit_trail_in_order(world, draft):
    line = draft.current_revision.lines.get()
    quote_update_line(
        quote=draft, line=line, quantity=2, user=world.sales, expected_version=draft.version
    )
    _discount(draft, world.sales, 15)
    quote_request_approval(quote=draft, user=world.sales, expected_version=draft.version)
    quote_approve(quote=draft, user=world.manager, reason="ok")
    quote_send(quote=draft, user=world.sales, expected_version=draft.version)
    quote_mark_accepted(quote=draft, name="Prof. Chen", title="Lab director")

    trail = list(quote_audit_trail(quote=draft))
    assert [e.verb for e in trail] == [
        "created",
        "line_added",
        "line_changed",
        "discount_changed",
        "status_changed",
        "approval_requested",
        "status_changed",
        "approved",
        "status_changed",
        "status_changed",
    ]
    changed = trail[2]
    assert changed.actor == world.sales
    assert changed.details == {"line": "SW-1", "before": {"quantity": 1}, "after": {"quantity": 2}}
    assert trail[3].details == {"before": "0.00", "after": "15.00"}
    assert [
        (e.details["before"], e.details["after"]) for e in trail if e.verb == "status_changed"
    ] == [
        ("draft", "awaiting_approval"),
        ("awaiting_approval", "approved"),
        ("approved", "sent"),
        ("sent", "accepted"),
    ]
    assert trail[-1].actor is None and trail[-1].details["name"] == "Prof. Chen"
    assert trail[-2].details["total"] == "19210.00"  # 2 x 10000 less 15 %, + 13 % VAT


# --- optimistic concurrency ----------------------------------------------------------------------


def test_an_edit_with_a_stale_version_is_refused_with_a_clear_message_and_changes_nothing(
    world, draft
):
    mine, theirs = quote_reload(draft), quote_reload(draft)
    version = mine.version
    _discount(theirs, world.manager, 3)
    with pytest.raises(StaleVersion) as caught:
        quote_set_discount(
            quote=mine, discount_percent=5, user=world.sales, expected_version=version
        )
    assert caught.value.status_code == 412
    assert caught.value.message.startswith("This quote was changed by someone else")
    assert (caught.value.expected, caught.value.current) == (version, version + 1)
    assert mine.version == version  # the caller's object is untouched by a refused edit
    assert quote_reload(draft).current_revision.discount_percent == Decimal("3.00")


def test_every_successful_edit_bumps_the_version_once(world, draft):
    version = draft.version
    _discount(draft, world.sales, 1)
    assert draft.version == version + 1 == quote_reload(draft).version


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_two_people_saving_the_same_version_at_once_one_wins_one_is_told_on_postgresql(make_user):
    import threading

    from django.db import connection

    from tests.conftest import service_missing

    if connection.vendor != "postgresql":
        service_missing("concurrent edits need PostgreSQL row locks (set DATABASE_URL)")
    world = world_make(make_user)
    quote = quote_create(project=world.project, user=world.sales)
    version, barrier, outcomes = quote.version, threading.Barrier(2), []

    def edit(user, percent) -> None:
        try:
            barrier.wait(timeout=30)
            quote_set_discount(
                quote=quote_reload(quote),
                discount_percent=percent,
                user=user,
                expected_version=version,
            )
            outcomes.append(("saved", percent))
        except StaleVersion:
            outcomes.append(("stale", percent))
        finally:
            connection.close()

    threads = [
        threading.Thread(target=edit, args=(world.sales, 3)),
        threading.Thread(target=edit, args=(world.manager, 4)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(kind for kind, _ in outcomes) == ["saved", "stale"]
    [(_, winner)] = [o for o in outcomes if o[0] == "saved"]
    final = quote_reload(quote)
    assert (final.version, final.current_revision.discount_percent) == (version + 1, winner)

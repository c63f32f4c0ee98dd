"""Notifications: the quote's owner hears of the link's first open, the customer's answer and the
approval decision; managers of approval requests. The inbox is always told, inside the event's
transaction; e-mail follows the commit, in the recipient's language, as they chose, and a mail
server that fails never fails the action."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core import mail
from django.core.mail.backends.locmem import EmailBackend
from django.db import transaction
from django.test import Client
from django.utils import timezone

from proposals.share.services import share_link_create
from quoting.errors import InvalidValue
from quoting.quotes.models import (
    Notification,
    NotificationEmailOptOut,
    NotificationKind,
    QuoteStatus,
)
from quoting.quotes.services.notifications import (
    notification_email_kinds_set,
    notification_email_send,
    notification_emails_requeue,
    notification_mark_read,
)
from quoting.quotes.services.quotes import (
    quote_add_free_text,
    quote_approve,
    quote_create,
    quote_mark_accepted,
    quote_reject,
    quote_request_approval,
    quote_send,
    quote_set_discount,
)
from tests.proposals.reading import open_and_read

pytestmark = pytest.mark.django_db

Kind = NotificationKind


@pytest.fixture(name="world")
def world_with_emails(world):
    """The shared world, wang, zhao and li each with an e-mail address."""
    for user in (world.sales, world.manager, world.other_sales):
        user.email = f"{user.username}@example.com"
        user.save(update_fields=["email"])
    return world


def _draft(world, *, price="1000.00"):
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_free_text(
        quote=quote,
        description="Site survey",
        quantity=1,
        unit_price=price,
        user=world.sales,
        expected_version=quote.version,
    )
    return quote


@pytest.fixture
def sent(world):
    quote = _draft(world)
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    return quote


@pytest.fixture
def token(world, sent):
    _link, token = share_link_create(quote=sent, user=world.sales, recipient_name="Dr Li")
    return token


def _kinds(user):
    return list(
        Notification.objects.filter(recipient=user).order_by("pk").values_list("kind", flat=True)
    )


def _accept(token):
    """The customer reads the offer, then accepts it."""
    client = Client()
    open_and_read(token, client=client)
    return client.post(
        f"/p/{token}/accept", {"revision": 1, "name": "Li Wei", "title": "CTO", "agreed": "on"}
    )


# --- who is told of what, once -------------------------------------------------------------------


def test_the_first_open_of_a_link_tells_the_owner_once_and_later_opens_tell_nobody(
    world, sent, token
):
    open_and_read(token)
    open_and_read(token)
    Client().get(f"/p/{token}")  # and one no script confirms
    assert _kinds(world.sales) == [Kind.LINK_OPENED]
    assert Notification.objects.count() == 1
    opened = Notification.objects.get()
    assert opened.quote == sent
    assert opened.message() == (
        f"Dr Li opened the link to {sent.number} (Pengcheng University) for the first time."
    )


@pytest.mark.django_db(transaction=True)
def test_the_first_open_notifies_once_when_the_open_is_recorded_in_one_statement(
    world, sent, token
):
    """Outside a test transaction (autocommit, as served) PostgreSQL records the open with one
    statement; the beacon confirming it real counts it under the link's row lock."""
    for _ in range(3):
        open_and_read(token)
    assert _kinds(world.sales) == [Kind.LINK_OPENED]
    link = sent.share_links.get()
    assert (link.use_count, link.views.count()) == (3, 3)


def test_a_second_link_to_the_same_quote_has_its_own_first_open(world, sent, token):
    _link, other = share_link_create(quote=sent, user=world.sales, recipient_name="")
    open_and_read(token)
    open_and_read(other)
    open_and_read(other)
    assert _kinds(world.sales) == [Kind.LINK_OPENED, Kind.LINK_OPENED]
    assert "The link to" in Notification.objects.order_by("pk").last().message()


def test_the_customer_accepting_on_the_link_tells_the_owner_who_signed(world, sent, token):
    assert _accept(token).status_code == 302
    accepted = Notification.objects.get(kind=Kind.QUOTE_ACCEPTED)
    assert accepted.recipient == world.sales
    assert accepted.message().startswith(f"Li Wei of Pengcheng University accepted {sent.number}.")
    assert accepted.message().endswith(" CNY.")  # "Booked: <its total> CNY."
    assert not Notification.objects.exclude(recipient=world.sales).exists()


def test_the_customer_declining_tells_the_owner_with_their_reason(world, sent, token):
    Client().post(
        f"/p/{token}/decline", {"revision": 1, "reason": "Over budget", "confirmed": "True"}
    )
    declined = Notification.objects.get(kind=Kind.QUOTE_DECLINED)
    assert declined.recipient == world.sales
    assert declined.message() == f"Pengcheng University declined {sent.number}."
    assert declined.note() == "Over budget"


def test_an_answer_refused_tells_nobody(world, sent, token):
    response = Client().post(f"/p/{token}/accept", {"revision": 1, "name": "Li Wei"})  # no tick
    assert response.status_code == 400
    assert not Notification.objects.filter(kind=Kind.QUOTE_ACCEPTED).exists()


def test_nobody_is_told_of_their_own_act(world, sent):
    quote_mark_accepted(quote=sent, actor=world.sales, name="Li Wei")  # recorded by the owner
    assert sent.status == QuoteStatus.ACCEPTED
    assert not Notification.objects.exists()


def test_an_approval_request_tells_every_active_manager_once_and_not_the_requester(
    world, make_user
):
    second = make_user("qian", role="sales-manager")
    make_user("sun", role="sales-manager", is_active=False)
    quote = _draft(world)
    quote_set_discount(
        quote=quote, discount_percent=15, user=world.sales, expected_version=quote.version
    )
    quote_request_approval(
        quote=quote, user=world.sales, expected_version=quote.version, note="Strategic account"
    )
    told = Notification.objects.filter(kind=Kind.APPROVAL_REQUESTED)
    assert sorted(told.values_list("recipient__username", flat=True)) == ["qian", "zhao"]
    assert _kinds(world.sales) == [] and _kinds(second) == [Kind.APPROVAL_REQUESTED]
    request = told.first()
    assert request.message() == (
        f"wang asks for approval of a 15.00 % discount on {quote.number} (Pengcheng University)."
    )
    assert request.note() == "Strategic account"


@pytest.mark.parametrize("approve", [True, False])
def test_an_approval_decision_tells_the_owner(world, approve):
    quote = _draft(world)
    quote_set_discount(
        quote=quote, discount_percent=15, user=world.sales, expected_version=quote.version
    )
    quote_request_approval(quote=quote, user=world.sales, expected_version=quote.version)
    if approve:
        quote_approve(quote=quote, user=world.manager, reason="Competitive bid")
    else:
        quote_reject(quote=quote, user=world.manager, reason="Too deep")
    decided = Notification.objects.get(kind=Kind.APPROVAL_DECIDED)
    assert decided.recipient == world.sales
    verb = "approved" if approve else "rejected"
    assert decided.message() == f"zhao {verb} the 15.00 % discount on {quote.number}."
    assert decided.subject() == f"{quote.number}: discount {verb}"
    assert _kinds(world.manager) == [Kind.APPROVAL_REQUESTED]  # nothing of their own decision


# --- e-mail --------------------------------------------------------------------------------------


def test_an_email_follows_the_commit_and_links_to_the_quote(
    world, sent, token, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        open_and_read(token)
    assert mailoutbox == []  # nothing before the commit
    for callback in callbacks:
        callback()
    assert len(mailoutbox) == 1
    sent_mail = mailoutbox[0]
    assert sent_mail.to == ["wang@example.com"]
    assert sent_mail.subject == f"FabricQuote · {sent.number}: the link was opened"
    assert "Dr Li opened the link" in sent_mail.body
    assert f"http://127.0.0.1:8000/quotes/{sent.pk}/" in sent_mail.body
    assert "/account/notifications/" in sent_mail.body


def test_a_chinese_recipient_gets_the_email_in_chinese(
    world, sent, token, mailoutbox, django_capture_on_commit_callbacks
):
    world.sales.language = "zh-hans"
    world.sales.save(update_fields=["language"])
    with django_capture_on_commit_callbacks(execute=True):
        Client().post(
            f"/p/{token}/decline", {"revision": 1, "reason": "预算不足", "confirmed": "True"}
        )
    (declined,) = mailoutbox
    assert declined.subject == f"FabricQuote · {sent.number} 已被拒绝"
    assert f"Pengcheng University 拒绝了 {sent.number}。" in declined.body
    assert "原因：预算不足" in declined.body
    assert "您好" in declined.body


def test_a_kind_turned_off_still_reaches_the_inbox_but_not_the_mailbox(
    world, sent, token, mailoutbox, django_capture_on_commit_callbacks
):
    notification_email_kinds_set(user=world.sales, kinds=[Kind.QUOTE_ACCEPTED])
    with django_capture_on_commit_callbacks(execute=True):
        _accept(token)  # opened (inbox only), then accepted (inbox and e-mail)
    assert _kinds(world.sales) == [Kind.LINK_OPENED, Kind.QUOTE_ACCEPTED]
    assert [m.subject for m in mailoutbox] == [f"FabricQuote · {sent.number} accepted"]


def test_a_user_without_an_email_address_gets_the_inbox_only(
    world, sent, token, mailoutbox, django_capture_on_commit_callbacks
):
    world.sales.email = ""
    world.sales.save(update_fields=["email"])
    with django_capture_on_commit_callbacks(execute=True):
        _accept(token)
    assert mailoutbox == [] and _kinds(world.sales) == [Kind.LINK_OPENED, Kind.QUOTE_ACCEPTED]


def test_an_email_goes_out_at_most_once(
    world, sent, token, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        open_and_read(token)
    opened = Notification.objects.get()
    assert notification_email_send(notification_id=opened.pk) is False  # a duplicate task
    assert len(mailoutbox) == 1


def test_a_failing_mail_server_does_not_fail_the_customers_answer(
    world, sent, token, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    def refuse(self, messages):
        raise ConnectionRefusedError("the mail server is down")

    monkeypatch.setattr(EmailBackend, "send_messages", refuse)
    with django_capture_on_commit_callbacks(execute=True):
        response = _accept(token)
    assert response.status_code == 302
    sent.refresh_from_db()
    assert sent.status == QuoteStatus.ACCEPTED
    assert _kinds(world.sales) == [Kind.LINK_OPENED, Kind.QUOTE_ACCEPTED]
    assert "the e-mail could not be sent" in caplog.text
    assert mail.outbox == []


def test_a_notification_rolls_back_with_its_event_and_sends_nothing(
    world, mailoutbox, django_capture_on_commit_callbacks
):
    quote = _draft(world)
    quote_set_discount(
        quote=quote, discount_percent=15, user=world.sales, expected_version=quote.version
    )
    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        quote_request_approval(quote=quote, user=world.sales, expected_version=quote.version)
        raise RuntimeError("something later in the same request failed")
    assert not Notification.objects.exists() and mailoutbox == []


def test_emails_never_queued_are_sent_by_the_sweeper_once_and_stale_ones_dropped(
    world, sent, mailoutbox
):
    def waiting(minutes_ago):
        row = Notification.objects.create(
            recipient=world.sales,
            kind=Kind.QUOTE_DECLINED,
            quote=sent,
            params={"number": sent.number, "customer": "Pengcheng University"},
        )
        Notification.objects.filter(pk=row.pk).update(
            created_at=timezone.now() - dt.timedelta(minutes=minutes_ago)
        )
        return row

    lost, fresh, stale = waiting(10), waiting(1), waiting(60 * 48)
    assert notification_emails_requeue() == 1
    assert len(mailoutbox) == 1
    assert notification_emails_requeue() == 0  # sent: never again
    lost.refresh_from_db()
    fresh.refresh_from_db()
    stale.refresh_from_db()
    assert lost.emailed_at is not None and fresh.emailed_at is None and stale.emailed_at is None


# --- the inbox -----------------------------------------------------------------------------------


@pytest.fixture
def told(world, sent, token):
    """The owner has two notifications (the first open, the acceptance); another user one."""
    _accept(token)
    Notification.objects.create(
        recipient=world.other_sales,
        kind=Kind.QUOTE_DECLINED,
        quote=sent,
        params={"number": "Q-OTHER", "customer": "Other"},
    )
    return Notification.objects.filter(recipient=world.sales).order_by("pk")


def _signed_in(user):
    client = Client()
    client.force_login(user)
    return client


def test_the_inbox_lists_only_the_users_own_notifications_unread_first(world, sent, told):
    opened, accepted = told
    opened_read = Notification.objects.filter(pk=opened.pk)
    opened_read.update(read_at=accepted.created_at)
    page = _signed_in(world.sales).get("/inbox/").content.decode()
    assert "Q-OTHER" not in page
    assert page.index("accepted") < page.index("opened the link")  # the unread one first
    assert f'href="/quotes/{sent.pk}/"' in page


def test_marking_one_and_then_all_read(world, told):
    client = _signed_in(world.sales)
    opened, accepted = told
    assert client.post(f"/inbox/{opened.pk}/read/").status_code == 302
    opened.refresh_from_db()
    accepted.refresh_from_db()
    assert opened.read_at is not None and accepted.read_at is None
    assert client.post("/inbox/read-all/").status_code == 302
    assert not Notification.objects.filter(recipient=world.sales, read_at__isnull=True).exists()
    assert Notification.objects.filter(recipient=world.other_sales, read_at__isnull=True).exists()


def test_nobody_marks_another_users_notification_and_marking_needs_a_post(world, told):
    others = Notification.objects.get(recipient=world.other_sales)
    client = _signed_in(world.sales)
    assert client.post(f"/inbox/{others.pk}/read/").status_code == 404
    assert client.get(f"/inbox/{told[0].pk}/read/").status_code == 405
    others.refresh_from_db()
    assert others.read_at is None


def test_marking_read_needs_the_csrf_token(world, told):
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.sales)
    assert client.post("/inbox/read-all/").status_code == 403
    assert Notification.objects.filter(recipient=world.sales, read_at__isnull=True).count() == 2


def test_the_inbox_and_settings_need_a_sign_in(client):
    for url in ("/inbox/", "/account/notifications/"):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_header_badge_counts_the_unread_with_one_query_then_keeps_the_count(
    world, told, django_assert_max_num_queries
):
    client = _signed_in(world.sales)
    client.get("/quotes/")  # warm the session; the badge is counted and kept
    notification_mark_read(user=world.sales, notification=told[0])  # the count changes
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        page = client.get("/quotes/").content.decode()
    asked = [q["sql"] for q in captured if "notification" in q["sql"]]
    assert len(asked) == 1 and "COUNT" in asked[0].upper()
    assert '<span class="badge count">1<' in page
    with CaptureQueriesContext(connection) as again:  # nothing changed: the kept count
        assert '<span class="badge count">1<' in client.get("/quotes/").content.decode()
    assert not [q for q in again if "notification" in q["sql"]]
    assert len(again) == len(captured) - 1


def test_a_user_with_nothing_unread_sees_no_badge(world, told):
    Notification.objects.update(read_at=told[0].created_at)
    page = _signed_in(world.sales).get("/").content.decode()
    assert 'href="/inbox/"' in page and "badge count" not in page


def test_the_inbox_speaks_the_readers_language(world, told, sent):
    world.sales.language = "zh-hans"
    world.sales.save(update_fields=["language"])
    page = _signed_in(world.sales).get("/inbox/").content.decode()
    assert f"Li Wei（Pengcheng University）接受了 {sent.number}。" in page
    assert "全部标为已读" in page


# --- e-mail settings -----------------------------------------------------------------------------


def test_every_email_is_on_until_the_user_turns_some_off(world):
    client = _signed_in(world.sales)
    page = client.get("/account/notifications/").content.decode()
    assert page.count("checked") == len(Kind.values)
    response = client.post(
        "/account/notifications/", {"email_kinds": [Kind.QUOTE_ACCEPTED, Kind.QUOTE_DECLINED]}
    )
    assert response.status_code == 302
    assert set(
        NotificationEmailOptOut.objects.filter(user=world.sales).values_list("kind", flat=True)
    ) == {Kind.LINK_OPENED, Kind.APPROVAL_REQUESTED, Kind.APPROVAL_DECIDED, Kind.RENEWAL_DUE}
    page = client.get("/account/notifications/").content.decode()
    assert page.count("checked") == 2
    assert not NotificationEmailOptOut.objects.filter(user=world.manager).exists()


def test_an_unknown_kind_is_refused_with_a_message(world):
    response = _signed_in(world.sales).post(
        "/account/notifications/", {"email_kinds": ["everything"]}
    )
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    with pytest.raises(InvalidValue):
        notification_email_kinds_set(user=world.sales, kinds=["everything"])
    assert not NotificationEmailOptOut.objects.exists()

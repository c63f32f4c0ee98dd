"""Telling staff what happened to their quotes: an inbox row at once, an e-mail after commit.

notify() is called inside the transaction of the event (the link's first open, the customer's
answer, an approval requested or decided), so the inbox row exists exactly when the event does.
The e-mail goes out after the commit, from a worker (in-process when embedded): a mail server
that is down or refuses costs a line in the log, never the customer's or the user's action.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable
from decimal import Decimal

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from portal.header_counts import inbox_changed
from portal.models import DIRECTOR, SALES_MANAGER, User
from portal.queueing import enqueue_or_leave_to_sweeper
from quoting.errors import InvalidValue
from quoting.quotes.models import Notification, NotificationEmailOptOut, NotificationKind, Quote

logger = logging.getLogger(__name__)

NOTE_MAX = 500  # of a reason or request note carried into the inbox and the e-mail
# An e-mail not sent this long after its event is queued again by the sweeper; older than a
# day it is stale news, left to the inbox.
EMAIL_REQUEUE_AFTER = dt.timedelta(minutes=5)
EMAIL_GIVE_UP_AFTER = dt.timedelta(days=1)


def person_name(user: User | None) -> str:
    if user is None:
        return ""
    return user.get_full_name() or user.username


def approvers(*, role: str) -> list[User]:
    """Who is asked to decide an approval: the active members of the role the gate chose (a
    sales manager's when none was recorded), or of the roles above it when it has none."""
    roles = [role or SALES_MANAGER]
    if role != DIRECTOR:
        roles.append(DIRECTOR)
    for name in roles:
        found = list(User.objects.filter(is_active=True, groups__name=name).distinct())
        if found:
            return found
    return []


def notify(
    *,
    kind: NotificationKind,
    quote: Quote,
    recipients: Iterable[User | None],
    actor: User | None = None,
    **params,
) -> list[Notification]:
    """Tell each recipient once (the actor never hears of their own act). Call it inside the
    transaction of the event; the e-mails are queued after its commit."""
    seen, users = set(), []
    for user in recipients:
        if user is None or not user.is_active or user.pk in seen:
            continue
        if actor is not None and user.pk == actor.pk:
            continue
        seen.add(user.pk)
        users.append(user)
    if not users:
        return []
    params = {
        "number": quote.number,
        "customer": quote.customer.company,
        **{k: str(v) if isinstance(v, Decimal) else v for k, v in params.items()},
    }
    if "note" in params:
        params["note"] = (params["note"] or "")[:NOTE_MAX]
    rows = Notification.objects.bulk_create(
        Notification(recipient=user, kind=kind, quote=quote, params=params) for user in users
    )
    ids = [row.pk for row in rows]
    inbox_changed(user_ids=[user.pk for user in users])
    transaction.on_commit(lambda: _emails_queue(ids))
    return rows


def _emails_queue(notification_ids: list[int]) -> None:
    """After the commit: one task per e-mail. A broker that is down never fails the request:
    the row waits for notification_emails_requeue."""
    for pk in notification_ids:
        enqueue_or_leave_to_sweeper("quoting.notification_email", pk)


def notification_emails_requeue() -> int:
    """Queue again the e-mails nobody sent (the broker was down at commit time, a worker was
    lost); returns how many. A duplicate is harmless: a row is claimed before it is sent."""
    now = timezone.now()
    waiting = Notification.objects.filter(
        emailed_at__isnull=True,
        created_at__lt=now - EMAIL_REQUEUE_AFTER,
        created_at__gte=now - EMAIL_GIVE_UP_AFTER,
    ).order_by("created_at")
    pks = list(waiting.values_list("pk", flat=True)[:1000])
    _emails_queue(pks)
    return len(pks)


# --- e-mail --------------------------------------------------------------------------------------


def notification_email_wanted(*, user: User, kind: str) -> bool:
    if not user.email or not user.is_active:
        return False
    return not NotificationEmailOptOut.objects.filter(user=user, kind=kind).exists()


def notification_email_render(notification: Notification) -> tuple[str, str]:
    """(subject, body) in the recipient's language: theirs, else the portal's default."""
    language = notification.recipient.language or settings.LANGUAGE_CODE
    quote_url = settings.PORTAL_URL + reverse("quoting:quote-detail", args=[notification.quote_id])
    with translation.override(language):
        subject = f"FabricQuote · {notification.subject()}"
        body = render_to_string(
            "quoting/email/notification.txt",
            {
                "notification": notification,
                "recipient": person_name(notification.recipient),
                "quote_url": quote_url,
                "settings_url": settings.PORTAL_URL + reverse("quoting:notification-settings"),
            },
        )
    return subject, body


def notification_email_send(*, notification_id: int) -> bool:
    """Send one notification's e-mail if its recipient wants it; True when it went out.

    At most once: the row is claimed (emailed_at set) before sending, so a duplicate task
    sends nothing. A mail backend error is logged and swallowed.
    """
    claimed = Notification.objects.filter(pk=notification_id, emailed_at__isnull=True).update(
        emailed_at=timezone.now()
    )
    if not claimed:
        return False
    notification = Notification.objects.select_related("recipient").get(pk=notification_id)
    recipient = notification.recipient
    if not notification_email_wanted(user=recipient, kind=notification.kind):
        return False
    subject, body = notification_email_render(notification)
    try:
        send_mail(subject, body, None, [recipient.email])
    except Exception:
        logger.exception("notification %s: the e-mail could not be sent", notification_id)
        return False
    return True


# --- the inbox and the preferences ---------------------------------------------------------------


def notification_mark_read(*, user: User, notification: Notification) -> bool:
    """Mark one of `user`'s own notifications read; False when it was read already."""
    marked = bool(
        Notification.objects.filter(
            pk=notification.pk, recipient=user, read_at__isnull=True
        ).update(read_at=timezone.now())
    )
    if marked:
        inbox_changed(user_ids=[user.pk])
    return marked


def notifications_mark_all_read(*, user: User) -> int:
    marked = Notification.objects.filter(recipient=user, read_at__isnull=True).update(
        read_at=timezone.now()
    )
    if marked:
        inbox_changed(user_ids=[user.pk])
    return marked


@transaction.atomic
def notification_email_kinds_set(*, user: User, kinds: Iterable[str]) -> None:
    """The kinds `user` gets by e-mail (every other kind: inbox only)."""
    wanted = set(kinds)
    unknown = wanted - set(NotificationKind.values)
    if unknown:
        raise InvalidValue("Choose among the listed kinds of notification.", field="email_kinds")
    NotificationEmailOptOut.objects.filter(user=user).delete()
    NotificationEmailOptOut.objects.bulk_create(
        NotificationEmailOptOut(user=user, kind=kind)
        for kind in NotificationKind.values
        if kind not in wanted
    )

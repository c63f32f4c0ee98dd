"""Writes of share links: made (the token shown once, its hash kept), revoked, resolved; opens
recorded and made real by the page's beacons.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import connections, router, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from portal.clients import client_from_user_agent
from portal.header_counts import work_counts_changed
from portal.models import User
from portal.queueing import enqueue_or_leave_to_sweeper
from proposals.conf import proposals_setting
from proposals.events import quote_event, share_link_data
from proposals.models import (
    OPEN_KINDS_PENDING,
    EmailState,
    LinkView,
    OpenKind,
    ShareLink,
)
from proposals.share.engagement import (
    OPEN_KEY_BYTES,
    REAL_AFTER_SECONDS,
    Beacon,
    seconds_merged,
    seconds_stored,
)
from proposals.share.scanners import scanner_named
from proposals.share.selectors import share_lookup
from quoting.engine.messages import Message
from quoting.errors import (
    IllegalTransition,
    InvalidValue,
)
from quoting.kept_messages import kept_fields
from quoting.quotes.events import event_time
from quoting.quotes.models import (
    NotificationKind,
    Quote,
    QuoteEvent,
    QuoteRevision,
)
from quoting.quotes.services.notifications import notify

logger = logging.getLogger(__name__)

# --- share links ---------------------------------------------------------------------------------


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


MESSAGE_MAX = 2000  # characters of the sales engineer's message in the link's e-mail


def _days_checked(days: int | None) -> int:
    days = proposals_setting("PROPOSALS_LINK_DAYS") if days is None else days
    longest = proposals_setting("PROPOSALS_LINK_MAX_DAYS")
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= longest:
        raise InvalidValue(
            gettext("A link lasts from 1 to %(days)s days.") % {"days": longest}, field="days"
        )
    return days


def _recipient_checked(name: str, email: str) -> tuple[str, str]:
    name, email = name.strip(), email.strip()
    if len(name) > 100:
        raise InvalidValue(
            gettext("Use at most 100 characters for the name."), field="recipient_name"
        )
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise InvalidValue(
                gettext("Enter a valid e-mail address."), field="recipient_email"
            ) from None
    return name, email


def _email_checked(*, quote: Quote, message: str, language: str) -> tuple[str, str]:
    message, language = message.strip(), language or quote.customer.language
    if len(message) > MESSAGE_MAX:
        raise InvalidValue(
            gettext("Use at most %(count)s characters for the message.") % {"count": MESSAGE_MAX},
            field="message",
        )
    if language not in dict(settings.LANGUAGES):
        raise InvalidValue(gettext("Choose English or Chinese for the e-mail."), field="language")
    return message, language


@transaction.atomic
def share_link_create(
    *,
    quote: Quote,
    user: User,
    recipient_name: str = "",
    recipient_email: str = "",
    days: int | None = None,
    send_email: bool = False,
    message: str = "",
    language: str = "",
) -> tuple[ShareLink, str]:
    """A new link for one recipient; returns it with its token, which is never stored.

    With `send_email` and a recipient e-mail, the link is e-mailed to them after the commit
    (proposals.share.mail): in `language` (the customer's by default), with `message`."""
    days = _days_checked(days)
    recipient_name, recipient_email = _recipient_checked(recipient_name, recipient_email)
    message, language = _email_checked(quote=quote, message=message, language=language)
    if not QuoteRevision.objects.filter(quote=quote, sent_at__isnull=False).exists():
        raise IllegalTransition(
            gettext("Send the quote before sharing it: a link only ever shows a sent revision."),
            field="status",
        )
    emailed = bool(send_email and recipient_email)
    token = secrets.token_urlsafe(32)
    link = ShareLink.objects.create(
        quote=quote,
        recipient_name=recipient_name,
        recipient_email=recipient_email,
        token_hash=token_hash(token),
        created_by=user,
        expires_at=timezone.now() + dt.timedelta(days=days),
        email_state=EmailState.QUEUED if emailed else EmailState.NONE,
        email_language=language if emailed else "",
        email_message=message if emailed else "",
    )
    if emailed:
        transaction.on_commit(lambda: _email_queue(link.pk, token))
    QuoteEvent.objects.create(
        quote=quote,
        actor=user,
        verb="share_link_created",
        details={"link": link.pk, "recipient": recipient_name, "days": days},
    )
    # The revision the link shows: the latest sent one (share_lookup's revision_shown).
    shown = QuoteRevision.objects.filter(quote=quote, sent_at__isnull=False).order_by("-number")
    quote_event(
        quote, "share_link.created", revision=shown.first(), share_link=share_link_data(link)
    )
    return link, token


EMAIL_ERROR_MAX = 300  # ShareLink.email_error's column


def email_failed_fields(reason: Message) -> dict:
    """A link's e-mail fields once it failed for `reason`: the English text (the API's) and its
    message, which the quote page words in its reader's language (quoting.kept_messages)."""
    return {
        "email_state": EmailState.FAILED,
        **kept_fields("email_error", reason, max_length=EMAIL_ERROR_MAX),
    }


def _email_queue(link_id: int, token: str) -> None:
    """After the commit: the e-mail's task, the token its only copy (never in a log). If the
    broker refuses it nothing can send it later: the link says so (the quote page shows it)."""
    queued = enqueue_or_leave_to_sweeper(
        "proposals.share_link_email", link_id, token, argsrepr=f"({link_id}, '<token>')"
    )
    if not queued:
        ShareLink.objects.filter(pk=link_id, email_state=EmailState.QUEUED).update(
            **email_failed_fields(Message(gettext_noop("The e-mail could not be queued.")))
        )


def share_link_revoke(*, link: ShareLink, user: User) -> ShareLink:
    now = timezone.now()
    if ShareLink.objects.filter(pk=link.pk, revoked_at__isnull=True).update(revoked_at=now):
        QuoteEvent.objects.create(
            quote_id=link.quote_id, actor=user, verb="share_link_revoked", details={"link": link.pk}
        )
    link.refresh_from_db()
    return link


def share_link_resolve(token: str) -> ShareLink | None:
    """The live link of a token, read in one statement with what its page shows: the quote
    (customer, project) and its latest sent revision, as `link.revision_shown` (answers re-read
    it under the quote's lock). Unknown, expired and revoked are all simply None."""
    if not token or len(token) > 128:
        return None
    link = share_lookup(token_hash=token_hash(token))
    return link if link is not None and link.is_active else None


# Stored in English as the product names are, translated where shown (the proposal panel).
def link_view_record(
    *, link: ShareLink, user_agent: str, revision: QuoteRevision, method: str = "GET"
) -> str:
    """Record one open, as not yet read (proposals.share.engagement): one INSERT, on PostgreSQL
    without waiting for the disk. Returns the open id the page's beacons send back ("" for a
    HEAD request, which gets no page).

    Nobody is told here: a link scanner or a preview fetches the page like a reader. The owner
    hears, and quote.viewed fires, when a beacon shows the open is real (link_view_beacon)."""
    browser, system, mobile = client_from_user_agent(user_agent or "")
    scanner = scanner_named(user_agent or "")
    if method == "HEAD":
        kind, open_key = OpenKind.HEAD, None
    else:
        kind = OpenKind.SCANNER if scanner else OpenKind.NO_SCRIPT
        open_key = secrets.token_urlsafe(OPEN_KEY_BYTES)
    view = LinkView(
        link_id=link.pk,
        at=timezone.now(),
        revision_label=revision.label,
        browser=browser,
        os=system,
        is_mobile=mobile,
        kind=kind,
        scanner=scanner[:40],
        open_key=open_key,
    )
    connection = connections[router.db_for_write(LinkView)]
    if connection.vendor == "postgresql" and connection.get_autocommit():
        fields = [f for f in LinkView._meta.concrete_fields if not f.primary_key]
        with connection.cursor() as cursor:
            # One statement, one round trip, one implicit transaction. An open is a record, not
            # a promise: it does not wait for the disk (a crash of the database may lose the last
            # second of opens, never a customer's answer, which commits as usual). The setting is
            # made local to this statement's transaction by the statement itself: a second
            # statement in the same string ("SET LOCAL ...; INSERT") cannot be prepared.
            cursor.execute(
                f'INSERT INTO "{LinkView._meta.db_table}" '  # noqa: S608 - names from the models
                f"({', '.join(connection.ops.quote_name(f.column) for f in fields)}) "
                f"VALUES ({', '.join(['%s'] * len(fields))}) "
                "RETURNING set_config('synchronous_commit', 'off', true)",
                [f.get_db_prep_save(getattr(view, f.attname), connection) for f in fields],
            )
    else:
        view.save(force_insert=True)
    return open_key or ""


def link_view_beacon(*, link: ShareLink, beacon: Beacon) -> LinkView | None:
    """Add a beacon's reading time to its open (None: no such open on this link; dropped).

    The first beacon showing REAL_AFTER_SECONDS of reading makes the open real, exactly once
    however many beacons race (a conditional UPDATE: one of them changes the row); the first
    real open of a link tells its owner, exactly once (the link's UPDATE holds its row lock
    until commit, so one open reads a count of 1). quote.viewed fires for every real open."""
    now = timezone.now()
    with transaction.atomic():
        view = (
            LinkView.objects.select_for_update()
            .filter(link_id=link.pk, open_key=beacon.open_key)
            .only("kind", "at", "sections", "seconds", "script_ran", "revision_label")
            .first()
        )
        if view is None:
            return None
        sections = seconds_merged(
            view.sections or {}, beacon.sections, elapsed=(now - view.at).total_seconds()
        )
        changes = {
            "script_ran": True,
            "sections": seconds_stored(sections),
            "seconds": round(sum(sections.values())),
        }
        pending = view.kind in OPEN_KINDS_PENDING
        real = pending and sum(sections.values()) >= REAL_AFTER_SECONDS
        if pending:
            changes["kind"] = OpenKind.REAL if real else OpenKind.SHORT
        if all(getattr(view, name) == value for name, value in changes.items()):
            return view  # the same beacon again: nothing to write
        # Confirming is conditional: of beacons that all read the open as pending, one changes
        # it. (PostgreSQL's row lock above already queues them; a beacon that lost the race
        # elsewhere writes nothing, and the next one's running totals carry its seconds.)
        updated = LinkView.objects.filter(
            pk=view.pk, **({"kind__in": OPEN_KINDS_PENDING} if real else {})
        ).update(**changes)
        for name, value in changes.items():
            setattr(view, name, value)
        if real and updated:
            _link_read(link=link, view=view, at=now)
    return view


def _link_read(*, link: ShareLink, view: LinkView, at) -> None:
    """An open of `link` was just confirmed real: count it, tell the owner on the first one,
    announce quote.viewed."""
    ShareLink.objects.filter(pk=link.pk).update(use_count=F("use_count") + 1, last_used_at=at)
    # Read back under the row lock the UPDATE holds: exactly one real open sees 1.
    first = ShareLink.objects.filter(pk=link.pk).values_list("use_count", flat=True).get() == 1
    # A read link may enter its owner's "opened, not answered" queue (portal.work): a real open
    # is rare beside page views, so each one recounts the header (one generation bump).
    work_counts_changed()
    quote = link.quote
    if first:  # once per link: its owner hears the customer opened it
        notify(
            kind=NotificationKind.LINK_OPENED,
            quote=quote,
            recipients=[quote.owner],
            who=link.recipient_name,
            revision=view.revision_label,
        )
    # Announced whether or not an endpoint listens: the event feed (/api/v1/events/) is how a
    # CRM without webhooks catches up, and a real open is rare beside page views.
    # The token's lookup reads only what the page needs; the events' subjects in one statement.
    link = ShareLink.objects.select_related(
        "quote__customer", "quote__project", "quote__contact"
    ).get(pk=link.pk)
    revision = QuoteRevision.objects.filter(
        quote_id=quote.pk, number=int(view.revision_label.removeprefix("R"))
    ).first()
    viewed = {"share_link": share_link_data(link), "viewed": {"at": event_time(view.at)}}
    if first:  # the link's first real open, once (the row lock above)
        quote_event(link.quote, "share_link.opened", revision=revision, **viewed)
    quote_event(link.quote, "quote.viewed", revision=revision, **viewed)

"""E-mails to a share link's recipient: the link itself, once, when it is made; reminders later.

The link's token exists only while share_link_create runs (only its hash is kept), so the e-mail
carrying it is queued from there, after the commit, with the token as the task's argument: it
lives in the broker until a worker sends it, never in the database nor in a log (the task is
queued with a redacted `argsrepr`). A mail server that is down costs the e-mail, never the link:
the sales engineer was shown the link, and the quote page says the e-mail failed.

Reminders cannot carry the link (nothing can rebuild it, by design): they name the offer and ask
the customer to open the link from the first e-mail (its date and subject), with the sales
engineer copied, who can answer with the link or make a new one. So only links the portal
e-mailed get reminders.
"""

from __future__ import annotations

import datetime as dt
import logging
from email.mime.image import MIMEImage

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db.models import Min, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_noop

from portal.models import CompanyProfile
from proposals.acceptance.signer_codes import code_matches, code_minutes
from proposals.conf import proposals_setting
from proposals.models import EmailState, OpenKind, ShareLink, SignerCode
from proposals.share.qr import link_qr_png
from proposals.share.services import email_failed_fields, token_hash
from quoting.engine.messages import Message
from quoting.kept_messages import as_is, cleared_fields
from quoting.quotes.models import QuoteRevision, QuoteStatus
from quoting.quotes.services.notifications import person_name

logger = logging.getLogger(__name__)

QR_CONTENT_ID = "share-link-qr"
# No reminder the day the link was e-mailed (a link made for 2 days is not reminded at once).
REMINDER_NOT_BEFORE = dt.timedelta(days=1)


def _offer(link: ShareLink, language: str) -> dict:
    """What every e-mail about `link` names: the offer, its total and validity, the sender."""
    quote = link.quote
    revision = (
        QuoteRevision.objects.filter(quote=quote, sent_at__isnull=False).order_by("-number").first()
    )
    # The chop is read only by the signed copy that prints it.
    profile = CompanyProfile.objects.filter(pk=CompanyProfile.SINGLETON_PK).defer("chop").first()
    return {
        "link": link,
        "quote": quote,
        "revision": revision,
        "recipient": link.recipient_name,
        "sender": person_name(link.created_by),
        "sender_email": link.created_by.email,
        "seller": profile.legal_name_for(language) if profile else "",
    }


def _email(
    link: ShareLink, *, template: str, subject: str, context: dict
) -> EmailMultiAlternatives:
    """Text and HTML in the language chosen for the link; From the portal, Reply-To the sales
    engineer who made the link."""
    text = render_to_string(f"proposals/email/{template}.txt", context)
    html = render_to_string(f"proposals/email/{template}.html", context)
    sender = link.created_by.email
    message = EmailMultiAlternatives(
        subject,
        text,
        settings.DEFAULT_FROM_EMAIL,
        [link.recipient_email],
        reply_to=[sender] if sender else None,
    )
    message.attach_alternative(html, "text/html")
    return message


def share_link_email(link: ShareLink, url: str) -> EmailMultiAlternatives:
    """The e-mail that carries a new link: the link, the offer, the sender's message and the
    link's QR code as an inline PNG of the HTML part (multipart/related)."""
    language = link.email_language or link.quote.customer.language
    with translation.override(language):
        context = {**_offer(link, language), "url": url, "qr_cid": QR_CONTENT_ID}
        subject = gettext("Offer %(number)s from %(seller)s") % {
            "number": link.quote.number,
            "seller": context["seller"] or "FabricQuote",
        }
        message = _email(link, template="share_link", subject=subject, context=context)
    message.mixed_subtype = "related"
    image = MIMEImage(link_qr_png(url), "png")
    image.add_header("Content-ID", f"<{QR_CONTENT_ID}>")
    image.add_header("Content-Disposition", "inline", filename="qr.png")
    message.attach(image)
    return message


def _failed(link_id: int, reason: Message) -> None:
    ShareLink.objects.filter(pk=link_id).update(**email_failed_fields(reason))


def share_link_email_send(*, link_id: int, token: str) -> bool:
    """Send the e-mail of a new link, at most once (claimed before sending); True when it went.
    A mail server's refusal is recorded on the link (the quote page shows it), never raised."""
    link = ShareLink.objects.select_related("quote__customer", "created_by").get(pk=link_id)
    if token_hash(token) != link.token_hash:
        logger.warning("share link %s: the e-mail's task carried another token; not sent", link_id)
        return False
    claimed = ShareLink.objects.filter(
        pk=link_id, email_state=EmailState.QUEUED, emailed_at__isnull=True
    ).update(emailed_at=timezone.now())
    if not claimed:
        return False
    if not link.is_active:
        _failed(
            link_id,
            Message(gettext_noop("The link was revoked or expired before the e-mail went out.")),
        )
        return False
    url = settings.PORTAL_URL + reverse("proposals:shared", args=[token])
    try:
        share_link_email(link, url).send()
    except Exception as exc:  # a mail server down or refusing: recorded, the link stands
        logger.warning("share link %s: the e-mail could not be sent (%s)", link_id, type(exc))
        _failed(link_id, as_is(f"{type(exc).__name__}: {exc}"))  # the server's words
        return False
    ShareLink.objects.filter(pk=link_id).update(
        email_state=EmailState.SENT, **cleared_fields("email_error")
    )
    return True


# --- the signer's one-time code (proposals.acceptance.signer_codes) -----------------------------


def signer_code_email(code_row: SignerCode, code: str) -> EmailMultiAlternatives:
    """The e-mail carrying a signing code: in the link's language, to its recipient, the reply
    to the sales engineer. The code is written nowhere else."""
    link = code_row.link
    language = link.email_language or link.quote.customer.language
    with translation.override(language):
        context = {
            **_offer(link, language),
            "code": code,
            "minutes": code_minutes(),
            "revision": code_row.revision,
        }
        subject = gettext("Your signing code for offer %(number)s") % {"number": link.quote.number}
        return _email(link, template="signer_code", subject=subject, context=context)


def signer_code_email_send(*, code_id: int, code: str) -> bool:
    """Send a signing code, if it is still the link's live code; True when it went. A failure is
    logged (never the code): the signer asks for a new one."""
    row = (
        SignerCode.objects.select_related("link__quote__customer", "link__created_by", "revision")
        .filter(pk=code_id)
        .first()
    )
    if row is None or not code_matches(row, code):
        logger.warning("signer code %s: the task carried another code; not sent", code_id)
        return False
    if row.used_at or row.replaced_at or row.expires_at <= timezone.now():
        return False  # replaced, spent or expired while queued: nobody can use it
    try:
        signer_code_email(row, code).send()
    except Exception as exc:
        logger.warning("signer code %s: the e-mail could not be sent (%s)", code_id, type(exc))
        return False
    return True


# --- reminders -----------------------------------------------------------------------------------


def _remindable(now: dt.datetime):
    """Links a reminder may be about: e-mailed by the portal, live, and their quote still sent
    and unanswered (an accepted, declined or expired quote is no longer sent)."""
    return ShareLink.objects.filter(
        email_state=EmailState.SENT,
        emailed_at__lte=now - REMINDER_NOT_BEFORE,
        revoked_at__isnull=True,
        expires_at__gt=now,
        quote__status=QuoteStatus.SENT,
    ).select_related("quote__customer", "created_by")


def _links_expiring(now: dt.datetime, days: int):
    return _remindable(now).filter(
        reminded_expiry_at__isnull=True, expires_at__lte=now + dt.timedelta(days=days)
    )


def _links_unanswered(now: dt.datetime, days: int):
    return (
        _remindable(now)
        .filter(reminded_unanswered_at__isnull=True)
        .annotate(first_read=Min("views__at", filter=Q(views__kind=OpenKind.REAL)))
        .filter(first_read__lte=now - dt.timedelta(days=days))
    )


def share_link_reminder(link: ShareLink, *, kind: str) -> EmailMultiAlternatives:
    """A reminder, without the link (nothing can rebuild it): the first e-mail's date and
    subject to find it by; the sales engineer copied."""
    language = link.email_language or link.quote.customer.language
    with translation.override(language):
        context = {**_offer(link, language), "kind": kind}
        context["first_subject"] = gettext("Offer %(number)s from %(seller)s") % {
            "number": link.quote.number,
            "seller": context["seller"] or "FabricQuote",
        }
        subject = gettext("Reminder: offer %(number)s") % {"number": link.quote.number}
        message = _email(link, template="share_link_reminder", subject=subject, context=context)
    if link.created_by.email:
        message.cc = [link.created_by.email]
    return message


def _remind(link: ShareLink, *, kind: str, field: str, now: dt.datetime) -> bool:
    """One reminder, claimed before it is sent: a second run or a duplicate task sends none."""
    if not ShareLink.objects.filter(pk=link.pk, **{f"{field}__isnull": True}).update(
        **{field: now}
    ):
        return False
    try:
        share_link_reminder(link, kind=kind).send()
    except Exception as exc:  # once is once: the next day does not try again
        logger.warning("share link %s: the %s reminder failed (%s)", link.pk, kind, type(exc))
        return False
    return True


def share_link_reminders_send(*, now: dt.datetime | None = None) -> int:
    """Daily: remind each e-mailed link's recipient once before it expires and once when they
    opened it and have not answered (PROPOSALS_REMINDER_*; 0 turns one off). Returns how many
    went out."""
    now = now or timezone.now()
    sent = 0
    before = proposals_setting("PROPOSALS_REMINDER_DAYS_BEFORE_EXPIRY")
    if before:
        for link in _links_expiring(now, before)[:1000]:
            sent += _remind(link, kind="expiry", field="reminded_expiry_at", now=now)
    after = proposals_setting("PROPOSALS_REMINDER_OPENED_UNANSWERED_DAYS")
    if after:
        for link in _links_unanswered(now, after)[:1000]:
            sent += _remind(link, kind="unanswered", field="reminded_unanswered_at", now=now)
    return sent

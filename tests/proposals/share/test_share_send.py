"""Sending a share link from the portal (#27 item 2): the e-mail made with the link (message,
language, Reply-To, the QR code inline), what a mail server's failure leaves, links only for
sent quotes, and the reminders before expiry and after an unanswered open, each once."""

from __future__ import annotations

import datetime as dt
import io
import logging
import re
from email import message_from_bytes

import pytest
from django.conf import settings
from django.core import mail
from django.core.mail.backends.base import BaseEmailBackend
from django.utils import timezone
from PIL import Image

from proposals.models import EmailState, LinkView, OpenKind, ShareLink
from proposals.share.mail import share_link_reminders_send
from proposals.share.qr import link_qr, link_qr_png
from proposals.share.services import share_link_create, share_link_revoke
from quoting.quotes.models import Quote, QuoteStatus
from quoting.quotes.services.quotes import quote_create
from tests.quoting.api_world import token_client

CUSTOMER = "li.ming@pcl.example"


class RefusingBackend(BaseEmailBackend):
    """A mail server that is down."""

    def send_messages(self, email_messages):
        raise ConnectionRefusedError(111, "Connection refused")


@pytest.fixture
def seller(world):
    world.sales.email, world.sales.first_name, world.sales.last_name = (
        "wang.wei@reseller.example",
        "Wei",
        "Wang",
    )
    world.sales.save()
    return world.sales


def _sent(sent_quote, seller, capture, **extra):
    with capture(execute=True):
        link, token = share_link_create(
            quote=sent_quote,
            user=seller,
            recipient_name="Dr Li",
            recipient_email=CUSTOMER,
            send_email=True,
            **extra,
        )
    link.refresh_from_db()
    return link, token


def _url(token: str) -> str:
    return f"{settings.PORTAL_URL}/p/{token}"


def _qr_part(message):
    parsed = message_from_bytes(message.message().as_bytes())
    images = [part for part in parsed.walk() if part.get_content_type() == "image/png"]
    assert len(images) == 1
    return parsed, images[0]


# --- the e-mail made with the link ---------------------------------------------------------------


def test_a_link_made_to_be_emailed_goes_to_the_recipient_with_the_link_and_the_message(
    world, seller, sent_quote, django_capture_on_commit_callbacks
):
    link, token = _sent(
        sent_quote,
        seller,
        django_capture_on_commit_callbacks,
        message="As discussed on Tuesday: the two-tier option.",
        language="en",
    )
    (sent,) = mail.outbox
    assert sent.to == [CUSTOMER] and sent.from_email == settings.DEFAULT_FROM_EMAIL
    assert sent.reply_to == [seller.email]
    assert sent_quote.number in sent.subject
    html, kind = sent.alternatives[0]
    assert kind == "text/html"
    for body in (sent.body, html):
        assert _url(token) in body
        assert "As discussed on Tuesday: the two-tier option." in body
        assert "Wei Wang" in body and sent_quote.number in body
        assert sent_quote.valid_until.isoformat() in body
        assert "Dear Dr Li" in body
    assert link.email_state == EmailState.SENT and link.emailed_at is not None
    assert not any(token in str(value) for value in ShareLink.objects.filter(pk=link.pk).values())


def test_the_email_carries_the_links_qr_code_inline_as_a_png_of_the_html_part(
    world, seller, sent_quote, django_capture_on_commit_callbacks
):
    _, token = _sent(sent_quote, seller, django_capture_on_commit_callbacks)
    (sent,) = mail.outbox
    parsed, image = _qr_part(sent)
    assert parsed.get_content_type() == "multipart/related"
    assert image["Content-ID"] == "<share-link-qr>"
    assert image.get_content_disposition() == "inline"
    assert 'src="cid:share-link-qr"' in sent.alternatives[0][0]
    png = image.get_payload(decode=True)
    assert png == link_qr_png(_url(token))  # segno's code of exactly this link
    picture = Image.open(io.BytesIO(png))
    picture.verify()
    modules = link_qr(_url(token)).symbol_size(scale=1, border=4)[0]
    assert picture.format == "PNG" and picture.size[0] == modules * 5


def test_the_email_is_in_the_customers_language_unless_another_is_chosen(
    world, seller, sent_quote, django_capture_on_commit_callbacks
):
    assert sent_quote.customer.language == "zh-hans"
    _sent(sent_quote, seller, django_capture_on_commit_callbacks, message="您好")
    chinese = mail.outbox[-1]
    assert "报价" in chinese.subject and "尊敬的" in chinese.body and "有效期至" in chinese.body
    assert "尊敬的" in chinese.alternatives[0][0] and "Dear" not in chinese.body
    _sent(sent_quote, seller, django_capture_on_commit_callbacks, language="en")
    english = mail.outbox[-1]
    assert english.subject.startswith("Offer ") and "Valid until" in english.body


def test_no_email_is_sent_unless_asked_or_without_an_address(
    world, seller, sent_quote, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        unasked, _ = share_link_create(quote=sent_quote, user=seller, recipient_email=CUSTOMER)
        nowhere, _ = share_link_create(quote=sent_quote, user=seller, send_email=True)
    assert mail.outbox == []
    assert {unasked.email_state, nowhere.email_state} == {EmailState.NONE}


def test_a_mail_server_that_is_down_keeps_the_link_and_records_why(
    world, seller, sent_quote, django_capture_on_commit_callbacks, settings, caplog
):
    settings.EMAIL_BACKEND = f"{__name__}.RefusingBackend"
    caplog.set_level(logging.DEBUG)
    link, token = _sent(sent_quote, seller, django_capture_on_commit_callbacks)
    assert link.email_state == EmailState.FAILED and "Connection refused" in link.email_error
    assert link.is_active and ShareLink.objects.filter(pk=link.pk).exists()
    assert token not in caplog.text


def test_a_broker_that_refuses_the_task_marks_the_email_failed_without_logging_the_token(
    world, seller, sent_quote, django_capture_on_commit_callbacks, monkeypatch, caplog
):
    from kombu.exceptions import OperationalError

    def refused(*args, **kwargs):
        raise OperationalError("broker down")

    monkeypatch.setattr("portal.queueing.enqueue", refused)
    monkeypatch.setattr("portal.queueing._paused_until", 0.0)  # the pause ends with the test
    caplog.set_level(logging.DEBUG)
    link, token = _sent(sent_quote, seller, django_capture_on_commit_callbacks)
    assert link.email_state == EmailState.FAILED and link.email_error
    assert "proposals.share_link_email" in caplog.text and token not in caplog.text
    assert mail.outbox == []


def test_the_panel_sends_the_link_and_shows_it_once_with_a_copy_button_and_its_qr_code(
    client, world, seller, sent_quote, django_capture_on_commit_callbacks
):
    client.force_login(seller)
    form = client.get(f"/quotes/{sent_quote.pk}/proposal-panel/").content.decode()
    assert " checked" in re.search(r'<input [^>]*name="send_email"[^>]*>', form).group()
    assert '<option value="zh-hans" selected>' in form.split('name="language"')[-1]
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/quotes/{sent_quote.pk}/share-links/",
            {
                "recipient_name": "Dr Li",
                "recipient_email": CUSTOMER,
                "days": 30,
                "send_email": "on",
                "language": "en",
                "message": "See the options.",
            },
            HTTP_HX_REQUEST="true",
        )
    page = response.content.decode()
    (sent,) = mail.outbox
    url = next(word for word in sent.body.split() if "/p/" in word)
    assert f'value="{url.replace(settings.PORTAL_URL, "http://testserver")}"' in page
    assert 'data-copy="share-url" hidden' in page and "data-select-on-focus" in page
    assert '<svg role="img"' in page and response["Cache-Control"] == "no-store"
    # The e-mail goes after the commit (in a test, when the capture ends): the page says so.
    later = client.get(f"/quotes/{sent_quote.pk}/proposal-panel/").content.decode()
    assert 'data-email-state="sent"' in later and "share-url" not in later  # shown once


def test_the_panel_says_when_the_email_failed(
    client, world, seller, sent_quote, django_capture_on_commit_callbacks, settings
):
    settings.EMAIL_BACKEND = f"{__name__}.RefusingBackend"
    client.force_login(seller)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/quotes/{sent_quote.pk}/share-links/",
            {"recipient_email": CUSTOMER, "days": 30, "send_email": "on"},
            HTTP_HX_REQUEST="true",
        )
    assert 'class="share-url"' in response.content.decode()  # the link is shown all the same
    page = client.get(f"/quotes/{sent_quote.pk}/proposal-panel/").content.decode()
    assert 'data-email-state="failed"' in page and "could not be sent" in page
    assert "Connection refused" in page


def test_the_api_sends_the_link_when_asked_and_says_how_it_went(
    world, seller, sent_quote, django_capture_on_commit_callbacks
):
    api = token_client(seller)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            f"/api/v1/quotes/{sent_quote.pk}/share-links/",
            {"recipient_email": CUSTOMER, "send_email": True, "language": "en"},
            format="json",
        )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["email_state"] == "queued"  # until the commit (in a test: the capture's end)
    assert body["link_url"].split("/p/")[1] in mail.outbox[0].body
    (row,) = api.get(f"/api/v1/quotes/{sent_quote.pk}/share-links/").json()
    assert row["email_state"] == "sent" and row["emailed_at"]


# --- links only for sent quotes ------------------------------------------------------------------


def test_a_draft_quote_offers_no_share_link_form_and_says_to_send_it_first(client, world):
    draft = quote_create(project=world.project, user=world.sales)
    client.force_login(world.sales)
    panel = client.get(f"/quotes/{draft.pk}/proposal-panel/").content.decode()
    assert "share-form" not in panel and "data-share-needs-send" in panel
    response = client.post(f"/quotes/{draft.pk}/share-links/", {"days": 30})
    assert "Send the quote before sharing it" in response.content.decode()
    assert not ShareLink.objects.filter(quote=draft).exists()


def test_a_chinese_sales_user_is_told_in_chinese_to_send_the_quote_before_sharing(client, world):
    draft = quote_create(project=world.project, user=world.sales)
    world.sales.language = "zh-hans"
    world.sales.save(update_fields=["language"])
    client.force_login(world.sales)
    body = client.post(f"/quotes/{draft.pk}/share-links/", {"days": 30}).content.decode()
    assert "请先发送报价再分享：链接只显示已发送的版本。" in body
    assert "Send the quote before sharing it" not in body


def test_the_api_refuses_to_share_a_draft_naming_its_status(world):
    draft = quote_create(project=world.project, user=world.sales)
    response = token_client(world.sales).post(
        f"/api/v1/quotes/{draft.pk}/share-links/", {"send_email": True}, format="json"
    )
    assert response.status_code == 409
    assert "Send the quote before sharing it" in response.content.decode()
    assert "status" in response.content.decode() and mail.outbox == []


# --- reminders -----------------------------------------------------------------------------------


def _read_at(link, when):
    view = LinkView.objects.create(link=link, kind=OpenKind.REAL, revision_label="R1")
    LinkView.objects.filter(pk=view.pk).update(at=when)


def test_a_reminder_goes_once_before_the_link_expires_without_the_link(
    world, seller, sent_quote, django_capture_on_commit_callbacks
):
    link, token = _sent(sent_quote, seller, django_capture_on_commit_callbacks, days=30)
    short, _ = _sent(sent_quote, seller, django_capture_on_commit_callbacks, days=2)
    mail.outbox.clear()
    now = timezone.now()
    assert share_link_reminders_send(now=now + dt.timedelta(hours=12)) == 0  # not the same day
    share_link_revoke(link=short, user=seller)
    assert share_link_reminders_send(now=now + dt.timedelta(days=26)) == 0  # 4 days left
    assert share_link_reminders_send(now=now + dt.timedelta(days=27, hours=1)) == 1
    assert share_link_reminders_send(now=now + dt.timedelta(days=28)) == 0  # once
    (reminder,) = mail.outbox
    assert reminder.to == [CUSTOMER] and reminder.cc == [seller.email]
    assert reminder.reply_to == [seller.email]
    assert token not in reminder.body and token not in reminder.alternatives[0][0]
    first = timezone.localtime(ShareLink.objects.get(pk=link.pk).emailed_at)
    assert first.strftime("%Y-%m-%d") in reminder.body  # the first e-mail's date
    assert ShareLink.objects.get(pk=link.pk).reminded_expiry_at is not None


def test_a_reminder_goes_once_when_the_link_was_read_and_not_answered(
    world, seller, sent_quote, django_capture_on_commit_callbacks, settings
):
    settings.PROPOSALS_REMINDER_DAYS_BEFORE_EXPIRY = 0  # off: only the unanswered one here
    link, _ = _sent(sent_quote, seller, django_capture_on_commit_callbacks, language="en")
    mail.outbox.clear()
    now = timezone.now()
    assert share_link_reminders_send(now=now) == 0  # not opened
    _read_at(link, now - dt.timedelta(days=1))
    assert share_link_reminders_send(now=now) == 0  # opened a day ago: not yet
    assert share_link_reminders_send(now=now + dt.timedelta(days=1, hours=1)) == 1
    assert share_link_reminders_send(now=now + dt.timedelta(days=3)) == 0
    assert "Thank you for opening our offer" in mail.outbox[0].body


def test_no_reminder_for_answered_expired_revoked_or_unmailed_links_nor_when_turned_off(
    world, seller, sent_quote, django_capture_on_commit_callbacks, settings
):
    now = timezone.now()
    answered, _ = _sent(sent_quote, seller, django_capture_on_commit_callbacks, days=2)
    Quote.objects.filter(pk=sent_quote.pk).update(status=QuoteStatus.ACCEPTED)
    _read_at(answered, now - dt.timedelta(days=5))
    assert share_link_reminders_send(now=now) == 0
    Quote.objects.filter(pk=sent_quote.pk).update(status=QuoteStatus.SENT)
    revoked, _ = _sent(sent_quote, seller, django_capture_on_commit_callbacks, days=2)
    share_link_revoke(link=revoked, user=seller)
    expired, _ = _sent(sent_quote, seller, django_capture_on_commit_callbacks, days=1)
    with django_capture_on_commit_callbacks(execute=True):
        unmailed, _ = share_link_create(quote=sent_quote, user=seller, days=2)
    mail.outbox.clear()
    ShareLink.objects.filter(pk=answered.pk).update(revoked_at=now)  # out of the way
    assert share_link_reminders_send(now=now + dt.timedelta(days=1, hours=1)) == 0
    assert mail.outbox == [] and expired and unmailed
    settings.PROPOSALS_REMINDER_DAYS_BEFORE_EXPIRY = 0
    settings.PROPOSALS_REMINDER_OPENED_UNANSWERED_DAYS = 0
    live, _ = _sent(sent_quote, seller, django_capture_on_commit_callbacks, days=1)
    _read_at(live, now - dt.timedelta(days=5))
    mail.outbox.clear()
    assert share_link_reminders_send(now=now) == 0 and mail.outbox == []


def test_a_rule_of_the_service_is_shown_at_the_panels_field_it_is_about(
    client, world, seller, sent_quote, settings
):
    settings.PROPOSALS_LINK_MAX_DAYS = 60
    client.force_login(seller)
    response = client.post(
        f"/quotes/{sent_quote.pk}/share-links/",
        {"recipient_email": CUSTOMER, "days": 90, "send_email": "on"},
        HTTP_HX_REQUEST="true",
    )
    page = response.content.decode()
    assert '<span class="error" id="id_days-error">A link lasts from 1 to 60 days.</span>' in page
    assert not ShareLink.objects.exists() and mail.outbox == []


def test_the_reminders_run_every_morning_as_a_task_registered_by_name(settings):
    from portal.celery import app

    (entry,) = (
        job
        for job in settings.CELERY_BEAT_SCHEDULE.values()
        if job["task"] == "proposals.share_link_reminders"
    )
    assert entry["schedule"].hour == {8} and entry["schedule"].minute == {0}  # once a day
    assert "proposals.share_link_reminders" in app.tasks

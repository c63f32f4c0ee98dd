"""Why a share link's e-mail did not go reads in the reader's language on the quote page (#27
item 4): the link keeps the English text, which the API gives as it is, and its message, which
the page words; a link kept before messages is worded from its English (kept_texts); a mail
server's own words read as kept."""

from __future__ import annotations

import pytest
from django.urls import reverse

from proposals.models import EmailState, ShareLink
from proposals.share.mail import share_link_email_send
from proposals.share.services import share_link_create, share_link_revoke
from tests.quoting.api_world import token_client

CUSTOMER = "li.ming@pcl.example"


@pytest.mark.parametrize(
    ("kept", "chinese"),
    [
        ("The e-mail could not be queued.", "邮件未能加入发送队列。"),
        (
            "The link was revoked or expired before the e-mail went out.",
            "邮件发出前，该链接已被撤销或已过期。",
        ),
        ("ConnectionRefusedError: [Errno 111] Connection refused", None),  # the server's words
    ],
)
def test_a_link_kept_before_messages_words_its_email_error_in_the_readers_language(
    world, sent_quote, client, kept, chinese
):
    link, _ = share_link_create(quote=sent_quote, user=world.sales, recipient_email=CUSTOMER)
    ShareLink.objects.filter(pk=link.pk).update(email_state=EmailState.FAILED, email_error=kept)
    world.sales.language = "zh-hans"
    world.sales.save(update_fields=["language"])
    client.force_login(world.sales)

    page = client.get(reverse("proposals:panel", args=[sent_quote.pk])).content.decode()
    shown = page.split("data-email-error>", 1)[1].split("</span>", 1)[0]

    assert shown == (chinese or kept)
    # The API gives the field as it is kept (its interface), whatever the language asked.
    api = token_client(world.sales, scope="read")
    (row,) = api.get(
        f"/api/v1/quotes/{sent_quote.pk}/share-links/", HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).json()
    assert row["email_error"] == kept


def _panel_in_chinese(client, world, quote) -> str:
    world.sales.language = "zh-hans"
    world.sales.save(update_fields=["language"])
    client.force_login(world.sales)
    page = client.get(reverse("proposals:panel", args=[quote.pk])).content.decode()
    return page.split("data-email-error>", 1)[1].split("</span>", 1)[0]


def _api_email_error(world, quote) -> str:
    api = token_client(world.sales, scope="read")
    (row,) = api.get(
        f"/api/v1/quotes/{quote.pk}/share-links/", HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).json()
    return row["email_error"]


def test_an_email_the_broker_refused_is_kept_as_its_message_and_worded_from_it(
    world, sent_quote, client, monkeypatch, django_capture_on_commit_callbacks, no_kept_texts
):
    monkeypatch.setattr(
        "proposals.share.services.enqueue_or_leave_to_sweeper", lambda *a, **k: False
    )
    with django_capture_on_commit_callbacks(execute=True):
        link, _ = share_link_create(
            quote=sent_quote, user=world.sales, recipient_email=CUSTOMER, send_email=True
        )
    link.refresh_from_db()
    assert link.email_error == "The e-mail could not be queued."
    assert link.email_error_message == {"template": link.email_error, "params": []}
    assert _panel_in_chinese(client, world, sent_quote) == "邮件未能加入发送队列。"
    assert _api_email_error(world, sent_quote) == "The e-mail could not be queued."


def test_an_email_for_a_link_revoked_first_is_kept_as_its_message_and_worded_from_it(
    world, sent_quote, client, django_capture_on_commit_callbacks, no_kept_texts
):
    with django_capture_on_commit_callbacks(execute=False):  # its task not run yet
        link, token = share_link_create(
            quote=sent_quote, user=world.sales, recipient_email=CUSTOMER, send_email=True
        )
    share_link_revoke(link=link, user=world.sales)
    assert share_link_email_send(link_id=link.pk, token=token) is False
    link.refresh_from_db()
    english = "The link was revoked or expired before the e-mail went out."
    assert (link.email_error, link.email_error_message["template"]) == (english, english)
    assert _panel_in_chinese(client, world, sent_quote) == "邮件发出前，该链接已被撤销或已过期。"
    assert _api_email_error(world, sent_quote) == english

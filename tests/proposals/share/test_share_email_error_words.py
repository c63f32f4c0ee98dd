"""Why a share link's e-mail did not go reads in the reader's language on the quote page (#27
item 4): the link keeps the English text, which the API gives as it is; a mail server's own
words read as kept."""

from __future__ import annotations

import pytest
from django.urls import reverse

from proposals.models import EmailState, ShareLink
from proposals.share.services import share_link_create
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
def test_the_quote_page_words_a_links_email_error_in_the_readers_language(
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

"""The inbox in Chromium: the header's badge, the inbox under the page's CSP, marking read."""

from __future__ import annotations

import os

import pytest

from quoting.quotes.models import Notification, NotificationKind
from quoting.quotes.services.quotes import quote_add_free_text, quote_create
from tests.quoting.factories import world_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_badge_leads_to_the_inbox_where_everything_is_marked_read(
    live_server, sign_in, make_user
):
    world = world_make(make_user)
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_free_text(
        quote=quote,
        description="Survey",
        quantity=1,
        unit_price="10.00",
        user=world.sales,
        expected_version=quote.version,
    )
    for kind, params in (
        (NotificationKind.LINK_OPENED, {"who": "Dr Li"}),
        (NotificationKind.QUOTE_DECLINED, {"note": "Over budget"}),
    ):
        Notification.objects.create(
            recipient=world.sales,
            kind=kind,
            quote=quote,
            params={"number": quote.number, "customer": world.customer.company, **params},
        )
    page = sign_in("wang")
    badge = page.locator(".inbox-link .badge")
    assert badge.inner_text().startswith("2")
    page.click(".inbox-link")
    page.wait_for_url(f"{live_server.url}/inbox/")
    assert page.locator(".inbox-item.unread").count() == 2
    assert "Reason: Over budget" in page.inner_text(".inbox")
    if os.environ.get("SCREENSHOT_DIR"):
        page.screenshot(
            path=os.path.join(os.environ["SCREENSHOT_DIR"], "inbox.png"), full_page=True
        )
    page.click("text=Mark all as read")
    page.wait_for_url(f"{live_server.url}/inbox/")
    assert page.locator(".inbox-item.unread").count() == 0
    assert page.locator(".inbox-link .badge").count() == 0
    page.click(f"text=Dr Li opened the link to {quote.number}")
    page.wait_for_url(f"{live_server.url}/quotes/{quote.pk}/")

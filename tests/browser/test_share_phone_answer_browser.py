"""The customer's share page in headless Chromium on a phone (issue 14), for the tests that
change the offer or its seller, each on an offer of its own (test_share_phone.py's tests share
one): declining is confirmed and can be called off; the seller's phone and e-mail are tappable."""

from __future__ import annotations

import pytest

from proposals.share.services import share_link_create
from quoting.quotes.models import QuoteStatus
from tests.browser.conftest import csp_watch
from tests.browser.test_share_phone import PHONE, offer_make
from tests.proposals.conftest import quote_rich
from tests.quoting.factories import quote_reload, world_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def open_page(browser, live_server):
    contexts = []

    def open_page(path: str, viewport: dict):
        context = browser.new_context(viewport=viewport, accept_downloads=True)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.csp_violations = csp_watch(page)
        page.goto(f"{live_server.url}{path}")
        return page

    yield open_page
    for context in contexts:
        context.close()


def test_declining_takes_a_confirmation_and_can_be_called_off(
    live_server, make_user, seeded, open_page
):
    quote, token = offer_make(world_make(make_user))
    page = open_page(f"/p/{token}?lang=en", PHONE)
    page.click("#decline summary")
    page.fill("#id_reason", "Over budget")
    page.click("#decline button[type=submit]")
    page.wait_for_selector("text=Decline this offer?")
    assert quote_reload(quote).status == QuoteStatus.SENT  # one tap records nothing

    page.click("text=No, back to the offer")
    page.wait_for_selector("#accept summary")
    page.click("#decline summary")
    page.click("#decline button[type=submit]")
    page.click("button.danger")
    page.wait_for_selector("[data-status=declined]")
    assert quote_reload(quote).status == QuoteStatus.DECLINED


def test_the_contacts_phone_and_e_mail_on_the_share_page_are_tappable(
    live_server, make_user, seeded, open_page
):
    world = world_make(make_user)
    world.sales.phone, world.sales.email = "+86 755 1234 5678", "wang@seller.example"
    world.sales.save()
    quote = quote_rich(world)
    _, token = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei")
    page = open_page(f"/p/{token}?lang=en", PHONE)
    assert page.locator('.seller a[href="tel:+8675512345678"]').inner_text() == "+86 755 1234 5678"
    assert page.locator('.seller a[href="mailto:wang@seller.example"]').count() == 1

"""The installed fabric's sign-off in headless Chromium, on a desk and a phone: on an accepted
quote whose as-built check was put to the customer, the share page shows the check and its
report; the customer draws a signature on the canvas, ticks and signs; the drawing is what is
recorded, and the page then shows who signed. No CSP violation, no script error, no serious
accessibility finding."""

from __future__ import annotations

import pytest

from proposals.acceptance.as_built import as_built_sign_off_ask
from proposals.acceptance.services import share_accept
from proposals.models import AsBuiltSignOff
from proposals.share.services import share_link_create
from quoting.quotes.services.as_built import as_built_check_run, as_built_plan
from quoting.quotes.services.quotes import quote_send
from tests.browser.conftest import assert_no_serious_axe_violations, csp_watch
from tests.browser.test_signature_browser import _sign_with_the_mouse
from tests.quoting.api_world import quote_world_make
from tests.quoting.quotes.as_built_world import ibnetdiscover_text, links_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESK, PHONE = {"width": 1440, "height": 900}, {"width": 390, "height": 844}


@pytest.mark.parametrize("viewport", [DESK, PHONE], ids=["1440x900", "390x844"])
def test_the_customer_draws_a_signature_to_sign_off_the_installed_fabric(
    live_server, browser, seeded, make_user, viewport
):
    qw = quote_world_make(make_user)
    quote = qw.quote
    quote_send(quote=quote, user=qw.world.sales, expected_version=quote.version)
    link, token = share_link_create(quote=quote, user=qw.world.sales, recipient_name="Li Wei")
    share_accept(link=link, revision_number=1, name="Li Wei", title="CTO", agreed=True)
    quote.refresh_from_db()
    revision = quote.booked_revision
    text = ibnetdiscover_text(links_of(as_built_plan(revision)))
    check = as_built_check_run(
        revision=revision, user=qw.world.sales, filename="fabric.txt", content=text.encode()
    )
    as_built_sign_off_ask(check=check, user=qw.world.sales)

    context = browser.new_context(viewport=viewport, timezone_id="Asia/Shanghai")
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors = csp_watch(page, page_errors=True)
    page.goto(f"{live_server.url}/p/{token}?lang=en")
    section = page.locator("#as-built")
    assert "Cabled as planned" in section.inner_text()
    page.fill("#as-built-form #id_name", "Li Wei")
    page.get_by_label("Draw it").check()
    _sign_with_the_mouse(page)
    page.fill("#id_remarks", "Labels of rack A03 to be reprinted.")
    page.get_by_label("I accept the installed fabric as this report shows it").check()
    page.click("#as-built-form button[type=submit]")
    page.wait_for_selector("#as-built-signed")
    assert "Li Wei" in page.locator("#as-built-signed").inner_text()
    assert_no_serious_axe_violations(page)
    assert errors == []

    sign_off = AsBuiltSignOff.objects.get()
    assert sign_off.signed and sign_off.signature_kind == "drawn"
    assert sign_off.remarks == "Labels of rack A03 to be reprinted."
    assert len(bytes(sign_off.signature_png)) > 500
    context.close()

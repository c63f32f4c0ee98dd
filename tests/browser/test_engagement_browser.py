"""Reading time from a real browser (issue 15): Chromium opens a share link, reads the cover for
more than two seconds and then the bill of materials, leaves; the open is recorded as a reader's,
with seconds per section, and the owner is told once."""

from __future__ import annotations

import time

import pytest

from proposals.models import LinkView, OpenKind
from proposals.share.services import share_link_create
from quoting.quotes.models import Notification, NotificationKind
from tests.browser.conftest import csp_watch
from tests.proposals.conftest import quote_sent
from tests.quoting.factories import world_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_reader_in_chromium_is_recorded_as_real_with_seconds_per_section(
    live_server, browser, make_user
):
    world = world_make(make_user)
    quote = quote_sent(world, lines=30)  # a bill of materials taller than the screen
    link, token = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei")

    context = browser.new_context(viewport={"width": 1280, "height": 900}, real_beacons=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    violations = csp_watch(page)
    beacons: list[int] = []
    page.on("response", lambda r: beacons.append(r.status) if r.url.endswith("/beacon") else None)

    # The test thread reads the database only while no beacon is on its way: in-memory SQLite
    # has one connection, shared with the live server's thread.
    with page.expect_response(lambda r: r.url.endswith("/beacon"), timeout=10_000):
        page.goto(f"{live_server.url}/p/{token}?lang=en")  # reading the offer and the cover...
    # ...past two seconds the page says so at once: the open is real while the reader is on it.
    view = LinkView.objects.get(link=link)
    assert (view.kind, view.script_ran) == (OpenKind.REAL, True)
    assert view.sections.get("cover", 0) >= 2, view.sections
    assert Notification.objects.filter(kind=NotificationKind.LINK_OPENED).count() == 1

    page.locator("section.bom").scroll_into_view_if_needed()
    page.mouse.wheel(0, 200)  # the reader is active
    page.wait_for_timeout(2_500)
    page.goto("about:blank")  # leaving hides the page: its last beacon has the totals
    time.sleep(2)  # the last beacon is answered to a page that is gone: give it time to land
    context.close()

    view = LinkView.objects.get(link=link)
    assert view.kind == OpenKind.REAL and view.script_ran
    assert view.sections.get("cover", 0) >= 2, view.sections
    assert view.sections.get("bom", 0) >= 2, view.sections
    assert set(view.sections) <= {"cover", "design", "bom", "tco", "terms"}
    assert 4 <= view.seconds <= 12, view.seconds
    assert Notification.objects.filter(kind=NotificationKind.LINK_OPENED).count() == 1
    assert beacons and set(beacons) == {204}, beacons
    assert violations == [], violations

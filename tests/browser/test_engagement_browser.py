"""Reading time from a real browser (issue 15): Chromium opens a share link, reads the cover for
more than two seconds and then the bill of materials, leaves; the open is recorded as a reader's,
with seconds per section, and the owner is told once."""

from __future__ import annotations

import time

import pytest

from proposals.models import LinkView, OpenKind
from proposals.services import share_link_create
from quoting.models import Notification, NotificationKind
from tests.proposals.conftest import quote_sent
from tests.quoting.factories import world_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _view_when(link, done, seconds=10.0) -> LinkView:
    """The link's one view once `done(view)`; beacons arrive on their own time."""
    deadline = time.monotonic() + seconds
    while True:
        view = LinkView.objects.get(link=link)
        if done(view) or time.monotonic() > deadline:
            return view
        time.sleep(0.2)


def test_a_reader_in_chromium_is_recorded_as_real_with_seconds_per_section(
    live_server, page, make_user
):
    world = world_make(make_user)
    quote = quote_sent(world, lines=30)  # a bill of materials taller than the screen
    link, token = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei")

    page.goto(f"{live_server.url}/p/{token}?lang=en")
    assert page.locator("script[src$='proposal/engage.js']").count() == 1
    page.wait_for_timeout(3_000)  # reading the offer and the cover

    # Past two seconds the page says so at once: the open is real while the reader is still on it.
    view = _view_when(link, lambda v: v.kind == OpenKind.REAL)
    assert (view.kind, view.script_ran) == (OpenKind.REAL, True)
    assert Notification.objects.filter(kind=NotificationKind.LINK_OPENED).count() == 1

    page.locator("section.bom").scroll_into_view_if_needed()
    page.mouse.wheel(0, 200)  # the reader is active
    page.wait_for_timeout(2_500)
    page.goto("about:blank")  # leaving hides the page: its last beacon has the totals

    view = _view_when(link, lambda v: v.sections.get("bom", 0) >= 2)
    assert view.kind == OpenKind.REAL and view.script_ran
    assert view.sections.get("cover", 0) >= 2, view.sections
    assert view.sections.get("bom", 0) >= 2, view.sections
    assert set(view.sections) <= {"cover", "design", "bom", "tco", "terms"}
    assert 5 <= view.seconds <= 12, view.seconds
    assert view.seconds == sum(view.sections.values()) or abs(
        view.seconds - sum(view.sections.values())) <= len(view.sections)
    assert Notification.objects.filter(kind=NotificationKind.LINK_OPENED).count() == 1

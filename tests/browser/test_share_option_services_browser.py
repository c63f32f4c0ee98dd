"""On the share link a service priced per node follows the option picked (content version 7): as
quoted the tuning shows 2 nodes, 3,600.00; the customer picks "Larger" and it shows 3 nodes,
5,400.00, and ticked the total is the server's for "Larger" with it; without console errors."""

from __future__ import annotations

import pytest

from proposals.share.services import share_link_create
from tests.browser.conftest import console_errors, csp_watch
from tests.quoting.factories import world_make
from tests.quoting.option_services_world import (
    LARGER_TOTAL,
    TUNING,
    quote_with_option_services,
    sent,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_picking_larger_sizes_the_tuning_for_its_nodes(live_server, browser, make_user):
    world = world_make(make_user)
    quote = quote_with_option_services(world, sold=False)
    revision = sent(quote, world)
    tuning = revision.lines.get(sku=TUNING)
    _, token = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei")

    context = browser.new_context(locale="en-US")
    page = context.new_page()
    page.set_default_timeout(30_000)
    violations, errors = csp_watch(page), console_errors(page)
    page.goto(f"{live_server.url}/p/{token}?lang=en")
    row = page.locator(f'#choice label:has(input[value="{tuning.key}"])')
    assert row.locator('[data-priced-with=""]').first.inner_text().strip() == "× 2"
    assert row.locator('[data-priced-with="Larger"]').first.is_hidden()

    page.locator("#choice input[name=alternative][value=Larger]").check()
    row.locator('[data-priced-with="Larger"]').first.wait_for(state="visible")
    assert row.locator('[data-priced-with=""]').first.is_hidden()
    assert row.locator('[data-priced-with="Larger"]').last.inner_text() == "5,400.00"
    row.locator("input").check()
    page.wait_for_function(
        "t => document.querySelector('#choice').getAttribute('data-total') === t",
        arg=f"{LARGER_TOTAL:.2f}",
    )
    assert page.locator(".choice-error").is_hidden()
    context.close()
    assert violations == [] and errors == []

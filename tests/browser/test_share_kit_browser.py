"""On the share link each configuration's spares kit shows with that configuration only (issue
26 item 8): as quoted the proposed design's kit is offered; the customer picks "Better" and its
kit shows in place of the design's (which is left out), they tick it and the total is the
server's for Better with its kit; in English and in Chinese, without console errors."""

from __future__ import annotations

import pytest

from proposals.share.services import share_link_create
from quoting.quotes.models import LineOrigin
from quoting.quotes.selectors import offer_choice
from quoting.quotes.services.quotes import quote_send
from tests.browser.conftest import assert_no_serious_axe_violations, console_errors, csp_watch
from tests.quoting.factories import world_make
from tests.quoting.kit_world import BETTER_WITH_KIT_TOTAL, quote_with_kits

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_choosing_better_shows_its_kit_in_place_of_the_design_s(
    live_server, browser, make_user, language
):
    world = world_make(make_user)
    quote = quote_with_kits(world)
    revision = quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    kit = revision.lines.get(origin=LineOrigin.SPARES_KIT, alternative_group="Better")
    locker = revision.lines.get(description="On-site spares locker")
    chosen = offer_choice(
        revision=revision, alternative="Better", optional_keys=[str(kit.key), str(locker.key)]
    ).totals
    assert chosen.total == BETTER_WITH_KIT_TOTAL
    _, token = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei")

    context = browser.new_context(locale="zh-CN" if language != "en" else "en-US")
    page = context.new_page()
    page.set_default_timeout(30_000)
    violations, errors = csp_watch(page), console_errors(page)
    page.goto(f"{live_server.url}/p/{token}?lang={'zh-hans' if language != 'en' else 'en'}")
    design_kit = page.locator('#choice label[data-kit-of=""]')
    better_kit = page.locator('#choice label[data-kit-of="Better"]')
    assert design_kit.is_visible() and better_kit.is_hidden()

    design_kit.locator("input").check()
    page.locator("#choice input[name=alternative][value=Better]").check()
    better_kit.wait_for(state="visible")
    assert design_kit.is_hidden()
    assert not design_kit.locator("input").is_checked()  # another configuration's kit: left out
    better_kit.locator("input").check()
    page.locator(f'#choice input[name=optional][value="{locker.key}"]').check()
    page.wait_for_function(
        "t => document.querySelector('#choice').getAttribute('data-total') === t",
        arg=f"{chosen.total:.2f}",
    )
    assert page.locator(".choice-error").is_hidden()
    assert_no_serious_axe_violations(page)
    context.close()
    assert violations == [] and errors == []


@pytest.mark.parametrize(
    ("language", "before", "after"),
    [("en", "1 offered", "2 offered"), ("zh-hans", "可选 1 项", "可选 2 项")],
)
def test_the_offered_count_follows_the_option_picked(
    live_server, browser, make_user, language, before, after
):
    """Only "Better" has a kit (the proposed design's taken off): as quoted the locker alone
    can be ticked, with "Better" its kit too; the fold's count says so."""
    world = world_make(make_user)
    quote = quote_with_kits(world)
    quote.current_revision.lines.filter(origin=LineOrigin.SPARES_KIT, alternative_group="").delete()
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    _, token = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei")

    context = browser.new_context(locale="zh-CN" if language != "en" else "en-US")
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors = console_errors(page)
    page.goto(f"{live_server.url}/p/{token}?lang={language}")
    count = page.locator("#choice [data-offered-count]")
    assert count.inner_text() == before
    page.locator("#choice input[name=alternative][value=Better]").check()
    page.wait_for_function(
        "t => document.querySelector('#choice [data-offered-count]').textContent === t", arg=after
    )
    page.locator("#choice input[name=alternative][value='']").check()
    assert count.inner_text() == before
    context.close()
    assert errors == []

"""The customer chooses on the link (#15 item 2), in headless Chromium on a desk and a phone:
they pick the "Better" alternative and include an optional item, the total on the page changes
to the server's figure for that choice (the page's script only shows it), they accept; the sales
engineer's quote page shows what they chose beside the quote as sent."""

from __future__ import annotations

import pytest

from proposals.models import Acceptance
from proposals.share.services import share_link_create
from quoting.quotes.selectors import offer_choice
from tests.browser.conftest import accept_as_li_wei, assert_no_serious_axe_violations, csp_watch
from tests.proposals.choice_world import optional_line, quote_with_choices
from tests.quoting.factories import world_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


DESK, PHONE = {"width": 1440, "height": 900}, {"width": 390, "height": 844}


def _money(amount) -> str:
    return f"{amount:,.2f} CNY"


@pytest.mark.parametrize("viewport", [DESK, PHONE], ids=["1440x900", "390x844"])
def test_the_customer_chooses_better_and_an_optional_item_and_sales_sees_it(
    live_server, browser, sign_in, make_user, viewport
):
    world = world_make(make_user)
    quote = quote_with_choices(world)
    revision = quote.current_revision
    optics = optional_line(quote, "Spare optics kit")
    chosen = offer_choice(
        revision=revision, alternative="Better", optional_keys=[str(optics.key)]
    ).totals
    better = offer_choice(revision=revision, alternative="Better").totals
    _, token = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei")

    customer = browser.new_context(viewport=viewport, locale="en-US")
    page = customer.new_page()
    page.set_default_timeout(30_000)
    violations = csp_watch(page)
    page.goto(f"{live_server.url}/p/{token}?lang=en")
    total = page.locator("#choice-total")
    assert total.inner_text() == _money(revision.total)
    assert page.locator("button.recalculate").is_hidden()  # the script follows each change

    page.get_by_label("Better").check()
    page.wait_for_function(
        "t => document.querySelector('#choice-total').textContent === t", arg=_money(better.total)
    )
    page.get_by_label("Spare optics kit").check()
    page.wait_for_function(
        "t => document.querySelector('#choice-total').textContent === t", arg=_money(chosen.total)
    )
    assert page.locator(".offer-total").inner_text() == _money(chosen.total)
    assert page.locator("[data-figure=tax]").inner_text() == _money(chosen.tax)
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    assert_no_serious_axe_violations(page)

    accept_as_li_wei(page, submit="#accept-form button[type=submit]:not(.recalculate)")
    page.wait_for_selector("text=we have received your answer")
    customer.close()
    assert violations == []

    acceptance = Acceptance.objects.get()
    assert (acceptance.chosen_alternative, acceptance.chosen_optional) == (
        "Better",
        [str(optics.key)],
    )
    assert acceptance.total == chosen.total

    staff = sign_in("wang")
    staff.set_viewport_size(viewport)
    staff.goto(f"{live_server.url}/quotes/{quote.pk}/")
    staff.wait_for_selector("#chosen-configuration")
    shown = staff.locator("#chosen-configuration")
    assert shown.locator("[data-chosen=alternative]").inner_text() == "Better"
    assert "Spare optics kit" in shown.locator("[data-chosen=optional]").inner_text()
    assert _money(chosen.total) in shown.locator("[data-chosen=total]").inner_text()
    assert f"{revision.total:,.2f}" in shown.inner_text()  # the quote as sent, beside it


def test_without_script_recalculate_shows_the_choices_totals_and_accept_keeps_it(
    live_server, browser, make_user
):
    world = world_make(make_user)
    quote = quote_with_choices(world)
    best = offer_choice(revision=quote.current_revision, alternative="Best").totals
    _, token = share_link_create(quote=quote, user=world.sales)

    customer = browser.new_context(viewport=PHONE, java_script_enabled=False)
    page = customer.new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{live_server.url}/p/{token}?lang=en")
    page.get_by_label("Best").check()
    page.click("button.recalculate")
    page.wait_for_url("**/accept?lang=en")
    assert page.locator("#choice-total").inner_text() == _money(best.total)
    assert page.get_by_label("Best").is_checked()
    page.fill("#id_name", "Li Wei")  # the accept form is open, as it was filled in
    page.check("#id_agreed")
    page.click("#accept-form button[type=submit]:not(.recalculate)")
    page.wait_for_selector("text=we have received your answer")
    customer.close()
    assert Acceptance.objects.get().total == best.total


def test_sales_tick_a_line_optional_on_the_quote_page(live_server, make_user, sign_in):
    world = world_make(make_user)
    quote = quote_with_choices(world, send=False)
    staff = sign_in("wang")
    staff.goto(f"{live_server.url}/quotes/{quote.pk}/")
    installation = quote.current_revision.lines.get(description="Installation")
    staff.check(f"[data-line-optional='{installation.pk}']")
    staff.wait_for_function(
        "pk => document.querySelector(`[data-line-optional='${pk}']`)"
        "?.closest('.table-wrap').previousElementSibling.textContent === 'Optional items'",
        arg=installation.pk,
    )
    installation.refresh_from_db()
    assert installation.section == "optional"

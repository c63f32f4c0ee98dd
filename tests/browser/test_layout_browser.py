"""Pages fit a 1440 px desk screen: nothing runs off to the right, in English or Chinese."""

from __future__ import annotations

import pytest

from tests.browser.conftest import sign_in_as
from tests.browser.worlds import DESK, design_page_open, quote_page_open, speaking
from tests.proposals.choice_world import quote_with_choices
from tests.quoting.factories import world_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The page's width, and the outermost elements whose right edge runs past the window.
_OVERFLOW = """() => {
  const width = window.innerWidth, past = el => el.getBoundingClientRect().right > width + 1;
  const out = [...document.querySelectorAll('body *')]
    .filter(el => el.getBoundingClientRect().width && past(el) && !past(el.parentElement))
    .map(el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + ' ' + el.className);
  return {scroll: document.scrollingElement.scrollWidth, inner: width, out: out.slice(0, 12)};
}"""


def assert_no_horizontal_overflow(page) -> None:
    measured = page.evaluate(_OVERFLOW)
    assert measured["scroll"] <= measured["inner"], measured


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_design_page_with_its_results_and_bill_of_materials_fits_a_desk_screen(
    live_server, page, make_user, seeded, language
):
    design_page_open(page, live_server.url, make_user, language=language)
    assert_no_horizontal_overflow(page)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_quote_with_a_proposal_and_a_share_link_fits_a_desk_screen(
    live_server, page, make_user, seeded, language
):
    quote_page_open(page, live_server.url, make_user, language=language)
    assert_no_horizontal_overflow(page)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_quote_with_alternatives_fits_a_desk_screen_with_its_options_in_the_main_column(
    live_server, page, make_user, seeded, language
):
    world = world_make(make_user)
    speaking(world.sales, language)
    quote = quote_with_choices(world, send=False)
    page.set_viewport_size(DESK)
    sign_in_as(page, live_server.url, "wang")
    page.goto(f"{live_server.url}/quotes/{quote.pk}/")
    page.wait_for_selector("#quote-alternatives table")
    assert page.locator(".quote-main #quote-alternatives").count() == 1
    assert page.locator(".quote-side #quote-alternatives").count() == 0
    assert_no_horizontal_overflow(page)

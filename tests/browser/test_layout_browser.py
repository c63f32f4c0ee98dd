"""Pages fit a 1440 px desk screen: nothing runs off to the right, in English or Chinese."""

from __future__ import annotations

import pytest
from django.utils import translation
from django.utils.translation import gettext

from tests.browser.conftest import (
    assert_no_serious_axe_violations,
    console_errors,
    sign_in_as,
)
from tests.browser.worlds import DESK, DeskPages, design_page_open, quote_page_open, speaking

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def desk(shared_world, catalog_snapshot):
    """One world for the module's tests, which only read its pages (`DeskPages`)."""
    return DeskPages(catalog_snapshot)


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
    shared_world, desk, page, language
):
    design_page_open(page, shared_world, desk, language=language)
    assert_no_horizontal_overflow(page)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_quote_with_a_proposal_and_a_share_link_fits_a_desk_screen(
    shared_world, desk, page, language
):
    quote_page_open(page, shared_world, desk, language=language)
    assert_no_horizontal_overflow(page)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_quote_with_alternatives_fits_a_desk_screen_with_its_options_in_the_main_column(
    shared_world, desk, page, language
):
    speaking(desk.world.sales, language)
    quote = desk.choices()
    page.set_viewport_size(DESK)
    sign_in_as(page, shared_world, "wang")
    page.goto(f"{shared_world}/quotes/{quote.pk}/")
    page.wait_for_selector("#quote-alternatives table")
    assert page.locator(".quote-main #quote-alternatives").count() == 1
    assert page.locator(".quote-side #quote-alternatives").count() == 0
    assert_no_horizontal_overflow(page)
    assert_no_serious_axe_violations(page, context="#quote-alternatives")


PHONE = {"width": 390, "height": 844}


def assert_within_the_screen(page, selector: str) -> None:
    """The element can be scrolled to and lies across the screen's width, not past its edge."""
    element = page.locator(selector).first
    element.scroll_into_view_if_needed()
    box = element.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_staff_quote_page_fits_a_phone_its_tables_scrolling_in_their_own_frames(
    shared_world, desk, page, language
):
    speaking(desk.world.sales, language)
    quote = desk.choices()
    page.set_viewport_size(PHONE)
    sign_in_as(page, shared_world, "wang")
    page.goto(f"{shared_world}/quotes/{quote.pk}/")
    page.wait_for_selector("#quote-alternatives table")
    assert_no_horizontal_overflow(page)
    for selector in ("#quote-actions button[type=submit]", "#quote-totals", "#picker-q"):
        assert_within_the_screen(page, selector)
    # No column is hidden on a phone (#27): the lines' unit price and the options' difference
    # are there, reached by scrolling their table's own frame sideways.
    with translation.override(language):
        unit_price, difference = gettext("Unit price"), gettext("Difference")
    for heading in (
        page.locator("#quote-lines th", has_text=unit_price).first,
        page.locator("#quote-alternatives th", has_text=difference).first,
    ):
        assert heading.evaluate("th => getComputedStyle(th).display") == "table-cell"
        heading.scroll_into_view_if_needed()
        assert heading.is_visible()
        box = heading.bounding_box()
        assert box["width"] > 0 and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_managers_approval_page_fits_a_phone_with_approve_and_reject_at_hand(
    shared_world, desk, page, language
):
    errors = console_errors(page)
    speaking(desk.world.manager, language)
    quote = desk.awaiting_approval()
    page.set_viewport_size(PHONE)
    sign_in_as(page, shared_world, "zhao")
    page.goto(f"{shared_world}/quotes/{quote.pk}/")
    page.wait_for_selector("#decide-form")
    assert_no_horizontal_overflow(page)
    for selector in ("#decision-reason", "#decide-form .primary", "#decide-form [formaction]"):
        assert_within_the_screen(page, selector)
    assert errors == []


def test_a_sent_quote_with_its_proposal_share_links_and_tco_fits_a_phone(shared_world, desk, page):
    quote_page_open(page, shared_world, desk, language="zh-hans")
    page.set_viewport_size(PHONE)
    assert_no_horizontal_overflow(page)

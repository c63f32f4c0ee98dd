"""Pages fit a 1440 px desk screen: nothing runs off to the right, in English or Chinese."""

from __future__ import annotations

import pytest

from proposals.models import LinkView
from proposals.services import proposal_request, share_link_create
from tests.proposals.conftest import quote_rich
from tests.quoting.factories import world_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESK = {"width": 1440, "height": 900}

# The page's width, and the outermost elements whose right edge runs past the window.
_OVERFLOW = """() => {
  const width = window.innerWidth, past = el => el.getBoundingClientRect().right > width + 1;
  const out = [...document.querySelectorAll('body *')]
    .filter(el => el.getBoundingClientRect().width && past(el) && !past(el.parentElement))
    .map(el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + ' ' + el.className);
  return {scroll: document.scrollingElement.scrollWidth, inner: width, out: out.slice(0, 12)};
}"""


def page_width(page) -> dict:
    return page.evaluate(_OVERFLOW)


def assert_no_horizontal_overflow(page) -> None:
    measured = page_width(page)
    assert measured["scroll"] <= measured["inner"], measured


def _speaking(user, language: str) -> None:
    user.language = language
    user.save()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_design_page_with_its_results_and_bill_of_materials_fits_a_desk_screen(
    live_server, page, sign_in, make_user, seeded, language
):
    world = world_make(make_user)
    _speaking(world.sales, language)
    page.set_viewport_size(DESK)
    sign_in("wang")
    page.goto(f"{live_server.url}/designs/new/?project={world.project.pk}")
    page.wait_for_selector("#design-results table")
    page.wait_for_selector("#design-tco table, #design-tco .error-box", timeout=30_000)
    assert_no_horizontal_overflow(page)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_quote_with_a_proposal_and_a_share_link_fits_a_desk_screen(
    live_server, page, sign_in, make_user, seeded, language
):
    world = world_make(make_user)
    _speaking(world.sales, language)
    quote = quote_rich(world, language=language)
    proposal_request(revision=quote.current_revision, user=world.sales)
    link, _ = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei",
                                recipient_email="li.wei@pengcheng-university.example.cn")
    LinkView.objects.create(link=link, revision_label="R1",
                            browser="Chrome Mobile", os="Android", is_mobile=True)
    page.set_viewport_size(DESK)
    sign_in("wang")
    page.goto(f"{live_server.url}/quotes/{quote.pk}/")
    page.wait_for_selector("#proposal-panel .share-links")
    page.wait_for_selector("#proposal-panel [data-status=ready]", timeout=60_000)
    page.wait_for_selector("#design-tco table, #design-tco .error-box", timeout=30_000)
    assert_no_horizontal_overflow(page)

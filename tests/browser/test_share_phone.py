"""The customer's share page in headless Chromium, on a desk (1440x900) and a phone (390x844), in
English and Chinese (issue 14): the offer and its answer come first, tables become cards on the
phone and nothing scrolls sideways, the drawing opens full size, the reader switches language and
downloads the PDF in it, and axe-core finds nothing serious. The tests only read the offer, built
once for them; declining it and the seller's contacts are in test_share_phone_answer_browser.py."""

from __future__ import annotations

import pytest

from proposals.share.services import share_link_create
from tests.browser.conftest import assert_no_serious_axe_violations, csp_watch
from tests.conftest import catalog_seed, user_make
from tests.proposals.conftest import quote_rich
from tests.quoting.factories import world_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESK, PHONE = {"width": 1440, "height": 900}, {"width": 390, "height": 844}


def offer_make(world):
    """(quote, token) of a quote made from a real design, with TCO and support, shared."""
    quote = quote_rich(world, language="zh-hans")
    _, token = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei")
    return quote, token


@pytest.fixture(scope="module")
def shared(shared_world, catalog_snapshot):
    """The offer the module's reading tests open, built once for them (its PDFs rendered)."""
    catalog_seed(catalog_snapshot)
    return offer_make(world_make(user_make))


@pytest.fixture
def open_page(browser, shared_world):
    contexts = []

    def open_page(path: str, viewport: dict):
        context = browser.new_context(viewport=viewport, accept_downloads=True)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.csp_violations = csp_watch(page)
        page.goto(f"{shared_world}{path}")
        return page

    yield open_page
    for context in contexts:
        context.close()


def _overflow(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("viewport", [DESK, PHONE], ids=["1440x900", "390x844"])
def test_the_share_page_puts_the_offer_first_fits_the_screen_and_passes_axe(
    shared, open_page, language, viewport
):
    quote, token = shared
    page = open_page(f"/p/{token}?lang={language}", viewport)

    assert page.evaluate("document.documentElement.lang") == language
    assert _overflow(page) <= 0, "the page scrolls sideways"
    # The total and the answer are on the first screen, before the document.
    for selector in (".offer-total", "#accept summary", "#decline summary"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["y"] + box["height"] <= viewport["height"], selector
    assert_no_serious_axe_violations(page)
    assert page.csp_violations == []


def test_on_a_phone_every_line_is_a_card_that_names_its_values(shared, open_page):
    _, token = shared
    page = open_page(f"/p/{token}?lang=en", PHONE)
    cells = page.locator("section.bom table.lines tbody tr").first.locator("td")
    assert (
        page.locator("section.bom table.lines tbody tr").first.evaluate(
            "row => getComputedStyle(row).display"
        )
        == "flex"
    )
    labels = [cells.nth(i).get_attribute("data-label") for i in range(cells.count())]
    assert "Amount" in labels and "Unit price" in labels
    # No table is wider than the screen: nothing to scroll sideways, nothing out of reach.
    widest = page.evaluate(
        "Math.max(...[...document.querySelectorAll('table')].map(t => t.scrollWidth))"
    )
    assert widest <= PHONE["width"]
    height = page.evaluate("document.documentElement.scrollHeight")
    print(f"phone page height: {height} px")  # reported by the lead's note; not asserted


def test_the_drawing_opens_full_size(shared, open_page):
    _, token = shared
    page = open_page(f"/p/{token}?lang=en", PHONE)
    page.click("figure.drawing figcaption a")
    page.wait_for_url(f"**/p/{token}/drawing?lang=en")
    image = page.locator(".drawing-full img")
    image.wait_for()
    page.wait_for_function("document.querySelector('.drawing-full img').complete")
    natural, shown = image.evaluate("i => [i.naturalWidth, i.getBoundingClientRect().width]")
    assert natural > PHONE["width"] and shown == pytest.approx(natural, abs=1)
    assert page.csp_violations == []


def test_the_reader_switches_to_chinese_and_downloads_the_chinese_pdf(shared, open_page):
    _, token = shared
    page = open_page(f"/p/{token}?lang=en", DESK)
    page.click("nav.languages a[lang=zh-hans]")
    page.wait_for_function("document.documentElement.lang === 'zh-hans'")
    assert page.locator("nav.languages a[aria-current]").inner_text() == "中文"
    # No waiting: the send rendered the PDF in each language (eager workers, on its commit).
    with page.expect_download() as download:
        page.click("#download-pdf")
    assert download.value.suggested_filename.endswith("-zh-hans.pdf")


def test_on_a_phone_the_proposal_folds_its_assumptions_and_lists_cost_per_gpu_hour(
    shared, open_page
):
    _, token = shared
    page = open_page(f"/p/{token}?lang=en", PHONE)
    # The richest quote the tests build (a design, its TCO with charts, support): 13,097 px
    # with the charts and the assumptions open, 8,445 px folded and listed (with the sticky bar),
    # under 5,000 px with its bill of materials folded by section (#27 item 5).
    height = page.evaluate("document.documentElement.scrollHeight")
    print(f"quote_rich, en, 390x844: {height} px")  # the lead's before/after
    assert height <= 6_000
    assert page.locator("details.assumptions-fold").evaluate("d => d.open") is False
    assert page.locator("section.tco figure.chart").first.is_hidden()
    per_hour = page.locator("section.tco .tco-per-hour")
    assert per_hour.is_visible() and per_hour.locator("li").count() == 2
    assert _overflow(page) <= 0

    desk = open_page(f"/p/{token}?lang=en", DESK)
    assert desk.locator("section.tco figure.chart").first.is_visible()
    assert desk.locator("section.tco .tco-per-hour").is_hidden()


def test_on_a_phone_the_total_and_accept_stay_at_the_foot_of_the_screen_until_the_form_opens(
    shared, open_page
):
    _, token = shared
    page = open_page(f"/p/{token}?lang=en", PHONE)
    bar = page.locator(".sticky-answer")
    page.locator("section.bom").scroll_into_view_if_needed()
    box = bar.bounding_box()
    assert box is not None and abs(box["y"] + box["height"] - PHONE["height"]) <= 1, box
    assert (
        bar.locator("[data-figure=total]").inner_text() == page.locator(".offer-total").inner_text()
    )

    bar.locator("a.button").click()
    page.click("#accept summary")
    assert bar.is_hidden(), "the open form's fields are never under the bar"
    assert page.locator("#id_name").is_visible()

    desk = open_page(f"/p/{token}?lang=en", DESK)
    assert desk.locator(".sticky-answer").is_hidden()

"""axe-core finds nothing serious or critical on the design and quote pages, in both languages."""

from __future__ import annotations

from contextlib import suppress

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import assert_no_serious_axe_violations
from tests.browser.worlds import DeskPages, design_page_open, quote_page_open

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def desk(shared_world, catalog_snapshot):
    """One world for the module's tests, which only read its pages (`DeskPages`)."""
    return DeskPages(catalog_snapshot)


# axe only flags these for review: an aria-describedby naming a missing element (a help text
# rendered without its id) describes nothing to a screen reader.
_DANGLING_REFERENCES = """() => {
  const missing = [];
  for (const el of document.querySelectorAll('[aria-describedby], [aria-labelledby]')) {
    for (const name of ['aria-describedby', 'aria-labelledby']) {
      for (const id of (el.getAttribute(name) || '').split(/\\s+/)) {
        if (id && !document.getElementById(id)) missing.push(`${el.id} ${name}=${id}`);
      }
    }
  }
  return missing;
}"""


# A table too wide for its box scrolls in its .table-wrap, which portal.js makes reachable.
_TABLES_SETTLED = """() => [...document.querySelectorAll('.table-wrap, .drawing, .elevations')]
  .every(wrap => wrap.scrollWidth <= wrap.clientWidth + 1 || wrap.tabIndex === 0)"""


def assert_accessible(page) -> None:
    """At a desk, then on a small laptop and a phone, where tables scroll sideways."""
    assert_no_serious_axe_violations(page)
    assert page.evaluate(_DANGLING_REFERENCES) == []
    for size in ({"width": 1024, "height": 768}, {"width": 390, "height": 844}):
        page.set_viewport_size(size)
        with suppress(PlaywrightTimeout):  # axe then names the table the keyboard cannot reach
            page.wait_for_function(_TABLES_SETTLED, timeout=3_000)
        assert_no_serious_axe_violations(page)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_design_page_has_no_serious_accessibility_violations(
    shared_world, desk, page, language
):
    design_page_open(page, shared_world, desk, language=language)
    assert_accessible(page)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_quote_page_has_no_serious_accessibility_violations(shared_world, desk, page, language):
    quote_page_open(page, shared_world, desk, language=language)
    assert_accessible(page)

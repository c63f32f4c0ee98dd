"""axe-core finds nothing serious or critical on the design and quote pages, in both languages."""

from __future__ import annotations

import pytest

from tests.browser.conftest import assert_no_serious_axe_violations
from tests.browser.worlds import design_page_open, quote_page_open

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

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


def assert_accessible(page) -> None:
    assert_no_serious_axe_violations(page)
    assert page.evaluate(_DANGLING_REFERENCES) == []


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_design_page_has_no_serious_accessibility_violations(
    live_server, page, make_user, seeded, language
):
    design_page_open(page, live_server.url, make_user, language=language)
    assert_accessible(page)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_quote_page_has_no_serious_accessibility_violations(
    live_server, page, make_user, seeded, language
):
    quote_page_open(page, live_server.url, make_user, language=language)
    assert_accessible(page)

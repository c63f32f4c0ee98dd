"""No page logs an error to the browser's console (#27): the design page's live update swaps
every out-of-band fragment into a target the page has."""

from __future__ import annotations

import pytest

from tests.browser.conftest import console_errors, design_tco_loaded
from tests.browser.worlds import DeskPages, design_page_open

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_design_page_logs_no_console_error_through_a_live_update(
    shared_world, catalog_snapshot, page
):
    errors = console_errors(page)
    design_page_open(page, shared_world, DeskPages(catalog_snapshot), language="en")
    with page.expect_response(lambda response: "/designs/new/" in response.url):
        page.fill("#id_server_count", "32")
    page.wait_for_selector("#design-results table")
    design_tco_loaded(page)
    assert errors == []

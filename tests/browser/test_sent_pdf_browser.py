"""In Chromium: a sales engineer previews the draft of the next revision, edits it and sends it;
the customer's PDF and the signed copy show the revision as sent (its new line and total), and
neither says "Draft"."""

from __future__ import annotations

import io

import pytest
from django.template.defaultfilters import floatformat
from pypdf import PdfReader

from proposals.share.services import share_link_create
from quoting.quotes.models import QuoteRevision
from quoting.quotes.services.quotes import quote_add_free_text, quote_revise, quote_send
from tests.browser.conftest import accept_as_li_wei
from tests.proposals.conftest import quote_sent
from tests.quoting.factories import world_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DRAFT_MARK = "Draft — not an offer"


def _pages(data: bytes) -> list[str]:
    assert data.startswith(b"%PDF")
    return [
        " ".join((page.extract_text() or "").split()) for page in PdfReader(io.BytesIO(data)).pages
    ]


def _download(page, click) -> bytes:
    with page.expect_download() as download:
        click()
    return open(download.value.path(), "rb").read()  # noqa: PTH123 - Playwright's temp file


def test_a_previewed_draft_edited_and_sent_reaches_the_customer_and_the_signed_copy_as_sent(
    live_server, browser, sign_in, make_user
):
    world = world_make(make_user)
    world.customer.language = "en"
    world.customer.save()
    quote = quote_sent(world)
    _, token = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei")
    quote_revise(quote=quote, user=world.sales, expected_version=quote.version)

    staff = sign_in("wang")
    staff.set_default_timeout(60_000)
    staff.goto(f"{live_server.url}/quotes/{quote.pk}/proposal/")
    staff.select_option("#proposal-language", "en")
    staff.click("#proposal-panel button:has-text('Generate proposal')")
    staff.wait_for_selector("#proposal-panel [data-status=ready]")
    assert "Draft preview" in staff.locator("#proposal-panel .proposal-doc").first.inner_text()
    preview = _pages(
        _download(
            staff, lambda: staff.click("#proposal-panel .proposal-doc a:has-text('Download PDF')")
        )
    )
    assert len(preview) > 1 and all(DRAFT_MARK in text for text in preview)

    quote.refresh_from_db()
    quote_add_free_text(
        quote=quote,
        description="NCCL tuning and acceptance run",
        quantity=1,
        unit_price="65088.00",
        user=world.sales,
        expected_version=quote.version,
    )
    quote.refresh_from_db()
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    sent = QuoteRevision.objects.get(pk=quote.current_revision_id)
    total = floatformat(sent.total, "2g")

    staff.reload()
    staff.wait_for_selector("#proposal-panel [data-status=retired]")

    customer = browser.new_context(accept_downloads=True)
    page = customer.new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{live_server.url}/p/{token}?lang=en")
    page.wait_for_selector("#download-pdf")
    offer = " ".join(_pages(_download(page, lambda: page.click("#download-pdf"))))
    assert "NCCL tuning and acceptance run" in offer and total in offer
    assert DRAFT_MARK not in offer

    accept_as_li_wei(page)
    page.wait_for_selector("a.signed-copy")
    signed = " ".join(_pages(_download(page, lambda: page.click("a.signed-copy"))))
    assert "NCCL tuning and acceptance run" in signed and total in signed
    assert DRAFT_MARK not in signed
    customer.close()

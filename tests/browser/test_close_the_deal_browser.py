"""Issue 15's proof, end to end in headless Chromium on a desk and a phone: the customer opens
the link, chooses the "Better" alternative, includes an optional item, signs with the mouse on
the canvas, gives a PO number and fapiao details and accepts. The sales user sees the choice and
the acceptance; the signed copy verifies (its first pages are the original's, its certificate
names the original's SHA-256 and the chosen options); the webhook carries the fields."""

from __future__ import annotations

import io
from unittest import mock

import pytest
from pypdf import PdfReader

from integrations.models import WebhookDelivery, WebhookEndpoint
from integrations.webhooks import webhook_secret_new
from proposals.documents.pdf import signed_copy_verify
from proposals.models import Acceptance, DocumentStatus, ProposalDocument
from proposals.share.services import share_link_create
from quoting.quotes.models import QuoteStatus
from quoting.quotes.selectors import offer_choice
from tests.browser.conftest import assert_no_serious_axe_violations, csp_watch
from tests.browser.test_signature_browser import CREDIT_CODE, _sign_with_the_mouse
from tests.proposals.choice_world import optional_line, quote_with_choices
from tests.quoting.factories import quote_reload, world_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESK, PHONE = {"width": 1440, "height": 900}, {"width": 390, "height": 844}


@pytest.mark.parametrize("viewport", [DESK, PHONE], ids=["1440x900", "390x844"])
def test_choose_sign_give_purchase_details_accept_and_everyone_sees_the_same_deal(
    live_server, browser, sign_in, make_user, viewport
):
    world = world_make(make_user)
    quote = quote_with_choices(world)
    revision = quote.current_revision
    optics = optional_line(quote, "Spare optics kit")
    chosen = offer_choice(
        revision=revision, alternative="Better", optional_keys=[str(optics.key)]
    ).totals
    _, token = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei")
    with mock.patch("integrations.webhooks.enqueue_or_leave_to_sweeper"):  # written, never sent
        WebhookEndpoint.objects.create(
            url="http://127.0.0.1:9/hook",
            secret=webhook_secret_new(),
            events=["quote.accepted", "quote.signed_copy_ready"],
            created_by=world.sales,
        )

        context = browser.new_context(viewport=viewport, timezone_id="Asia/Shanghai")
        page = context.new_page()
        page.set_default_timeout(30_000)
        errors = csp_watch(page, page_errors=True)
        page.goto(f"{live_server.url}/p/{token}?lang=en")

        page.get_by_label("Better").check()
        page.get_by_label("Spare optics kit").check()
        page.wait_for_function(
            "t => document.querySelector('#choice-total').textContent === t",
            arg=f"{chosen.total:,.2f} CNY",
        )
        page.click("#accept summary")
        page.fill("#id_name", "Li Wei")
        page.fill("#id_title", "CTO")
        page.fill("#id_company", "Pengcheng University")
        page.check("#id_signature_drawn")
        _sign_with_the_mouse(page)
        page.fill("#id_po_number", "PO-2026/0042")
        page.fill("#id_invoice_company", "鹏城实验室")
        page.fill("#id_invoice_tax_id", CREDIT_CODE)
        page.fill("#id_invoice_address_phone", "深圳市南山区 0755-1234")
        page.fill("#id_invoice_bank_account", "招商银行 6225 0000 1234")
        page.check("#id_agreed")
        page.click("#accept-form button[type=submit]:not(.recalculate)")
        page.wait_for_selector("text=we have received your answer")
        # The page now restates what was accepted: the choice and its total, not the offer as sent
        assert page.text_content("#accepted [data-accepted=alternative]") == "Better"
        assert "Spare optics kit" in page.text_content("#accepted [data-accepted=optional]")
        assert page.text_content(".offer-total") == f"{chosen.total:,.2f} CNY"
        assert_no_serious_axe_violations(page)
        with page.expect_download() as download:
            page.click("a.signed-copy")
        signed = download.value.path().read_bytes()
        context.close()
    assert errors == [], errors

    # What was recorded: the choice, its totals, the signature, the purchase details
    assert quote_reload(quote).status == QuoteStatus.ACCEPTED
    a = Acceptance.objects.get()
    assert (a.chosen_alternative, a.chosen_optional, a.total) == (
        "Better",
        [str(optics.key)],
        chosen.total,
    )
    assert (a.signature_kind, a.po_number, a.invoice_tax_id) == (
        "drawn",
        "PO-2026/0042",
        CREDIT_CODE,
    )

    # The signed copy: the original's pages unchanged, then a certificate naming its SHA-256
    original = ProposalDocument.objects.get(
        revision=revision, language="en", status=DocumentStatus.READY
    )
    assert a.document_sha256 == original.sha256 and signed == bytes(a.signed_pdf)
    check = signed_copy_verify(original=bytes(original.pdf), signed=signed)
    assert check.ok, check.problems
    certificate = PdfReader(io.BytesIO(signed)).pages[-1].extract_text()
    for printed in (
        original.sha256,
        "Better",
        "Spare optics kit",
        "PO-2026/0042",
        CREDIT_CODE,
        f"{chosen.total:,.2f}",
    ):
        assert printed in certificate, printed

    # The webhook carries the same deal
    data = WebhookDelivery.objects.get(event_type="quote.accepted").payload["data"]
    accepted = data["acceptance"]
    assert accepted["chosen_alternative"] == "Better"
    assert [o["description"] for o in accepted["chosen_optional"]] == ["Spare optics kit"]
    assert data["totals"]["total"] == f"{chosen.total:.2f}"
    assert (accepted["document_sha256"], accepted["po_number"], accepted["invoice"]["tax_id"]) == (
        original.sha256,
        "PO-2026/0042",
        CREDIT_CODE,
    )
    ready = WebhookDelivery.objects.get(event_type="quote.signed_copy_ready").payload["data"]
    assert ready["acceptance"]["signed_sha256"] == a.signed_sha256

    # The sales user sees the choice and the acceptance
    staff = sign_in("wang")
    staff.set_viewport_size(viewport)
    staff.goto(f"{live_server.url}/quotes/{quote.pk}/")
    staff.wait_for_selector("#chosen-configuration")
    choice = staff.locator("#chosen-configuration")
    assert choice.locator("[data-chosen=alternative]").inner_text() == "Better"
    assert "Spare optics kit" in choice.locator("[data-chosen=optional]").inner_text()
    panel = staff.locator("#acceptance").inner_text()
    for shown in ("Li Wei", "PO-2026/0042", CREDIT_CODE, original.sha256):
        assert shown in panel, shown

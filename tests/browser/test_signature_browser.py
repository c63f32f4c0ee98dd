"""Issue 15 in headless Chromium, on a desk and a phone: the customer signs with the mouse on
the canvas (an empty box is refused first), gives a PO number and fapiao details, accepts; the
signed copy verifies against the PDF they could download; the sales user sees the acceptance on
the quote page (signature image, PDF hash, purchase details)."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess

import pytest
from PIL import Image

from proposals.documents.pdf import signed_copy_verify
from proposals.models import Acceptance, DocumentStatus, ProposalDocument
from proposals.share.services import share_link_create
from quoting.quotes.models import QuoteStatus
from tests.browser.conftest import assert_no_serious_axe_violations, csp_watch
from tests.proposals.conftest import quote_sent
from tests.quoting.factories import quote_reload, world_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESK, PHONE = {"width": 1440, "height": 900}, {"width": 390, "height": 844}
CREDIT_CODE = "91110000600037341L"
# Set to a file name to keep a picture of the certificate page (needs pdftoppm): for a review.
CERTIFICATE_PNG = os.environ.get("SIGN_CERTIFICATE_PNG", "")


def _sign_with_the_mouse(page) -> None:
    page.locator("#signature-pad").scroll_into_view_if_needed()
    box = page.locator("#signature-pad").bounding_box()
    x, y, w, h = box["x"], box["y"], box["width"], box["height"]
    page.mouse.move(x + w * 0.1, y + h * 0.7)
    page.mouse.down()
    for fx, fy in ((0.2, 0.25), (0.3, 0.75), (0.42, 0.3), (0.55, 0.7), (0.7, 0.35), (0.85, 0.6)):
        page.mouse.move(x + w * fx, y + h * fy, steps=6)
    page.mouse.up()


@pytest.mark.parametrize("viewport", [DESK, PHONE], ids=["1440x900", "390x844"])
def test_the_customer_signs_on_the_canvas_and_sales_see_the_acceptance(
    live_server, browser, sign_in, make_user, viewport
):
    world = world_make(make_user)
    world.customer.language = "en"
    world.customer.save()  # a mainland customer (VAT zone China): the fapiao block shows
    quote = quote_sent(world)
    _, token = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei")

    context = browser.new_context(viewport=viewport, timezone_id="Asia/Shanghai")
    page = context.new_page()
    page.set_default_timeout(30_000)
    violations = csp_watch(page, page_errors=True)
    page.goto(f"{live_server.url}/p/{token}?lang=en")

    page.click("#accept summary")
    page.fill("#id_name", "Li Wei")
    page.fill("#id_title", "CTO")
    page.fill("#id_company", "Pengcheng University")
    page.check("#id_signature_drawn")
    assert page.locator("#signature-pad").is_visible()
    assert not page.locator("#id_signature_text").is_visible()
    assert_no_serious_axe_violations(page)  # the open form, signature box and fapiao block
    page.check("#id_agreed")
    page.click("#accept button[type=submit]")  # nothing drawn yet: refused in the page
    assert "Draw your signature" in page.locator("#signature-error").inner_text()
    assert Acceptance.objects.count() == 0

    _sign_with_the_mouse(page)
    assert page.input_value("#id_signature_data").startswith("data:image/png;base64,")
    page.fill("#id_po_number", "PO-2026/0042")
    page.fill("#id_invoice_company", "鹏城实验室")
    page.fill("#id_invoice_tax_id", CREDIT_CODE)
    page.fill("#id_invoice_address_phone", "深圳市南山区 0755-1234")
    page.fill("#id_invoice_bank_account", "招商银行 6225 0000 1234")
    page.click("#accept button[type=submit]")
    page.wait_for_selector("text=we have received your answer")
    with page.expect_download() as download:
        page.click("a.signed-copy")
    signed_download = download.value.path().read_bytes()
    context.close()
    assert violations == [], violations

    assert quote_reload(quote).status == QuoteStatus.ACCEPTED
    a = Acceptance.objects.get()
    assert (a.signature_kind, a.signer_timezone, a.po_number, a.invoice_tax_id) == (
        "drawn",
        "Asia/Shanghai",
        "PO-2026/0042",
        CREDIT_CODE,
    )
    signature = Image.open(io.BytesIO(bytes(a.signature_png)))
    assert signature.getchannel("A").getbbox() is not None  # the strokes are in it
    document = ProposalDocument.objects.get(
        revision=a.revision, language="en", status=DocumentStatus.READY
    )
    assert a.document_sha256 == document.sha256
    assert a.signed_status == DocumentStatus.READY and signed_download == bytes(a.signed_pdf)
    check = signed_copy_verify(original=bytes(document.pdf), signed=signed_download)
    assert check.ok, check.problems
    if viewport == DESK and CERTIFICATE_PNG and shutil.which("pdftoppm"):
        _certificate_png(signed_download, check.signed_pages)

    staff = sign_in("wang")
    staff.goto(f"{live_server.url}/quotes/{quote.pk}/")
    panel = staff.wait_for_selector("#acceptance")
    text = panel.inner_text()
    for shown in (
        "Li Wei",
        "CTO",
        "PO-2026/0042",
        "鹏城实验室",
        CREDIT_CODE,
        document.sha256,
        "Asia/Shanghai",
    ):
        assert shown in text, shown
    image = staff.locator("#acceptance img.signature")
    staff.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=image.element_handle()
    )
    assert staff.locator("#acceptance a[href$='/acceptance/signed.pdf']").count() == 1


def _certificate_png(signed: bytes, pages: int) -> None:
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        pdf = Path(folder) / "signed.pdf"
        pdf.write_bytes(signed)
        subprocess.run(  # noqa: S603 - a fixed program on our own file
            [
                "pdftoppm",
                "-png",
                "-r",
                "110",
                "-f",
                str(pages),
                "-l",
                str(pages),
                "-singlefile",
                str(pdf),
                str(Path(folder) / "certificate"),
            ],
            check=True,
            timeout=60,
        )
        shutil.copyfile(Path(folder) / "certificate.png", CERTIFICATE_PNG)


def test_a_finger_signs_on_a_touch_phone_and_confirms_the_emailed_code_in_chinese(
    live_server, browser, make_user
):
    """Touch events (as a phone's finger sends them, through Chromium's DevTools protocol)
    become pointer events the box draws with; the page does not scroll away meanwhile. The link
    names its recipient's e-mail: "E-mail me a code" brings the form back with the drawing in
    its box and the code's field focused, and the code from the e-mail accepts."""
    import base64

    from django.core import mail

    world = world_make(make_user)
    _, token = share_link_create(
        quote=quote_sent(world), user=world.sales, recipient_email="li.wei@pcl.example"
    )
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    violations = csp_watch(page)
    page.goto(f"{live_server.url}/p/{token}?lang=zh-hans")
    page.click("#accept summary")
    page.check("#id_signature_drawn")
    page.locator("#signature-pad").scroll_into_view_if_needed()
    box = page.locator("#signature-pad").bounding_box()
    scrolled = page.evaluate("window.scrollY")
    cdp = context.new_cdp_session(page)
    points = [(0.1, 0.7), (0.25, 0.2), (0.4, 0.75), (0.6, 0.25), (0.85, 0.6)]

    def touch(kind, fx=None, fy=None):
        at = (
            []
            if fx is None
            else [{"x": box["x"] + box["width"] * fx, "y": box["y"] + box["height"] * fy}]
        )
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": at})

    touch("touchStart", *points[0])
    for fx, fy in points[1:]:
        touch("touchMove", fx, fy)
    touch("touchEnd")
    value = page.input_value("#id_signature_data")
    assert page.evaluate("window.scrollY") == scrolled  # touch-action: none on the box

    assert value.startswith("data:image/png;base64,")
    png = Image.open(io.BytesIO(base64.b64decode(value.split(",", 1)[1])))
    assert png.getchannel("A").getbbox() is not None
    assert png.width <= 1600 and png.height <= 800

    # The code step, in Chinese, on the phone.
    assert "l***@pcl.example" in page.inner_text("#signer-code")
    page.fill("#id_name", "李伟")
    page.check("#id_agreed")
    page.click("button[name=send_code]")
    page.wait_for_selector("#signer-code [role=status]")
    assert "验证码已发送至 l***@pcl.example" in page.inner_text("#signer-code")
    assert page.evaluate("document.activeElement.id") == "id_signer_code"
    assert page.is_checked("#id_agreed") and page.is_checked("#id_signature_drawn")
    page.wait_for_function(  # the drawing back in its box, not to be drawn again
        "document.getElementById('id_signature_data').value.length > 0"
    )
    inked = page.evaluate(
        """() => { const c = document.getElementById('signature-pad');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        for (let i = 3; i < d.length; i += 4) { if (d[i]) { return true; } } return false; }"""
    )
    assert inked
    (sent,) = mail.outbox
    assert sent.subject.endswith("的签署验证码") and sent.to == ["li.wei@pcl.example"]
    code = re.search(r"^\s*(\d{6})\s*$", sent.body, re.MULTILINE).group(1)
    page.fill("#id_signer_code", code)
    page.click("#accept button.primary")
    page.wait_for_selector("[data-status=accepted]")
    context.close()

    acceptance = Acceptance.objects.get()
    assert acceptance.signer_email == "li.wei@pcl.example" and acceptance.signer_email_verified_at
    assert acceptance.signature_kind == "drawn"
    assert violations == []


@pytest.mark.parametrize("viewport", [DESK, PHONE], ids=["1440x900", "390x844"])
def test_a_typed_signature_is_previewed_as_it_will_be_stored(
    live_server, browser, make_user, viewport
):
    """While the name is typed the form shows the signature the server will store; a typed
    signature replaces the name in it; the preview is what the acceptance keeps."""
    from proposals.acceptance.signature import signature_typed_png

    world = world_make(make_user)
    _, token = share_link_create(quote=quote_sent(world), user=world.sales)
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.set_default_timeout(30_000)
    violations = csp_watch(page)
    page.goto(f"{live_server.url}/p/{token}?lang=en")
    page.click("#accept summary")
    page.fill("#id_name", "Li Wei")
    loaded = (
        "t => { const i = document.getElementById('signature-preview');"
        " return !i.hidden && i.complete && i.naturalWidth > 0 && i.src.endsWith(t); }"
    )
    page.wait_for_function(loaded, arg="?text=Li%20Wei")
    assert_no_serious_axe_violations(page)
    page.fill("#id_signature_text", "L. Wei")
    page.wait_for_function(loaded, arg="?text=L.%20Wei")
    shown = page.evaluate(
        "fetch(document.getElementById('signature-preview').src)"
        ".then(r => r.arrayBuffer()).then(b => Array.from(new Uint8Array(b)))"
    )
    page.check("#id_agreed")
    page.click("#accept-form button[type=submit]:not(.recalculate)")
    page.wait_for_selector("text=we have received your answer")
    context.close()

    assert violations == []
    stored = bytes(Acceptance.objects.get().signature_png)
    assert stored == bytes(shown) == signature_typed_png("L. Wei")

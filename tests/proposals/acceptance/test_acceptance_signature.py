"""Issue 15, items 1 and 3: the signature bound to the exact PDF, the signed copy, its
verification, the acceptance through the API and the webhooks, and the purchase details."""

from __future__ import annotations

import base64
import hashlib
import io
import json
from unittest import mock

import pytest
from django.core.management import call_command
from PIL import Image, ImageDraw

from integrations.models import WebhookDelivery, WebhookEndpoint
from integrations.webhooks import webhook_secret_new
from proposals.acceptance.services import (
    share_accept,
    signed_copies_requeue_stuck,
    signed_copy_make,
)
from proposals.acceptance.signature import (
    MAX_SIGNATURE_BYTES,
    credit_code_checked,
    signature_typed_png,
)
from proposals.acceptance.signer_codes import signer_code_required
from proposals.documents.pdf import signed_copy_assemble, signed_copy_verify
from proposals.documents.selectors import document_for, document_ready_for
from proposals.documents.services import proposal_render
from proposals.documents.signed_copy import STAMP_HEAD, STAMP_TAIL
from proposals.models import Acceptance, DocumentStatus, ProposalDocument
from proposals.share.services import share_link_create
from quoting.errors import InvalidValue
from quoting.quotes.models import Quote, QuoteStatus
from tests.api_schema import assert_matches_schema
from tests.proposals.conftest import pdf_reader, quote_sent, sent_pdf
from tests.proposals.signer_codes import code_emailed
from tests.quoting.api_world import token_client
from tests.quoting.factories import quote_reload, world_fresh

CREDIT_CODE = "91110000600037341L"  # python-stdnum's own example of a valid code


def drawn_png(width=600, height=200, *, ink=True, background=(255, 255, 255, 0)) -> bytes:
    image = Image.new("RGBA", (width, height), background)
    if ink:
        ImageDraw.Draw(image).line(
            [(20, 150), (120, 40), (220, 160), (400, 60)], fill=(20, 33, 61, 255), width=4
        )
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode()


@pytest.fixture(scope="module")
def sent_once(module_world_uncatalogued) -> int:
    """The sent quote (`sent_quote`'s), made once for the module; each test reads it afresh and
    renders, accepts and signs in its own rolled-back transaction."""
    return quote_sent(module_world_uncatalogued).pk


@pytest.fixture
def world(module_world_uncatalogued, db):
    return world_fresh(module_world_uncatalogued)


@pytest.fixture
def sent_quote(sent_once, db):
    return Quote.objects.get(pk=sent_once)


@pytest.fixture
def shared(world, sent_quote):
    """(link, token) of the sent quote."""
    return share_link_create(quote=sent_quote, user=world.sales, recipient_name="Li Wei")


@pytest.fixture
def ready_pdf(sent_quote):
    """The English PDF of R1 the send requested, rendered (as the worker does after the send)."""
    return sent_pdf(sent_quote.current_revision, "en")


@pytest.fixture
def endpoint(world):
    """A loopback CRM endpoint hearing the acceptance events; deliveries are written, not sent."""
    with mock.patch("integrations.webhooks.enqueue_or_leave_to_sweeper"):
        yield WebhookEndpoint.objects.create(
            url="http://127.0.0.1:9/hook",
            secret=webhook_secret_new(),
            events=["quote.accepted", "quote.signed_copy_ready"],
            created_by=world.sales,
        )


def accept(link, capture, **extra):
    fields = {
        "link": link,
        "revision_number": 1,
        "name": "Li Wei",
        "title": "CTO",
        "agreed": True,
        "language": "en",
        "user_agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0 Safari/537.36",
    }
    if signer_code_required(link) and "signer_code" not in extra:  # as the signer would
        fields["signer_code"] = code_emailed(link)
    with capture(execute=True):  # eager Celery: the signed copy is made on commit
        return share_accept(**{**fields, **extra})


# --- the signature and the purchase details ----------------------------------------------------


def test_a_drawn_signature_and_purchase_details_are_recorded_with_the_pdf_they_bound(
    shared, ready_pdf, django_capture_on_commit_callbacks
):
    link, _ = shared
    png = drawn_png()
    accept(
        link,
        django_capture_on_commit_callbacks,
        company="Fabrikam Labs",
        signature_kind="drawn",
        signature_data=data_url(png),
        signer_timezone="Asia/Shanghai",
        po_number="PO-2026/0042",
        invoice_company="北京示例科技有限公司",
        invoice_tax_id=" 91110000600037341l ",
        invoice_address_phone="北京市海淀区 010-1234",
        invoice_bank_account="招商银行 6225 0000",
    )
    a = Acceptance.objects.get()
    assert (a.signature_kind, a.signer_company) == ("drawn", "Fabrikam Labs")
    # Stored as a fresh PNG of the drawing's pixels (nothing else of the file sent is kept).
    stored, sent = Image.open(io.BytesIO(bytes(a.signature_png))), Image.open(io.BytesIO(png))
    assert stored.convert("RGBA").tobytes() == sent.convert("RGBA").tobytes()
    assert (a.document, a.document_sha256) == (ready_pdf, ready_pdf.sha256)
    assert (a.signer_timezone, a.po_number, a.invoice_tax_id) == (
        "Asia/Shanghai",
        "PO-2026/0042",
        CREDIT_CODE,
    )
    assert a.invoice_company == "北京示例科技有限公司"


def test_an_empty_typed_signature_is_the_name_typed_and_rendered(
    shared, ready_pdf, django_capture_on_commit_callbacks
):
    accept(shared[0], django_capture_on_commit_callbacks)
    a = Acceptance.objects.get()
    assert (a.signature_kind, a.signature_text) == ("typed", "Li Wei")
    image = Image.open(io.BytesIO(bytes(a.signature_png)))
    assert image.format == "PNG" and image.getbbox() is not None  # ink on it


def test_the_typed_preview_is_the_signature_the_acceptance_stores(client, shared, sent_quote):
    """What the form shows while the name is typed is, byte for byte, what is stored and
    printed on the certificate; asking for it records nothing."""
    _link, token = shared
    preview = client.get(f"/p/{token}/signature.png", {"text": "  Li   Wei "})
    assert preview.status_code == 200 and preview["Content-Type"] == "image/png"
    assert preview["Cache-Control"] == "no-store" and "X-Robots-Tag" in preview
    assert preview.content == signature_typed_png("Li Wei")
    assert not sent_quote.share_links.get().views.exists()  # not an open

    answer = client.post(
        f"/p/{token}/accept?lang=en",
        {"revision": 1, "name": "Li Wei", "agreed": "on", "signature_kind": "typed"},
    )
    assert answer.status_code == 302
    assert bytes(Acceptance.objects.get().signature_png) == preview.content


@pytest.mark.parametrize("text", ["", "   ", "x" * 101])
def test_a_preview_of_nothing_or_of_too_much_is_refused(client, shared, text):
    assert client.get(f"/p/{shared[1]}/signature.png", {"text": text}).status_code == 400


def test_a_preview_for_an_unknown_token_is_empty_and_counts_as_a_miss(client, db, settings):
    from django.core.cache import cache

    cache.clear()
    settings.PROPOSALS_LINK_MISSES_ALLOWED = 3
    codes = [
        client.get(
            f"/p/guess{n:04d}-{'x' * 30}/signature.png", {"text": "Li"}, REMOTE_ADDR="198.51.100.7"
        ).status_code
        for n in range(4)
    ]
    assert codes == [204] * 3 + [429]  # the share routes' limit on misses


def test_a_typed_chinese_name_renders_with_ink():
    image = Image.open(io.BytesIO(signature_typed_png("李伟")))
    assert image.convert("L").getextrema()[0] < 128 or image.getchannel("A").getbbox()


BAD_INPUTS = {
    "empty drawn signature": ({"signature_kind": "drawn", "signature_data": ""}, "signature"),
    "blank canvas": (
        {"signature_kind": "drawn", "signature_data": data_url(drawn_png(ink=False))},
        "signature",
    ),
    "white canvas": (
        {
            "signature_kind": "drawn",
            "signature_data": data_url(drawn_png(ink=False, background=(255, 255, 255, 255))),
        },
        "signature",
    ),
    "not a PNG": (
        {
            "signature_kind": "drawn",
            "signature_data": "data:image/png;base64,"
            + base64.b64encode(b"GIF89a" + b"\0" * 100).decode(),
        },
        "signature",
    ),
    "a JPEG data URL": (
        {"signature_kind": "drawn", "signature_data": "data:image/jpeg;base64,/9j/4AAQ"},
        "signature",
    ),
    "not base64": (
        {"signature_kind": "drawn", "signature_data": "data:image/png;base64,@@@"},
        "signature",
    ),
    "too many pixels": (
        {"signature_kind": "drawn", "signature_data": data_url(drawn_png(2000, 300))},
        "signature",
    ),
    "too many bytes": (
        {
            "signature_kind": "drawn",
            "signature_data": data_url(drawn_png() + b"\0" * MAX_SIGNATURE_BYTES),
        },
        "signature",
    ),
    "unknown kind": ({"signature_kind": "stamped"}, "signature"),
    "PO number too long": ({"po_number": "P" * 65}, "po_number"),
    "PO number with a line break": ({"po_number": "PO-1\nPO-2"}, "po_number"),
    "credit code with a wrong check character": (
        {"invoice_tax_id": "91110000600037341X"},
        "invoice_tax_id",
    ),
    "credit code too short": ({"invoice_tax_id": "9111000060003"}, "invoice_tax_id"),
    # Issue 23, item 4: the check character of these is right.
    "the all-zero credit code": ({"invoice_tax_id": "0" * 18}, "invoice_tax_id"),
    "credit code of registration authority 0": (
        {"invoice_tax_id": "01110000600037341X"},
        "invoice_tax_id",
    ),
    "credit code of organisation type 0": (
        {"invoice_tax_id": "90110000600037341P"},
        "invoice_tax_id",
    ),
}


@pytest.mark.parametrize("extra, field", BAD_INPUTS.values(), ids=BAD_INPUTS.keys())
def test_a_bad_signature_po_number_or_credit_code_records_nothing(
    shared, sent_quote, extra, field, django_capture_on_commit_callbacks
):
    with pytest.raises(InvalidValue) as refused:
        accept(shared[0], django_capture_on_commit_callbacks, **extra)
    assert refused.value.field == field and refused.value.message
    assert Acceptance.objects.count() == 0
    assert quote_reload(sent_quote).status == QuoteStatus.SENT


def test_the_all_zero_credit_code_is_refused_at_its_field_on_the_page(client, shared):
    _, token = shared
    response = client.post(
        f"/p/{token}/accept?lang=en",
        {"revision": 1, "name": "Li Wei", "agreed": "on", "signature_kind": "typed"}
        | {"invoice_tax_id": "000000000000000000"},
    )
    page = response.content.decode()
    assert response.status_code == 400 and Acceptance.objects.count() == 0
    assert "its first character names no registration authority" in page


@pytest.mark.parametrize(
    "code",
    [
        CREDIT_CODE,  # 9 market regulation, 1 a company
        "31110000E00017891P",  # 3 justice, 1 a law firm
        "52100000500021899D",  # 5 civil affairs, 2 a private non-enterprise unit
        "81110000MC0000000N",  # 8 trade unions
        "Y1110000MA0000000U",  # Y others (refused by python-stdnum, which wants digits first)
        "N2440106MF0000000P",  # N agriculture, 2 a village collective
        "A1110000MB0000000J",  # A the military's establishment office
    ],
)
def test_codes_of_every_registration_authority_are_accepted(code):
    assert credit_code_checked(code.lower()) == code


def test_a_tampered_revision_number_records_nothing(
    shared, sent_quote, django_capture_on_commit_callbacks
):
    from proposals.acceptance.services import OfferSuperseded

    with pytest.raises(OfferSuperseded):
        accept(
            shared[0],
            django_capture_on_commit_callbacks,
            revision_number=7,
            signature_kind="drawn",
            signature_data=data_url(drawn_png()),
        )
    assert Acceptance.objects.count() == 0
    assert quote_reload(sent_quote).status == QuoteStatus.SENT


def test_the_page_says_why_keeps_what_was_typed_and_records_nothing(client, shared, sent_quote):
    _, token = shared
    response = client.post(
        f"/p/{token}/accept?lang=en",
        {
            "revision": 1,
            "name": "Li Wei",
            "title": "CTO",
            "agreed": "on",
            "company": "Fabrikam",
            "signature_kind": "typed",
            "po_number": "PO-1",
            "invoice_tax_id": "91110000600037341X",
        },
    )
    page = response.content.decode()
    assert response.status_code == 400
    assert "This unified social credit code is not valid" in page
    assert 'value="Fabrikam"' in page and 'value="PO-1"' in page  # nothing to type again
    assert Acceptance.objects.count() == 0
    assert quote_reload(sent_quote).status == QuoteStatus.SENT


def test_the_page_in_chinese_explains_an_empty_signature_in_chinese(client, shared):
    _, token = shared
    response = client.post(
        f"/p/{token}/accept?lang=zh-hans",
        {
            "revision": 1,
            "name": "李伟",
            "agreed": "on",
            "signature_kind": "drawn",
            "signature_data": "",
        },
    )
    assert response.status_code == 400
    assert "请在框内手写签名" in response.content.decode()
    assert Acceptance.objects.count() == 0


def test_the_fapiao_block_shows_in_chinese_or_for_mainland_customers(client, world, shared):
    _, token = shared
    world.customer.vat_zone = "export"
    world.customer.save()
    assert 'name="invoice_tax_id"' in client.get(f"/p/{token}?lang=zh-hans").content.decode()
    assert 'name="invoice_tax_id"' not in client.get(f"/p/{token}?lang=en").content.decode()
    world.customer.vat_zone = "china"
    world.customer.save()
    assert 'name="invoice_tax_id"' in client.get(f"/p/{token}?lang=en").content.decode()


def test_the_share_page_loads_the_signature_script_under_its_csp(client, shared):
    _, token = shared
    response = client.get(f"/p/{token}?lang=en")
    page = response.content.decode()
    assert "/static/proposal/signature.js" in page and "<script>" not in page
    assert "script-src 'self'" in response["Content-Security-Policy"]
    assert 'id="signature-pad"' in page and 'name="signer_timezone"' in page


# --- the signed copy -----------------------------------------------------------------------------


def test_the_signed_copy_starts_with_the_original_pages_and_names_its_sha256(
    shared, ready_pdf, django_capture_on_commit_callbacks
):
    accept(
        shared[0],
        django_capture_on_commit_callbacks,
        signature_kind="drawn",
        signature_data=data_url(drawn_png()),
        po_number="PO-2026/0042",
        invoice_tax_id=CREDIT_CODE,
        signer_timezone="Asia/Shanghai",
    )
    a = Acceptance.objects.get()
    assert a.signed_status == DocumentStatus.READY, a.signed_error
    signed = bytes(a.signed_pdf)
    assert a.signed_sha256 == hashlib.sha256(signed).hexdigest()
    original = bytes(ready_pdf.pdf)

    check = signed_copy_verify(original=original, signed=signed)
    assert check.ok, check.problems
    assert check.signed_pages == check.original_pages + 1
    first, copy = pdf_reader(original), pdf_reader(signed)
    assert check.stamped_page > 0  # the page whose signature block is filled in
    for n, (mine, theirs) in enumerate(zip(first.pages, copy.pages, strict=False), start=1):
        own, shown = mine.get_contents().get_data(), theirs.get_contents().get_data()
        if n == check.stamped_page:  # its own content, byte for byte, then the stamp
            assert shown.startswith(STAMP_HEAD) and shown.endswith(STAMP_TAIL)
            assert own in shown and len(shown) <= len(own) + len(STAMP_HEAD + STAMP_TAIL) + 4
        else:  # byte-identical content
            assert own == shown
    certificate = copy.pages[-1].extract_text()
    squeezed = "".join(certificate.split())
    assert ready_pdf.sha256 in squeezed
    for printed in (
        "Li Wei",
        "CTO",
        "PO-2026/0042",
        CREDIT_CODE,
        "Asia/Shanghai",
        "UTC+08:00",
        "R1",
        f"#{a.link_id}",
        "Chrome",
        "As quoted",
    ):
        assert printed.replace(" ", "") in squeezed, printed
    assert copy.pages[-1].images, "the signature image is on the certificate"


def test_verification_refuses_a_copy_of_another_document_or_a_changed_page(
    shared, ready_pdf, django_capture_on_commit_callbacks, world
):
    accept(shared[0], django_capture_on_commit_callbacks)
    signed = bytes(Acceptance.objects.get().signed_pdf)
    other = pdf_reader(bytes(ready_pdf.pdf))
    # A different original: the same pages with one changed content stream.
    from pypdf import PdfWriter
    from pypdf.generic import ContentStream

    writer = PdfWriter(clone_from=other)
    page = writer.pages[0]
    stream = ContentStream(page.get_contents(), writer)
    stream.set_data(stream.get_data() + b"\n0 0 m 1 1 l S")
    page.replace_contents(stream)
    changed = io.BytesIO()
    writer.write(changed)
    check = signed_copy_verify(original=changed.getvalue(), signed=signed)
    assert not check.ok
    assert any("Page 1 differs" in p for p in check.problems)
    assert any("does not name" in p for p in check.problems)
    # The changed pages with the genuine certificate: refused against the original.
    certificate = PdfWriter()
    certificate.add_page(pdf_reader(signed).pages[-1])
    kept = io.BytesIO()
    certificate.write(kept)
    forged = signed_copy_assemble(original=changed.getvalue(), certificate=kept.getvalue())
    check = signed_copy_verify(original=bytes(ready_pdf.pdf), signed=forged)
    assert [p for p in check.problems if "differs" in p] == [
        "Page 1 differs from the original's page 1: its content (at /Contents)."
    ]


def test_the_verify_command_says_ok_or_lists_the_problems(
    shared, ready_pdf, django_capture_on_commit_callbacks, tmp_path
):
    accept(shared[0], django_capture_on_commit_callbacks)
    original, signed = tmp_path / "original.pdf", tmp_path / "signed.pdf"
    original.write_bytes(bytes(ready_pdf.pdf))
    signed.write_bytes(bytes(Acceptance.objects.get().signed_pdf))
    out = io.StringIO()
    call_command("verify_signed_copy", str(original), str(signed), stdout=out)
    assert "OK" in out.getvalue() and ready_pdf.sha256 in out.getvalue()
    with pytest.raises(SystemExit) as failed:
        call_command(
            "verify_signed_copy",
            str(signed),
            str(signed),
            stdout=io.StringIO(),
            stderr=io.StringIO(),
        )
    assert failed.value.code == 1


def _verify(original: bytes, signed: bytes, tmp_path, *options) -> tuple[int, str]:
    paths = tmp_path / "original.pdf", tmp_path / "signed.pdf"
    paths[0].write_bytes(original)
    paths[1].write_bytes(signed)
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("verify_signed_copy", *map(str, paths), *options, stdout=out, stderr=err)
    except SystemExit as exit_:
        return exit_.code, err.getvalue()
    return 0, out.getvalue()


def test_outside_the_portal_ok_needs_both_published_sha256s(
    shared, ready_pdf, django_capture_on_commit_callbacks, tmp_path
):
    """Without the portal's record, the original's SHA-256 says which PDF was accepted and the
    copy's own binds its certificate: without either, the check does not say OK."""
    accept(shared[0], django_capture_on_commit_callbacks)
    a = Acceptance.objects.get()
    original, signed = bytes(ready_pdf.pdf), bytes(a.signed_pdf)
    Acceptance.objects.update(document_sha256="0" * 64)  # as on another portal's database

    code, said = _verify(original, signed, tmp_path)
    assert code == 1 and "No acceptance recorded here" in said and "Nothing binds" in said
    code, said = _verify(original, signed, tmp_path, "--sha256", a.document_sha256)
    assert code == 1 and "Nothing binds the certificate" in said
    code, said = _verify(
        original,
        signed,
        tmp_path,
        "--sha256",
        a.document_sha256,
        "--signed-sha256",
        a.signed_sha256,
    )
    assert code == 0, said
    code, said = _verify(
        original, signed, tmp_path, "--sha256", "1" * 64, "--signed-sha256", a.signed_sha256
    )
    assert code == 1 and "not the one the portal published" in said


def _old_kind_copy(original: bytes, signed: bytes) -> bytes:
    """A signed copy as made before copies carried their original: pages appended, no
    attachment."""
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.append(pdf_reader(original))
    certificate = pdf_reader(signed)
    writer.append(certificate, pages=(len(certificate.pages) - 1, len(certificate.pages)))
    # Nor were they digitally signed: no signature field.
    del writer.pages[-1]["/Annots"]
    writer._root_object.pop("/AcroForm", None)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_a_copy_made_before_copies_carried_their_original_verifies_only_as_recorded(
    shared, ready_pdf, django_capture_on_commit_callbacks, tmp_path
):
    accept(shared[0], django_capture_on_commit_callbacks)
    original = bytes(ready_pdf.pdf)
    old = _old_kind_copy(original, bytes(Acceptance.objects.get().signed_pdf))
    Acceptance.objects.update(signed_pdf=old, signed_sha256=hashlib.sha256(old).hexdigest())

    code, said = _verify(original, old, tmp_path)
    assert code == 0, said
    assert "made before signed copies carried their original" in said
    # Offline, with only the original's SHA-256, such a copy proves nothing: refused, saying why.
    check = signed_copy_verify(original=original, signed=old, sha256=ready_pdf.sha256)
    assert not check.ok
    assert any("carries no attached original" in problem for problem in check.problems)
    # Changed by one byte of a page, it is not the copy recorded any more.
    from pypdf import PdfWriter
    from pypdf.generic import ContentStream

    writer = PdfWriter(clone_from=pdf_reader(old))
    page = writer.pages[0]
    stream = ContentStream(page.get_contents(), writer)
    stream.set_data(stream.get_data() + b"\n0 0 m 1 1 l S")
    page.replace_contents(stream)
    changed = io.BytesIO()
    writer.write(changed)
    code, said = _verify(original, changed.getvalue(), tmp_path)
    assert code == 1 and "not the signed copy the portal recorded" in said


def test_without_a_ready_pdf_the_worker_binds_the_revision_pdf_once_it_is_ready(
    shared, sent_quote, django_capture_on_commit_callbacks
):
    revision = sent_quote.current_revision
    assert document_ready_for(revision=revision, language="en") is None  # still being rendered
    accept(shared[0], django_capture_on_commit_callbacks)
    a = Acceptance.objects.get()
    assert (a.document, a.document_sha256, a.signed_status) == (None, "", DocumentStatus.PENDING)

    with django_capture_on_commit_callbacks(execute=True):  # the waiting copy follows on commit
        document = sent_pdf(revision, "en")  # the worker renders the PDF the send requested
    a.refresh_from_db()
    assert (a.document, a.document_sha256) == (document, document.sha256)
    assert a.signed_status == DocumentStatus.READY
    assert signed_copy_verify(original=bytes(document.pdf), signed=bytes(a.signed_pdf)).ok
    # The send's PDF was bound: accepting asked for no other.
    assert ProposalDocument.objects.filter(revision=revision, language="en").count() == 1


def test_a_lost_signed_copy_is_requeued_by_the_sweeper_and_made_once(
    shared, ready_pdf, django_capture_on_commit_callbacks
):
    import datetime as dt

    with mock.patch(
        "proposals.acceptance.services.enqueue_or_leave_to_sweeper", return_value=False
    ):
        accept(shared[0], django_capture_on_commit_callbacks)  # the broker was down
    a = Acceptance.objects.get()
    assert a.signed_status == DocumentStatus.PENDING
    assert signed_copies_requeue_stuck(older_than=dt.timedelta(hours=1)) == 0  # too recent
    assert signed_copies_requeue_stuck(older_than=dt.timedelta(0)) == 1  # eager: made now
    a.refresh_from_db()
    assert (a.signed_status, a.signed_attempts) == (DocumentStatus.READY, 1)
    assert signed_copy_make(acceptance_id=a.pk) is None  # a duplicate message does nothing


# --- both sides download it ----------------------------------------------------------------------


def test_the_customer_and_staff_download_the_signed_copy(
    client, world, shared, ready_pdf, django_capture_on_commit_callbacks
):
    link, token = shared
    accept(
        link,
        django_capture_on_commit_callbacks,
        po_number="PO-7",
        invoice_company="示例公司",
        invoice_tax_id=CREDIT_CODE,
    )
    a = Acceptance.objects.get()
    page = client.get(f"/p/{token}?lang=en").content.decode()
    assert f"/p/{token}/signed.pdf" in page
    customer = client.get(f"/p/{token}/signed.pdf")
    assert customer.status_code == 200 and customer.content == bytes(a.signed_pdf)

    client.force_login(world.sales)
    quote = a.revision.quote
    staff = client.get(f"/quotes/{quote.pk}/acceptance/signed.pdf")
    assert staff.status_code == 200 and staff.content == bytes(a.signed_pdf)
    signature = client.get(f"/quotes/{quote.pk}/acceptance/signature.png")
    assert signature["Content-Type"] == "image/png" and signature.content == bytes(a.signature_png)
    panel = client.get(f"/quotes/{quote.pk}/proposal-panel/").content.decode()
    for shown in (
        "Acceptance",
        "Li Wei",
        "PO-7",
        "示例公司",
        CREDIT_CODE,
        ready_pdf.sha256,
        a.signed_sha256,
        f"/quotes/{quote.pk}/acceptance/signature.png",
    ):
        assert shown in panel, shown


def test_staff_who_cannot_see_the_quote_get_404(
    client, make_user, shared, ready_pdf, django_capture_on_commit_callbacks
):
    accept(shared[0], django_capture_on_commit_callbacks)
    quote = Acceptance.objects.get().revision.quote
    client.force_login(make_user("outsider"))
    for path in ("signed.pdf", "signature.png"):
        assert client.get(f"/quotes/{quote.pk}/acceptance/{path}").status_code == 404


# --- the API and the webhooks --------------------------------------------------------------------

FIELDS = {
    "signer",
    "title",
    "company",
    "signed_at",
    "revision",
    "document_sha256",
    "signed_pdf_url",
    "signed_sha256",
    "po_number",
    "invoice",
    "chosen_alternative",
    "chosen_optional",
    "accepted_totals",
    "signed_status",
}


def test_the_api_returns_the_acceptance_and_the_signed_copy(
    world, make_user, shared, ready_pdf, django_capture_on_commit_callbacks
):
    api = token_client(world.sales)
    quote = shared[0].quote
    assert api.get(f"/api/v1/quotes/{quote.pk}/acceptance/").status_code == 404  # not yet
    accept(
        shared[0],
        django_capture_on_commit_callbacks,
        company="Fabrikam",
        po_number="PO-9",
        invoice_tax_id=CREDIT_CODE,
        invoice_company="示例公司",
    )
    a = Acceptance.objects.get()
    body = api.get(f"/api/v1/quotes/{quote.pk}/acceptance/").json()
    assert set(body) >= FIELDS
    assert (body["signer"], body["title"], body["company"], body["revision"]) == (
        "Li Wei",
        "CTO",
        "Fabrikam",
        "R1",
    )
    assert (body["document_sha256"], body["signed_sha256"]) == (ready_pdf.sha256, a.signed_sha256)
    assert body["invoice"]["tax_id"] == CREDIT_CODE and body["po_number"] == "PO-9"
    assert body["chosen_alternative"] == "" and body["chosen_optional"] == []
    assert body["accepted_totals"]["total"] == f"{a.revision.total:.2f}"  # as quoted
    # What generated clients are built from describes this very body (issue 24: it declared a
    # required `totals` the body never had).
    assert_matches_schema(body, "/api/v1/quotes/{id}/acceptance/")
    pdf = api.get(body["signed_pdf_url"])
    assert pdf.status_code == 200 and pdf.content == bytes(a.signed_pdf)
    outsider = token_client(make_user("outsider"))
    assert outsider.get(f"/api/v1/quotes/{quote.pk}/acceptance/").status_code == 404


def test_the_webhooks_carry_the_acceptance_then_the_signed_copy(
    endpoint, shared, ready_pdf, django_capture_on_commit_callbacks
):
    link, token = shared
    accept(link, django_capture_on_commit_callbacks, po_number="PO-9", invoice_tax_id=CREDIT_CODE)
    a = Acceptance.objects.get()
    data = WebhookDelivery.objects.get(event_type="quote.accepted").payload["data"]
    # The API's acceptance fields, less those the event has once elsewhere (docs/webhooks.md).
    accepted = data["acceptance"]
    assert set(accepted) >= FIELDS - {"revision", "accepted_totals"}
    assert "revision" not in accepted and "accepted_totals" not in accepted
    assert (accepted["signer"], data["revision"]["label"], accepted["document_sha256"]) == (
        "Li Wei",
        "R1",
        ready_pdf.sha256,
    )
    assert accepted["signed_pdf_url"] is None and accepted["signed_sha256"] is None
    assert accepted["invoice"]["tax_id"] == CREDIT_CODE and accepted["po_number"] == "PO-9"
    ready_data = WebhookDelivery.objects.get(event_type="quote.signed_copy_ready").payload["data"]
    ready = ready_data["acceptance"]
    assert ready["signed_sha256"] == a.signed_sha256
    assert ready["signed_pdf_url"].endswith(
        f"/api/v1/quotes/{a.revision.quote_id}/acceptance/signed-pdf/"
    )
    # quote.accepted's shape, its signed copy's fields filled.
    assert set(ready) == set(accepted) and ready_data["totals"] == data["totals"]
    assert {k: v for k, v in ready.items() if not k.startswith("signed_")} == {
        k: v for k, v in accepted.items() if not k.startswith("signed_")
    }
    assert token not in json.dumps(data) + json.dumps(ready_data)


def test_the_staff_panel_polls_while_the_signed_copy_is_made(
    client, world, shared, ready_pdf, django_capture_on_commit_callbacks
):
    with mock.patch(
        "proposals.acceptance.services.enqueue_or_leave_to_sweeper", return_value=False
    ):
        accept(shared[0], django_capture_on_commit_callbacks)
    quote = Acceptance.objects.get().revision.quote
    client.force_login(world.sales)
    waiting = client.get(f"/quotes/{quote.pk}/acceptance/").content.decode()
    assert 'data-signed-status="pending"' in waiting and 'hx-trigger="every 2s"' in waiting
    signed_copy_make(acceptance_id=Acceptance.objects.get().pk)
    ready = client.get(f"/quotes/{quote.pk}/acceptance/").content.decode()
    assert 'data-signed-status="ready"' in ready and "hx-trigger" not in ready
    assert f"/quotes/{quote.pk}/acceptance/signed.pdf" in ready


def test_a_refused_fetch_fails_the_signed_copy_at_once_with_its_reason(
    world, shared, ready_pdf, django_capture_on_commit_callbacks
):
    """As for the document: the fetcher's refusal (a BaseException) ends the copy FAILED on its
    first attempt, not pending for the sweeper."""
    from proposals.documents.pdf import FetchRefused

    with mock.patch(
        "proposals.acceptance.services.enqueue_or_leave_to_sweeper", return_value=False
    ):
        accept(shared[0], django_capture_on_commit_callbacks)
    a = Acceptance.objects.get()
    with mock.patch(
        "proposals.acceptance.services.signed_copy_assemble",
        side_effect=FetchRefused("http://127.0.0.1:1/x.png"),
    ):
        signed_copy_make(acceptance_id=a.pk)
    a.refresh_from_db()
    assert a.signed_status == DocumentStatus.FAILED
    assert "a resource outside the proposal template" in a.signed_error


def test_the_accept_form_the_acceptance_panel_and_the_certificate_read_in_chinese(
    client, world, sent_quote, django_capture_on_commit_callbacks
):
    from proposals.documents.signing import seller_certificate
    from tests.portal.test_chinese_complete import english_words, visible_text

    world.sales.language = "zh-hans"
    world.sales.save()
    link, token = share_link_create(quote=sent_quote, user=world.sales, recipient_name="李伟")
    sent_pdf(sent_quote.current_revision, "zh-hans")  # the send's Chinese PDF, rendered
    page = client.get(f"/p/{token}?lang=zh-hans").content.decode()
    texts = {"accept form": visible_text(page)}
    accept(
        link,
        django_capture_on_commit_callbacks,
        name="李伟",
        title="总工程师",
        language="zh-hans",
        company="鹏城实验室",
        signature_kind="drawn",
        signature_data=data_url(drawn_png()),
        signer_timezone="Asia/Shanghai",
        po_number="PO-7",
        invoice_company="鹏城实验室",
        invoice_tax_id=CREDIT_CODE,
        invoice_address_phone="深圳 0755-1234",
        invoice_bank_account="招商银行 6225",
    )
    a = Acceptance.objects.get()
    assert a.signed_status == DocumentStatus.READY, a.signed_error
    client.force_login(world.sales)
    texts["acceptance panel"] = visible_text(
        client.get(f"/quotes/{sent_quote.pk}/acceptance/").content.decode()
    )
    texts["certificate"] = pdf_reader(bytes(a.signed_pdf)).pages[-1].extract_text()
    # The signer's data, the browser's names and the verify command are data, not prose.
    data = (
        sent_quote.number,
        "Chrome",
        "Linux",
        "Asia/Shanghai",
        "Asia",
        "Shanghai",
        seller_certificate().common_name,  # the seller's certificate, as issued
        "UTC",
        world.customer.company,
        world.project.name,
        "Site survey and cabling plan",
        "QM9790 switch",
    )
    found = {page: english_words(text, user_data=data) for page, text in texts.items()}
    assert not any(found.values()), found


def test_when_the_accepted_pdf_cannot_be_made_the_signed_copy_fails_with_its_reason(
    shared, sent_quote, django_capture_on_commit_callbacks, settings
):
    import datetime as dt

    settings.PROPOSALS_MAX_ATTEMPTS = 1
    revision = sent_quote.current_revision
    accept(shared[0], django_capture_on_commit_callbacks)  # the sent PDF is still on its way
    a = Acceptance.objects.get()
    assert a.signed_status == DocumentStatus.PENDING  # waiting for it
    with mock.patch(
        "proposals.documents.services.proposal_rendered", side_effect=RuntimeError("boom")
    ):
        # The worker's render of the PDF the send requested fails, for good.
        requested = document_for(revision=revision, language="en")
        with django_capture_on_commit_callbacks(execute=True):
            assert proposal_render(document_id=requested.pk) == DocumentStatus.FAILED
        assert signed_copies_requeue_stuck(older_than=dt.timedelta(0)) == 1  # tried again
        a.refresh_from_db()
        assert a.signed_status == DocumentStatus.FAILED
        assert a.signed_error.startswith("The accepted PDF could not be made")
        assert signed_copies_requeue_stuck(older_than=dt.timedelta(0)) == 0  # not swept again
    # A PDF that cannot be made is not asked for again by the signed copy.
    assert ProposalDocument.objects.filter(revision=revision, language="en").count() == 1


def test_a_signed_copys_failure_is_kept_as_its_message_and_the_panel_words_it(
    client, world, shared, sent_quote, django_capture_on_commit_callbacks, settings, no_kept_texts
):
    """#27 item 4: the copy's error keeps the document's message inside its own; the panel
    words both in the reader's language, nothing matched back from the English."""
    import datetime as dt

    from django.urls import reverse

    settings.PROPOSALS_MAX_ATTEMPTS = 1
    accept(shared[0], django_capture_on_commit_callbacks)
    with mock.patch(
        "proposals.documents.services.proposal_rendered", side_effect=RuntimeError("boom")
    ):
        requested = document_for(revision=sent_quote.current_revision, language="en")
        with django_capture_on_commit_callbacks(execute=True):
            proposal_render(document_id=requested.pk)
        signed_copies_requeue_stuck(older_than=dt.timedelta(0))
    a = Acceptance.objects.get()
    english = (
        "The accepted PDF could not be made: The PDF could not be produced (an internal error; "
        "the team can see the details). (1 attempt(s).)"
    )
    assert (a.signed_status, a.signed_error) == (DocumentStatus.FAILED, english)
    assert a.signed_error_message["params"][0][1]["template"] == "{text} ({attempts} attempt(s).)"
    world.sales.language = "zh-hans"
    world.sales.save()
    client.force_login(world.sales)
    page = client.get(reverse("proposals:acceptance", args=[sent_quote.pk])).content.decode()
    assert (
        "无法生成已接受的 PDF：无法生成 PDF（内部错误；技术团队可查看详情）。（已尝试 1 次。）"
        in page
    )


def test_a_signed_copy_failed_before_messages_still_reads_in_chinese_through_kept_texts(
    client, world, shared, sent_quote, django_capture_on_commit_callbacks
):
    from django.urls import reverse

    accept(shared[0], django_capture_on_commit_callbacks)
    Acceptance.objects.update(
        signed_status=DocumentStatus.FAILED,
        signed_error="The maker stopped 3 times on this signed copy.",
        signed_error_message=None,
    )
    world.sales.language = "zh-hans"
    world.sales.save()
    client.force_login(world.sales)
    page = client.get(reverse("proposals:acceptance", args=[sent_quote.pk])).content.decode()
    assert "生成程序在此签署副本上已中断 3 次。" in page

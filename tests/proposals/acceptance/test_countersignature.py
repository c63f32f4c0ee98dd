"""Issue 27: the seller countersigns the customer's acceptance (a sales manager or a director,
once), in the portal and through the API; the signed copy is then made again with the printed
signature block filled on both sides, the company chop over the seller's line, still PAdES-signed
and passing the portal's own check, in English and in Chinese."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import zoneinfo

import pytest
from pypdf import PdfReader

from portal.models import CompanyProfile
from proposals.acceptance.services import acceptance_countersign
from proposals.documents.signed_copy import STAMP_NAME, signed_copy_verify
from proposals.documents.signing import seller_certificate
from proposals.models import Acceptance, DocumentStatus
from proposals.share.services import share_link_create
from quoting.errors import IllegalTransition, NotAllowed
from quoting.quotes.models import QuoteEvent, QuoteEventVerb
from tests.conftest import service_missing
from tests.portal.test_company_chop import chop_png
from tests.proposals.acceptance.test_acceptance_signature import accept
from tests.proposals.conftest import quote_rich, quote_sent, sent_pdf
from tests.quoting.api_world import token_client

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")  # the signer's zone, and the portal's


def _accepted_quote(world, capture, language="en", **details):
    quote = quote_rich(world, language=language)
    sent_pdf(quote.current_revision, language)
    link, _token = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei")
    accept(link, capture, language=language, **details)
    return quote


def _block_page(signed: bytes, original_pages: int):
    """The copy's page whose signature block is stamped, and its text."""
    check_pages = PdfReader(io.BytesIO(signed)).pages[:original_pages]
    for page in check_pages:
        xobjects = page["/Resources"].get("/XObject") or {}
        if STAMP_NAME in xobjects:
            return page, page.extract_text()
    raise AssertionError("no page carries the filled signature block")


def _pdftotext(signed: bytes, tmp_path) -> str:
    if shutil.which("pdftotext") is None:
        service_missing("pdftotext (poppler-utils) is not installed")
    path = tmp_path / "signed.pdf"
    path.write_bytes(signed)
    done = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, timeout=60)
    return done.stdout.decode()


# --- who may countersign, and when -----------------------------------------------------------


@pytest.fixture
def director(make_user):
    return make_user("qian", role="director", first_name="Qian", last_name="Hua")


def test_only_a_sales_manager_or_a_director_may_countersign(world, seeded, director):
    quote = quote_sent(world)
    for user in (world.sales, world.other_sales):
        with pytest.raises(NotAllowed):
            acceptance_countersign(quote=quote, user=user)
    # Allowed, but there is nothing to countersign yet: the quote was not accepted.
    for user in (world.manager, director):
        with pytest.raises(IllegalTransition, match="nothing to countersign"):
            acceptance_countersign(quote=quote, user=user)


def test_the_api_answers_403_for_a_salesperson_and_409_with_nothing_or_already_countersigned(
    world, seeded, django_capture_on_commit_callbacks
):
    quote = quote_sent(world)
    url = f"/api/v1/quotes/{quote.pk}/countersign/"
    manager = token_client(world.manager)
    refused = manager.post(url)
    assert refused.status_code == 409, refused.content
    assert "nothing to countersign" in refused.json()["detail"]

    link, _token = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei")
    accept(link, django_capture_on_commit_callbacks)
    forbidden = token_client(world.sales).post(url)
    assert forbidden.status_code == 403, forbidden.content
    assert Acceptance.objects.get().countersigned_at is None

    world.manager.first_name, world.manager.last_name = "Zhao", "Min"
    world.manager.job_title = "Sales Director"
    world.manager.save()
    with django_capture_on_commit_callbacks(execute=True):
        done = manager.post(url)
    assert done.status_code == 200, done.content
    body = done.json()
    assert body["countersignature"]["name"] == "Zhao Min"
    assert body["countersignature"]["title"] == "Sales Director"
    assert body["countersignature"]["user_id"] == world.manager.pk
    assert body["signed_status"] in ("pending", "ready")
    again = manager.post(url)
    assert again.status_code == 409 and "already countersigned" in again.json()["detail"]
    shown = token_client(world.sales).get(f"/api/v1/quotes/{quote.pk}/acceptance/").json()
    assert (
        shown["countersignature"]["countersigned_at"]
        == body["countersignature"]["countersigned_at"]
    )
    event = QuoteEvent.objects.get(quote=quote, verb=QuoteEventVerb.COUNTERSIGNED)
    assert event.actor == world.manager and event.details["name"] == "Zhao Min"


def test_the_acceptance_panel_offers_countersign_to_managers_only(
    client, world, seeded, django_capture_on_commit_callbacks
):
    quote = quote_sent(world)
    link, _token = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei")
    accept(link, django_capture_on_commit_callbacks)
    url = f"/quotes/{quote.pk}/acceptance/countersign/"
    client.force_login(world.sales)
    panel = client.get(f"/quotes/{quote.pk}/proposal-panel/").content.decode()
    assert url not in panel and "countersignature" in panel  # awaiting a manager's
    refused = client.post(url, HTTP_HX_REQUEST="true")
    assert "Only a sales manager or a director may countersign" in refused.content.decode()
    assert Acceptance.objects.get().countersigned_at is None

    client.force_login(world.manager)
    panel = client.get(f"/quotes/{quote.pk}/proposal-panel/").content.decode()
    assert f'hx-post="{url}"' in panel
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(url, HTTP_HX_REQUEST="true")
    assert done.status_code == 200
    acceptance = Acceptance.objects.get()
    assert acceptance.countersigned_by == world.manager
    assert 'class="acceptance-countersigned">zhao' in done.content.decode()
    assert client.post(url).status_code == 409  # once


# --- the signed copy ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "awaiting", "seller_name", "seller_title"),
    [
        ("en", "Awaiting the seller's countersignature", "Zhao Min", "Sales Director"),
        ("zh-hans", "等待卖方会签", "赵敏", "华南区销售总监"),
    ],
)
def test_the_countersigned_copy_fills_both_columns_and_carries_the_chop(
    world,
    seeded,
    django_capture_on_commit_callbacks,
    tmp_path,
    language,
    awaiting,
    seller_name,
    seller_title,
):
    CompanyProfile.objects.create(
        legal_name_en="Fabric Networks", chop=chop_png(), chop_type="image/png"
    )
    quote = _accepted_quote(
        world,
        django_capture_on_commit_callbacks,
        language,
        name="欧阳李伟" if language != "en" else "Li Wei",
        title="CTO",
        company="Fabrikam Labs",
        signer_timezone="Asia/Shanghai",
    )
    acceptance = Acceptance.objects.get()
    original = bytes(acceptance.document.pdf)
    pages = len(PdfReader(io.BytesIO(original)).pages)
    first_copy, first_sha = bytes(acceptance.signed_pdf), acceptance.signed_sha256
    customer_date = acceptance.signed_at.astimezone(SHANGHAI).strftime("%Y-%m-%d")

    # Before the countersignature: the customer's column filled, the seller's awaiting it.
    _page, text = _block_page(first_copy, pages)
    squeezed = "".join(text.split())
    assert "".join(acceptance.signer_name.split()) in squeezed and customer_date in squeezed
    assert "FabrikamLabs" in squeezed
    assert "".join(awaiting.split()) in squeezed
    check = signed_copy_verify(original=original, signed=first_copy)
    assert check.ok, check.problems
    assert check.stamped_page > 0

    manager = world.manager
    manager.first_name, manager.last_name = ("Zhao", "Min") if language == "en" else ("赵敏", "")
    manager.job_title = seller_title
    manager.save()
    with django_capture_on_commit_callbacks(execute=True):
        acceptance_countersign(quote=quote, user=manager)
    acceptance.refresh_from_db()
    assert acceptance.signed_status == DocumentStatus.READY, acceptance.signed_error
    signed = bytes(acceptance.signed_pdf)
    assert acceptance.signed_sha256 != first_sha  # a new copy replaced the first
    seller_date = acceptance.countersigned_at.astimezone(SHANGHAI).strftime("%Y-%m-%d")

    page, text = _block_page(signed, pages)
    squeezed = "".join(text.split())
    for value in (seller_name, seller_title, seller_date, acceptance.signer_name, customer_date):
        assert "".join(value.split()) in squeezed, (value, text[-800:])
    assert "".join(awaiting.split()) not in squeezed
    stamp = page["/Resources"]["/XObject"][STAMP_NAME].get_object()
    images = [
        x.get_object()
        for x in stamp["/Resources"].get("/XObject", {}).values()
        if x.get_object()["/Subtype"] == "/Image"
    ]
    assert len(images) >= 2  # the seller's signature and the chop (and the customer's)
    assert any(image.get("/SMask") is not None for image in images)  # the transparent chop
    printed = "".join(_pdftotext(signed, tmp_path).split())
    assert "".join(seller_name.split()) in printed and "".join(seller_title.split()) in printed

    # Still one PAdES signature over the whole file, and the portal's check passes.
    check = signed_copy_verify(
        original=original,
        signed=signed,
        sha256=acceptance.document_sha256,
        signed_sha256=acceptance.signed_sha256,
    )
    assert check.ok and check.certificate_bound, check.problems
    assert check.signature.ok and check.signature.signer_sha256 == seller_certificate().sha256
    if shutil.which("pdfsig") is None:  # fails in CI, skips on a machine without poppler
        service_missing("pdfsig (poppler-utils) is not installed")
    path = tmp_path / "countersigned.pdf"
    path.write_bytes(signed)
    said = subprocess.run(["pdfsig", str(path)], capture_output=True, text=True, timeout=60).stdout
    assert "Signature is Valid." in said and "Total document signed" in said

    # The certificate, still one page, records both signatures.
    copy = PdfReader(io.BytesIO(signed))
    assert len(copy.pages) == pages + 1
    certificate = "".join(copy.pages[-1].extract_text().split())
    for name in (acceptance.signer_name, seller_name):
        assert "".join(name.split()) in certificate
    assert len(re.findall(r"UTC\+00:00\(UTC\)", certificate)) == 2  # both times, in UTC too


def test_a_stamp_moved_over_the_prices_is_caught(world, seeded, django_capture_on_commit_callbacks):
    """The check allows the stamp on one page in the portal's shape only: the same stamp drawn
    over another page as well is reported."""
    from pypdf import PdfWriter
    from pypdf.generic import NameObject

    _accepted_quote(world, django_capture_on_commit_callbacks)
    acceptance = Acceptance.objects.get()
    original, signed = bytes(acceptance.document.pdf), bytes(acceptance.signed_pdf)
    check = signed_copy_verify(original=original, signed=signed)
    assert check.ok, check.problems
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(signed)))
    stamped = writer.pages[check.stamped_page - 1]
    other = writer.pages[0]
    other[NameObject("/Contents")] = stamped["/Contents"]
    other[NameObject("/Resources")] = stamped["/Resources"]
    out = io.BytesIO()
    writer.write(out)
    forged = signed_copy_verify(original=original, signed=out.getvalue())
    assert not forged.ok
    assert any("Page 1 differs" in p or "both carry" in p for p in forged.problems), forged.problems


def test_no_stamp_is_drawn_over_a_page_that_does_not_show_the_blank_block(world, seeded):
    """An accepted PDF laid out otherwise (an older layout) gets no stamp rather than a
    misplaced one; the accepted PDF itself gets one."""
    from proposals.documents.pdf import html_to_pdf, signature_stamp

    quote = quote_sent(world)
    document = sent_pdf(quote.current_revision, "en")
    signatures = {"customer": {"name": "Li Wei", "date": "2026-12-07"}, "seller": None}
    other = html_to_pdf("<p>Another layout</p>" * 3)
    assert (
        signature_stamp(
            revision=quote.current_revision, language="en", signatures=signatures, original=other
        )
        is None
    )
    stamp = signature_stamp(
        revision=quote.current_revision,
        language="en",
        signatures=signatures,
        original=bytes(document.pdf),
    )
    assert stamp is not None and stamp.bbox[0] < stamp.bbox[2] and stamp.bbox[1] < stamp.bbox[3]

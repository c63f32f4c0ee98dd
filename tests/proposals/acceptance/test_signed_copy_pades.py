"""Issue 27, item 1: the signed copy is a digitally signed PDF (PAdES), signed with the seller's
certificate, so that any change breaks the signature in pyHanko (its library and the
`pyhanko sign validate` command), poppler's pdfsig and the portal's own check; B-LT with a
timestamp authority (a local one here), B-B without. The certificate page fits one page in
Chinese too and prints no internal command."""

from __future__ import annotations

import datetime as dt
import hashlib
import http.server
import io
import shutil
import subprocess
import sys
from dataclasses import replace

import pytest
from asn1crypto import keys as asn1_keys
from asn1crypto import tsp
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from django.core.management import call_command
from django.test import TestCase
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.timestamps import DummyTimeStamper
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko.sign.validation.status import SignatureCoverageLevel
from pyhanko_certvalidator import ValidationContext
from pypdf import PdfReader

from proposals.documents.signed_copy import ACCEPTED_ORIGINAL_NAME, signed_copy_verify
from proposals.documents.signing import SIGNATURE_FIELD, outside_event_loop, seller_certificate
from proposals.models import Acceptance, DocumentStatus
from proposals.share.services import share_link_create
from quoting.customers.models import Customer
from tests.conftest import service_missing
from tests.proposals.acceptance.test_acceptance_signature import (
    CREDIT_CODE,
    accept,
    data_url,
    drawn_png,
)
from tests.proposals.conftest import quote_rich, sent_pdf
from tests.quoting.factories import ProjectFactory
from tests.service_helpers import serve_in_background

DER = serialization.Encoding.DER


def _accepted(world, capture, language: str, **details):
    quote = quote_rich(world)
    document = sent_pdf(quote.current_revision, language)
    # With the recipient's address: the signer takes the code step, the certificate says so.
    link, _token = share_link_create(
        quote=quote,
        user=world.sales,
        recipient_name="李伟",
        recipient_email="ouyang.liwei@pengcheng-laboratory.example.cn",
    )
    accept(link, capture, po_number="PO-2026/0042", language=language, **details)
    acceptance = Acceptance.objects.get(link=link)
    assert acceptance.signed_status == DocumentStatus.READY, acceptance.signed_error
    return bytes(document.pdf), bytes(acceptance.signed_pdf), acceptance


@pytest.fixture(scope="module")
def accepted_once(module_world):
    """Made once for the module: the tests below only read the signed copy or change bytes."""
    return _accepted(module_world, TestCase.captureOnCommitCallbacks, "en")


@pytest.fixture
def accepted(accepted_once, db):
    return accepted_once


@pytest.fixture
def world_project(module_world, db):
    """The module's world with a project of the test's own, for a test that accepts a quote of
    its own (a design's name is unique in its project); the customer read again, as a test may
    have changed the shared object's language."""
    customer = Customer.objects.get(pk=module_world.customer.pk)
    return replace(
        module_world, customer=customer, project=ProjectFactory(customer=customer, name="Its own")
    )


def _trusting_the_seller() -> ValidationContext:
    cert = seller_certificate().certificate
    return ValidationContext(
        trust_roots=[asn1_x509.Certificate.load(cert.public_bytes(DER))], allow_fetching=False
    )


def _pyhanko_status(signed: bytes):
    signatures = PdfFileReader(io.BytesIO(signed), strict=False).embedded_signatures
    assert len(signatures) == 1
    # As the portal calls pyHanko: on a thread of its own when this one runs an event loop (a
    # browser test earlier in the same xdist worker leaves Playwright's running).
    status = outside_event_loop(validate_pdf_signature, signatures[0], _trusting_the_seller())
    return signatures[0], status


def _pdfsig(signed: bytes, tmp_path) -> str:
    if shutil.which("pdfsig") is None:
        service_missing("pdfsig (poppler-utils) is not installed")
    path = tmp_path / "signed.pdf"
    path.write_bytes(signed)
    done = subprocess.run(["pdfsig", str(path)], capture_output=True, text=True, timeout=60)
    return done.stdout + done.stderr


def _pyhanko_validate(signed: bytes, tmp_path) -> tuple[int, str]:
    """`pyhanko sign validate`, the command a customer's IT would run (pyhanko-cli), trusting the
    seller's certificate alone: no revocation check and no trust list, so it fetches nothing."""
    cert = seller_certificate().certificate
    trust, path = tmp_path / "seller.pem", tmp_path / "checked.pdf"
    trust.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    path.write_bytes(signed)
    command = [sys.executable, "-m", "pyhanko", "sign", "validate", "--trust", str(trust)]
    command += ["--trust-replace", "--no-revocation-check", "--pretty-print", str(path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout + done.stderr


def _command(tmp_path, original: bytes, signed: bytes) -> tuple[int, str]:
    paths = tmp_path / "original.pdf", tmp_path / "signed.pdf"
    paths[0].write_bytes(original)
    paths[1].write_bytes(signed)
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("verify_signed_copy", *map(str, paths), stdout=out, stderr=err)
    except SystemExit as exit_:
        return exit_.code, out.getvalue() + err.getvalue()
    return 0, out.getvalue() + err.getvalue()


def test_the_signed_copy_carries_one_pades_signature_by_the_seller_over_the_whole_file(
    accepted, tmp_path
):
    original, signed, acceptance = accepted
    assert acceptance.signed_sha256 == hashlib.sha256(signed).hexdigest()  # the signed bytes
    embedded, status = _pyhanko_status(signed)
    assert embedded.field_name == SIGNATURE_FIELD
    assert embedded.sig_object["/SubFilter"] == "/ETSI.CAdES.detached"  # PAdES
    assert status.intact and status.valid and status.trusted and status.bottom_line
    assert status.coverage == SignatureCoverageLevel.ENTIRE_FILE
    seller = seller_certificate()
    assert status.signing_cert.sha256.hex() == seller.sha256  # the configured certificate
    # The portal's own check reads it too, and the command says who signed.
    check = signed_copy_verify(original=original, signed=signed)
    assert check.ok, check.problems
    assert check.signature.ok and check.signature.level == "B-B"
    assert check.signature.signer_sha256 == seller.sha256
    code, said = _command(tmp_path, original, signed)
    assert code == 0, said
    assert "digitally signed (PAdES B-B), intact" in said and seller.sha256 in said
    assert "the portal's signing certificate" in said


def test_pdfsig_finds_the_signature_valid_and_covering_the_whole_document(accepted, tmp_path):
    _original, signed, _acceptance = accepted
    said = _pdfsig(signed, tmp_path)
    assert said.count("Signature #") == 1, said
    assert f"Signature Field Name: {SIGNATURE_FIELD}" in said
    assert f"Signer Certificate Common Name: {seller_certificate().common_name}" in said
    assert "Signature Type: ETSI.CAdES.detached" in said
    assert "Total document signed" in said and "Not total document signed" not in said
    assert "Signature Validation: Signature is Valid." in said


def test_pyhanko_sign_validate_finds_the_signature_intact_and_trusted(accepted, tmp_path):
    _original, signed, _acceptance = accepted
    code, said = _pyhanko_validate(signed, tmp_path)
    assert code == 0, said
    assert "The signature is judged VALID." in said, said
    assert "cryptographically sound" in said and "entire file" in said, said


def _flipped(signed: bytes) -> bytes:
    """One byte of the certificate page's text drawing changed: inside the signed range."""
    at = signed.index(b"stream", len(signed) // 3) + 40
    return signed[:at] + bytes([signed[at] ^ 0x01]) + signed[at + 1 :]


def _appended(signed: bytes) -> bytes:
    """An incremental update after the signature, as a PDF editor saves one: the total in the
    document's title."""
    writer = IncrementalPdfFileWriter(io.BytesIO(signed), strict=False)
    info = writer.trailer["/Info"]
    from pyhanko.pdf_utils.generic import NameObject, TextStringObject

    info[NameObject("/Title")] = TextStringObject("Total 0.01 CNY")
    writer.update_container(info)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_one_byte_flipped_breaks_the_signature_for_pyhanko_pdfsig_and_the_portal(
    accepted, tmp_path
):
    original, signed, acceptance = accepted
    flipped = _flipped(signed)
    _embedded, status = _pyhanko_status(flipped)
    assert not status.intact and not status.bottom_line
    assert "Signature Validation: Signature is Valid." not in _pdfsig(flipped, tmp_path)
    assert "Digest Mismatch" in _pdfsig(flipped, tmp_path)
    code, said = _pyhanko_validate(flipped, tmp_path)
    assert code != 0 and "The signature is judged INVALID." in said, said
    check = signed_copy_verify(original=original, signed=flipped)
    assert not check.ok
    assert any("digital signature is broken" in p for p in check.problems), check.problems
    code, said = _command(tmp_path, original, flipped)
    assert code == 1 and "digital signature is broken" in said


def test_an_update_appended_after_the_signature_is_reported_by_pyhanko_pdfsig_and_the_portal(
    accepted, tmp_path
):
    original, signed, acceptance = accepted
    appended = _appended(signed)
    assert appended.startswith(signed)
    _embedded, status = _pyhanko_status(appended)
    assert status.intact  # what was signed is still there...
    assert status.coverage != SignatureCoverageLevel.ENTIRE_FILE  # ...but not all there is
    said = _pdfsig(appended, tmp_path)
    assert "Not total document signed" in said, said
    check = signed_copy_verify(original=original, signed=appended)
    assert any("changed after it was digitally signed" in p for p in check.problems)
    code, said = _command(tmp_path, original, appended)
    assert code == 1 and "changed after it was digitally signed" in said


def test_a_copy_stripped_of_its_signature_is_refused(accepted, tmp_path):
    """The bytes before the signature's update are the assembled copy, unsigned: not the copy."""
    original, signed, acceptance = accepted
    end = signed.rindex(b"%%EOF", 0, signed.index(b"/ByteRange"))  # the assembled copy's end
    unsigned = signed[: end + len(b"%%EOF")] + b"\n"
    assert ACCEPTED_ORIGINAL_NAME in PdfReader(io.BytesIO(unsigned)).attachments  # whole
    check = signed_copy_verify(
        original=original, signed=unsigned, sha256=acceptance.document_sha256
    )
    assert any("carries no digital signature" in p for p in check.problems), check.problems
    code, _said = _command(tmp_path, original, unsigned)
    assert code == 1


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_certificate_is_one_page_and_prints_no_command(
    world_project, django_capture_on_commit_callbacks, language
):
    # The fullest certificate: a drawn signature, every purchase detail, long names.
    original, signed, _acceptance = _accepted(
        world_project,
        django_capture_on_commit_callbacks,
        language,
        name="欧阳李伟",
        title="鹏城实验室网络基础设施部总工程师",
        company="鹏城实验室（深圳）网络与计算基础设施有限公司",
        signature_kind="drawn",
        signature_data=data_url(drawn_png()),
        signer_timezone="Asia/Shanghai",
        invoice_company="鹏城实验室（深圳）网络与计算基础设施有限公司",
        invoice_tax_id=CREDIT_CODE,
        invoice_address_phone="深圳市南山区兴科一街2号鹏城实验室 0755-12345678",
        invoice_bank_account="招商银行深圳分行科技园支行 6225 8801 2345 6789",
    )
    first, copy = PdfReader(io.BytesIO(original)), PdfReader(io.BytesIO(signed))
    assert len(copy.pages) == len(first.pages) + 1  # the certificate: one page
    text = copy.pages[-1].extract_text()
    squeezed = "".join(text.split())
    assert hashlib.sha256(original).hexdigest() in squeezed
    assert seller_certificate().sha256 in squeezed  # the certificate that signs it
    assert "o…@pengcheng-laboratory.example.cn" in squeezed  # the signer's verified e-mail
    for command in ("manage.py", "verify_signed_copy", "ORIGINAL.pdf", "SIGNED.pdf"):
        assert command not in text


# --- B-LT, with a timestamp authority on 127.0.0.1 -----------------------------------------------


def _self_signed(common_name: str, usage: x509.ExtendedKeyUsage):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(usage, critical=True)
        .sign(key, hashes.SHA256())
    )
    return key, cert


@pytest.fixture
def local_tsa(tmp_path):
    """An RFC 3161 timestamp authority on 127.0.0.1 (pyHanko's DummyTimeStamper behind HTTP):
    (its URL, a PEM file of its certificate, the number of requests it answered)."""
    key, cert = _self_signed(
        "FabricQuote test TSA", x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING])
    )
    stamper = DummyTimeStamper(
        tsa_cert=asn1_x509.Certificate.load(cert.public_bytes(DER)),
        tsa_key=asn1_keys.PrivateKeyInfo.load(
            key.private_bytes(DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        ),
    )
    answered = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            request = tsp.TimeStampReq.load(self.rfile.read(int(self.headers["Content-Length"])))
            body = stamper.request_tsa_response(request).dump()
            answered.append(self.headers["Content-Type"])
            self.send_response(200)
            self.send_header("Content-Type", "application/timestamp-reply")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    serve_in_background(server)
    roots = tmp_path / "tsa.pem"
    roots.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    yield f"http://127.0.0.1:{server.server_address[1]}/", roots, answered
    server.shutdown()
    server.server_close()


def test_with_a_timestamp_authority_the_copy_is_pades_b_lt(
    world_project, django_capture_on_commit_callbacks, settings, local_tsa, tmp_path
):
    url, roots, answered = local_tsa
    settings.PROPOSALS_TSA_URL, settings.PROPOSALS_TSA_ROOTS = url, str(roots)
    original, signed, _acceptance = _accepted(
        world_project, django_capture_on_commit_callbacks, "en"
    )
    assert answered and set(answered) == {"application/timestamp-query"}
    embedded, status = _pyhanko_status(signed)
    assert status.intact and status.valid and status.trusted
    assert status.timestamp_validity is not None and status.timestamp_validity.intact
    assert "/DSS" in embedded.reader.root  # the validation data: long-term (LT)
    check = signed_copy_verify(original=original, signed=signed)
    assert check.ok, check.problems
    assert check.signature.level == "B-LT"
    said = _pdfsig(signed, tmp_path)
    assert "Signature Validation: Signature is Valid." in said
    assert "Not total document signed" in said  # the validation data follows the signature
    # Past the validation data, a change still shows.
    check = signed_copy_verify(original=original, signed=_appended(signed))
    assert any("changed after it was digitally signed" in p for p in check.problems)

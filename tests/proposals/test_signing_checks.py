"""The deploy check (proposals/checks.py): production signs signed copies with the seller's own
certificate, issued by a certification authority, or `check --deploy` fails."""

from __future__ import annotations

import datetime as dt
import io

from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko_certvalidator import ValidationContext
from pypdf import PdfWriter

from proposals.checks import signing_certificate_check
from proposals.documents.signing import (
    outside_event_loop,
    seller_certificate,
    signed_copy_signed,
)


def _certificate(name: str, key, issuer: str, issuer_key, days: int = 365):
    now = dt.datetime.now(dt.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=days))
        .sign(issuer_key, hashes.SHA256())
    )


def seller_pkcs12(tmp_path, *, self_signed: bool, days: int = 365, passphrase: bytes = b"s3cret"):
    """A seller's key and certificate in a PKCS#12 file, issued by a throw-away authority."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    authority = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    cert = (
        _certificate("Seller Ltd", key, "Seller Ltd", key, days)
        if self_signed
        else _certificate("Seller Ltd", key, "Some CA", authority, days)
    )
    path = tmp_path / "seller.p12"
    path.write_bytes(
        pkcs12.serialize_key_and_certificates(
            b"seller", key, cert, None, serialization.BestAvailableEncryption(passphrase)
        )
    )
    return str(path)


def _ids(settings, **configured) -> list[str]:
    settings.PROPOSALS_SIGNING_KEY = settings.PROPOSALS_SIGNING_CERT = ""
    for name, value in configured.items():
        setattr(settings, name, value)
    return [message.id for message in signing_certificate_check()]


def test_a_missing_certificate_fails_the_deploy_check(settings, tmp_path):
    assert _ids(settings, PROPOSALS_SIGNING_PKCS12="") == ["proposals.E001"]
    missing = str(tmp_path / "nowhere.p12")
    assert _ids(settings, PROPOSALS_SIGNING_PKCS12=missing) == ["proposals.E001"]


def test_a_wrong_passphrase_fails_without_printing_it(settings, tmp_path):
    settings.PROPOSALS_SIGNING_PASSPHRASE = "not-the-passphrase"
    settings.PROPOSALS_SIGNING_KEY = settings.PROPOSALS_SIGNING_CERT = ""
    settings.PROPOSALS_SIGNING_PKCS12 = seller_pkcs12(tmp_path, self_signed=False)
    [message] = signing_certificate_check()
    assert message.id == "proposals.E001"
    assert "not-the-passphrase" not in message.msg and "PASSPHRASE" in message.msg


def test_a_self_signed_certificate_fails_the_deploy_check(settings, tmp_path):
    settings.PROPOSALS_SIGNING_PASSPHRASE = "s3cret"
    path = seller_pkcs12(tmp_path, self_signed=True)
    assert _ids(settings, PROPOSALS_SIGNING_PKCS12=path) == ["proposals.E002"]


def test_a_certificate_issued_by_an_authority_passes_and_one_near_its_end_is_named(
    settings, tmp_path
):
    settings.PROPOSALS_SIGNING_PASSPHRASE = "s3cret"
    assert _ids(settings, PROPOSALS_SIGNING_PKCS12=seller_pkcs12(tmp_path, self_signed=False)) == []
    (tmp_path / "soon").mkdir()
    soon = seller_pkcs12(tmp_path / "soon", self_signed=False, days=10)
    assert _ids(settings, PROPOSALS_SIGNING_PKCS12=soon) == ["proposals.W001"]


def test_a_timestamp_authority_without_its_root_fails_the_deploy_check(settings, tmp_path):
    settings.PROPOSALS_SIGNING_PASSPHRASE = "s3cret"
    path = seller_pkcs12(tmp_path, self_signed=False)
    settings.PROPOSALS_TSA_URL, settings.PROPOSALS_TSA_ROOTS = "https://tsa.example.com/", ""
    assert _ids(settings, PROPOSALS_SIGNING_PKCS12=path) == ["proposals.E004"]


def _signers_certificate(settings) -> tuple[str, bool]:
    """A one-page PDF signed as the signed copy is, with what is configured: (the SHA-256 of
    the certificate it carries, whether pyHanko finds it intact)."""
    blank = io.BytesIO()
    writer = PdfWriter()
    writer.add_blank_page(width=595, height=842)
    writer.write(blank)
    settings.PROPOSALS_TSA_URL = ""
    seller = seller_certificate()
    signed = signed_copy_signed(blank.getvalue(), seller=seller)
    (embedded,) = PdfFileReader(io.BytesIO(signed), strict=False).embedded_signatures
    # Trusting only what is configured: the test reads who signed, not the issuer's chain.
    der = seller.certificate.public_bytes(serialization.Encoding.DER)
    trusted = ValidationContext(trust_roots=[asn1_x509.Certificate.load(der)], allow_fetching=False)
    status = outside_event_loop(validate_pdf_signature, embedded, trusted)
    return status.signing_cert.sha256.hex(), status.intact


def test_a_production_pkcs12_file_signs_the_copy_with_its_own_certificate(settings, tmp_path):
    settings.PROPOSALS_SIGNING_PASSPHRASE = "s3cret"
    settings.PROPOSALS_SIGNING_KEY = settings.PROPOSALS_SIGNING_CERT = ""
    settings.PROPOSALS_SIGNING_PKCS12 = seller_pkcs12(tmp_path, self_signed=False)
    configured = pkcs12.load_key_and_certificates(
        (tmp_path / "seller.p12").read_bytes(), b"s3cret"
    )[1]
    signer, intact = _signers_certificate(settings)
    assert intact and signer == configured.fingerprint(hashes.SHA256()).hex()


def test_a_pem_key_and_certificate_by_path_sign_the_copy(settings, tmp_path):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    authority = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    cert = _certificate("Seller Ltd", key, "Some CA", authority)
    (tmp_path / "seller.key").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"s3cret"),
        )
    )
    (tmp_path / "seller.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    settings.PROPOSALS_SIGNING_PKCS12 = ""
    settings.PROPOSALS_SIGNING_PASSPHRASE = "s3cret"
    settings.PROPOSALS_SIGNING_KEY = str(tmp_path / "seller.key")
    settings.PROPOSALS_SIGNING_CERT = str(tmp_path / "seller.pem")
    signer, intact = _signers_certificate(settings)
    assert intact and signer == cert.fingerprint(hashes.SHA256()).hex()

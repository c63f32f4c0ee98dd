"""The deploy check (proposals/checks.py): production signs signed copies with the seller's own
certificate, issued by a certification authority, or `check --deploy` fails."""

from __future__ import annotations

import datetime as dt

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID

from proposals.checks import signing_certificate_check


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

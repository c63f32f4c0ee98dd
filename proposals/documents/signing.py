"""The signed copy's digital signature: PAdES (ETSI.CAdES.detached), made by pyHanko with the
seller's certificate as an incremental update after the assembled copy, so any later change
shows in Adobe Reader, `pdfsig` and `pyhanko sign validate`. B-B; B-LT (a signature timestamp
and the validation data in the document) when a timestamp authority is configured.

The certificate and key come from the settings (PROPOSALS_SIGNING_*, portal/settings/base.py):
read once per process and file version, kept in memory only; the key and the passphrase are
never logged nor put in an error message.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import datetime as dt
import functools
import io
import os
from pathlib import Path
from typing import TYPE_CHECKING

from asn1crypto import keys as asn1_keys
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID
from django.conf import settings

# pyHanko (~0.3 s to import, with its validator) is imported where a certificate is loaded or a
# copy signed, not with the app: `manage.py check`, other commands and a process that signs
# nothing do without it.
if TYPE_CHECKING:
    from pyhanko.sign import signers
    from pyhanko_certvalidator import ValidationContext

# The signature field, invisible, on the certificate's page: the original's pages stay as they
# were (the portal's own check compares them object by object).
SIGNATURE_FIELD = "FabricQuoteSeller"
SIGNATURE_REASON = "Signed copy of an accepted offer"
# A timestamp authority that does not answer in this long fails the copy (retried later).
TSA_TIMEOUT_SECONDS = 10
# Room for a B-B signature besides its certificates: signed attributes, the signature value
# (512 bytes at RSA-4096), CMS framing; what pyHanko would otherwise find by signing twice.
SIGNATURE_ROOM = 2048


def outside_event_loop(function, /, *args, **kwargs):
    """`function(*args, **kwargs)`, on a thread of its own when this one runs an event loop:
    pyHanko's blocking calls (sign_pdf, validate_pdf_signature) run their coroutines with
    asyncio.run, which refuses to start inside a running loop (an ASGI worker, a test driving
    a browser through Playwright's sync API)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return function(*args, **kwargs)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(function, *args, **kwargs).result()


class SigningUnavailable(Exception):
    """No usable certificate: the message says which setting, never the key or passphrase."""


@dataclasses.dataclass(frozen=True)
class SellerCertificate:
    signer: signers.SimpleSigner
    certificate: x509.Certificate
    chain: tuple[x509.Certificate, ...]

    @property
    def self_signed(self) -> bool:
        return self.certificate.issuer == self.certificate.subject

    @property
    def sha256(self) -> str:
        return self.certificate.fingerprint(hashes.SHA256()).hex()

    @property
    def common_name(self) -> str:
        names = self.certificate.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
        return str(names[0].value) if names else self.certificate.subject.rfc4514_string()


def seller_certificate() -> SellerCertificate:
    """The configured certificate and key (SigningUnavailable when there is none usable)."""
    files = tuple(
        str(getattr(settings, name, "") or "")
        for name in (
            "PROPOSALS_SIGNING_PKCS12",
            "PROPOSALS_SIGNING_KEY",
            "PROPOSALS_SIGNING_CERT",
            "PROPOSALS_SIGNING_CHAIN",
        )
    )
    if not any(files[:2]):
        raise SigningUnavailable(
            "No signing certificate is configured: set PROPOSALS_SIGNING_PKCS12, or "
            "PROPOSALS_SIGNING_KEY and PROPOSALS_SIGNING_CERT (docs/operations.md)."
        )
    # Keyed by the files' modification times too: a renewed certificate is read without a
    # restart. The passphrase is read here, not kept in the cache key.
    versions = tuple(_modified(path) for path in files)
    return _loaded(files, versions)


def _modified(path: str) -> float:
    try:
        return os.stat(path).st_mtime if path else 0.0
    except OSError:
        return -1.0


@functools.lru_cache(maxsize=4)
def _loaded(files: tuple[str, ...], versions: tuple[float, ...]) -> SellerCertificate:
    pkcs12_path, key_path, cert_path, chain_path = files
    passphrase = (getattr(settings, "PROPOSALS_SIGNING_PASSPHRASE", "") or "").encode() or None
    try:
        if pkcs12_path:
            key, cert, chain = _from_pkcs12(Path(pkcs12_path), passphrase)
        else:
            key, cert, chain = _from_pem(Path(key_path), Path(cert_path), chain_path, passphrase)
    except OSError as exc:
        raise SigningUnavailable(
            f"The signing certificate cannot be read: {exc.strerror} ({exc.filename})."
        ) from None
    except ValueError:
        # cryptography's message may quote the data; ours names the setting only.
        raise SigningUnavailable(
            "The signing key or certificate cannot be loaded: a wrong "
            "PROPOSALS_SIGNING_PASSPHRASE, or not a PKCS#12 / PEM file."
        ) from None
    spki = (serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    if key.public_key().public_bytes(*spki) != cert.public_key().public_bytes(*spki):
        raise SigningUnavailable("The signing key is not the signing certificate's key.")
    from pyhanko.sign import signers
    from pyhanko_certvalidator.registry import SimpleCertificateStore

    der = serialization.Encoding.DER
    signer = signers.SimpleSigner(
        signing_cert=asn1_x509.Certificate.load(cert.public_bytes(der)),
        signing_key=asn1_keys.PrivateKeyInfo.load(
            key.private_bytes(der, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        ),
        cert_registry=SimpleCertificateStore.from_certs(
            [asn1_x509.Certificate.load(c.public_bytes(der)) for c in chain]
        ),
    )
    return SellerCertificate(signer=signer, certificate=cert, chain=tuple(chain))


def _from_pkcs12(path: Path, passphrase: bytes | None):
    key, cert, chain = pkcs12.load_key_and_certificates(path.read_bytes(), passphrase)
    if key is None or cert is None:
        raise SigningUnavailable(f"{path} holds no key and certificate.")
    return key, cert, list(chain)


def _from_pem(key_path: Path, cert_path: Path, chain_path: str, passphrase: bytes | None):
    if not cert_path.name:
        raise SigningUnavailable("PROPOSALS_SIGNING_KEY is set but PROPOSALS_SIGNING_CERT is not.")
    key = serialization.load_pem_private_key(key_path.read_bytes(), passphrase)
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    chain = x509.load_pem_x509_certificates(Path(chain_path).read_bytes()) if chain_path else []
    return key, cert, chain


def pdf_signed(pdf: bytes, *, seller: SellerCertificate, tsa_url: str = "") -> bytes:
    """`pdf` with the seller's PAdES signature appended (an incremental update covering every
    byte before it). With `tsa_url`: a signature timestamp and the validation data (B-LT)."""
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import fields, signers
    from pyhanko.sign.timestamps.requests_client import RequestsHTTPTimeStamper

    timestamper = None
    meta = {}
    if tsa_url:
        timestamper = RequestsHTTPTimeStamper(tsa_url, timeout=TSA_TIMEOUT_SECONDS)
        meta = {
            "embed_validation_info": True,
            "validation_context": _validation_context(seller),
        }
    out = outside_event_loop(
        signers.sign_pdf,
        IncrementalPdfFileWriter(io.BytesIO(pdf)),
        signers.PdfSignatureMetadata(
            field_name=SIGNATURE_FIELD,
            subfilter=fields.SigSeedSubFilter.PADES,
            md_algorithm="sha256",
            reason=SIGNATURE_REASON,
            **meta,
        ),
        signer=seller.signer,
        timestamper=timestamper,
        new_field_spec=fields.SigFieldSpec(SIGNATURE_FIELD, on_page=-1),
        # Without a timestamp the signature's size is known beforehand: pyHanko's estimate
        # (a dry run, which loads and checks the RSA key again) would double the signing
        # time. In hexadecimal digits, as /Contents holds it.
        bytes_reserved=None if tsa_url else 2 * (SIGNATURE_ROOM + _certificates_size(seller)),
    )
    return out.getvalue()


def _certificates_size(seller: SellerCertificate) -> int:
    der = serialization.Encoding.DER
    return sum(len(c.public_bytes(der)) for c in (seller.certificate, *seller.chain))


def _validation_context(seller: SellerCertificate) -> ValidationContext:
    """For B-LT: trusts the seller's root (in its chain, or its certificate when self-signed)
    and the timestamp authority's (PROPOSALS_TSA_ROOTS), named, not the system's whole store;
    the issuers' revocation data is fetched and put in the document."""
    from pyhanko_certvalidator import ValidationContext

    der = serialization.Encoding.DER
    everything = [seller.certificate, *seller.chain]
    roots = [c for c in everything if c.issuer == c.subject]
    if tsa_roots := getattr(settings, "PROPOSALS_TSA_ROOTS", ""):
        roots += x509.load_pem_x509_certificates(Path(tsa_roots).read_bytes())
    return ValidationContext(
        trust_roots=[asn1_x509.Certificate.load(c.public_bytes(der)) for c in roots],
        other_certs=[asn1_x509.Certificate.load(c.public_bytes(der)) for c in everything],
        allow_fetching=True,
        revocation_mode="soft-fail",
    )


def signed_copy_signed(pdf: bytes, *, seller: SellerCertificate) -> bytes:
    """The assembled signed copy, signed by `seller`, timestamped by the configured authority
    (PROPOSALS_TSA_URL) if any."""
    return pdf_signed(pdf, seller=seller, tsa_url=getattr(settings, "PROPOSALS_TSA_URL", ""))


def development_certificate_create(path: Path, *, common_name: str) -> bool:
    """A self-signed certificate and its key as an unencrypted PKCS#12 file at `path` (0600),
    unless one is there already; True when made. Created under a temporary name, then linked
    into place, so processes racing to create it all end up using the same one."""
    if path.exists():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "FabricQuote development"),
        ]
    )
    now = dt.datetime.now(dt.UTC)
    usage = dict.fromkeys(
        (
            "key_encipherment",
            "data_encipherment",
            "key_agreement",
            "key_cert_sign",
            "crl_sign",
            "encipher_only",
            "decipher_only",
        ),
        False,
    )
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=5 * 365))
        .add_extension(
            x509.KeyUsage(digital_signature=True, content_commitment=True, **usage), critical=True
        )
        .sign(key, hashes.SHA256())
    )
    data = pkcs12.serialize_key_and_certificates(
        common_name.encode(), key, cert, None, serialization.NoEncryption()
    )
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(data)
    try:
        os.link(temporary, path)  # fails if another process made it first: theirs stands
    except FileExistsError:
        return False
    finally:
        temporary.unlink()
    return True

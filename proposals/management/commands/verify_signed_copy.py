"""manage.py verify_signed_copy ORIGINAL.pdf SIGNED.pdf [--sha256 HEX] [--signed-sha256 HEX]:
is SIGNED.pdf the signed copy of ORIGINAL.pdf, unchanged, as the portal made it?

It checks that the copy carries ORIGINAL.pdf attached byte for byte, that its first pages are
ORIGINAL.pdf's, unchanged in everything they draw (content, fonts, drawings, annotations,
boxes, rotation, actions), that it runs no script, and that its certificate names the
original's SHA-256; then that this SHA-256 is the one the portal published for the accepted PDF,
and that the copy's own SHA-256 is the one it recorded for the signed copy (which binds the
certificate's claims). Both come from this portal's records, or from the options. The copy's
digital signature (PAdES) must be intact and cover the whole file (validation data aside); the
certificate that made it is named, and whether it is the one the portal signs with now.
"""

from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand

from proposals.acceptance.selectors import signed_copy_checked
from proposals.documents.signed_copy import ACCEPTED_ORIGINAL_NAME
from proposals.documents.signing import SigningUnavailable, seller_certificate


class Command(BaseCommand):
    help = (
        "Check that SIGNED.pdf is ORIGINAL.pdf's pages, unchanged, with ORIGINAL.pdf attached, "
        "a certificate naming its SHA-256, and nothing that runs; and that both SHA-256s are "
        "the ones the portal published (its records, or --sha256 / --signed-sha256). Exit "
        "status 1 when anything does not hold."
    )

    def add_arguments(self, parser):
        parser.add_argument("original", type=Path)
        parser.add_argument("signed", type=Path)
        parser.add_argument(
            "--sha256",
            default="",
            help="The accepted PDF's SHA-256 as the portal published it (document_sha256).",
        )
        parser.add_argument(
            "--signed-sha256",
            default="",
            help="The signed copy's SHA-256 as the portal published it (signed_sha256).",
        )

    def handle(self, *args, original: Path, signed: Path, **options):
        check = signed_copy_checked(
            original=original.read_bytes(),
            signed=signed.read_bytes(),
            sha256=options["sha256"],
            signed_sha256=options["signed_sha256"],
        )
        if check.ok and check.certificate_bound:
            self.stdout.write(self._verified(check))
            return
        self.stderr.write("NOT VERIFIED:")
        for problem in check.problems:
            self.stderr.write(f"- {problem}")
        sys.exit(1)

    @staticmethod
    def _signed_by(check) -> str:
        signature = check.signature
        if signature is None:
            return "It was made before signed copies were digitally signed. "
        try:
            ours = seller_certificate().sha256 == signature.signer_sha256
        except SigningUnavailable:
            ours = False
        whose = (
            "the portal's signing certificate"
            if ours
            else "not the certificate the portal signs with now"
        )
        return (
            f"It is digitally signed (PAdES {signature.level}), intact, by {signature.signer} "
            f"(certificate SHA-256 {signature.signer_sha256}: {whose}). "
        )

    @classmethod
    def _verified(cls, check) -> str:
        said = (
            f"OK: this is the signed copy the portal recorded (SHA-256 {check.signed_sha256}) "
            f"of the accepted PDF (SHA-256 {check.original_sha256}). "
        ) + cls._signed_by(check)
        if not check.carries_original:
            return said + (
                "It was made before signed copies carried their original: its pages were "
                f"compared by content and size only, the first {check.original_pages} of "
                f"{check.signed_pages} being the original's; the record vouches for the rest."
            )
        return said + (
            f"It carries that PDF attached ({ACCEPTED_ORIGINAL_NAME}), byte for byte; its first "
            f"{check.original_pages} of {check.signed_pages} pages are that PDF's, unchanged "
            f"(content, fonts, drawings, annotations, boxes, rotation, actions); it runs no "
            f"script; its certificate names that SHA-256."
        )

"""manage.py verify_signed_copy ORIGINAL.pdf SIGNED.pdf: does the signed copy start with the
original's pages, unchanged, and does its certificate name the original's SHA-256?"""

from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand

from proposals.documents.pdf import signed_copy_verify


class Command(BaseCommand):
    help = (
        "Check that SIGNED.pdf is ORIGINAL.pdf's pages, unchanged, plus a certificate naming "
        "ORIGINAL.pdf's SHA-256. Exit status 1 when it is not."
    )

    def add_arguments(self, parser):
        parser.add_argument("original", type=Path)
        parser.add_argument("signed", type=Path)

    def handle(self, *args, original: Path, signed: Path, **options):
        check = signed_copy_verify(original=original.read_bytes(), signed=signed.read_bytes())
        if check.ok:
            self.stdout.write(
                f"OK: the first {check.original_pages} of {check.signed_pages} pages are the "
                f"original's, unchanged; the certificate names its SHA-256 "
                f"{check.original_sha256}."
            )
            return
        for problem in check.problems:
            self.stderr.write(problem)
        sys.exit(1)

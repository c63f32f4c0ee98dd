"""manage.py check_sent_pdfs [--text]: is every stored sent PDF its revision as sent, and every
acceptance bound to one? With --text, each sent PDF's own text is read too: it must print its
quote's number, its revision and the revision's stored total. Exit status 1 on any finding."""

from __future__ import annotations

import io
import sys

from django.core.management.base import BaseCommand
from django.template.defaultfilters import floatformat
from django.utils import translation
from pypdf import PdfReader

from proposals.acceptance.selectors import acceptances_astray
from proposals.documents.selectors import documents_astray
from proposals.models import DocumentStatus, ProposalDocument


class Command(BaseCommand):
    help = (
        "Check that no stored sent PDF (nor any acceptance's PDF) differs from its revision "
        "as sent; --text also reads each sent PDF's text for its number and total."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--text",
            action="store_true",
            help="Also read every sent PDF's text (slow: ~0.2 s a PDF).",
        )

    def handle(self, *args, text: bool = False, **options):
        findings = [
            f"document {d.pk} ({d.revision.quote.number} {d.revision.label} {d.language}): "
            f"not the revision as sent"
            for d in documents_astray().select_related("revision__quote")
        ] + [
            f"acceptance {a.pk} ({a.revision.quote.number} {a.revision.label}): bound to "
            f"document {a.document_id}, which is not the revision as sent"
            for a in acceptances_astray().select_related("revision__quote")
        ]
        checked = 0
        if text:
            astray = documents_astray().values("pk")
            sent = (
                ProposalDocument.objects.filter(status=DocumentStatus.READY, is_draft=False)
                .exclude(pk__in=astray)
                .select_related("revision__quote")
            )
            for document in sent.iterator(chunk_size=50):
                checked += 1
                findings.extend(_text_findings(document))
        for finding in findings:
            self.stderr.write(finding)
        if findings:
            sys.exit(1)
        self.stdout.write(
            "OK: every sent PDF and every acceptance's PDF is its revision as sent"
            + (f"; {checked} PDF(s) read." if text else ".")
        )


def _text_findings(document: ProposalDocument) -> list[str]:
    revision = document.revision
    pages = PdfReader(io.BytesIO(bytes(document.pdf))).pages
    printed = "".join("".join((page.extract_text() or "").split()) for page in pages)
    with translation.override(document.language):
        total = floatformat(revision.total, "2g")
    expected = {"number": revision.quote.number, "revision": revision.label, "total": total}
    return [
        f"document {document.pk} ({revision.quote.number} {revision.label} "
        f"{document.language}): its text lacks the {name} {value}"
        for name, value in expected.items()
        if value and value.replace(" ", "") not in printed
    ]

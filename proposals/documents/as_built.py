"""The printable acceptance report of an as-built check: what was found against the plan, and
lines for the customer and the installer to sign. Rendered like the proposal (our template,
WeasyPrint, the fetcher that reaches nothing but data: URLs and our assets), in the language
asked, when asked: the check itself is the record, the PDF is its print.
"""

from __future__ import annotations

import base64

from django.template.loader import render_to_string
from django.utils import timezone, translation

from proposals.documents.pdf import html_to_pdf
from proposals.models import AsBuiltSignOff
from quoting.quotes.as_built_display import as_built_shown
from quoting.quotes.models import AsBuiltCheck

TEMPLATE = "proposals/as_built_report.html"
# Rows per problem table: a fabric never cabled has every link missing (49,152 rows, minutes to
# render; 1,500 rows take 10 s). Past this the report says how many more there are and where
# they are listed: five full tables render in about 3 s.
PDF_ROWS = 100


def as_built_report_filename(check: AsBuiltCheck) -> str:
    revision = check.revision
    return f"{revision.quote.number or 'quote'}-{revision.label}-as-built-{check.pk}.pdf"


def _signed(check: AsBuiltCheck) -> dict:
    """The customer's signature, when they signed this check's report on the share page."""
    sign_off = AsBuiltSignOff.objects.filter(as_built_check=check, signed_at__isnull=False).first()
    if sign_off is None:
        return {}
    png = bytes(sign_off.signature_png or b"")
    return {
        "sign_off": sign_off,
        "signature_src": "data:image/png;base64," + base64.b64encode(png).decode() if png else "",
        "signed": timezone.localtime(sign_off.signed_at),
    }


def as_built_report_html(*, check: AsBuiltCheck, language: str) -> str:
    revision = check.revision
    with translation.override(language):
        return render_to_string(
            TEMPLATE,
            {
                "language": language,
                "check": check,
                "quote": revision.quote,
                "revision": revision,
                "shown": as_built_shown(check, rows=PDF_ROWS),
                "checked": timezone.localtime(check.created_at),
                **_signed(check),
            },
        )


def as_built_report_pdf(*, check: AsBuiltCheck, language: str) -> bytes:
    return html_to_pdf(as_built_report_html(check=check, language=language))

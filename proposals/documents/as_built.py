"""The printable acceptance report of an as-built check: what was found against the plan, and
lines for the customer and the installer to sign. Rendered like the proposal (our template,
WeasyPrint, the fetcher that reaches nothing but data: URLs and our assets), in the language
asked, when asked: the check itself is the record, the PDF is its print.
"""

from __future__ import annotations

from django.template.loader import render_to_string
from django.utils import timezone, translation

from proposals.documents.pdf import html_to_pdf
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
            },
        )


def as_built_report_pdf(*, check: AsBuiltCheck, language: str) -> bytes:
    return html_to_pdf(as_built_report_html(check=check, language=language))

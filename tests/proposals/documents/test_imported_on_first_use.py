"""WeasyPrint and pyHanko are imported by the first render and the first signature, not when the
portal starts: `manage.py check`, a command, a worker that renders nothing start without them
(~0.8 s and ~0.3 s of a start on a quiet machine)."""

from __future__ import annotations

import json

import pytest

from proposals.documents.pdf import FetchRefused, html_to_pdf
from tests.portal.test_settings import run_settings

LOADED_PROBE = (
    "import json, sys, django; django.setup(); import portal.urls; "
    "print(json.dumps(sorted(m for m in ('weasyprint', 'pyhanko', 'pyhanko_certvalidator') "
    "if m in sys.modules)))"
)


def test_starting_the_portal_and_loading_its_urls_and_jobs_imports_neither(tmp_path):
    result = run_settings({"FABRICQUOTE_VAR_DIR": str(tmp_path)}, code=LOADED_PROBE)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


def test_a_refused_fetch_stops_the_render_as_weasyprints_fatal_error_not_as_an_exception():
    from weasyprint.urls import FatalURLFetchingError

    with pytest.raises(FetchRefused) as refused:
        html_to_pdf('<html><body><img src="file:///etc/passwd"></body></html>')
    assert isinstance(refused.value, FatalURLFetchingError)
    assert not isinstance(refused.value, Exception)  # no `except Exception` on the way eats it

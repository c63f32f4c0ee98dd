"""Every API answer any test receives is checked against the published schema.

The schema is the contract generated clients are built from: a status it does not list, a
content type it does not declare, or a JSON body that does not validate against the response it
documents fails the test that received it — errors, accepted quotes and downloads included.
`install()` (tests/conftest.py) wraps Django's test Client, which DRF's APIClient extends, so
every request a test makes through either is checked; the live-server flow is checked by the
generated client itself (tests/integrations/test_generated_client.py).
"""

from __future__ import annotations

import functools
import json
import re

import jsonschema
from django.test import client as django_client

from tests.api_schema import _document, _json_schema

API_PREFIX = "/api/v1/"
# Statuses a middleware may answer before any view: documented once for the whole API in the
# schema's description rather than on each of its operations.
_NO_CONTENT = (204, 304)


@functools.cache
def _templates() -> list[tuple[re.Pattern, str]]:
    """(regex, template) for every documented path, literal segments before parameters so that
    /quotes/{id}/revisions/diff/ wins over /quotes/{id}/revisions/{number}/."""
    rows = []
    for template in _document()["paths"]:
        pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
        rows.append((re.compile(f"^{pattern}$"), template))
    return sorted(rows, key=lambda row: row[1].count("{"))


def template_of(path: str) -> str | None:
    for pattern, template in _templates():
        if pattern.match(path):
            return template
    return None


@functools.cache
def _validator(template: str, method: str, status: str, content_type: str):
    document = _document()
    content = document["paths"][template][method]["responses"][status].get("content") or {}
    schema = content[content_type].get("schema") or {}
    converted = _json_schema(schema, document["components"]["schemas"])
    return jsonschema.Draft202012Validator(converted)


def check(request_path: str, method: str, response) -> None:
    """Raise AssertionError when `response` is not what the schema says of this request."""
    template = template_of(request_path)
    where = f"{method.upper()} {request_path}"
    status = response.status_code
    if template is None:
        assert status == 404, f"{where}: an undocumented path answered {status}"
        return
    operation = _document()["paths"][template].get(method)
    if operation is None:
        assert status in (405, 401, 403), f"{where}: undocumented method answered {status}"
        return
    responses = operation["responses"]
    key = str(status) if str(status) in responses else "default"
    assert key in responses, f"{where}: status {status} is not in the schema ({sorted(responses)})"
    content = responses[key].get("content") or {}
    declared = response.get("Content-Type", "").split(";")[0].strip()
    streaming = getattr(response, "streaming", False)
    if status in _NO_CONTENT or (not streaming and not response.content):
        return
    assert declared in content, f"{where}: {status} {declared} not declared ({sorted(content)})"
    if not streaming and (declared == "application/json" or declared.endswith("+json")):
        body = json.loads(response.content)
        errors = sorted(
            _validator(template, method, key, declared).iter_errors(body), key=lambda e: e.path
        )
        assert not errors, f"{where}: {status} body does not match the schema: " + "; ".join(
            f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5]
        )


def install() -> None:
    original = django_client.Client.request

    @functools.wraps(original)
    def request(self, **request):
        response = original(self, **request)
        path = request.get("PATH_INFO", "")
        if path.startswith(API_PREFIX):
            check(path, request.get("REQUEST_METHOD", "GET").lower(), response)
        return response

    django_client.Client.request = request

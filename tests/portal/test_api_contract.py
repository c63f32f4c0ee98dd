"""The API's published contract, as a generator reads it: JSON-only bodies (but one upload), an
enum for every status, one tag and a summary per operation, no description shared by two
operations, and `Idempotency-Key` documented on every write."""

from __future__ import annotations

import json

import pytest

from portal.api.schema_tags import spectacular_tags
from tests.api_schema import _document
from tests.quoting.api_world import token_client

WRITES = ("post", "put", "patch", "delete")


def _operations():
    for path, operations in _document()["paths"].items():
        for method, operation in operations.items():
            if isinstance(operation, dict) and "responses" in operation:
                yield path, method, operation


# --- JSON only ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "content_type", "body"),
    [
        ("/api/v1/customers/", "application/x-www-form-urlencoded", "company=Form+Ltd"),
        ("/api/v1/designs/", "multipart/form-data; boundary=xx", "--xx\r\n\r\n--xx--\r\n"),
        ("/api/v1/designs/", "text/plain", json.dumps({"gpu_count": 16})),
    ],
)
def test_a_body_that_is_not_json_gets_415(qw, path, content_type, body):
    response = token_client(qw.world.sales).post(path, body, content_type=content_type)
    assert response.status_code == 415, response.content


# The one upload: the file ibnetdiscover printed, as its tools hand it over (issue 25).
UPLOADS = {("post", "/api/v1/quotes/{id}/revisions/{number}/as-built/"): {"multipart/form-data"}}


def test_every_request_body_is_json_only_but_the_one_upload(db):
    for path, method, operation in _operations():
        content = operation.get("requestBody", {}).get("content", {})
        allowed = UPLOADS.get((method, path), {"application/json"})
        assert set(content) <= allowed, (method, path, sorted(content))


# --- enums ----------------------------------------------------------------------------------------


def _status_like(name: str) -> bool:
    return name.endswith("status") or name in {"decision", "scope", "token_scope", "kind", "verb"}


def test_every_status_field_is_a_named_enum(db):
    schemas = _document()["components"]["schemas"]
    missing = []
    for component, schema in schemas.items():
        for name, prop in (schema.get("properties") or {}).items():
            if not _status_like(name) or prop.get("type") == "integer":  # a problem's HTTP status
                continue
            # A named enum component, or (the event payloads' components) an inline enum.
            text = json.dumps(prop)
            if "Enum" not in text and '"enum"' not in text:
                missing.append(f"{component}.{name}")
    assert not missing, missing
    for name in ("QuoteStatusEnum", "ApprovalDecisionEnum", "DocumentStatusEnum"):
        assert name in schemas, name
    assert {"InstallPackStatusEnum", "TokenScopeEnum"} <= set(schemas)


# --- tags, summaries, descriptions ----------------------------------------------------------------


def test_every_operation_has_one_resource_tag_and_a_summary(db):
    known = {tag["name"] for tag in spectacular_tags()}
    for path, method, operation in _operations():
        if not path.startswith("/api/v1/"):
            continue
        assert len(operation.get("tags", [])) == 1, (method, path, operation.get("tags"))
        assert operation["tags"][0] in known, (method, path, operation["tags"])
        assert operation.get("summary"), (method, path)
    assert {t["name"] for t in _document()["tags"]} == known


def test_no_two_operations_share_a_description(db):
    seen: dict[str, str] = {}
    for path, method, operation in _operations():
        description = operation.get("description")
        if description:
            where = f"{method} {path}"
            assert description not in seen, (where, seen.get(description), description)
            seen[description] = where


def test_every_write_documents_the_idempotency_key(db):
    for path, method, operation in _operations():
        if method not in WRITES or not path.startswith("/api/v1/"):
            continue
        headers = {p["name"] for p in operation.get("parameters", []) if p["in"] == "header"}
        assert "Idempotency-Key" in headers, (method, path)
        assert {"409", "422"} <= set(operation["responses"]), (method, path)

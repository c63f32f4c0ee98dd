"""The answers every operation of /api/ can give, in the schema (a drf-spectacular
postprocessing hook, SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]).

Each error is a problem (`application/problem+json`, components Problem and ValidationProblem),
whatever the view declared; each operation lists the errors any call can get (401/403 where
credentials are needed, 404 on paths with an id, 405, 406, 415 with a body, 429, 500, 503, 400
for unknown query parameters on reads); each response its headers (X-Request-ID, RateLimit-*,
Retry-After on 429/503, ETag on detail reads and quote writes, Idempotent-Replayed on POST), and
each detail read its 304 to If-None-Match.
"""

from __future__ import annotations

from portal.api.exceptions import PROBLEM_CONTENT_TYPE

PROBLEM = {"$ref": "#/components/schemas/Problem"}
VALIDATION_PROBLEM = {"$ref": "#/components/schemas/ValidationProblem"}
FIELD_ERROR_STATUSES = frozenset({"400", "409", "412", "422"})

_STRING = {"type": "string"}
_INTEGER = {"type": "integer", "minimum": 0}

PROBLEM_SCHEMAS = {
    "Problem": {
        "type": "object",
        "description": "RFC 9457 problem details; see the API description, Errors.",
        "properties": {
            "type": {"type": "string", "description": "A stable URI naming the problem."},
            "title": {"type": "string", "description": "The HTTP status phrase."},
            "status": {"type": "integer"},
            "detail": {"type": "string", "description": "A sentence for people."},
            "code": {"type": "string", "description": "Machine-readable code."},
            "request_id": {"type": "string", "description": "The answer's X-Request-ID."},
        },
        "required": ["type", "title", "status", "detail", "code"],
    },
}
PROBLEM_SCHEMAS["ValidationProblem"] = {
    **PROBLEM_SCHEMAS["Problem"],
    "properties": {
        **PROBLEM_SCHEMAS["Problem"]["properties"],
        "errors": {
            "type": "object",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
            "description": 'Messages per field; nested fields by dotted path ("lines[0].sku").',
        },
    },
}

HEADERS = {
    "X-Request-ID": {
        "description": "This request's id: the client's own X-Request-ID when it is 1-128 "
        "characters of [A-Za-z0-9._-], else a new one. Also in the logs and problem bodies.",
        "schema": _STRING,
    },
    "RateLimit-Limit": {
        "description": "Requests allowed per window (callers with a token or a session).",
        "schema": _INTEGER,
    },
    "RateLimit-Remaining": {
        "description": "Requests left in this window.",
        "schema": _INTEGER,
    },
    "RateLimit-Reset": {
        "description": "Seconds until the window ends and the budget is whole again.",
        "schema": _INTEGER,
    },
    "Retry-After": {"description": "Seconds to wait before trying again.", "schema": _INTEGER},
    "ETag": {
        "description": "The representation's tag (a quote's: its version, for If-Match); "
        "send it as If-None-Match to get 304 while it is unchanged.",
        "schema": _STRING,
    },
    "Idempotent-Replayed": {
        "description": '"true" when this is the stored answer to an earlier request with the '
        "same Idempotency-Key.",
        "schema": {"type": "string", "enum": ["true"]},
    },
}

STANDARD_ERRORS = {
    "400": "Invalid input (field errors in `errors`), or an unknown query parameter.",
    "401": "Missing, unknown or revoked credentials (`WWW-Authenticate: Bearer`).",
    "403": "Not allowed (a read-only token, or a role that may not do this).",
    "404": "Not found, or not visible to you.",
    "405": "This method is not allowed on this path.",
    "406": "The Accept header asks for nothing this operation can answer.",
    "415": "The body is not JSON (`Content-Type: application/json`).",
    "429": "Too many requests: wait for `Retry-After` seconds.",
    "500": "An unexpected error on our side (quote the request id).",
    "503": "Temporarily unavailable (the database out of reach): retry after `Retry-After`.",
}

IF_NONE_MATCH = {
    "in": "header",
    "name": "If-None-Match",
    "required": False,
    "schema": _STRING,
    "description": "An ETag from an earlier answer: 304 without a body while it still matches.",
}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/headers/{name}"}


def _problem_content(status: str) -> dict:
    schema = VALIDATION_PROBLEM if status in FIELD_ERROR_STATUSES else PROBLEM
    return {PROBLEM_CONTENT_TYPE: {"schema": dict(schema)}}


def _is_json(response: dict) -> bool:
    return any(
        name == "application/json" or name.endswith("+json")
        for name in response.get("content") or {}
    )


def _secured(operation: dict) -> bool:
    security = operation.get("security")
    return security is None or (bool(security) and {} not in security)


def _wanted_errors(*, secured: bool, has_id: bool, has_body: bool, read: bool) -> list[str]:
    wanted = ["405", "406", "500", "503"]
    if read or has_body:
        wanted.append("400")
    if secured:
        wanted += ["401", "403", "429"]
    if has_id:
        wanted.append("404")
    if has_body:
        wanted.append("415")
    return wanted


def _document(path: str, method: str, operation: dict) -> None:
    responses = operation.setdefault("responses", {})
    secured = _secured(operation)
    has_id = "{" in path
    has_body = "requestBody" in operation
    is_read = method == "get"
    for status, response in responses.items():
        if status.isdigit() and int(status) >= 400:
            response["content"] = _problem_content(status)
    for status in _wanted_errors(secured=secured, has_id=has_id, has_body=has_body, read=is_read):
        if status not in responses:
            responses[status] = {
                "description": STANDARD_ERRORS[status],
                "content": _problem_content(status),
            }
    detail_read = is_read and has_id and "200" in responses and _is_json(responses["200"])
    if detail_read:
        responses.setdefault("304", {"description": "Not modified: If-None-Match matched."})
        parameters = operation.setdefault("parameters", [])
        if not any(p.get("name") == "If-None-Match" for p in parameters):
            parameters.append(dict(IF_NONE_MATCH))
    quote_write = path.startswith("/api/v1/quotes/{") and method in ("post", "patch", "put")
    for status, response in responses.items():
        ok = status.startswith("2")
        etag = (detail_read and status in ("200", "304")) or (
            quote_write and ok and _is_json(response)
        )
        headers = response.setdefault("headers", {})
        for name in _header_names(
            status, secured=secured, etag=etag, replayable=method == "post" and ok
        ):
            headers.setdefault(name, _ref(name))


def _header_names(status: str, *, secured: bool, etag: bool, replayable: bool) -> list[str]:
    names = ["X-Request-ID"]
    if secured:
        names += ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]
    if status in ("429", "503"):
        names.append("Retry-After")
    if etag:
        names.append("ETag")
    if replayable:
        names.append("Idempotent-Replayed")
    return names


def document_problems_and_headers(result, generator, request, public):
    components = result.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    for name, schema in PROBLEM_SCHEMAS.items():
        schemas.setdefault(name, schema)
    components.setdefault("headers", {}).update(HEADERS)
    for path, operations in result.get("paths", {}).items():
        if not path.startswith("/api/"):
            continue
        for method, operation in operations.items():
            if method in ("get", "post", "put", "patch", "delete") and isinstance(operation, dict):
                _document(path, method, operation)
    return result

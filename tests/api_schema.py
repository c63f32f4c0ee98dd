"""Does an API answer match what the published schema (/api/schema/) says of it?

The schema is the contract generated clients are built from (openapi-python-client raised
KeyError on an acceptance whose body the schema described wrongly): a test that reads an answer
also checks it against the schema's response for that path, method and status.

OpenAPI 3.0 is not JSON Schema: `nullable` becomes "or null" and `$ref`s are inlined here, then
`jsonschema` validates (additional properties allowed, as the schema allows them).
"""

from __future__ import annotations

import functools
import json

import jsonschema
from django.test import Client

_DROPPED = ("nullable", "readOnly", "writeOnly", "example", "discriminator", "xml", "externalDocs")


@functools.cache
def _document() -> dict:
    response = Client().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200, response.status_code
    return json.loads(response.content)


def _json_schema(node, components: dict, depth: int = 0):
    assert depth < 50, "a recursive schema: not expected here"
    if isinstance(node, list):
        return [_json_schema(item, components, depth + 1) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        resolved = _json_schema(components[node["$ref"].rsplit("/", 1)[-1]], components, depth + 1)
        return {"anyOf": [resolved, {"type": "null"}]} if node.get("nullable") else resolved
    converted = {
        key: _json_schema(value, components, depth + 1)
        for key, value in node.items()
        if key not in _DROPPED
    }
    if node.get("nullable"):
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


def response_schema(path: str, method: str = "get", status: int = 200) -> dict:
    """The JSON Schema of `path`'s (as the schema writes it: /api/v1/quotes/{id}/) answer."""
    document = _document()
    operation = document["paths"][path][method.lower()]
    content = operation["responses"][str(status)]["content"]
    # Errors are problem details (application/problem+json), everything else JSON.
    media = content.get("application/json") or content["application/problem+json"]
    return _json_schema(media["schema"], document["components"]["schemas"])


def assert_matches_schema(body, path: str, method: str = "get", status: int = 200) -> None:
    jsonschema.validate(body, response_schema(path, method, status))

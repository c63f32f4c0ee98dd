"""Reading the API's error bodies in tests: RFC 9457 problem details (application/problem+json)
with the field messages under `errors`."""

from __future__ import annotations


def field_errors(response) -> dict:
    """{field: [message, ...]} of a 4xx answer (empty when it names no field)."""
    body = response.json()
    return body.get("errors") or {}


def error_code(response) -> str:
    """The machine-readable `code` of a 4xx/5xx answer."""
    return response.json()["code"]

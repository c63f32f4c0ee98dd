"""Deeply nested JSON (issue 13, finding 8): a body nested 1,000 deep made Python's json module
raise RecursionError, a 500 on every endpoint. Now every endpoint answers 400, and (issue 23,
item 1) it does so before parsing: the depth is read from the brackets outside strings."""

from __future__ import annotations

import json
import time
from unittest import mock

import pytest

from portal.api.parsers import MAX_JSON_DEPTH
from portal.json_nesting import json_nesting_exceeds
from tests.api_errors import field_errors


def nested_objects(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def nested_arrays(depth: int) -> str:
    return "[" * depth + "]" * depth


def _writes(qw):
    """(method, path, If-Match) of every kind of write the API takes a body on."""
    quote, project = qw.quote, qw.world.project
    line = quote.current_revision.lines.first()
    etag = f'"{quote.version}"'
    return [
        ("post", "/api/v1/customers/", None),
        ("patch", f"/api/v1/customers/{qw.world.customer.pk}/", None),
        ("post", "/api/v1/contacts/", None),
        ("post", "/api/v1/projects/", None),
        ("patch", f"/api/v1/projects/{project.pk}/", None),
        ("post", f"/api/v1/projects/{project.pk}/designs/", None),
        ("post", "/api/v1/designs/", None),
        ("post", "/api/v1/tco/", None),
        ("post", "/api/v1/quotes/", None),
        ("patch", f"/api/v1/quotes/{quote.pk}/", etag),
        ("post", f"/api/v1/quotes/{quote.pk}/lines/", etag),
        ("patch", f"/api/v1/quotes/{quote.pk}/lines/{line.pk}/", etag),
        ("post", f"/api/v1/quotes/{quote.pk}/request-approval/", etag),
        ("post", "/api/v1/webhook-endpoints/", None),
    ]


@pytest.mark.parametrize(
    "body",
    [nested_objects(1_000), nested_arrays(1_000), nested_arrays(100_000)],
    ids=["objects", "arrays", "100k"],
)
def test_json_nested_1000_deep_is_a_400_on_every_endpoint(api, qw, body):
    for method, path, etag in _writes(qw):
        extra = {"HTTP_IF_MATCH": etag} if etag else {}
        response = getattr(api, method)(path, body, content_type="application/json", **extra)
        assert response.status_code == 400, (method, path, response.status_code)
        # {"detail": ...}, or {"body": [...]} from the TCO endpoint's own parse errors
        assert "nest at most 32 levels" in response.content.decode(), (method, path)


def test_one_level_more_than_the_limit_is_refused_and_the_limit_itself_is_parsed(api, qw):
    too_deep = api.post(
        "/api/v1/customers/", nested_objects(MAX_JSON_DEPTH + 1), content_type="application/json"
    )
    assert too_deep.status_code == 400 and "nest at most" in too_deep.json()["detail"]
    at_limit = api.post(
        "/api/v1/customers/", nested_objects(MAX_JSON_DEPTH), content_type="application/json"
    )
    # Parsed, then refused by the serializer for what it says, not for how deep it is.
    assert at_limit.status_code == 400 and "company" in field_errors(at_limit)


def test_ordinary_bodies_still_work(api, qw):
    response = api.post("/api/v1/customers/", {"company": "Deep Thought Ltd"}, format="json")
    assert response.status_code == 201, response.json()


def test_a_body_too_deep_is_refused_before_it_is_parsed(api, qw):
    with mock.patch("json.load", side_effect=AssertionError("parsed")) as load:
        response = api.post(
            "/api/v1/customers/", nested_arrays(1_000), content_type="application/json"
        )
    assert response.status_code == 400 and "nest at most 32 levels" in response.json()["detail"]
    assert not load.called


def test_five_megabytes_of_arrays_each_under_the_interpreters_limit_cost_no_parse(api, qw):
    """Each 500 deep: json would build all 2.6 million lists (2.5 s) before anything looked."""
    chunk = nested_arrays(500)
    body = "[" + ",".join([chunk] * (5 * 1024 * 1024 // (len(chunk) + 1) - 1)) + "]"
    started = time.perf_counter()
    response = api.post("/api/v1/customers/", body, content_type="application/json")
    assert response.status_code == 400 and "nest at most" in response.json()["detail"]
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(
    ("text", "deeper_than_32"),
    [
        (nested_arrays(33), True),
        (nested_arrays(32), False),
        ("[{" * 17, True),
        ('{"a": [1, {"b": [2]}]}', False),
        # brackets inside strings are text, escaped quotes included
        (json.dumps({"note": "[" * 100, "also": '\\"' + "{" * 100}), False),
        ('["\\\\"' + "," + "[" * 33 + "]" * 33 + "]", True),
        # a string never closed stops the parser there: what follows is not counted
        ('["' + "[" * 40, False),
        (b'{"\xe4\xb8\xad": [' + b"[" * 40, True),
        ("", False),
    ],
)
def test_the_depth_is_read_from_the_brackets_outside_strings(text, deeper_than_32):
    assert json_nesting_exceeds(text, MAX_JSON_DEPTH) is deeper_than_32


def test_the_depth_scan_agrees_with_the_parser_on_valid_json():
    for value in ([], {"a": {"b": {"c": []}}}, [[1], [[2]], [[[3]]]], {"s": "]]]}}}"}):
        for limit in range(5):
            text = json.dumps(value)
            assert json_nesting_exceeds(text, limit) == _deeper(value, limit), (text, limit)


def _deeper(value, limit: int, depth: int = 1) -> bool:
    if isinstance(value, dict):
        value = list(value.values())
    if not isinstance(value, list):
        return False
    return depth > limit or any(_deeper(v, limit, depth + 1) for v in value)

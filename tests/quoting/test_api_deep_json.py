"""Deeply nested JSON (issue 13, finding 8): a body nested 1,000 deep made Python's json module
raise RecursionError, a 500 on every endpoint. Now every endpoint answers 400."""

from __future__ import annotations

import pytest

from portal.api.parsers import MAX_JSON_DEPTH, json_deeper_than


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
    assert at_limit.status_code == 400 and "company" in at_limit.json()


def test_ordinary_bodies_still_work(api, qw):
    response = api.post("/api/v1/customers/", {"company": "Deep Thought Ltd"}, format="json")
    assert response.status_code == 201, response.json()


def test_the_depth_check_walks_without_recursing():
    deep: list = []
    for _ in range(200_000):  # far past the interpreter's recursion limit
        deep = [deep]
    assert json_deeper_than(deep, MAX_JSON_DEPTH)
    assert not json_deeper_than({"a": [1, {"b": [2]}]}, 4)
    assert json_deeper_than({"a": [1, {"b": [2]}]}, 3)
    assert not json_deeper_than("text", 0)

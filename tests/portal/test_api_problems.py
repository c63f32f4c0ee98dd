"""Errors a program can read (issue 24, item 6): RFC 9457 problem details for every 4xx and 5xx
under /api/, 401 with WWW-Authenticate, RateLimit-* and X-Request-ID headers, unknown query
parameters refused, `updated_since` on every list and ETag / If-None-Match on every detail."""

from __future__ import annotations

import datetime as dt
import logging

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.exceptions import APIException
from rest_framework.test import APIClient

from catalog.models import Product
from integrations.auth import TokenRateThrottle
from integrations.models import WebhookEndpoint
from integrations.webhooks import webhook_secret_new
from portal.api.exceptions import api_exception_handler, flatten_errors
from portal.api.request_ids import RequestIdFilter
from quoting.customers.models import Customer
from tests.api_errors import error_code, field_errors
from tests.api_schema import _document, assert_matches_schema
from tests.quoting.api_world import token_client

PROBLEM = "application/problem+json"


def assert_problem(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert body["status"] == status
    assert body["code"] == code == error_code(response)
    assert body["type"] == f"https://fabricquote.example/problems/{code}"
    assert body["title"] and body["detail"]
    assert body["request_id"] == response["X-Request-ID"]
    return body


@pytest.fixture
def crm(qw):
    return token_client(qw.world.sales)


# --- every error a problem --------------------------------------------------------------------


def test_an_unknown_api_path_is_a_json_404_problem(crm):
    assert_problem(crm.get("/api/v1/no-such-thing/"), 404, "not_found")
    assert_problem(crm.get("/api/nothing"), 404, "not_found")


def test_pages_outside_the_api_keep_their_html(client, db):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_missing_credentials_get_401_with_a_bearer_challenge(client, db):
    """Anonymous, browser-style calls too: 401, never 403, for credentials missing."""
    response = client.get("/api/v1/customers/")
    assert_problem(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'
    assert "RateLimit-Limit" not in response  # no throttle counted an anonymous call


def test_a_bad_token_gets_401_authentication_failed(db):
    caller = APIClient()
    caller.credentials(HTTP_AUTHORIZATION="Bearer fq_unknown")
    response = caller.get("/api/v1/customers/")
    assert_problem(response, 401, "authentication_failed")
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'


def test_a_read_token_writing_gets_403(qw):
    response = token_client(qw.world.sales, scope="read").post(
        "/api/v1/customers/", {"company": "X"}, format="json"
    )
    assert_problem(response, 403, "permission_denied")


def test_another_teams_record_is_a_404_problem(qw):
    response = token_client(qw.world.other_sales).get(f"/api/v1/customers/{qw.world.customer.pk}/")
    assert_problem(response, 404, "not_found")


def test_field_errors_are_under_errors(crm):
    body = assert_problem(crm.post("/api/v1/customers/", {}, format="json"), 400, "invalid")
    assert body["errors"]["company"] == ["This field is required."]


def test_nested_field_errors_are_named_by_dotted_path():
    assert flatten_errors({"lines": [{}, {"sku": ["Unknown."]}], "a": {"b": ["x"]}}) == {
        "lines[1].sku": ["Unknown."],
        "a.b": ["x"],
    }
    assert flatten_errors({"fabrics": {1: {"transport": ["Bad."]}}}) == {
        "fabrics[1].transport": ["Bad."]
    }


def test_json_that_does_not_parse_is_a_parse_error_problem(crm):
    response = crm.post("/api/v1/customers/", "{not json", content_type="application/json")
    assert_problem(response, 400, "parse_error")


def test_a_body_that_is_not_json_is_a_415_problem(crm):
    response = crm.post("/api/v1/customers/", "company=X", content_type="text/plain")
    assert_problem(response, 415, "unsupported_media_type")


def test_an_unacceptable_accept_is_a_406_problem_in_json(crm):
    assert_problem(
        crm.get("/api/v1/customers/", HTTP_ACCEPT="application/xml"), 406, "not_acceptable"
    )


def test_a_method_not_allowed_is_a_405_problem(crm):
    response = crm.delete("/api/v1/customers/")
    assert_problem(response, 405, "method_not_allowed")
    assert "GET" in response["Allow"]


def test_a_body_too_large_is_a_413_problem(crm, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    response = crm.post("/api/v1/customers/", {"company": "X" * 200}, format="json")
    assert_problem(response, 413, "request_too_large")


def test_a_protected_delete_is_a_409_problem(crm, qw):
    response = crm.delete(f"/api/v1/customers/{qw.world.customer.pk}/")
    assert_problem(response, 409, "protected")


def test_a_quote_rule_refusal_keeps_its_status_and_names_its_field(crm, qw):
    stale = crm.patch(
        f"/api/v1/quotes/{qw.quote.pk}/",
        {"valid_until": "2030-01-01"},
        format="json",
        HTTP_IF_MATCH='"999"',
    )
    body = assert_problem(stale, 412, "precondition_failed")
    assert field_errors(stale) == body.get("errors", {})
    missing = crm.patch(f"/api/v1/quotes/{qw.quote.pk}/", {}, format="json")
    assert_problem(missing, 428, "precondition_required")


def test_a_throttled_call_is_a_429_problem_with_retry_after(qw, monkeypatch):
    monkeypatch.setattr(TokenRateThrottle, "THROTTLE_RATES", {"api_token": "2/minute"})
    monkeypatch.setattr(TokenRateThrottle, "timer", lambda self: 6000.0)
    crm = token_client(qw.world.sales)
    first = crm.get("/api/v1/customers/")
    assert (first["RateLimit-Limit"], first["RateLimit-Remaining"]) == ("2", "1")
    assert first["RateLimit-Reset"] == "60"
    assert crm.get("/api/v1/customers/")["RateLimit-Remaining"] == "0"
    refused = crm.get("/api/v1/customers/")
    assert_problem(refused, 429, "throttled")
    assert refused["Retry-After"] == "60"
    assert refused["RateLimit-Remaining"] == "0"


def test_a_crash_is_a_500_problem(qw, monkeypatch):
    from quoting.customers.api import CustomerViewSet

    def boom(self, request, *args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(CustomerViewSet, "list", boom)
    caller = Client(raise_request_exception=False)
    caller.force_login(qw.world.sales)
    response = caller.get("/api/v1/customers/")
    body = assert_problem(response, 500, "server_error")
    assert "boom" not in body["detail"]


def test_the_database_out_of_reach_is_a_503_problem(qw, monkeypatch):
    from django.db import OperationalError

    from quoting.customers.api import CustomerViewSet

    def down(self, request, *args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(CustomerViewSet, "list", down)
    response = token_client(qw.world.sales).get("/api/v1/customers/")
    assert_problem(response, 503, "service_unavailable")
    assert response["Retry-After"] == "30"


def test_problem_extra_is_merged_into_the_body():
    class Duplicate(APIException):
        status_code = 409
        default_code = "duplicate"
        default_detail = "A customer with this company exists."

    error = Duplicate()
    error.problem_extra = {"existing_id": 7}
    response = api_exception_handler(error, {})
    assert response.status_code == 409
    assert response.data["existing_id"] == 7
    assert response.data["code"] == "duplicate"


def test_an_error_matches_the_schemas_problem(crm):
    response = crm.post("/api/v1/customers/", {}, format="json")
    assert_matches_schema(response.json(), "/api/v1/customers/", "post", 400)


# --- request ids -------------------------------------------------------------------------------


def test_a_sane_request_id_is_echoed_and_another_is_replaced(crm):
    assert crm.get("/api/v1/customers/", HTTP_X_REQUEST_ID="crm-42.a_b")["X-Request-ID"] == (
        "crm-42.a_b"
    )
    for insane in ("x" * 129, "a b", "<script>"):
        answered = crm.get("/api/v1/customers/", HTTP_X_REQUEST_ID=insane)["X-Request-ID"]
        assert answered != insane
        assert len(answered) == 32
    first, second = crm.get("/api/v1/customers/"), crm.get("/api/v1/customers/")
    assert first["X-Request-ID"] != second["X-Request-ID"]


def test_pages_get_a_request_id_too(client, db):
    assert len(client.get("/healthz")["X-Request-ID"]) == 32


def test_the_request_id_is_in_the_requests_log_records(crm, caplog):
    caplog.handler.addFilter(RequestIdFilter())
    with caplog.at_level(logging.WARNING, logger="django.request"):
        crm.get("/api/v1/no-such-thing/", HTTP_X_REQUEST_ID="trace-me-1")
    records = [r for r in caplog.records if r.name == "django.request"]
    assert records
    assert {r.request_id for r in records} == {"trace-me-1"}


# --- rate-limit headers -----------------------------------------------------------------------


def test_token_and_session_callers_get_rate_limit_headers(qw, client):
    crm = token_client(qw.world.sales)
    first, second = crm.get("/api/v1/customers/"), crm.get("/api/v1/quotes/")
    assert int(first["RateLimit-Limit"]) > 0
    assert int(second["RateLimit-Remaining"]) == int(first["RateLimit-Remaining"]) - 1
    assert 0 < int(first["RateLimit-Reset"]) <= 3600
    client.force_login(qw.world.sales)
    assert "RateLimit-Remaining" in client.get("/api/v1/customers/")


# --- unknown query parameters ------------------------------------------------------------------


def test_an_unknown_query_parameter_is_a_400_naming_it(crm, qw):
    for path in ("/api/v1/customers/", f"/api/v1/customers/{qw.world.customer.pk}/"):
        response = crm.get(path, {"sort": "company", "q": "Peng"})
        assert_problem(response, 400, "invalid")
        assert field_errors(response) == {"sort": ["Unknown query parameter."]}


def test_known_query_parameters_still_work(crm, qw):
    asked = {"q": "Peng", "ordering": "company", "page": 1, "page_size": 5, "format": "json"}
    assert crm.get("/api/v1/customers/", asked).status_code == 200
    assert crm.get("/api/v1/quotes/", {"status": "draft", "updated_since": "2020-01-01T00:00:00Z"})
    assert crm.get(
        f"/api/v1/quotes/{qw.quote.pk}/revisions/diff/", {"a": 1, "b": 1}
    ).status_code in (
        200,
        400,
    )
    assert crm.get("/api/v1/renewals/", {"within": 30}).status_code == 200


# --- updated_since on every list ----------------------------------------------------------------

LISTS = [
    "/api/v1/products/",
    "/api/v1/customers/",
    "/api/v1/contacts/",
    "/api/v1/projects/",
    "/api/v1/quotes/",
    "/api/v1/approvals/",
    "/api/v1/renewals/",
    "/api/v1/webhook-endpoints/",
]


def _results(response) -> list:
    body = response.json()
    return body["results"] if isinstance(body, dict) else body


@pytest.mark.parametrize("path", LISTS)
def test_updated_since_filters_each_list_and_refuses_a_bad_value(crm, qw, path):
    WebhookEndpoint.objects.create(
        url="https://crm.example/hooks",
        secret=webhook_secret_new(),
        events=["quote.sent"],
        created_by=qw.world.sales,
    )
    everything = crm.get(path)
    assert everything.status_code == 200
    past = crm.get(path, {"updated_since": "2000-01-01T00:00:00Z"})
    assert past.status_code == 200
    assert len(_results(past)) == len(_results(everything))
    future = crm.get(path, {"updated_since": "2999-01-01T00:00:00+08:00"})
    assert future.status_code == 200
    assert _results(future) == []
    bad = crm.get(path, {"updated_since": "yesterday"})
    assert_problem(bad, 400, "invalid")
    assert list(field_errors(bad)) == ["updated_since"]


def test_updated_since_keeps_the_rows_changed_at_or_after_it(crm, qw):
    newer = Customer.objects.create(company="Newer Ltd", team=qw.world.team, owner=qw.world.sales)
    cut = timezone.now() - dt.timedelta(minutes=5)
    Customer.objects.filter(pk=qw.world.customer.pk).update(updated_at=cut - dt.timedelta(days=1))
    Customer.objects.filter(pk=newer.pk).update(updated_at=cut)
    response = crm.get("/api/v1/customers/", {"updated_since": cut.isoformat()})
    assert [row["id"] for row in _results(response)] == [newer.pk]
    naive = crm.get("/api/v1/customers/", {"updated_since": "2000-01-01T00:00:00"})
    assert len(_results(naive)) == 2  # without an offset: UTC


def test_every_list_documents_updated_since():
    for path, operations in _document()["paths"].items():
        if path in LISTS:
            names = [p["name"] for p in operations["get"]["parameters"]]
            assert "updated_since" in names, path


# --- ETag and 304 on every detail ---------------------------------------------------------------


def _detail_paths(qw) -> list[str]:
    endpoint = WebhookEndpoint.objects.create(
        url="https://crm.example/hooks",
        secret=webhook_secret_new(),
        events=["quote.sent"],
        created_by=qw.world.sales,
    )
    return [
        f"/api/v1/products/{Product.objects.get(part_number='SW-1').part_number}/",
        f"/api/v1/customers/{qw.world.customer.pk}/",
        f"/api/v1/contacts/{qw.contact.pk}/",
        f"/api/v1/projects/{qw.world.project.pk}/",
        f"/api/v1/quotes/{qw.quote.pk}/",
        f"/api/v1/webhook-endpoints/{endpoint.pk}/",
    ]


@pytest.mark.parametrize("index", range(6))
def test_each_detail_has_an_etag_and_answers_304_when_it_matches(crm, qw, index):
    path = _detail_paths(qw)[index]
    first = crm.get(path)
    assert first.status_code == 200
    tag = first["ETag"]
    assert tag.startswith('"') and tag.endswith('"')
    assert crm.get(path)["ETag"] == tag  # the same body, the same tag
    same = crm.get(path, HTTP_IF_NONE_MATCH=f'"other", {tag}')
    assert same.status_code == 304
    assert same["ETag"] == tag
    assert same.content == b""
    assert crm.get(path, HTTP_IF_NONE_MATCH='"other"').status_code == 200


def test_a_quote_keeps_its_version_as_etag(crm, qw):
    response = crm.get(f"/api/v1/quotes/{qw.quote.pk}/")
    assert response["ETag"] == f'"{qw.quote.version}"'
    again = crm.get(f"/api/v1/quotes/{qw.quote.pk}/", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304


def test_a_changed_record_gets_a_new_etag(crm, qw):
    path = f"/api/v1/customers/{qw.world.customer.pk}/"
    tag = crm.get(path)["ETag"]
    crm.patch(path, {"company": "Renamed University"}, format="json")
    assert crm.get(path, HTTP_IF_NONE_MATCH=tag).status_code == 200


# --- the schema documents them -------------------------------------------------------------------


def test_every_operation_documents_its_problems_and_headers():
    document = _document()
    assert {"Problem", "ValidationProblem"} <= set(document["components"]["schemas"])
    for path, operations in document["paths"].items():
        if not path.startswith("/api/"):
            continue
        for method, operation in operations.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            responses = operation["responses"]
            for status in ("406", "500", "503"):
                assert status in responses, (path, method, status)
            for status, response in responses.items():
                assert "X-Request-ID" in response.get("headers", {}), (path, method, status)
                if int(status) >= 400:
                    assert list(response["content"]) == [PROBLEM], (path, method, status)
            if "{" in path:
                assert "404" in responses, (path, method)
            if "requestBody" in operation:
                assert "415" in responses, (path, method)
    quote = document["paths"]["/api/v1/quotes/{id}/"]["get"]["responses"]
    assert "ETag" in quote["200"]["headers"]
    assert "304" in quote
    listed = document["paths"]["/api/v1/customers/"]["get"]["responses"]
    assert {"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} <= set(
        listed["200"]["headers"]
    )
    assert "Retry-After" in listed["429"]["headers"]

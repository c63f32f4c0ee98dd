"""The quote API: the CRM flow, ETag / If-Match on every write, limits and bad input."""

from __future__ import annotations

import json

from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quoting.quotes.models import Quote, QuoteStatus
from tests.api_errors import field_errors
from tests.quoting.api_world import token_client


def _lines_url(quote):
    return f"/api/v1/quotes/{quote.pk}/lines/"


def test_the_crm_flow_customer_project_design_quote_send(seeded, make_user):
    from tests.quoting.factories import TeamFactory

    sales = make_user("crm-sales")
    TeamFactory(name="South").members.add(sales)
    api = token_client(sales)
    customer = api.post("/api/v1/customers/", {"company": "Pengcheng Lab"}, format="json")
    assert customer.status_code == 201, customer.json()
    project = api.post(
        "/api/v1/projects/",
        {"customer": customer.json()["id"], "name": "AI cluster"},
        format="json",
    )
    assert project.status_code == 201, project.json()
    design = api.post(
        f"/api/v1/projects/{project.json()['id']}/designs/",
        {"name": "128 GPUs", "gpu_count": 128},
        format="json",
    )
    assert design.status_code == 201, design.json()
    assert design.json()["result"]["leaf_count"] >= 1
    quote = api.post("/api/v1/quotes/", {"design": design.json()["id"]}, format="json")
    assert quote.status_code == 201, quote.json()
    assert quote["ETag"] == f'"{quote.json()["version"]}"'
    sent = api.post(
        f"/api/v1/quotes/{quote.json()['id']}/send/", {}, format="json", HTTP_IF_MATCH=quote["ETag"]
    )
    assert sent.status_code == 200, sent.json()
    assert sent.json()["status"] == QuoteStatus.SENT
    events = api.get(f"/api/v1/quotes/{quote.json()['id']}/events/").json()["results"]
    assert [e["verb"] for e in events][-1] == "status_changed"


def test_a_write_without_if_match_gets_428(api, qw):
    response = api.post(_lines_url(qw.quote), {"sku": "SW-1", "quantity": 1}, format="json")
    assert response.status_code == 428
    assert Quote.objects.get(pk=qw.quote.pk).version == qw.quote.version


def test_a_stale_if_match_gets_412_and_a_fresh_one_200_with_a_new_etag(api, qw):
    url = f"/api/v1/quotes/{qw.quote.pk}/"
    etag = api.get(url)["ETag"]
    assert etag == f'"{qw.quote.version}"'
    changed = api.patch(url, {"discount_percent": "2.5"}, format="json", HTTP_IF_MATCH=etag)
    assert changed.status_code == 200, changed.json()
    assert changed["ETag"] != etag
    assert changed.json()["discount_percent"] == "2.50"
    stale = api.patch(url, {"discount_percent": "5"}, format="json", HTTP_IF_MATCH=etag)
    assert stale.status_code == 412
    assert "version" in field_errors(stale)
    assert api.get(url).json()["discount_percent"] == "2.50"  # no lost update


def test_lines_are_added_changed_and_removed_with_the_quotes_version(api, qw):
    before = api.get(_lines_url(qw.quote))
    etag = before["ETag"]
    added = api.post(
        _lines_url(qw.quote),
        {"description": "Site survey", "quantity": 1, "unit_price": "5000.00"},
        format="json",
        HTTP_IF_MATCH=etag,
    )
    assert added.status_code == 201, added.json()
    line_url = f"{_lines_url(qw.quote)}{added.json()['id']}/"
    changed = api.patch(line_url, {"quantity": 3}, format="json", HTTP_IF_MATCH=added["ETag"])
    assert changed.status_code == 200, changed.json()
    assert changed.json()["amount"] == "15000.00"
    assert api.delete(line_url, HTTP_IF_MATCH=added["ETag"]).status_code == 412
    removed = api.delete(line_url, HTTP_IF_MATCH=changed["ETag"])
    assert removed.status_code == 204
    assert api.get(_lines_url(qw.quote)).json() == before.json()


def test_revisions_and_their_diff(api, qw):
    url = f"/api/v1/quotes/{qw.quote.pk}/"
    sent = api.post(f"{url}send/", {}, format="json", HTTP_IF_MATCH=f'"{qw.quote.version}"')
    assert sent.status_code == 200, sent.json()
    line = api.get(f"{url}revisions/1/").json()["lines"][0]
    edited = api.patch(
        f"{url}lines/{line['id']}/", {"quantity": 5}, format="json", HTTP_IF_MATCH=sent["ETag"]
    )
    assert edited.status_code == 200, edited.json()
    assert [r["label"] for r in api.get(f"{url}revisions/").json()] == ["R1", "R2"]
    diff = api.get(f"{url}revisions/diff/?a=1&b=2").json()
    assert diff["changed"][0]["changes"]["quantity"] == ["2", "5"]
    assert api.get(f"{url}revisions/diff/?a=1&b=x").status_code == 400
    assert api.get(f"{url}revisions/diff/?a=1&b=9").status_code == 404


def test_domain_errors_keep_their_status_and_field(api, qw, make_user):
    url = f"/api/v1/quotes/{qw.quote.pk}/"
    response = api.post(f"{url}approve/", {}, format="json", HTTP_IF_MATCH=f'"{qw.quote.version}"')
    assert response.status_code == 403  # NotAllowed: not a manager
    assert "detail" in response.json()
    response = api.post(
        f"{url}request-approval/", {}, format="json", HTTP_IF_MATCH=f'"{qw.quote.version}"'
    )
    assert response.status_code == 400
    assert "discount_percent" in field_errors(response)


def test_a_body_over_the_limit_gets_413(api):
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000):
        response = api.post(
            "/api/v1/customers/", {"company": "x", "notes": "n" * 2000}, format="json"
        )
    assert response.status_code == 413


def test_lists_order_and_paginate_alike(api, qw):
    for company in ("Beta Ltd", "Alpha Ltd"):
        api.post("/api/v1/customers/", {"company": company}, format="json")
    page = api.get("/api/v1/customers/?ordering=-company&page_size=2").json()
    assert page["count"] == 3
    assert [c["company"] for c in page["results"]] == ["Pengcheng University", "Beta Ltd"]


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=300),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=10), children, max_size=3)
    ),
    max_leaves=8,
)
CUSTOMER_KEYS = [
    "company",
    "industry",
    "region",
    "vat_zone",
    "language",
    "default_currency",
    "notes",
    "team",
]
LINE_KEYS = ["sku", "description", "unit_price", "quantity", "section", "discount_percent"]


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    customer=st.dictionaries(st.sampled_from(CUSTOMER_KEYS), JSON_VALUES),
    line=st.dictionaries(st.sampled_from(LINE_KEYS), JSON_VALUES),
    raw=st.binary(max_size=50),
)
def test_bad_input_is_never_a_server_error(api, qw, customer, line, raw):
    lines = _lines_url(qw.quote)
    etag = f'"{Quote.objects.get(pk=qw.quote.pk).version}"'
    for response in (
        api.post("/api/v1/customers/", customer, format="json"),
        api.post(lines, line, format="json", HTTP_IF_MATCH=etag),
        api.patch(
            f"{lines}{qw.quote.current_revision.lines.first().pk}/",
            line,
            format="json",
            HTTP_IF_MATCH=etag,
        ),
        api.post("/api/v1/customers/", raw, content_type="application/json"),
        api.post("/api/v1/customers/", json.dumps(customer), content_type="text/plain"),
    ):
        assert response.status_code < 500, response.content

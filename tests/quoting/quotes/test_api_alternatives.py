"""Alternatives over the API (issue 22, item 10): POST /api/v1/quotes/{id}/alternatives/ with a
saved design of the project and a label, If-Match and Idempotency-Key as for other writes;
DELETE /api/v1/quotes/{id}/alternatives/{label}/ withdraws one."""

from __future__ import annotations

from urllib.parse import quote as urlquote

import pytest

from quoting.designs.models import SavedDesign
from quoting.quotes.models import QuoteEvent, QuoteLine, Section
from tests.api_errors import field_errors
from tests.quoting.api_world import BOM, token_client
from tests.quoting.factories import ProjectFactory, quote_reload

pytestmark = pytest.mark.django_db


@pytest.fixture
def other_design(qw):
    return SavedDesign.objects.create(
        project=qw.world.project,
        name="Spectrum-X",
        requirements={"gpu_count": 16, "protocol": "ethernet"},
        result={"bom": BOM},
        created_by=qw.world.sales,
    )


def _url(qw, tail=""):
    return f"/api/v1/quotes/{qw.quote.pk}/alternatives/{tail}"


def _etag(api, qw):
    return api.get(f"/api/v1/quotes/{qw.quote.pk}/")["ETag"]


def _add(api, qw, body, **headers):
    return api.post(_url(qw), body, format="json", HTTP_IF_MATCH=_etag(api, qw), **headers)


def _alternative_lines(qw, label):
    revision = quote_reload(qw.quote).current_revision
    return QuoteLine.objects.filter(
        revision=revision, section=Section.ALTERNATIVES, alternative_group=label
    )


def test_an_alternative_is_added_priced_and_named_by_its_design(api, qw, other_design):
    response = _add(api, qw, {"design": other_design.pk, "label": "Ethernet"})
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["label"] == "Ethernet" and body["design"] == other_design.pk
    assert [(ln["sku"], ln["quantity"]) for ln in body["lines"]] == [("SW-1", 2), ("CB-1", 8)]
    assert all(ln["section"] == "alternatives" for ln in body["lines"])
    assert response["ETag"] == _etag(api, qw)
    assert set(_alternative_lines(qw, "Ethernet").values_list("design", flat=True)) == {
        other_design.pk
    }


def test_a_retry_with_the_same_idempotency_key_replays_the_first_answer(api, qw, other_design):
    etag = _etag(api, qw)
    first = api.post(
        _url(qw),
        {"design": other_design.pk, "label": "Ethernet"},
        format="json",
        HTTP_IF_MATCH=etag,
        HTTP_IDEMPOTENCY_KEY="alt-1",
    )
    again = api.post(
        _url(qw),
        {"design": other_design.pk, "label": "Ethernet"},
        format="json",
        HTTP_IF_MATCH=etag,
        HTTP_IDEMPOTENCY_KEY="alt-1",
    )
    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true" and again.json() == first.json()
    assert _alternative_lines(qw, "Ethernet").count() == 2


def test_bad_input_gets_a_400_at_the_field_and_changes_nothing(api, qw, other_design):
    elsewhere = SavedDesign.objects.create(
        project=ProjectFactory(customer=qw.world.customer, name="Other"),
        name="Elsewhere",
        requirements={},
        result={"bom": BOM},
        created_by=qw.world.sales,
    )
    cases = [
        ({"design": elsewhere.pk, "label": "X"}, "design"),
        ({"design": 999999, "label": "X"}, "design"),
        ({"design": other_design.pk, "label": ""}, "label"),
        ({"design": other_design.pk, "label": "x" * 101}, "label"),
        ({"label": "X"}, "design"),
    ]
    for body, field in cases:
        response = _add(api, qw, body)
        assert response.status_code == 400, (body, response.content)
        assert field in field_errors(response), (body, response.json())
    _add(api, qw, {"design": other_design.pk, "label": "Ethernet"})
    twice = _add(api, qw, {"design": other_design.pk, "label": "Ethernet"})
    assert twice.status_code == 400 and "label" in field_errors(twice)
    assert _alternative_lines(qw, "Ethernet").count() == 2


def test_writes_need_the_current_version(api, qw, other_design):
    body = {"design": other_design.pk, "label": "Ethernet"}
    assert api.post(_url(qw), body, format="json").status_code == 428
    assert api.post(_url(qw), body, format="json", HTTP_IF_MATCH='"999"').status_code == 412
    assert not _alternative_lines(qw, "Ethernet").exists()


def test_delete_withdraws_an_alternative_and_records_it(api, qw, other_design):
    _add(api, qw, {"design": other_design.pk, "label": "Better: Spectrum-X"})
    response = api.delete(
        _url(qw, urlquote("Better: Spectrum-X", safe="") + "/"), HTTP_IF_MATCH=_etag(api, qw)
    )
    assert response.status_code == 204, response.content
    assert not _alternative_lines(qw, "Better: Spectrum-X").exists()
    assert QuoteEvent.objects.filter(verb="alternative_removed").exists()
    missing = api.delete(_url(qw, "Nothing/"), HTTP_IF_MATCH=_etag(api, qw))
    assert missing.status_code == 404


def test_a_read_token_may_not_add_alternatives(qw, other_design):
    reader = token_client(qw.world.sales, scope="read")
    response = _add(reader, qw, {"design": other_design.pk, "label": "Ethernet"})
    assert response.status_code == 403

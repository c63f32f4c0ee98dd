"""The API's quote reads are built from plain rows for speed; they print exactly what the
serializers print."""

from __future__ import annotations

import json

import pytest
from rest_framework.renderers import JSONRenderer

from quoting.quotes.api import QuoteDetailSerializer, QuoteSerializer
from quoting.quotes.models import Quote
from quoting.quotes.services.quotes import quote_send


@pytest.fixture(name="qw")
def qw_on_the_catalog(seeded, qw):
    """The quote world, made after the shipped catalog is loaded."""
    return qw


def _as_json(data):
    return json.loads(JSONRenderer().render(data))


def test_the_quote_list_prints_what_the_quote_serializer_prints(api, qw):
    quote = Quote.objects.select_related("owner", "current_revision").get(pk=qw.quote.pk)

    page = api.get("/api/v1/quotes/").json()

    assert page["count"] == 1
    assert page["results"] == [_as_json(QuoteSerializer(quote).data)]


def test_the_quote_list_still_filters_and_orders(api, qw):
    assert api.get("/api/v1/quotes/?status=draft&ordering=-number").json()["count"] == 1
    assert api.get("/api/v1/quotes/?status=sent").json()["count"] == 0
    assert api.get("/api/v1/quotes/?status=nonsense").status_code == 400


def _detailed(quote_id):
    quote = Quote.objects.select_related("owner", "current_revision").get(pk=quote_id)
    return _as_json(QuoteDetailSerializer(quote).data)


def test_one_quote_prints_what_the_detail_serializer_prints_draft_and_sent(api, qw):
    url = f"/api/v1/quotes/{qw.quote.pk}/"
    draft = api.get(url)
    assert draft.json() == _detailed(qw.quote.pk)
    assert draft["ETag"] == f'"{qw.quote.version}"'

    quote = Quote.objects.get(pk=qw.quote.pk)
    quote_send(quote=quote, user=qw.world.sales, expected_version=quote.version)
    sent = api.get(url).json()
    assert sent["status"] == "sent"
    assert sent == _detailed(qw.quote.pk)


def test_the_quote_list_prints_times_in_the_servers_zone_as_the_serializer_does(api, qw, settings):
    settings.TIME_ZONE = "Asia/Shanghai"
    quote = Quote.objects.select_related("owner", "current_revision").get(pk=qw.quote.pk)
    row = api.get("/api/v1/quotes/").json()["results"][0]
    assert row == _as_json(QuoteSerializer(quote).data)
    assert row["created_at"].endswith("+08:00")

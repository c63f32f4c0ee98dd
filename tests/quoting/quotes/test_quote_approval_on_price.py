"""The approval gate measures what the customer pays against list prices (issue 13, finding 1).

The attacks that got through when the gate only read the discount fields: catalog prices set to
0.01 through the API, the design's lines replaced by one free-text line at 1.00, and a line
discount stacked on the quote discount. Each is now held for a manager's approval, from the API
and from the page alike, and a quote within the limit still goes out without one.

The world: a quote made from a design of 2 x SW-1 at 10,000.00 and 8 x CB-1 at 100.00, so
20,800.00 at list; the sales user's limit is 10 %, the manager's 25 %.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from quoting.errors import ApprovalRequired
from quoting.quotes.models import Approval, ApprovalDecision, QuoteLine, QuoteStatus
from quoting.quotes.selectors import revision_largest_discount
from quoting.quotes.services.quotes import (
    quote_add_free_text,
    quote_remove_line,
    quote_revise,
    quote_send,
    quote_update_line,
)
from tests.api_errors import field_errors
from tests.quoting.api_world import token_client
from tests.quoting.factories import quote_reload


def _url(quote, tail=""):
    return f"/api/v1/quotes/{quote.pk}/{tail}"


def _etag(api, quote) -> str:
    return api.get(_url(quote))["ETag"]


def _write(api, method, quote, tail, body=None):
    return getattr(api, method)(
        _url(quote, tail), body or {}, format="json", HTTP_IF_MATCH=_etag(api, quote)
    )


def _line(quote, sku):
    return QuoteLine.objects.get(revision=quote_reload(quote).current_revision, sku=sku)


def _largest(quote) -> Decimal:
    return revision_largest_discount(revision=quote_reload(quote).current_revision)


def _refused_for_approval(response, percent: str):
    assert response.status_code == 409, response.json()
    message = field_errors(response)["discount_percent"][0]
    assert f"A discount of {percent} % is above your limit of 10 %" in message
    return message


# --- the attacks, through the API ----------------------------------------------------------------


def test_catalog_prices_set_to_a_cent_through_the_api_are_held_for_approval(api, qw):
    for sku in ("SW-1", "CB-1"):
        response = _write(
            api, "patch", qw.quote, f"lines/{_line(qw.quote, sku).pk}/", {"unit_price": "0.01"}
        )
        assert response.status_code == 200, response.json()
    assert api.get(_url(qw.quote)).json()["totals"]["net"] == "0.10"

    # 0.01 for a 10,000.00 switch: 99.9999 %, to two places.
    _refused_for_approval(_write(api, "post", qw.quote, "send/"), "100.00")
    quote = quote_reload(qw.quote)
    assert quote.status == QuoteStatus.DRAFT and quote.current_revision.sent_at is None


def test_one_cheap_line_in_a_large_quote_is_held_even_if_the_total_barely_moves(api, qw):
    # 8 cables at 0.01 instead of 100.00: the quote is 3.8 % below list, the line 99.99 %.
    _write(api, "patch", qw.quote, f"lines/{_line(qw.quote, 'CB-1').pk}/", {"unit_price": "0.01"})
    _refused_for_approval(_write(api, "post", qw.quote, "send/"), "99.99")


def test_the_designs_lines_replaced_by_one_free_text_line_at_1_are_held_for_approval(api, qw):
    for sku in ("SW-1", "CB-1"):
        response = _write(api, "delete", qw.quote, f"lines/{_line(qw.quote, sku).pk}/")
        assert response.status_code == 204
    response = _write(
        api,
        "post",
        qw.quote,
        "lines/",
        {
            "description": "Network equipment as designed",
            "quantity": 1,
            "unit_price": "1.00",
            "section": "network",
        },
    )
    assert response.status_code == 201, response.json()

    # 1.00 against the design's 20,800.00 at list.
    _refused_for_approval(_write(api, "post", qw.quote, "send/"), "100.00")
    assert quote_reload(qw.quote).status == QuoteStatus.DRAFT


def test_a_10_percent_line_discount_on_a_10_percent_quote_discount_is_19_percent(api, qw):
    line = _line(qw.quote, "SW-1")
    assert (
        _write(api, "patch", qw.quote, f"lines/{line.pk}/", {"discount_percent": "10"}).status_code
        == 200
    )
    assert _write(api, "patch", qw.quote, "", {"discount_percent": "10"}).status_code == 200

    _refused_for_approval(_write(api, "post", qw.quote, "send/"), "19.00")


def test_prices_and_discounts_within_the_limit_are_sent_without_approval(api, qw):
    # Exactly at the limit: the switches priced 10 % below list, the cables 10 % off, and a
    # free-text extra at its own price.
    _write(
        api, "patch", qw.quote, f"lines/{_line(qw.quote, 'SW-1').pk}/", {"unit_price": "9000.00"}
    )
    _write(
        api, "patch", qw.quote, f"lines/{_line(qw.quote, 'CB-1').pk}/", {"discount_percent": "10"}
    )
    _write(
        api,
        "post",
        qw.quote,
        "lines/",
        {"description": "Site survey", "quantity": 1, "unit_price": "5000.00"},
    )
    assert _largest(qw.quote) == Decimal("10.00")

    response = _write(api, "post", qw.quote, "send/")
    assert response.status_code == 200, response.json()
    assert response.json()["status"] == QuoteStatus.SENT
    assert not Approval.objects.exists()


def test_after_a_managers_approval_the_cheap_quote_is_sent(api, qw):
    _write(api, "patch", qw.quote, f"lines/{_line(qw.quote, 'SW-1').pk}/", {"unit_price": "0.01"})
    response = _write(api, "post", qw.quote, "request-approval/", {"note": "Trade-in deal"})
    assert response.status_code == 200, response.json()
    approval = Approval.objects.get()
    assert approval.discount_percent == Decimal("100.00")  # what the manager is asked to approve

    manager = token_client(qw.world.manager)
    response = manager.post(
        _url(qw.quote, "approve/"),
        {"reason": "Trade-in"},
        format="json",
        HTTP_IF_MATCH=_etag(manager, qw.quote),
    )
    assert response.status_code == 403  # 100 % is above the manager's own 25 %

    director = qw.world.manager.__class__.objects.create_user("director", is_superuser=True)
    response = token_client(director).post(
        _url(qw.quote, "approve/"),
        {"reason": "Trade-in"},
        format="json",
        HTTP_IF_MATCH=_etag(api, qw.quote),
    )
    assert response.status_code == 200, response.json()
    approval.refresh_from_db()
    assert (approval.decision, approval.decided_by) == (ApprovalDecision.APPROVED, director)

    response = _write(api, "post", qw.quote, "send/")
    assert response.status_code == 200, response.json()
    assert response.json()["status"] == QuoteStatus.SENT


def test_a_manager_approves_a_stacked_discount_within_their_own_limit(api, qw):
    _write(api, "patch", qw.quote, "", {"discount_percent": "10"})
    _write(
        api, "patch", qw.quote, f"lines/{_line(qw.quote, 'SW-1').pk}/", {"discount_percent": "10"}
    )
    _write(api, "post", qw.quote, "request-approval/")
    assert Approval.objects.get().discount_percent == Decimal("19.00")
    manager = token_client(qw.world.manager)
    assert (
        manager.post(
            _url(qw.quote, "approve/"), {}, format="json", HTTP_IF_MATCH=_etag(manager, qw.quote)
        ).status_code
        == 200
    )
    assert _write(api, "post", qw.quote, "send/").status_code == 200


# --- the same rule on the page -------------------------------------------------------------------


def test_the_page_offers_approval_not_sending_and_refuses_a_send_posted_anyway(client, api, qw):
    _write(api, "patch", qw.quote, f"lines/{_line(qw.quote, 'SW-1').pk}/", {"unit_price": "0.01"})
    client.force_login(qw.world.sales)
    page = client.get(f"/quotes/{qw.quote.pk}/").content.decode()
    assert "Request approval" in page and "Mark sent" not in page
    assert "The customer would pay 100 % below list prices" in page

    response = client.post(
        f"/quotes/{qw.quote.pk}/send/", {"expected_version": quote_reload(qw.quote).version}
    )
    assert response.status_code == 409
    assert "100.00 % is above your limit of 10 %" in response.content.decode()
    assert quote_reload(qw.quote).status == QuoteStatus.DRAFT


def test_free_text_lines_added_on_the_page_count_against_the_removed_design_lines(client, qw):
    quote, sales = qw.quote, qw.world.sales
    for sku in ("SW-1", "CB-1"):
        quote_remove_line(
            quote=quote, line=_line(quote, sku), user=sales, expected_version=quote.version
        )
    client.force_login(sales)
    response = client.post(
        f"/quotes/{quote.pk}/lines/free-text/",
        {
            "expected_version": quote_reload(quote).version,
            "description": "All of it",
            "quantity": 1,
            "unit_price": "1.00",
            "section": "network",
        },
    )
    assert response.status_code == 302
    response = client.post(
        f"/quotes/{quote.pk}/send/", {"expected_version": quote_reload(quote).version}
    )
    assert response.status_code == 409
    assert quote_reload(quote).status == QuoteStatus.DRAFT


# --- the rule itself -----------------------------------------------------------------------------


def test_a_free_text_line_standing_in_for_removed_lines_at_their_list_value_is_no_discount(qw):
    quote, sales = qw.quote, qw.world.sales
    quote_remove_line(
        quote=quote, line=_line(quote, "CB-1"), user=sales, expected_version=quote.version
    )
    quote_add_free_text(
        quote=quote,
        description="Cabling, supplied and installed",
        quantity=1,
        unit_price="800.00",
        user=sales,
        expected_version=quote.version,
    )
    assert _largest(quote) == Decimal("0.00")
    quote_send(quote=quote, user=sales, expected_version=quote.version)
    assert quote.status == QuoteStatus.SENT


def test_removing_design_lines_without_a_replacement_counts_as_a_discount(qw):
    quote, sales = qw.quote, qw.world.sales
    quote_remove_line(
        quote=quote, line=_line(quote, "SW-1"), user=sales, expected_version=quote.version
    )
    # 800.00 charged for a design worth 20,800.00 at list.
    assert _largest(quote) == Decimal("96.15")
    with pytest.raises(ApprovalRequired):
        quote_send(quote=quote, user=sales, expected_version=quote.version)


def test_a_price_above_list_is_no_discount_and_never_offsets_another_line(qw):
    quote, sales = qw.quote, qw.world.sales
    quote_update_line(
        quote=quote,
        line=_line(quote, "SW-1"),
        unit_price="12000.00",
        user=sales,
        expected_version=quote.version,
    )
    assert _largest(quote) == Decimal("0.00")
    quote_update_line(
        quote=quote,
        line=_line(quote, "CB-1"),
        unit_price="50.00",
        user=sales,
        expected_version=quote.version,
    )
    # The whole quote is above list, but the cables are half price.
    assert _largest(quote) == Decimal("50.00")


def test_a_free_text_lines_own_discount_and_the_quote_discount_count(qw):
    quote, sales = qw.quote, qw.world.sales
    quote_add_free_text(
        quote=quote,
        description="Training",
        quantity=1,
        unit_price="1000.00",
        discount_percent=20,
        user=sales,
        expected_version=quote.version,
    )
    assert _largest(quote) == Decimal("20.00")


def test_the_next_revision_keeps_the_list_prices_it_is_measured_against(qw):
    quote, sales = qw.quote, qw.world.sales
    quote_send(quote=quote, user=sales, expected_version=quote.version)
    quote_revise(quote=quote, user=sales, expected_version=quote.version)
    r2 = quote_reload(quote).current_revision
    assert r2.number == 2 and r2.design_list_value == Decimal("20800.00")
    assert {line.sku: line.list_price for line in r2.lines.all()} == {
        "SW-1": Decimal("10000.00"),
        "CB-1": Decimal("100.00"),
    }
    quote_update_line(
        quote=quote,
        line=_line(quote, "SW-1"),
        unit_price="0.01",
        user=sales,
        expected_version=quote.version,
    )
    with pytest.raises(ApprovalRequired):
        quote_send(quote=quote, user=sales, expected_version=quote.version)


def test_lines_made_before_list_prices_were_kept_get_them_from_the_migration(qw):
    from importlib import import_module

    from django.apps import apps

    backfill = import_module(
        "quoting.migrations.0002_list_prices_for_the_approval_gate"
    ).list_prices_backfill
    switch, cable = _line(qw.quote, "SW-1"), _line(qw.quote, "CB-1")
    QuoteLine.objects.filter(pk=switch.pk).update(
        list_price=None, unit_price=Decimal("0.01"), price_source="set by hand (was 10000.00)"
    )
    QuoteLine.objects.filter(pk=cable.pk).update(list_price=None)
    quote_add_free_text(
        quote=qw.quote,
        description="Survey",
        quantity=1,
        unit_price="10.00",
        user=qw.world.sales,
        expected_version=qw.quote.version,
    )
    backfill(apps, None)
    assert dict(QuoteLine.objects.values_list("description", "list_price")) == {
        switch.description: Decimal("10000.00"),
        cable.description: Decimal("100.00"),
        "Survey": None,
    }
    assert _largest(qw.quote) == Decimal("100.00")

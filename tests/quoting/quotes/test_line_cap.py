"""A revision holds at most MAX_LINES_PER_REVISION lines, whichever way lines are added: by
hand, or in bulk (a design's BOM with its spares kit and per-node services, an alternative with
its kit, the options' kits sized at a send or a revision). A user's action over the cap is
refused on its field with nothing added; a send that would size kits over it is refused naming
the count; revising a revision sent before each option had its kit leaves out a kit that would
not fit, and the audit trail says so.

The cap is lowered for these tests: the kit world's quote holds 6 lines (its design's switch and
kit, installation, a locker, "Better"'s switch and kit)."""

from __future__ import annotations

import pytest
from django.test import Client

from catalog.models import Category, Unit
from quoting.errors import InvalidValue
from quoting.quotes.models import (
    LineOrigin,
    Quote,
    QuoteEvent,
    QuoteEventVerb,
    QuoteLine,
    QuoteRevision,
    QuoteStatus,
)
from quoting.quotes.selectors import revision_content_fingerprint
from quoting.quotes.services import quotes as services
from quoting.quotes.services.quotes import (
    quote_add_alternative,
    quote_create_from_design,
    quote_revise,
    quote_send,
)
from tests.api_errors import field_errors
from tests.quoting.api_world import token_client
from tests.quoting.factories import ProductFactory, price_set
from tests.quoting.kit_world import _design, quote_with_kits

pytestmark = pytest.mark.django_db


def _cap(monkeypatch, most: int) -> None:
    monkeypatch.setattr(services, "MAX_LINES_PER_REVISION", most)


@pytest.fixture
def quote(world):
    return quote_with_kits(world)


@pytest.fixture
def bigger(world, quote):
    """A third design: 8 x SW-B, and its kit of 2 (25 %, rounded up): 2 lines."""
    return _design(world.project, "8 leaves", "SW-B", 8)


def _written(quote) -> tuple:
    """What a refused action must leave as it was."""
    quote.refresh_from_db()
    lines = QuoteLine.objects.filter(revision__quote=quote)
    return (
        quote.version,
        quote.status,
        QuoteRevision.objects.filter(quote=quote).count(),
        sorted(lines.values_list("pk", flat=True)),
        QuoteEvent.objects.filter(quote=quote).count(),
    )


# --- a design: its BOM, kit and per-node services ------------------------------------------------


def test_a_quote_from_a_design_over_the_cap_is_refused_and_no_quote_is_made(
    world, quote, monkeypatch
):
    design = _design(world.project, "12 leaves", "SW-A", 12)  # its switch and its kit: 2 lines
    quotes, lines = Quote.objects.count(), QuoteLine.objects.count()
    _cap(monkeypatch, 1)
    with pytest.raises(InvalidValue) as refused:
        quote_create_from_design(project=world.project, design=design, user=world.sales)
    assert refused.value.field == "design"
    assert "at most 1 lines; this would bring it to 2 lines" in str(refused.value)
    assert (Quote.objects.count(), QuoteLine.objects.count()) == (quotes, lines)
    _cap(monkeypatch, 2)  # at the cap: made
    made = quote_create_from_design(project=world.project, design=design, user=world.sales)
    assert made.current_revision.lines.count() == 2


def test_the_per_node_services_count_toward_the_cap(world, quote, monkeypatch):
    service = ProductFactory(part_number="SVC-TUNE", category=Category.SERVICE, unit=Unit.NODE)
    price_set(service, "CNY", "800.00")
    design = _design(world.project, "12 leaves", "SW-A", 12)
    design.result = {**design.result, "node_count": 12}
    design.save(update_fields=["result"])
    lines = QuoteLine.objects.count()
    _cap(monkeypatch, 2)  # the switch and its kit fit; the tuning service does not
    with pytest.raises(InvalidValue) as refused:
        quote_create_from_design(
            project=world.project, design=design, user=world.sales, currency="CNY"
        )
    assert "this would bring it to 3 lines" in str(refused.value)
    assert QuoteLine.objects.count() == lines
    _cap(monkeypatch, 3)
    made = quote_create_from_design(
        project=world.project, design=design, user=world.sales, currency="CNY"
    )
    assert made.current_revision.lines.filter(origin=LineOrigin.NODE_SERVICES).count() == 1


def test_the_api_refuses_a_quote_from_a_design_over_the_cap_with_a_400(world, monkeypatch):
    price_set(ProductFactory(part_number="SW-A", category=Category.SWITCH), "CNY", "10000.00")
    design = _design(world.project, "4 leaves", "SW-A", 4)
    _cap(monkeypatch, 0)
    api = token_client(world.sales)
    response = api.post("/api/v1/quotes/", {"design": design.pk}, format="json")
    assert response.status_code == 400, response.content
    assert "at most 0 lines" in field_errors(response)["design"][0]
    assert not Quote.objects.exists()


def test_the_project_page_refuses_a_quote_from_a_design_over_the_cap(world, monkeypatch):
    price_set(ProductFactory(part_number="SW-A", category=Category.SWITCH), "CNY", "10000.00")
    design = _design(world.project, "4 leaves", "SW-A", 4)
    _cap(monkeypatch, 0)
    client = Client()
    client.force_login(world.sales)
    response = client.post(f"/projects/{world.project.pk}/designs/{design.pk}/quote/")
    assert response.status_code == 400
    assert "A quote holds at most 0 lines" in response.content.decode()
    assert not Quote.objects.exists()


# --- an alternative and its kit ------------------------------------------------------------------


def test_an_alternative_over_the_cap_is_refused_and_nothing_is_added(
    world, quote, bigger, monkeypatch
):
    before = _written(quote)
    _cap(monkeypatch, 7)  # 6 + its switch fit, not its kit too
    with pytest.raises(InvalidValue) as refused:
        quote_add_alternative(
            quote=quote,
            design=bigger,
            label="Best",
            user=world.sales,
            expected_version=quote.version,
        )
    assert refused.value.field == "design"
    assert "at most 7 lines; this would bring it to 8 lines" in str(refused.value)
    assert _written(quote) == before
    _cap(monkeypatch, 8)  # at the cap: added
    added = quote_add_alternative(
        quote=quote, design=bigger, label="Best", user=world.sales, expected_version=quote.version
    )
    assert len(added) == 2 and quote.current_revision.lines.count() == 8


def test_the_api_refuses_an_alternative_over_the_cap_on_its_design(
    world, quote, bigger, monkeypatch
):
    before = _written(quote)
    _cap(monkeypatch, 7)
    api = token_client(world.sales)
    etag = api.get(f"/api/v1/quotes/{quote.pk}/")["ETag"]
    response = api.post(
        f"/api/v1/quotes/{quote.pk}/alternatives/",
        {"design": bigger.pk, "label": "Best"},
        format="json",
        HTTP_IF_MATCH=etag,
    )
    assert response.status_code == 400, response.content
    assert "this would bring it to 8 lines" in field_errors(response)["design"][0]
    assert _written(quote) == before


def test_the_quote_page_shows_the_cap_beside_the_alternative_s_design(
    world, quote, bigger, monkeypatch
):
    before = _written(quote)
    _cap(monkeypatch, 7)
    client = Client()
    client.force_login(world.sales)
    response = client.post(
        f"/quotes/{quote.pk}/alternatives/add/",
        {"expected_version": quote.version, "design": bigger.pk, "label": "Best"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 400
    body = response.content.decode()
    assert "err-alt-design" in body and "this would bring it to 8 lines" in body
    assert _written(quote) == before


# --- the options' kits sized at a send and at a revision -----------------------------------------


def _without_option_kits(quote) -> None:
    """A draft made before each option carried its kit: "Better" has none (5 lines)."""
    QuoteLine.objects.filter(revision=quote.current_revision, origin=LineOrigin.SPARES_KIT).exclude(
        alternative_group=""
    ).delete()
    quote.refresh_from_db()


def test_a_send_that_would_size_kits_over_the_cap_is_refused_naming_the_count(
    world, quote, monkeypatch
):
    _without_option_kits(quote)
    before = _written(quote)
    _cap(monkeypatch, 5)
    with pytest.raises(InvalidValue) as refused:
        quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    assert refused.value.field == "lines"
    message = str(refused.value)
    assert "spares kit (1 line): the quote would hold 6 lines, more than the 5" in message
    assert _written(quote) == before and quote.status == QuoteStatus.DRAFT
    _cap(monkeypatch, 6)  # at the cap: sent with Better's kit
    sent = quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    assert sent.lines.filter(origin=LineOrigin.SPARES_KIT, alternative_group="Better").exists()


def test_revising_one_sent_before_option_kits_leaves_out_a_kit_over_the_cap(
    world, quote, monkeypatch
):
    """Refusing would refuse every edit of the sent quote, the removals that make room too: the
    draft opens without the kit, and the audit trail says how many lines were left out."""
    sent = quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    QuoteLine.objects.filter(
        revision=sent, origin=LineOrigin.SPARES_KIT, alternative_group="Better"
    ).delete()
    QuoteRevision.objects.filter(pk=sent.pk).update(
        content_sha256=revision_content_fingerprint(revision=sent, version=5)
    )
    quote.refresh_from_db()
    _cap(monkeypatch, 5)
    draft = quote_revise(quote=quote, user=world.sales, expected_version=quote.version)
    assert draft.lines.count() == 5
    assert not draft.lines.filter(origin=LineOrigin.SPARES_KIT, alternative_group="Better").exists()
    event = QuoteEvent.objects.get(quote=quote, verb=QuoteEventVerb.ALTERNATIVE_KIT_ADDED)
    assert event.details == {"label": "Better", "spares_kit_lines": 0, "spares_kit_left_out": 1}


def test_revising_leaves_out_every_option_kit_when_they_do_not_all_fit(
    world, quote, bigger, monkeypatch
):
    """One kit added and another left out would let the send (which sizes kits only for a draft
    none of whose options has one) send "Best" offering no spares: the kits come all or none, and
    the send then sizes them and refuses, naming the count."""
    quote_add_alternative(
        quote=quote, design=bigger, label="Best", user=world.sales, expected_version=quote.version
    )
    quote.refresh_from_db()
    sent = quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    QuoteLine.objects.filter(revision=sent, origin=LineOrigin.SPARES_KIT).exclude(
        alternative_group=""
    ).delete()  # 6 lines: "Better"'s kit alone would fit under 7, both would not
    QuoteRevision.objects.filter(pk=sent.pk).update(
        content_sha256=revision_content_fingerprint(revision=sent, version=5)
    )
    quote.refresh_from_db()
    _cap(monkeypatch, 7)
    draft = quote_revise(quote=quote, user=world.sales, expected_version=quote.version)
    assert draft.lines.count() == 6
    assert not draft.lines.filter(origin=LineOrigin.SPARES_KIT).exclude(alternative_group="")
    events = QuoteEvent.objects.filter(quote=quote, verb=QuoteEventVerb.ALTERNATIVE_KIT_ADDED)
    assert sorted((e.details["label"], e.details["spares_kit_lines"]) for e in events) == [
        ("Best", 0),
        ("Better", 0),
    ]
    quote.refresh_from_db()
    with pytest.raises(InvalidValue) as refused:
        quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    assert "the quote would hold 8 lines, more than the 7" in str(refused.value)

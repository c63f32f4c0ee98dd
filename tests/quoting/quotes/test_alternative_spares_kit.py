"""Each alternative carries its own spares kit (issue 26 item 8): sized from the option's bill
of materials at the catalog's ratios, as optional lines under the option's group. The customer
may include the kit of the configuration they order only: as quoted the proposed design's,
with "Better" Better's; other optional items go with any. A revision sent under content
version 5 keeps its rule (every optional line with every configuration)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import translation

from quoting.errors import InvalidValue
from quoting.quotes import content_hash
from quoting.quotes.models import LineOrigin, QuoteLine, QuoteRevision, Section
from quoting.quotes.selectors import (
    booked_choice,
    kits_follow_the_option,
    offer_choice,
    offer_options,
    revision_alternatives,
    revision_content_fingerprint,
    revision_totals,
)
from quoting.quotes.services.quotes import (
    quote_mark_accepted,
    quote_remove_alternative,
    quote_revise,
    quote_send,
    quote_update_line,
)
from tests.quoting.kit_world import (
    AS_QUOTED_TOTAL,
    AS_QUOTED_WITH_KIT_TOTAL,
    BETTER_TOTAL,
    BETTER_WITH_KIT_TOTAL,
    quote_with_kits,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def quote(world):
    return quote_with_kits(world)


def _keys(revision, *descriptions_or_skus, group=None):
    lines = revision.lines.filter(section=Section.OPTIONAL)
    return [
        str(ln.key)
        for ln in lines
        if (ln.sku or ln.description) in descriptions_or_skus
        and (group is None or ln.alternative_group == group)
    ]


def _kit(revision, group):
    return revision.lines.get(origin=LineOrigin.SPARES_KIT, alternative_group=group)


def _sent(quote, world):
    quote.refresh_from_db()
    return quote_send(quote=quote, user=world.sales, expected_version=quote.version)


def test_each_configuration_has_its_own_kit_sized_from_its_bill_of_materials(quote):
    revision = quote.current_revision
    kits = {
        (ln.alternative_group, ln.sku, ln.quantity, ln.unit_price)
        for ln in revision.lines.filter(origin=LineOrigin.SPARES_KIT)
    }
    # 25 % of 4 x SW-A -> 1; 25 % of 6 x SW-B = 1.5 -> 2.
    assert kits == {
        ("", "SW-A", 1, Decimal("10000.00")),
        ("Better", "SW-B", 2, Decimal("20000.00")),
    }
    assert {ln.section for ln in revision.lines.filter(origin=LineOrigin.SPARES_KIT)} == {
        Section.OPTIONAL
    }
    assert _kit(revision, "Better").design.name == "6 leaves"
    [better] = revision_alternatives(revision=revision)
    assert better.kit == (("SW-B", 2),) and better.kit_subtotal == Decimal("40000.00")
    # Offered, never ordered: no total moves.
    as_quoted = revision_totals(revision=revision).total
    assert (as_quoted, better.total_if_chosen) == (AS_QUOTED_TOTAL, BETTER_TOTAL)


def test_as_quoted_the_design_s_kit_and_the_other_items_are_offered_not_better_s(quote):
    revision = quote.current_revision
    choice = offer_choice(
        revision=revision, optional_keys=_keys(revision, "SW-A", "On-site spares locker")
    )
    assert choice.totals.total == AS_QUOTED_WITH_KIT_TOTAL == Decimal("65190.00")
    with translation.override("en"), pytest.raises(InvalidValue) as refused:
        offer_choice(revision=revision, optional_keys=_keys(revision, "SW-B"))
    assert refused.value.field == "optional"
    assert "spares kit of another configuration" in str(refused.value)


def test_with_better_its_kit_and_the_other_items_are_offered_not_the_design_s(quote):
    revision = quote.current_revision
    choice = offer_choice(
        revision=revision,
        alternative="Better",
        optional_keys=_keys(revision, "SW-B", "On-site spares locker"),
    )
    assert choice.totals.subtotal == Decimal("168000.00")
    assert choice.totals.tax == Decimal("21490.00")
    assert choice.totals.total == BETTER_WITH_KIT_TOTAL == Decimal("189490.00")
    with translation.override("zh-hans"), pytest.raises(InvalidValue) as refused:
        offer_choice(revision=revision, alternative="Better", optional_keys=_keys(revision, "SW-A"))
    assert refused.value.field == "optional"
    assert "另一配置" in str(refused.value)
    offered = {
        (row.line.sku or row.line.description, row.kit_of)
        for row in offer_options(revision=revision).optional
    }
    assert offered == {("SW-A", ""), ("SW-B", "Better"), ("On-site spares locker", None)}


def test_the_accept_books_the_option_with_its_kit_and_refuses_another_s(quote, world):
    revision = _sent(quote, world)
    quote.refresh_from_db()
    with pytest.raises(InvalidValue):
        quote_mark_accepted(
            quote=quote,
            actor=world.sales,
            expected_version=quote.version,
            alternative="Better",
            optional=_keys(revision, "SW-A"),
        )
    quote.refresh_from_db()
    assert quote.booked_revision_id is None
    quote_mark_accepted(
        quote=quote,
        actor=world.sales,
        expected_version=quote.version,
        alternative="Better",
        optional=_keys(revision, "SW-B"),
    )
    quote.refresh_from_db()
    booked = booked_choice(quote=quote)
    assert booked.alternative == "Better"
    assert [ln.sku for ln in booked.optional] == ["SW-B"]
    assert booked.totals.total == Decimal("186100.00")  # 160,000.00 at 13 % + 5,300.00


def test_the_next_revision_copies_each_kit_and_removing_the_option_removes_its_kit(quote, world):
    sent = _sent(quote, world)
    quote.refresh_from_db()
    draft = quote_revise(quote=quote, user=world.sales, expected_version=quote.version)
    assert _kit(draft, "Better").key == _kit(sent, "Better").key
    assert _kit(draft, "").key == _kit(sent, "").key
    quote.refresh_from_db()
    assert (
        quote_remove_alternative(
            quote=quote, label="Better", user=world.sales, expected_version=quote.version
        )
        == 1
    )
    assert not draft.lines.filter(alternative_group="Better").exists()
    assert _kit(draft, "").sku == "SW-A"
    assert _kit(sent, "Better")  # the sent revision keeps what it offered


def test_an_option_s_kit_line_stays_optional(quote, world):
    line = _kit(quote.current_revision, "Better")
    with pytest.raises(InvalidValue) as refused:
        quote_update_line(
            quote=quote, line=line, user=world.sales, expected_version=quote.version, optional=False
        )
    assert refused.value.field == "optional"
    line.refresh_from_db()
    assert line.section == Section.OPTIONAL


def test_a_revision_sent_under_version_5_keeps_every_optional_line_with_every_option(quote, world):
    """Sent under version 5, the offer printed every optional line beside every option: the
    customer may still take the proposed design's kit with "Better", at the figure it printed."""
    revision = _sent(quote, world)
    assert revision.content_sha256.startswith("7:") and kits_follow_the_option(revision)
    QuoteRevision.objects.filter(pk=revision.pk).update(
        content_sha256=revision_content_fingerprint(revision=revision, version=5)
    )
    revision.refresh_from_db()
    assert not kits_follow_the_option(revision)
    choice = offer_choice(
        revision=revision, alternative="Better", optional_keys=_keys(revision, "SW-A")
    )
    assert choice.totals.total == Decimal("152200.00")  # 130,000.00 at 13 % + 5,300.00
    assert {row.kit_of for row in offer_options(revision=revision).optional} == {None}


def test_version_6_fingerprints_version_5_s_line_fields():
    # The kit rule adds no field (a kit line's group and origin were fingerprinted under 5);
    # version 6 came with the revision's lead time beside it.
    assert content_hash.FIELDS[6][1] == content_hash.FIELDS[5][1]
    assert content_hash.FIELDS[6][0] == (*content_hash.FIELDS[5][0], "lead_time_weeks")


def test_the_quote_page_and_the_api_list_the_option_s_kit(client, quote, world):
    from tests.quoting.api_world import token_client

    client.force_login(world.sales)
    page = client.get(f"/quotes/{quote.pk}/").content.decode()
    alternatives = page[page.index('id="quote-alternatives"') :]
    kit_row = alternatives[alternatives.index('data-kit-of="Better"') :]
    assert "2 × <code>SW-B</code>" in kit_row[:600] and "+40,000.00" in kit_row[:600]

    api = token_client(world.sales, scope="read")
    lines = api.get(f"/api/v1/quotes/{quote.pk}/lines/").json()
    assert {
        (ln["section"], ln["alternative_group"], ln["sku"], ln["origin"])
        for ln in lines
        if ln["origin"] == "spares_kit"
    } == {("optional", "", "SW-A", "spares_kit"), ("optional", "Better", "SW-B", "spares_kit")}


def test_the_constraint_allows_a_group_on_a_kit_line_only(quote):
    from django.db import IntegrityError, transaction

    line = quote.current_revision.lines.get(description="On-site spares locker")
    with pytest.raises(IntegrityError), transaction.atomic():
        QuoteLine.objects.filter(pk=line.pk).update(alternative_group="Better")


def test_the_proposal_prints_the_option_s_kit_under_its_rows(quote):
    from proposals.documents.selectors import proposal_content

    content = proposal_content(revision=quote.current_revision, language="en")
    sections = {key: [row.line for row in rows] for key, _label, rows in content.sections}
    assert [(ln.section, ln.sku) for ln in sections[Section.ALTERNATIVES]] == [
        (Section.ALTERNATIVES, "SW-B"),
        (Section.OPTIONAL, "SW-B"),  # its kit, under it
    ]
    assert {ln.sku or ln.description for ln in sections[Section.OPTIONAL]} == {
        "SW-A",
        "On-site spares locker",
    }


def _sent_without_better_s_kit(quote, world, *, version):
    """The quote sent with "Better" offering no kit of its own, fingerprinted under `version`
    (sending sizes a kit for options that have none: it is taken away after, as a revision
    sent before the rule never had one)."""
    revision = _sent(quote, world)
    QuoteLine.objects.filter(
        revision=revision, origin=LineOrigin.SPARES_KIT, alternative_group="Better"
    ).delete()
    QuoteRevision.objects.filter(pk=revision.pk).update(
        content_sha256=revision_content_fingerprint(revision=revision, version=version)
    )
    quote.refresh_from_db()
    return revision


def test_revised_from_one_sent_under_version_5_each_alternative_gets_its_kit(quote, world):
    """Sent before each option had its kit, "Better" had none; the draft's rule offers an option
    its own kit only, so the draft sizes it from Better's lines, as adding the option does."""
    from quoting.quotes.models import QuoteEvent, QuoteEventVerb

    sent = _sent_without_better_s_kit(quote, world, version=5)
    draft = quote_revise(quote=quote, user=world.sales, expected_version=quote.version)
    kit = _kit(draft, "Better")
    assert (kit.sku, kit.quantity, kit.unit_price, kit.section) == (
        "SW-B", 2, Decimal("20000.00"), Section.OPTIONAL,
    )  # fmt: skip
    assert kit.design.name == "6 leaves"
    assert not sent.lines.filter(origin=LineOrigin.SPARES_KIT, alternative_group="Better").exists()
    assert _kit(draft, "").key == _kit(sent, "").key  # the design's kit is copied, not sized again
    event = QuoteEvent.objects.get(quote=quote, verb=QuoteEventVerb.ALTERNATIVE_KIT_ADDED)
    assert event.revision_id == draft.pk
    assert event.details == {"label": "Better", "spares_kit_lines": 1}


def test_revised_from_one_sent_under_version_6_an_option_without_a_kit_stays_without(quote, world):
    """Sent under the per-option rule, an option without a kit was offered so: it stays so."""
    _sent_without_better_s_kit(quote, world, version=6)
    draft = quote_revise(quote=quote, user=world.sales, expected_version=quote.version)
    assert not draft.lines.filter(origin=LineOrigin.SPARES_KIT, alternative_group="Better").exists()


def test_a_draft_made_before_each_option_had_its_kit_gets_its_kits_when_sent(quote, world):
    # A draft with an alternative but no option kit (made before the rule) is sent under it:
    # without its kit, choosing the option would offer no spares at all.
    revision = quote.current_revision
    revision.lines.filter(origin=LineOrigin.SPARES_KIT).exclude(alternative_group="").delete()
    sent = _sent(quote, world)
    assert _kit(sent, "Better").quantity == 2
    assert kits_follow_the_option(sent)
    assert sent.quote.events.filter(verb="alternative_kit_added").count() == 1


def test_a_kit_the_draft_s_options_already_have_is_not_added_again_when_sent(quote, world):
    sent = _sent(quote, world)
    assert sent.lines.filter(origin=LineOrigin.SPARES_KIT, alternative_group="Better").count() == 1
    assert not sent.quote.events.filter(verb="alternative_kit_added").exists()

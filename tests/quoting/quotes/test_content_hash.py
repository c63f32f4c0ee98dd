"""A revision's content fingerprint: stored when it is frozen, the same however it is read, and
different as soon as anything it prints differs."""

from __future__ import annotations

from decimal import Decimal

import pytest

from quoting.quotes import content_hash
from quoting.quotes.models import QuoteLine, QuoteRevision
from quoting.quotes.selectors import revision_content_fingerprint
from quoting.quotes.services.quotes import quote_add_free_text, quote_revise, quote_send
from tests.proposals.conftest import quote_sent


def _concrete(model) -> set[str]:
    return {f.name for f in model._meta.concrete_fields}


@pytest.mark.parametrize(
    ("model", "part", "index"), [(QuoteRevision, "revision", 0), (QuoteLine, "line", 1)]
)
def test_every_field_is_either_fingerprinted_or_named_as_not_printed(model, part, index):
    """A field added to a revision or a line must be placed: in a new version of the
    fingerprint (it prints), or among the fields it leaves out, with the reason."""
    hashed = set(content_hash.FIELDS[content_hash.CURRENT_VERSION][index])
    left_out = set(content_hash.NOT_HASHED[part])
    hashed_names = {name.removesuffix("_id") for name in hashed}
    assert not hashed_names & left_out
    assert _concrete(model) == hashed_names | left_out


def test_sending_stores_the_fingerprint_of_what_the_database_holds(world):
    quote = quote_sent(world)
    revision = QuoteRevision.objects.get(pk=quote.current_revision_id)
    assert (
        revision.content_sha256.startswith(f"{content_hash.CURRENT_VERSION}:")
        and len(revision.content_sha256) == 66
    )
    assert revision_content_fingerprint(revision=revision) == revision.content_sha256


def test_the_fingerprint_changes_with_any_printed_value_and_not_with_bookkeeping(world):
    quote = quote_sent(world)
    sent = QuoteRevision.objects.get(pk=quote.current_revision_id)
    draft = quote_revise(quote=quote, user=world.sales, expected_version=quote.version)
    quote.refresh_from_db()

    def fingerprint():
        return revision_content_fingerprint(revision=draft)

    copied = fingerprint()
    assert copied != sent.content_sha256  # another number, no stored totals yet
    line = draft.lines.order_by("position").last()
    QuoteLine.objects.filter(pk=line.pk).update(price_source="checked again")
    assert fingerprint() == copied  # never printed
    QuoteLine.objects.filter(pk=line.pk).update(unit_price=line.unit_price + Decimal("0.01"))
    assert fingerprint() != copied
    QuoteLine.objects.filter(pk=line.pk).update(unit_price=line.unit_price)
    assert fingerprint() == copied
    quote_add_free_text(
        quote=quote,
        description="NCCL tuning",
        quantity=1,
        unit_price="900.00",
        user=world.sales,
        expected_version=quote.version,
    )
    assert fingerprint() != copied


def test_a_lines_origin_is_fingerprinted_from_version_5_and_older_revisions_keep_theirs(world):
    """Which lines an alternative replaces (QuoteLine.origin) changes what its "total if
    chosen" prints: fingerprinted from version 5; a revision sent under version 4 keeps its own."""
    quote = quote_sent(world)
    sent = QuoteRevision.objects.get(pk=quote.current_revision_id)
    version_4 = revision_content_fingerprint(revision=sent, version=4)
    current = revision_content_fingerprint(revision=sent)
    line = sent.lines.order_by("position").first()
    QuoteLine.objects.filter(pk=line.pk).update(origin="" if line.origin else "design")
    assert revision_content_fingerprint(revision=sent) != current
    assert revision_content_fingerprint(revision=sent, version=4) == version_4
    assert "origin" not in content_hash.FIELDS[4][1]


def test_decimals_and_snapshots_are_spelt_one_way():
    class Row:
        def __init__(self, **values):
            self.__dict__.update(values)

    version = content_hash.CURRENT_VERSION
    revision_fields, line_fields = content_hash.FIELDS[version]

    def revision(tax, snapshot):
        values = dict.fromkeys(revision_fields)
        values.update(number=1, tax_percent=tax, design_snapshot=snapshot)
        return Row(**values)

    def one(tax, snapshot):
        return content_hash.content_sha256(
            revision(tax, snapshot), [], quote_number="Q-1", currency="CNY"
        )

    assert one(Decimal("13"), {"a": 1, "b": [1, 2]}) == one(Decimal("13.00"), {"b": [1, 2], "a": 1})
    assert one(Decimal("13"), {}) != one(Decimal("6"), {})
    assert content_hash.content_version(one(Decimal("13"), {})) == version


def test_a_second_send_of_the_next_revision_stores_its_own_fingerprint(world):
    quote = quote_sent(world)
    first = QuoteRevision.objects.get(pk=quote.current_revision_id).content_sha256
    quote_revise(quote=quote, user=world.sales, expected_version=quote.version)
    quote.refresh_from_db()
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    second = QuoteRevision.objects.get(pk=quote.current_revision_id).content_sha256
    assert second and second != first

"""The audit trail's verbs: stored and served by the API as stable values, shown on the quote page
as labels in the reader's language."""

from __future__ import annotations

import pytest

from proposals.share.services import share_link_create
from quoting.quotes.models import QuoteEvent, QuoteEventVerb
from quoting.quotes.services.quotes import quote_send, quote_set_discount
from tests.quoting.api_world import quote_world_make, token_client


@pytest.fixture
def qw(make_user):
    world = quote_world_make(make_user)
    quote = world.quote
    quote_set_discount(
        quote=quote, discount_percent=2, user=world.world.sales, expected_version=quote.version
    )
    quote_send(quote=quote, user=world.world.sales, expected_version=quote.version)
    share_link_create(quote=quote, user=world.world.sales, recipient_name="Dr. Chen")
    return world


def test_every_verb_written_is_one_of_the_choices(qw):
    verbs = set(QuoteEvent.objects.filter(quote=qw.quote).values_list("verb", flat=True))
    assert verbs >= {"created", "lines_from_design", "discount_changed", "share_link_created"}
    assert verbs <= set(QuoteEventVerb.values)


def test_the_api_serves_the_stable_verb_not_a_label(qw):
    api = token_client(qw.world.sales)
    events = api.get(f"/api/v1/quotes/{qw.quote.pk}/events/").json()["results"]
    assert [e["verb"] for e in events] == [
        "created", "lines_from_design", "discount_changed", "status_changed", "share_link_created",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("language", "shown", "not_shown"),
    [
        ("en", ["Quote discount changed", "Share link created"], ["share_link_created"]),
        ("zh-hans", ["报价单折扣已修改", "状态已变更", "已创建分享链接"], ["Status changed"]),
    ],
)
def test_the_quote_page_shows_each_verb_as_a_label_in_the_users_language(
    client, qw, language, shown, not_shown
):
    sales = qw.world.sales
    sales.language = language
    sales.save(update_fields=["language"])
    client.force_login(sales)
    body = client.get(f"/quotes/{qw.quote.pk}/").content.decode()
    audit = body[body.index('id="quote-audit"') :]
    for text in shown:
        assert text in audit
    for text in not_shown:
        assert text not in audit

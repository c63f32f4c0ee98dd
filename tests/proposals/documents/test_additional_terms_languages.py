"""The proposal and the customer's share page print the additional terms in their language
(issue 27): the Chinese text in Chinese, the quote's own in English, and the text written in one
language in both when the other is empty; no heading over terms there are none of."""

from __future__ import annotations

import re

import pytest

from proposals.documents.pdf import proposal_html
from proposals.share.services import share_link_create
from quoting.quotes.models import QuoteRevision
from quoting.quotes.services.quotes import quote_send, quote_update_terms
from tests.proposals.conftest import quote_sent

ENGLISH = "Delivery DDP Shenzhen."
CHINESE = "深圳完税交货。"


def _terms(html: str) -> str:
    return re.search(r'<section class="terms".*?</section>', html, re.S)[0]


def _with_terms(world, **terms):
    quote = quote_sent(world)
    quote_update_terms(quote=quote, user=world.sales, expected_version=quote.version, **terms)
    quote.refresh_from_db()
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    quote.refresh_from_db()
    return quote, QuoteRevision.objects.get(pk=quote.current_revision_id)


@pytest.mark.django_db
def test_each_language_prints_its_own_text(world):
    _quote, revision = _with_terms(world, additional_terms=ENGLISH, additional_terms_zh=CHINESE)
    english = _terms(proposal_html(revision=revision, language="en"))
    assert f'<p class="additional-terms">{ENGLISH}</p>' in english and CHINESE not in english
    chinese = _terms(proposal_html(revision=revision, language="zh-hans"))
    assert "补充条款" in chinese
    assert f'<p class="additional-terms">{CHINESE}</p>' in chinese and ENGLISH not in chinese


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("terms", "text", "own", "other", "lang"),
    [
        ({"additional_terms": ENGLISH}, ENGLISH, "en", "zh-hans", "en"),
        ({"additional_terms_zh": CHINESE}, CHINESE, "zh-hans", "en", "zh-Hans"),
    ],
)
def test_a_text_written_in_one_language_prints_in_both(world, terms, text, own, other, lang):
    """In the other language's proposal it carries its own `lang` (test_lang_marks.py)."""
    _quote, revision = _with_terms(world, **terms)
    html = _terms(proposal_html(revision=revision, language=own))
    assert f'<p class="additional-terms">{text}</p>' in html
    html = _terms(proposal_html(revision=revision, language=other))
    assert f'<p class="additional-terms"><span lang="{lang}">{text}</span></p>' in html


@pytest.mark.django_db
def test_without_terms_in_either_language_there_is_no_heading(world):
    quote = quote_sent(world)
    revision = QuoteRevision.objects.get(pk=quote.current_revision_id)
    for language in ("en", "zh-hans"):
        html = _terms(proposal_html(revision=revision, language=language))
        assert "additional-terms" not in html
        assert "Additional terms" not in html and "补充条款" not in html


@pytest.mark.django_db
def test_the_share_page_prints_the_text_of_its_language(client, world):
    quote, _revision = _with_terms(world, additional_terms=ENGLISH, additional_terms_zh=CHINESE)
    token = share_link_create(quote=quote, user=world.sales)[1]
    english = _terms(client.get(f"/p/{token}?lang=en").content.decode())
    assert ENGLISH in english and CHINESE not in english
    chinese = _terms(client.get(f"/p/{token}?lang=zh-hans").content.decode())
    assert CHINESE in chinese and ENGLISH not in chinese

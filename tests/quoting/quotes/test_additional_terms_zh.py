"""The additional terms in Chinese beside the quote's own (issue 27): a bilingual seller sends one
quote in English and Chinese, so a revision keeps `additional_terms_zh` as the company profile
keeps bank_name_zh. Edited on the quote page and in the API with the same rules, copied into the
next revision, in the revision diff and in the content fingerprint (version 4; a revision sent
under version 3 keeps its fingerprint)."""

from __future__ import annotations

import pytest

from quoting.quotes import content_hash
from quoting.quotes.models import QuoteEvent, QuoteRevision
from quoting.quotes.selectors import revision_content_fingerprint
from quoting.quotes.services.quotes import (
    ADDITIONAL_TERMS_MAX,
    quote_create,
    quote_send,
    quote_update_terms,
)
from tests.proposals.conftest import quote_sent

ENGLISH = "Delivery DDP Shenzhen."
CHINESE = "深圳完税交货。"


def _terms(quote, user, **terms):
    quote_update_terms(quote=quote, user=user, expected_version=quote.version, **terms)
    quote.refresh_from_db()
    return QuoteRevision.objects.get(pk=quote.current_revision_id)


# --- the revision ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("english", "chinese", "in_english", "in_chinese"),
    [
        (ENGLISH, CHINESE, ENGLISH, CHINESE),
        (ENGLISH, "", ENGLISH, ENGLISH),  # written once: printed in both
        ("", CHINESE, CHINESE, CHINESE),
        ("", "", "", ""),
    ],
)
def test_each_language_reads_its_own_text_else_the_others(english, chinese, in_english, in_chinese):
    revision = QuoteRevision(additional_terms=english, additional_terms_zh=chinese)
    assert revision.additional_terms_for("en") == in_english
    assert revision.additional_terms_for("zh-hans") == in_chinese


def test_the_chinese_text_is_set_trimmed_with_its_event_and_copied_into_the_next_revision(world):
    quote = quote_sent(world)
    draft = _terms(quote, world.sales, additional_terms_zh=f"  {CHINESE}\n")
    assert draft.number == 2 and draft.additional_terms_zh == CHINESE
    assert draft.additional_terms == ""  # the other language's text is left as it was
    event = QuoteEvent.objects.filter(revision=draft, verb="payment_terms_changed").get()
    assert event.details["after"] == CHINESE
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    quote.refresh_from_db()
    third = _terms(quote, world.sales, additional_terms=ENGLISH)
    assert third.number == 3 and third.additional_terms_zh == CHINESE


def test_too_long_a_chinese_text_is_refused_at_its_field(world):
    from quoting.errors import InvalidValue

    quote = quote_create(project=world.project, user=world.sales)
    with pytest.raises(InvalidValue) as refused:
        _terms(quote, world.sales, additional_terms_zh="条" * (ADDITIONAL_TERMS_MAX + 1))
    assert refused.value.field == "additional_terms_zh"


def test_an_unchanged_chinese_text_writes_nothing(world):
    quote = quote_create(project=world.project, user=world.sales)
    _terms(quote, world.sales, additional_terms_zh="")
    assert quote.version == 1


# --- the fingerprint ------------------------------------------------------------------------------


def test_the_fingerprint_covers_the_chinese_text_from_version_4(world):
    quote = quote_sent(world)
    sent = QuoteRevision.objects.get(pk=quote.current_revision_id)
    assert content_hash.content_version(sent.content_sha256) >= 4
    draft = _terms(quote, world.sales, additional_terms_zh=CHINESE)
    before = revision_content_fingerprint(revision=draft)
    QuoteRevision.objects.filter(pk=draft.pk).update(additional_terms_zh="另议。")
    assert revision_content_fingerprint(revision=draft) != before
    assert "additional_terms_zh" not in content_hash.FIELDS[3][0]


def test_a_revision_sent_under_version_3_keeps_its_fingerprint(world):
    quote = quote_sent(world)
    sent = QuoteRevision.objects.get(pk=quote.current_revision_id)
    version_3 = revision_content_fingerprint(revision=sent, version=3)
    QuoteRevision.objects.filter(pk=sent.pk).update(content_sha256=version_3)
    sent.refresh_from_db()
    # What the documents of a version-3 revision are checked against: read with version 3's
    # fields, it is what was stored, whatever version 4 adds.
    stored_version = content_hash.content_version(sent.content_sha256)
    assert stored_version == 3
    assert revision_content_fingerprint(revision=sent, version=stored_version) == version_3


# --- the quote page -------------------------------------------------------------------------------


def _form(version: int, english: str = "", chinese: str = "") -> dict:
    return {
        "expected_version": version,
        "additional_terms": english,
        "additional_terms_zh": chinese,
        "milestone-TOTAL_FORMS": 1,
        "milestone-INITIAL_FORMS": 0,
        "milestone-MIN_NUM_FORMS": 0,
        "milestone-MAX_NUM_FORMS": 10,
        "milestone-0-label": "On order",
        "milestone-0-percent": "100",
    }


def test_the_quote_page_edits_both_texts_and_shows_them(client, world):
    quote = quote_create(project=world.project, user=world.sales)
    client.force_login(world.sales)
    url = f"/quotes/{quote.pk}/payment-terms/"
    response = client.post(url, _form(quote.version, ENGLISH, CHINESE))
    assert response.status_code == 302, response.content.decode()[:2000]
    revision = QuoteRevision.objects.get(pk=quote.current_revision_id)
    assert (revision.additional_terms, revision.additional_terms_zh) == (ENGLISH, CHINESE)
    page = client.get(f"/quotes/{quote.pk}/").content.decode()
    assert "Additional terms in Chinese" in page and f"{CHINESE}</textarea>" in page


def test_the_quote_page_refuses_too_long_a_chinese_text_at_its_field(client, world):
    quote = quote_create(project=world.project, user=world.sales)
    client.force_login(world.sales)
    client.cookies["django_language"] = "zh-hans"
    too_long = "条" * (ADDITIONAL_TERMS_MAX + 1)
    response = client.post(
        f"/quotes/{quote.pk}/payment-terms/", _form(quote.version, ENGLISH, too_long)
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "中文补充条款" in html and too_long in html  # the field, what was typed kept
    field = html[html.index('name="additional_terms_zh"') :]
    assert "补充条款不超过 2000 个字符" in field[: field.index("</textarea>") + 2000]
    assert QuoteRevision.objects.get(pk=quote.current_revision_id).additional_terms == ""


def test_a_sent_revisions_panel_shows_the_chinese_text(client, world):
    quote = quote_sent(world)
    QuoteRevision.objects.filter(pk=quote.current_revision_id).update(additional_terms_zh=CHINESE)
    client.force_login(world.sales)
    page = client.get(f"/quotes/{quote.pk}/").content.decode()
    assert f'lang="zh-Hans"><span class="muted">In Chinese:</span> {CHINESE}' in page


# --- the API --------------------------------------------------------------------------------------


def _patch(api, quote, body):
    return api.patch(
        f"/api/v1/quotes/{quote.pk}/", body, format="json", HTTP_IF_MATCH=f'"{quote.version}"'
    )


def test_the_api_sets_and_reads_both_texts(api, qw):
    response = _patch(
        api, qw.quote, {"additional_terms": ENGLISH, "additional_terms_zh": f" {CHINESE} "}
    )
    assert response.status_code == 200, response.json()
    assert response.json()["additional_terms_zh"] == CHINESE
    assert api.get(f"/api/v1/quotes/{qw.quote.pk}/").json()["additional_terms_zh"] == CHINESE
    revisions = api.get(f"/api/v1/quotes/{qw.quote.pk}/revisions/").json()
    assert revisions[-1]["additional_terms_zh"] == CHINESE
    assert revisions[-1]["additional_terms"] == ENGLISH


def test_the_api_refuses_too_long_a_chinese_text_at_its_field(api, qw):
    response = _patch(api, qw.quote, {"additional_terms_zh": "条" * (ADDITIONAL_TERMS_MAX + 1)})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["additional_terms_zh"]


# --- the diff -------------------------------------------------------------------------------------


def test_the_revision_diff_shows_a_changed_chinese_text(client, world):
    quote = quote_sent(world)
    _terms(quote, world.sales, additional_terms_zh=CHINESE)
    client.force_login(world.sales)
    html = client.get(f"/quotes/{quote.pk}/diff/?a=1&b=2").content.decode()
    assert f"Additional terms in Chinese: — → {CHINESE}" in html
    assert "Additional terms: " not in html  # the quote's own text did not change

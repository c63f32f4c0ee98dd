"""A text shown on a page of the other language carries its own `lang` (WCAG 3.1.2, issue 27
item 4): an English-only term in a Chinese proposal, a product without a Chinese name, the
seller's bank named only in English. A text in the page's own language gets no extra element,
and a text whose language is not plain (Chinese typed into the English field) is not marked."""

from __future__ import annotations

import pickle

import pytest

from portal.models import CompanyProfile
from proposals.documents.pdf import proposal_html
from quoting.engine.written import CHINESE, ENGLISH, WrittenIn, lang_differs, written_in
from quoting.quotes.models import QuoteRevision
from quoting.quotes.services.quotes import quote_create, quote_update_terms
from tests.proposals.conftest import quote_sent

TERMS_EN = "Delivery DDP Shenzhen."
TERMS_ZH = "深圳完税交货。"


def _draft_with_terms(world, **terms):
    quote = quote_create(project=world.project, user=world.sales)
    quote_update_terms(quote=quote, user=world.sales, expected_version=quote.version, **terms)
    return QuoteRevision.objects.get(pk=quote.current_revision_id)


def _terms_paragraph(html: str) -> str:
    start = html.index('<p class="additional-terms">')
    return html[start : html.index("</p>", start)]


# --- the rule ------------------------------------------------------------------------------------


def test_a_text_is_marked_only_on_a_page_of_another_language():
    assert lang_differs(written_in(TERMS_EN, ENGLISH), "zh-hans") == "en"
    assert lang_differs(written_in(TERMS_ZH, CHINESE), "en") == "zh-Hans"
    assert lang_differs(written_in(TERMS_EN, ENGLISH), "en") == ""
    assert lang_differs(written_in(TERMS_ZH, CHINESE), "zh-hans") == ""
    assert lang_differs(TERMS_EN, "zh-hans") == ""  # a text of no known language: as it is


def test_the_fields_language_is_believed_only_when_the_script_agrees():
    assert written_in(TERMS_ZH, ENGLISH).language == ""  # Chinese typed into the English field
    assert written_in(TERMS_EN, CHINESE).language == ""
    assert written_in("QM9790 交换机", CHINESE).language == CHINESE


def test_a_written_text_keeps_its_language_through_the_cache():
    kept = pickle.loads(pickle.dumps(written_in(TERMS_EN, ENGLISH)))  # noqa: S301 (our own)
    assert isinstance(kept, WrittenIn) and kept == TERMS_EN and kept.language == ENGLISH


# --- the proposal --------------------------------------------------------------------------------


def test_a_chinese_proposal_marks_english_only_terms_and_an_english_one_does_not(world):
    revision = _draft_with_terms(world, additional_terms=TERMS_EN)

    chinese = _terms_paragraph(proposal_html(revision=revision, language="zh-hans", draft=True))
    english = _terms_paragraph(proposal_html(revision=revision, language="en", draft=True))

    assert f'<span lang="en">{TERMS_EN}</span>' in chinese
    assert english == f'<p class="additional-terms">{TERMS_EN}' and "lang=" not in english


def test_an_english_proposal_marks_chinese_only_terms(world):
    revision = _draft_with_terms(world, additional_terms_zh=TERMS_ZH)

    english = _terms_paragraph(proposal_html(revision=revision, language="en", draft=True))
    chinese = _terms_paragraph(proposal_html(revision=revision, language="zh-hans", draft=True))

    assert f'<span lang="zh-Hans">{TERMS_ZH}</span>' in english
    assert "lang=" not in chinese


def test_chinese_terms_kept_in_the_english_field_are_not_called_english(world):
    revision = _draft_with_terms(world, additional_terms=TERMS_ZH)

    chinese = _terms_paragraph(proposal_html(revision=revision, language="zh-hans", draft=True))

    assert TERMS_ZH in chinese and "lang=" not in chinese


def test_line_breaks_of_a_marked_term_are_kept(world):
    revision = _draft_with_terms(world, additional_terms="Delivery DDP.\nPayment in 30 days.")

    chinese = _terms_paragraph(proposal_html(revision=revision, language="zh-hans", draft=True))

    assert '<span lang="en">Delivery DDP.<br>Payment in 30 days.</span>' in chinese


@pytest.mark.parametrize("name_zh", ["", "QM9790 交换机"])
def test_a_product_without_a_chinese_name_is_marked_english_in_a_chinese_proposal(world, name_zh):
    quote = quote_sent(world)
    quote.current_revision.lines.get(sku="SW-1").product.__class__.objects.filter(
        part_number="SW-1"
    ).update(name_zh=name_zh)

    html = proposal_html(revision=quote.current_revision, language="zh-hans")

    if name_zh:
        assert f'<td class="description">{name_zh}</td>' in html
    else:
        assert '<td class="description"><span lang="en">QM9790 switch</span></td>' in html
    # a line typed by hand is in no known language: never marked
    assert '<td class="description">Site survey and cabling plan</td>' in html


def test_the_sellers_bank_named_only_in_english_is_marked_in_a_chinese_proposal(world):
    CompanyProfile.objects.create(
        legal_name_en="Shenzhen Fabric Networks Co., Ltd.",
        legal_name_zh="深圳织网网络有限公司",
        bank_name="China Merchants Bank, Nanshan Branch",
        bank_account="7559 1234 5678 0001",
    )
    quote = quote_sent(world)

    chinese = proposal_html(revision=quote.current_revision, language="zh-hans")
    english = proposal_html(revision=quote.current_revision, language="en")

    assert '<td><span lang="en">China Merchants Bank, Nanshan Branch</span></td>' in chinese
    assert '<td class="party">深圳织网网络有限公司</td>' in chinese  # its own language: as it is
    assert "<td>China Merchants Bank, Nanshan Branch</td>" in english


# --- the quote page -------------------------------------------------------------------------------


def test_the_quote_page_marks_a_product_name_it_has_only_in_english(client, world):
    quote = quote_sent(world)
    world.sales.language = "zh-hans"
    world.sales.save()
    client.force_login(world.sales)

    page = client.get(f"/quotes/{quote.pk}/").content.decode()

    assert '<td><span lang="en">QM9790 switch</span>' in page


# --- hand-typed milestones, spares kits, the logo, the share e-mail (#27 item 4) -----------------


def test_a_milestone_typed_in_english_is_marked_in_a_chinese_proposal_a_standard_one_is_worded(
    world,
):
    quote = quote_create(project=world.project, user=world.sales)
    schedule = [{"label": "Deposit", "percent": "30"}, {"label": "On order", "percent": "70"}]
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version, payment_schedule=schedule
    )
    revision = QuoteRevision.objects.get(pk=quote.current_revision_id)

    chinese = proposal_html(revision=revision, language="zh-hans", draft=True)
    english = proposal_html(revision=revision, language="en", draft=True)

    assert '<tr data-milestone><td><span lang="en">Deposit</span></td>' in chinese
    assert "<tr data-milestone><td>下单时</td>" in chinese
    assert "<tr data-milestone><td>Deposit</td>" in english


def test_a_spares_kit_of_a_part_without_a_chinese_name_marks_the_name_in_a_chinese_proposal(world):
    quote = quote_sent(world)
    line = quote.current_revision.lines.get(sku="SW-1")
    line.product.__class__.objects.filter(part_number="SW-1").update(name_zh="")
    line.__class__.objects.filter(pk=line.pk).update(role="spares-kit:optics:5:20")

    chinese = proposal_html(revision=quote.current_revision, language="zh-hans")
    english = proposal_html(revision=quote.current_revision, language="en")

    kit = '备件包：光模块（20 的 5 %）— <span lang="en">QM9790 switch</span>'
    assert f'<td class="description">{kit}</td>' in chinese
    assert '<td class="description">Spares kit: optics (5 % of 20) — QM9790 switch</td>' in english


def test_the_logos_alt_text_in_the_other_language_carries_its_lang(world):
    CompanyProfile.objects.create(
        legal_name_en="Shenzhen Fabric Networks Co., Ltd.",
        logo=bytes.fromhex(
            "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
            "1f15c4890000000d49444154789c63f8cfc0f00f0003860180"
            "5a347d6b0000000049454e44ae426082"
        ),
        logo_type="image/png",
    )
    quote = quote_sent(world)

    chinese = proposal_html(revision=quote.current_revision, language="zh-hans")
    english = proposal_html(revision=quote.current_revision, language="en")

    assert 'alt="Shenzhen Fabric Networks Co., Ltd." lang="en"' in chinese
    assert 'alt="Shenzhen Fabric Networks Co., Ltd." height' in english


def test_the_share_email_marks_the_seller_and_a_message_in_the_other_language(world):
    from proposals.share.mail import share_link_email
    from proposals.share.services import share_link_create

    CompanyProfile.objects.create(legal_name_en="Shenzhen Fabric Networks Co., Ltd.")
    quote = quote_sent(world)
    link, _ = share_link_create(
        quote=quote,
        user=world.sales,
        recipient_email="li.ming@pcl.example",
        language="zh-hans",
    )
    link.email_message = "Please find our offer attached."  # typed in English

    email = share_link_email(link, "https://portal.example/p/token")
    html = email.alternatives[0][0]

    assert '<span lang="en">Shenzhen Fabric Networks Co., Ltd.</span>' in html
    assert '<p><span lang="en">Please find our offer attached.</span></p>' in html

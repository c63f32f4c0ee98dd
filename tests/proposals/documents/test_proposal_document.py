"""What the customer reads in the proposal, PDF and share page alike: no line of nothing, the
seller and both signatures, and no amount in words in English (the TCO table, the figures and
the Chinese total in words: test_proposal_figures.py)."""

from __future__ import annotations

import base64

import pytest

from portal.models import CompanyProfile
from proposals.documents.pdf import proposal_html, proposal_pdf
from proposals.documents.selectors import proposal_content
from quoting.quotes.models import QuoteLine
from quoting.quotes.services.quotes import quote_send, quote_update_line
from tests.proposals.conftest import pdf_reader, pdf_text, quote_sent

TINY_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def profile(db):
    return CompanyProfile.objects.create(
        legal_name_en="Shenzhen Fabric Networks Co., Ltd.",
        legal_name_zh="深圳织网网络有限公司",
        address_en="9 Keji South Road, Nanshan, Shenzhen",
        address_zh="深圳市南山区科技南路9号",
        phone="+86 755 8600 0100",
        email="sales@fabric.example",
        tax_number="91440300MA5ABCDE1X",
        bank_name="China Merchants Bank, Nanshan Branch",
        bank_name_zh="招商银行南山支行",
        bank_account="7559 1234 5678 0001",
    )


# --- lines of nothing ----------------------------------------------------------------------------


def test_a_zero_quantity_line_is_left_out_of_the_customers_documents(world):
    quote = quote_sent(world, descriptions=("Site survey and cabling plan", "Spare fan tray"))
    revision = quote.current_revision
    spare = QuoteLine.objects.get(revision=revision, description="Spare fan tray")
    QuoteLine.objects.filter(pk=spare.pk).update(quantity=0)  # a sent revision, zeroed before

    content = proposal_content(revision=revision, language="en")
    printed = [row.line.description for _key, _label, rows in content.sections for row in rows]
    assert "Spare fan tray" not in printed and "Site survey and cabling plan" in printed
    text = pdf_text(proposal_pdf(revision=revision, language="en"))
    assert "Spare fan tray" not in text and "Site survey and cabling plan" in text


def test_a_line_zeroed_in_a_revision_disappears_from_its_proposal_but_the_totals_stand(world):
    quote = quote_sent(world)
    revision = quote.current_revision
    before = proposal_content(revision=revision, language="en").totals.total
    quote.refresh_from_db()
    line = QuoteLine.objects.get(revision=revision, sku="SW-1")
    quote_update_line(
        quote=quote, line=line, user=world.sales, expected_version=quote.version, quantity=0
    )
    quote.refresh_from_db()
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    quote.refresh_from_db()

    content = proposal_content(revision=quote.current_revision, language="en")
    skus = [row.line.sku for _key, _label, rows in content.sections for row in rows]
    assert "SW-1" not in skus
    assert content.totals.total < before  # the two switches no longer count


# --- amounts in words ----------------------------------------------------------------------------


def test_an_english_pdf_has_no_amount_in_words(world, sent_quote):
    text = pdf_text(proposal_pdf(revision=sent_quote.current_revision, language="en"))
    assert "In words" not in text and "元" not in text


# --- the seller ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "name", "address"),
    [
        ("en", "Shenzhen Fabric Networks Co., Ltd.", "9 Keji South Road, Nanshan, Shenzhen"),
        ("zh-hans", "深圳织网网络有限公司", "深圳市南山区科技南路9号"),
    ],
)
def test_the_pdf_names_the_seller_its_bank_and_tax_number_and_the_sales_engineer(
    world, profile, language, name, address
):
    world.sales.first_name, world.sales.last_name = "Wei", "Wang"
    world.sales.email, world.sales.phone = "wei.wang@fabric.example", "+86 138 0000 0001"
    world.sales.save()
    quote = quote_sent(world)

    pdf = proposal_pdf(revision=quote.current_revision, language=language)

    text = pdf_text(pdf)
    squeezed = "".join(text.split())
    for part in (
        name,
        address,
        "+86 755 8600 0100",
        "sales@fabric.example",
        "91440300MA5ABCDE1X",
        "7559 1234 5678 0001",
        "Wei Wang",
        "wei.wang@fabric.example",
        "+86 138 0000 0001",
    ):
        assert "".join(part.split()) in squeezed, part
    # the seller's name in every page's footer but the cover's
    pages = [page.extract_text() for page in pdf_reader(pdf).pages]
    assert all("".join(name.split()) in "".join(p.split()) for p in pages[1:])


@pytest.mark.parametrize(
    ("language", "bank", "other"),
    [
        ("en", "China Merchants Bank, Nanshan Branch", "招商银行南山支行"),
        ("zh-hans", "招商银行南山支行", "China Merchants Bank, Nanshan Branch"),
    ],
)
def test_the_proposal_names_the_sellers_bank_in_the_readers_language(
    world, profile, language, bank, other
):
    html = proposal_html(revision=quote_sent(world).current_revision, language=language)

    assert bank in html and other not in html


def test_a_bank_without_a_chinese_name_is_printed_in_english_in_chinese(world, profile):
    profile.bank_name_zh = ""
    profile.save()

    html = proposal_html(revision=quote_sent(world).current_revision, language="zh-hans")

    assert "China Merchants Bank, Nanshan Branch" in html


def test_the_share_page_shows_the_seller_and_the_sales_engineer(world, profile):
    from django.test import Client

    from proposals.share.services import share_link_create

    world.sales.first_name, world.sales.phone = "Wei", "+86 138 0000 0001"
    world.sales.save()
    quote = quote_sent(world)
    _, token = share_link_create(quote=quote, user=world.sales, recipient_name="Chen")

    html = Client().get(f"/p/{token}?lang=en").content.decode()

    assert "Shenzhen Fabric Networks Co., Ltd." in html and "+86 138 0000 0001" in html
    assert "Signature and company seal" not in html  # for paper: the page has its accept form

    profile.legal_name_en = "Fabric Networks HK Ltd."
    profile.save()
    world.sales.phone = "+86 138 0000 0002"
    world.sales.save()
    again = Client().get(f"/p/{token}?lang=en").content.decode()
    # An edited profile or contact is not served from the kept page.
    assert "Fabric Networks HK Ltd." in again and "+86 138 0000 0002" in again


def test_the_uploaded_logo_is_printed_as_a_data_image(world, profile):
    profile.logo, profile.logo_type = TINY_PNG, "image/png"
    profile.save()
    quote = quote_sent(world)

    html = proposal_html(revision=quote.current_revision, language="en")

    assert 'src="data:image/png;base64,' in html and "logo.svg" not in html
    assert proposal_pdf(revision=quote.current_revision, language="en").startswith(b"%PDF")


def test_without_a_profile_the_proposal_renders_with_no_empty_seller_labels(world):
    assert not CompanyProfile.objects.exists()
    quote = quote_sent(world)

    for language in ("en", "zh-hans"):
        text = pdf_text(proposal_pdf(revision=quote.current_revision, language=language))
        for label in (
            "Offered by",
            "Tax number",
            "Payment details",
            "Account number",
            "报价方",
            "税号",
            "付款信息",
            "账号",
        ):
            assert label not in text, (language, label)
    assert "Offered by" not in proposal_html(revision=quote.current_revision, language="en")


# --- signatures ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "labels"),
    [
        (
            "en",
            (
                "Signatures",
                "FOR THE SELLER",
                "FOR THE CUSTOMER",
                "Name",
                "Title",
                "Date",
                "Signature and company seal",
            ),
        ),
        ("zh-hans", ("签署", "卖方", "买方", "姓名", "职务", "日期", "签字并盖章")),
    ],
)
def test_the_pdf_ends_with_a_signature_block_for_both_sides(world, profile, language, labels):
    quote = quote_sent(world)

    pdf = proposal_pdf(revision=quote.current_revision, language=language)

    last_page = pdf_text(pdf).rsplit("签署" if language != "en" else "Signatures", 1)
    assert len(last_page) == 2, "no signature block"
    block = last_page[1]
    for label in labels[1:]:
        assert block.count(label) >= (2 if label not in labels[1:3] else 1), label
    squeezed = "".join(block.split())
    assert "".join(profile.legal_name_for(language).split()) in squeezed
    assert "".join(world.customer.company.split()) in squeezed

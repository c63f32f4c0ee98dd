"""What the proposal's "Services and support" and "Terms" say follows the offer (issue 27 item 6):
the support tiers and services quoted, included or optional; binding prices on a sent offer,
indicative ones only on a draft; and the revision's payment schedule with each milestone's
amount, in English and Chinese, on the page and in the PDF."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from portal.models import CompanyProfile
from proposals.documents.pdf import proposal_html
from proposals.documents.selectors import proposal_content
from quoting.quotes.models import QuoteRevision, Section
from quoting.quotes.services.quotes import (
    quote_add_product,
    quote_create,
    quote_send,
    quote_update_terms,
)
from tests.proposals.conftest import pdf_text, sent_pdf

PREMIUM, TUNING = "SUP-PREM-1Y", "SVC-NCCL-TUNING-1N"
NO_SUPPORT = "No support contract is included in this offer"
NO_SERVICES = "No installation or tuning services are included in this offer"
SCHEDULE = [
    {"label": "On order", "percent": "30"},
    {"label": "On delivery", "percent": "60"},
    {"label": "On acceptance", "percent": "10"},
]


@pytest.fixture(name="world")
def world_on_the_catalog(seeded, world):
    CompanyProfile.objects.create(
        legal_name_en="Seller Ltd.", service_area_en="Shenzhen", service_area_zh="深圳"
    )
    return world


def _quote(world, *lines: tuple[str, str | None]):
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=quote, sku="MQM9700-NS2F", quantity=2, user=world.sales, expected_version=1
    )
    for sku, section in lines:
        quote.refresh_from_db()
        quote_add_product(
            quote=quote, sku=sku, quantity=1, section=section, user=world.sales,
            expected_version=quote.version,
        )  # fmt: skip
    quote.refresh_from_db()
    return quote


def _services(html: str) -> str:
    return re.search(r'<section class="services".*?</section>', html, re.S)[0]


def _terms(html: str) -> str:
    return re.search(r'<section class="terms".*?</section>', html, re.S)[0]


def test_an_included_support_tier_is_named_with_its_terms_and_no_no_support_sentence(world):
    revision = _quote(world, (PREMIUM, None)).current_revision
    services = _services(proposal_html(revision=revision, language="en"))
    assert "data-support-tier" in services and "Response within 2 h, around the clock" in services
    assert NO_SUPPORT not in services and "Available as an option" not in services


def test_an_optional_support_tier_is_offered_as_an_option_with_its_terms_and_price(world):
    quote = _quote(world, (PREMIUM, Section.OPTIONAL))
    revision = quote.current_revision
    line = revision.lines.get(sku=PREMIUM)
    amount = f"{line.unit_price:,.2f}"
    english = _services(proposal_html(revision=revision, language="en"))
    assert "data-support-option" in english and NO_SUPPORT not in english
    assert "Available as an option: <strong>" in english
    assert f"(line {line.position}, {amount} CNY, not in the totals)" in english
    assert "On site within 4 h in Shenzhen" in english
    chinese = _services(proposal_html(revision=revision, language="zh-hans"))
    assert "可选购" in chinese and f"（第 {line.position} 行，{amount} CNY，不计入合计）" in chinese
    assert "深圳范围内 4 小时内到达现场" in chinese and "本报价不含支持服务合同" not in chinese


def test_an_optional_per_node_service_is_offered_as_an_option(world):
    revision = _quote(world, (TUNING, Section.OPTIONAL)).current_revision
    services = _services(proposal_html(revision=revision, language="en"))
    assert "data-service-option" in services and NO_SERVICES not in services
    assert NO_SUPPORT in services  # a service is no support contract


def test_without_support_or_service_lines_both_sentences_say_so_in_both_languages(world):
    revision = _quote(world).current_revision
    english = _services(proposal_html(revision=revision, language="en"))
    assert NO_SUPPORT in english and NO_SERVICES in english
    assert "<li" not in english
    chinese = _services(proposal_html(revision=revision, language="zh-hans"))
    assert "本报价不含安装或调优服务" in chinese


def test_a_draft_calls_its_prices_indicative_and_never_binding(world):
    revision = _quote(world).current_revision
    terms = _terms(proposal_html(revision=revision, language="en"))
    assert "prices are indicative" in terms and "binding until" not in terms


def test_the_payment_schedule_prints_each_milestones_amount_summing_to_the_total(world):
    quote = _quote(world, (PREMIUM, None))
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version, payment_schedule=SCHEDULE
    )
    content = proposal_content(revision=quote.current_revision, language="en")
    milestones = content.payment_schedule
    assert [m.percent for m in milestones] == [Decimal(30), Decimal(60), Decimal(10)]
    assert sum(m.amount for m in milestones) == content.totals.total
    html = _terms(proposal_html(revision=quote.current_revision, language="en"))
    rows = re.findall(
        r"<tr data-milestone><td>([^<]*)</td><td[^>]*>([^<]*)</td><td[^>]*>([^<]*)</td>", html
    )
    assert [(label, share) for label, share, _amount in rows] == [
        ("On order", "30 %"), ("On delivery", "60 %"), ("On acceptance", "10 %"),
    ]  # fmt: skip
    assert rows[1][2] == f"{milestones[1].amount:,.2f} CNY"


def test_a_sent_offer_states_binding_prices_and_its_pdf_prints_the_milestones_in_both_languages(
    world,
):
    quote = _quote(world)
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version, payment_schedule=SCHEDULE,
        additional_terms="Delivery DDP Shenzhen.",
    )  # fmt: skip
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    revision = QuoteRevision.objects.get(pk=quote.current_revision_id)
    until = quote.valid_until.isoformat()
    total = proposal_content(revision=revision, language="en").totals.total
    thirty = f"{(total * Decimal('0.3')).quantize(Decimal('0.01')):,.2f}"

    html = proposal_html(revision=revision, language="en")
    assert f"The prices of this offer are binding until {until}." in html
    assert "indicative" not in html and "reference price" not in html

    english = " ".join(pdf_text(bytes(sent_pdf(revision, "en").pdf)).split())
    assert f"binding until {until}" in english and "indicative" not in english
    assert "Payment schedule" in english and f"On order 30 % {thirty} CNY" in english
    assert "Delivery DDP Shenzhen." in english
    chinese = " ".join(pdf_text(bytes(sent_pdf(revision, "zh-hans").pdf)).split())
    assert "付款计划" in chinese and f"下单时 30 % {thirty} CNY" in chinese  # typed in English
    assert f"{until} 之前有效并具有约束力" in chinese


def test_a_sent_offer_prints_no_catalog_note_that_a_price_is_a_reference_price(world):
    """The per-device tier and the per-node services carry "Reference price: verify." in the
    catalog's descriptions: a note to staff, never printed in an offer."""
    quote = _quote(world, ("SUP-DEV-NBD-1Y", None), (TUNING, Section.OPTIONAL))
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    revision = QuoteRevision.objects.get(pk=quote.current_revision_id)
    english = _services(proposal_html(revision=revision, language="en"))
    assert "Remote support on business days" in english and "Reference" not in english
    chinese = _services(proposal_html(revision=revision, language="zh-hans"))
    assert "工作日远程支持" in chinese and "参考" not in chinese


def test_the_share_page_of_a_sent_offer_states_binding_prices_and_the_milestones(client, world):
    from proposals.share.services import share_link_create

    quote = _quote(world, (PREMIUM, Section.OPTIONAL))
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version, payment_schedule=SCHEDULE
    )
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    token = share_link_create(quote=quote, user=world.sales)[1]
    english = client.get(f"/p/{token}?lang=en").content.decode()
    assert f"binding until {quote.valid_until.isoformat()}" in english
    assert "indicative" not in english and "Reference price" not in english
    assert english.count("<tr data-milestone>") == 3 and "Available as an option" in english
    chinese = client.get(f"/p/{token}?lang=zh-hans").content.decode()
    assert "付款计划" in chinese and "可选购" in chinese
    # A standard milestone typed in English reads in the reader's language (#27 item 4).
    assert re.search(r"<tr data-milestone><td[^>]*>下单时</td>", chinese)


def test_milestones_kept_in_the_writers_language_read_in_the_readers_and_keep_their_fingerprint(
    client, world
):
    """A revision sent before milestones were kept by key holds them in its customer's language
    (here Chinese): an English reader reads them in English, and the text as stored is what the
    fingerprint covers, so the sent revision does not look changed."""
    from proposals.share.services import share_link_create

    quote = _quote(world, (PREMIUM, Section.OPTIONAL))
    old_shape = [
        {"label": "下单时", "percent": "30.00"},
        {"label": "到货时", "percent": "60.00"},
        {"label": "按里程碑付款", "percent": "10.00"},  # typed by hand: stays as typed
    ]
    QuoteRevision.objects.filter(pk=quote.current_revision_id).update(payment_schedule=old_shape)
    quote.refresh_from_db()
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    revision = QuoteRevision.objects.get(pk=quote.current_revision_id)
    assert revision.payment_schedule == old_shape  # nothing rewritten on the way

    token = share_link_create(quote=quote, user=world.sales)[1]
    english = client.get(f"/p/{token}?lang=en").content.decode()
    cells = re.findall(r"<tr data-milestone><td[^>]*>(.*?)</td>", english)
    # The hand-typed name is marked as the Chinese it is written in (|as_typed|lang_marked).
    assert cells == ["On order", "On delivery", '<span lang="zh-Hans">按里程碑付款</span>']
    content = proposal_content(revision=revision, language="en")
    assert content.content_sha256 == revision.content_sha256

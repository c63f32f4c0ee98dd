"""VAT by line category (issue 22, item 5).

Chinese invoices (fapiao) charge 13 % on goods and 6 % on services, and a reseller's quote mixes
both. Each line takes the rate of its tax category for the customer's country from the rate
table (seeded for CN: goods 13 %, services 6 %, software 13 %); a manager may override one with
a reason; the revision's VAT % stays the rate of lines with no table entry. Totals carry one row
per rate, each rate's discount and tax rounded to the cent.
"""

from __future__ import annotations

import io
from decimal import Decimal

import pytest
from pypdf import PdfReader

from catalog.models import Category, Unit
from proposals.share.services import share_link_create
from quoting.customers.models import VatRate, VatZone
from quoting.errors import InvalidValue, NotAllowed
from quoting.quotes.models import QuoteLine, QuoteRevision, Section
from quoting.quotes.selectors import revision_totals
from quoting.quotes.services.quotes import (
    quote_add_free_text,
    quote_add_product,
    quote_create,
    quote_send,
    quote_update_line,
)
from tests.api_errors import field_errors
from tests.proposals.conftest import sent_pdf
from tests.quoting.api_world import token_client
from tests.quoting.factories import ProductFactory, price_set, quote_reload

pytestmark = pytest.mark.django_db


@pytest.fixture
def quote(world):
    price_set(ProductFactory(part_number="SW-1", name="Leaf switch"), "CNY", "10000.00")
    price_set(
        ProductFactory(
            part_number="SVC-INSTALL",
            name="Installation service",
            category=Category.SERVICE,
            unit=Unit.PROJECT,
        ),
        "CNY",
        "3000.00",
    )
    price_set(
        ProductFactory(
            part_number="UFM-LIC",
            name="UFM licence",
            category=Category.SOFTWARE,
            unit=Unit.EACH,
        ),
        "CNY",
        "500.00",
    )
    quote = quote_create(project=world.project, user=world.sales)
    for sku, quantity in (("SW-1", 2), ("SVC-INSTALL", 1), ("UFM-LIC", 2)):
        quote_add_product(
            quote=quote,
            sku=sku,
            quantity=quantity,
            user=world.sales,
            expected_version=quote.version,
        )
    quote_add_free_text(
        quote=quote,
        description="Site survey",
        quantity=1,
        unit_price="1000.00",
        user=world.sales,
        expected_version=quote.version,
    )
    return quote_reload(quote)


def _rates(quote) -> dict[str, Decimal | None]:
    revision = quote_reload(quote).current_revision
    return {ln.sku or ln.description: ln.vat_percent for ln in revision.lines.all()}


def test_each_line_takes_the_rate_of_its_category_for_the_customers_country(quote):
    assert _rates(quote) == {
        "SW-1": Decimal("13.00"),
        "SVC-INSTALL": Decimal("6.00"),
        "UFM-LIC": Decimal("13.00"),
        "Site survey": Decimal("6.00"),  # typed in the services section: a service
    }


def test_the_totals_have_one_row_per_rate_each_rounded(quote):
    totals = revision_totals(revision=quote.current_revision)
    # Goods and software at 13 %: 20,000 + 1,000; services at 6 %: 3,000 + 1,000.
    assert [(row.vat_percent, row.net, row.tax) for row in totals.tax_breakdown] == [
        (Decimal("13.00"), Decimal("21000.00"), Decimal("2730.00")),
        (Decimal("6.00"), Decimal("4000.00"), Decimal("240.00")),
    ]
    assert totals.tax == Decimal("2970.00")
    assert totals.total == Decimal("25000.00") + Decimal("2970.00")


def test_a_quote_discount_is_rounded_per_rate(world, quote):
    quote = quote_reload(quote)
    from quoting.quotes.services.quotes import quote_update_terms

    quote_update_terms(
        quote=quote, discount_percent="3.33", user=world.sales, expected_version=quote.version
    )
    totals = revision_totals(revision=quote_reload(quote).current_revision)
    # 21,000 x 3.33 % = 699.30; 4,000 x 3.33 % = 133.20.
    assert totals.discount == Decimal("699.30") + Decimal("133.20")
    goods, services = totals.tax_breakdown
    assert (goods.net, goods.tax) == (Decimal("20300.70"), Decimal("2639.09"))
    assert (services.net, services.tax) == (Decimal("3866.80"), Decimal("232.01"))


def test_an_export_customer_pays_the_revisions_rate_on_every_line(world):
    world.customer.vat_zone = VatZone.EXPORT
    world.customer.save()
    price_set(ProductFactory(part_number="SW-1"), "CNY", "10000.00")
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=quote, sku="SW-1", quantity=1, user=world.sales, expected_version=quote.version
    )
    revision = quote_reload(quote).current_revision
    assert revision.lines.get().vat_percent is None
    totals = revision_totals(revision=revision)
    assert totals.tax == Decimal("0.00") and len(totals.tax_breakdown) == 1


def test_a_country_with_no_table_entry_takes_the_revisions_rate(world):
    world.customer.country = "SG"
    world.customer.save()
    price_set(ProductFactory(part_number="SW-1"), "CNY", "10000.00")
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=quote, sku="SW-1", quantity=1, user=world.sales, expected_version=quote.version
    )
    assert quote_reload(quote).current_revision.lines.get().vat_percent is None
    VatRate.objects.create(country="SG", tax_category="goods", vat_percent=Decimal("9"))
    quote_add_product(
        quote=quote_reload(quote),
        sku="SW-1",
        quantity=1,
        user=world.sales,
        expected_version=quote_reload(quote).version,
    )
    rates = sorted(
        (ln.vat_percent for ln in quote_reload(quote).current_revision.lines.all()),
        key=lambda rate: rate is None,
    )
    assert rates == [Decimal("9.00"), None]


def test_a_manager_overrides_a_lines_rate_with_a_reason_and_sales_may_not(quote, world):
    line = QuoteLine.objects.get(revision=quote.current_revision, sku="UFM-LIC")
    with pytest.raises(NotAllowed):
        quote_update_line(
            quote=quote,
            line=line,
            user=world.sales,
            expected_version=quote.version,
            vat_percent="6",
            vat_reason="Software service",
        )
    with pytest.raises(InvalidValue) as refused:
        quote_update_line(
            quote=quote_reload(quote),
            line=line,
            user=world.manager,
            expected_version=quote_reload(quote).version,
            vat_percent="6",
        )
    assert refused.value.field == "vat_reason"
    quote_update_line(
        quote=quote_reload(quote),
        line=line,
        user=world.manager,
        expected_version=quote_reload(quote).version,
        vat_percent="6",
        vat_reason="Licence sold as a technical service (fapiao 6 %)",
    )
    line.refresh_from_db()
    assert (line.vat_percent, line.vat_reason) == (
        Decimal("6.00"),
        "Licence sold as a technical service (fapiao 6 %)",
    )


def test_the_api_prints_the_breakdown_for_a_draft_and_keeps_it_once_sent(quote, world):
    api = token_client(world.sales, scope="read")
    draft = api.get(f"/api/v1/quotes/{quote.pk}/").json()["totals"]["tax_breakdown"]
    assert draft == [
        {"vat_percent": "13.00", "net": "21000.00", "tax": "2730.00"},
        {"vat_percent": "6.00", "net": "4000.00", "tax": "240.00"},
    ]
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    assert QuoteRevision.objects.get(pk=quote.current_revision_id).tax_breakdown == draft
    sent = api.get(f"/api/v1/quotes/{quote.pk}/").json()["totals"]["tax_breakdown"]
    assert sent == draft
    lines = api.get(f"/api/v1/quotes/{quote.pk}/lines/").json()
    assert {ln["sku"] or ln["description"]: ln["vat_percent"] for ln in lines}["SW-1"] == "13.00"


def test_the_quote_page_the_share_page_and_the_pdf_print_each_rate(client, quote, world):
    client.force_login(world.sales)
    page = client.get(f"/quotes/{quote.pk}/").content.decode()
    assert "VAT (13 % on 21,000.00)" in page and "VAT (6 % on 4,000.00)" in page
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    _link, token = share_link_create(quote=quote_reload(quote), user=world.sales)
    shared = _share_page(client, token)
    assert "VAT (13 % on 21,000.00)" in shared and "VAT (6 % on 4,000.00)" in shared
    pdf = sent_pdf(quote_reload(quote).current_revision, "en")
    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(bytes(pdf.pdf))).pages)
    assert "VAT (13 % on 21,000.00)" in text and "VAT (6 % on 4,000.00)" in text


def test_optional_lines_keep_their_own_rate_when_chosen(quote, world):
    line = QuoteLine.objects.get(revision=quote.current_revision, description="Site survey")
    quote_update_line(
        quote=quote,
        line=line,
        user=world.sales,
        expected_version=quote.version,
        optional=True,
    )
    line.refresh_from_db()
    assert line.section == Section.OPTIONAL and line.vat_percent == Decimal("6.00")


def _share_page(client, token) -> str:
    response = client.get(f"/p/{token}?lang=en")
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def test_the_links_price_of_a_choice_gives_the_tax_of_each_rate(client, world):
    from tests.proposals.choice_world import optional_line, quote_with_choices

    quote = quote_with_choices(world)
    _link, token = share_link_create(quote=quote, user=world.sales)
    training = optional_line(quote, "On-site training day")
    answer = client.get(
        f"/p/{token}/price",
        {"revision": 1, "lang": "en", "optional": [str(training.key)]},
    )
    figures = answer.json()["figures"]
    assert figures["tax_rates"].startswith("13 % on ") and " · 6 % on " in figures["tax_rates"]


def test_a_customers_country_is_set_over_the_api_and_a_bad_code_is_a_400(world):
    api = token_client(world.sales)
    refused = api.post(
        "/api/v1/customers/", {"company": "Marina Labs", "country": "Singapore"}, format="json"
    )
    assert refused.status_code == 400 and "country" in field_errors(refused)
    made = api.post(
        "/api/v1/customers/", {"company": "Marina Labs", "country": "SG"}, format="json"
    )
    assert made.status_code == 201, made.json()
    assert made.json()["country"] == "SG"

"""GET /api/v1/quotes/{id}/xlsx/ and the quote page's button: the quote as an Excel workbook a
buyer can audit (issue 22 item 7).

The totals are formulas: re-added from the cells they must be the API's to the cent. An
accepted quote gives its booked configuration. Cost and margin are in the internal variant only,
for users who may see margins; the customer's variant has none anywhere."""

from __future__ import annotations

import io
import zipfile
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalog.models import Product
from portal.models import CompanyProfile
from quoting.engine.money import line_amount
from quoting.quotes.margins import line_margin
from quoting.quotes.models import InstallPack, InstallPackStatus, QuoteLine, QuoteRevision
from quoting.quotes.selectors import revision_alternatives
from quoting.quotes.services.quotes import quote_add_free_text, quote_mark_accepted
from quoting.quotes.workbook import MONEY_FORMAT, XLSX_CONTENT_TYPE
from quoting.templatetags.quoting_numbers import rmb_in_words
from tests.proposals.conftest import quote_with_lines
from tests.quoting.api_world import token_client
from tests.quoting.quotes.workbook_reading import (
    every_value,
    rows_with,
    texts,
    totalled_rows,
    totals,
    totals_row,
    value,
    workbook,
)
from tests.quoting.quotes.xlsx_world import optional_line, quote_offering_choices

pytestmark = pytest.mark.django_db

COST_WORDS = ("cost", "margin", "成本", "毛利")


@pytest.fixture
def quote(world):
    """Sent, in CNY: SW-1 x 2 and an installation line, two optional items (one discounted),
    the alternatives Better and Best, a 3.33 % quote discount and 13 % VAT (xlsx_world)."""
    return quote_offering_choices(world)


@pytest.fixture
def api(world):
    return token_client(world.sales, scope="read")


def _xlsx(client, quote, **query):
    response = client.get(f"/api/v1/quotes/{quote.pk}/xlsx/", query)
    assert response.status_code == 200, response.content[:300]
    return response


def _quote_sheet(response):
    """The first sheet ("Quote"; 报价单 in a Chinese workbook)."""
    return workbook(response.content).worksheets[0]


def _api_totals(client, quote, key: str = "totals") -> dict[str, Decimal]:
    body = client.get(f"/api/v1/quotes/{quote.pk}/").json()
    return {name: Decimal(amount) for name, amount in body[key].items() if name in TOTALS}


TOTALS = ("subtotal", "discount", "net", "tax", "total")


def _may_see_margins(user):
    user.user_permissions.add(
        Permission.objects.get(codename="view_margin", content_type__app_label="quoting")
    )


def _with_costs(quote) -> dict[str, Decimal]:
    """Unit costs on every line, each a figure found nowhere else in the quote."""
    costs = {}
    for n, line in enumerate(quote.current_revision.lines.order_by("position")):
        cost = Decimal("7000.00") + Decimal(n) + Decimal("0.37")
        QuoteLine.objects.filter(pk=line.pk).update(unit_cost=cost)
        costs[line.description] = cost
    return costs


# --- the totals a buyer can audit -----------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_totals_re_added_from_the_cells_are_the_apis_to_the_cent(api, quote, language):
    sheet = _quote_sheet(_xlsx(api, quote, lang=language))
    assert totals(sheet) == _api_totals(api, quote)


def test_each_amount_is_a_formula_of_its_own_row_after_the_line_discount(api, quote):
    sheet = _quote_sheet(_xlsx(api, quote))
    for line in quote.current_revision.lines.all():
        (row,) = rows_with(sheet, line.description)
        assert sheet[f"G{row}"].value == f"=ROUND(D{row}*E{row}*(100-F{row})/100,2)"
        assert value(sheet, f"G{row}") == line_amount(
            quantity=line.quantity,
            unit_price=line.unit_price,
            discount_percent=line.discount_percent,
        )


def test_the_discount_and_vat_are_rounded_formulas_of_their_own_percentages(api, quote):
    """Per VAT rate (goods 13 %, the installation typed as a service 6 %): the lines' amounts,
    the quote discount on them and their VAT, each rounded; the totals add those up."""
    sheet = _quote_sheet(_xlsx(api, quote))
    first = totals_row(sheet)
    per_rate = first + 6  # after discount, net, VAT, total and a blank row
    goods, services = (per_rate, per_rate + 3)
    assert value(sheet, f"F{goods + 2}") == Decimal("13")
    assert value(sheet, f"F{services + 2}") == Decimal("6")
    for start in (goods, services):
        assert sheet[f"G{start + 1}"].value == f"=ROUND(G{start}*F{start + 1}/100,2)"
        assert value(sheet, f"F{start + 1}") == Decimal("3.33")
        assert sheet[f"G{start + 2}"].value == (
            f"=ROUND((G{start}-G{start + 1})*F{start + 2}/100,2)"
        )
    assert sheet[f"G{first + 1}"].value == f"=G{goods + 1}+G{services + 1}"
    assert sheet[f"G{first + 2}"].value == f"=G{first}-G{first + 1}"
    assert sheet[f"G{first + 3}"].value == f"=G{goods + 2}+G{services + 2}"
    assert sheet[f"G{first + 4}"].value == f"=G{first + 2}+G{first + 3}"
    (installation,) = rows_with(sheet, "Installation")
    assert value(sheet, f"H{installation}") == Decimal("6")


def test_money_cells_are_numbers_formatted_to_the_cent_never_text(api, quote):
    sheet = _quote_sheet(_xlsx(api, quote))
    (row,) = rows_with(sheet, "Installation")
    price = sheet[f"E{row}"]
    assert price.data_type == "n" and price.value == pytest.approx(12345.67)
    assert price.number_format == MONEY_FORMAT
    assert sheet[f"G{row}"].number_format == MONEY_FORMAT
    for n in range(5):
        assert sheet[f"G{totals_row(sheet) + n}"].number_format == MONEY_FORMAT


def test_optional_items_and_alternatives_are_listed_apart_outside_the_totals(api, quote):
    sheet = _quote_sheet(_xlsx(api, quote))
    added = totalled_rows(sheet)
    total_row = totals_row(sheet) + 4
    for description in (
        "Spare optics kit",
        "On-site training day",
        "QM9700 managed switch",
        "Spine switch",
    ):
        row = rows_with(sheet, description)[-1]
        assert row > total_row and row not in added
        assert sheet[f"G{row}"].value.startswith("=ROUND(")  # priced all the same
    assert {sheet[f"C{row}"].value for row in added} == {"QM9790 switch", "Installation"}


def test_each_alternative_shows_its_subtotal_and_the_total_if_chosen(api, quote):
    sheet = _quote_sheet(_xlsx(api, quote))
    for delta in revision_alternatives(revision=quote.current_revision):
        (title,) = rows_with(sheet, f"Option: {delta.group}", column="B")
        subtotal = next(
            row
            for row in range(title, sheet.max_row + 1)
            if str(sheet[f"G{row}"].value).startswith("=SUM(")
        )
        assert value(sheet, f"G{subtotal}") == delta.subtotal
        assert value(sheet, f"G{subtotal + 1}") == delta.total_if_chosen


# --- language, name, who the parties are ----------------------------------------------------------


def test_the_workbook_is_in_the_language_asked_else_the_customers(api, world, quote):
    Product.objects.filter(part_number="SW-1").update(name_zh="QM9790 交换机")
    english = _quote_sheet(_xlsx(api, quote, lang="en"))
    assert rows_with(english, "QM9790 switch") and rows_with(english, "Subtotal")
    assert not rows_with(english, "交换机")

    world.customer.language = "zh-hans"
    world.customer.save()
    response = _xlsx(api, quote)  # no lang: the customer's
    chinese = _quote_sheet(response)
    assert rows_with(chinese, "QM9790 交换机") and rows_with(chinese, "小计")
    assert chinese[f"C{totals_row(chinese) + 4}"].value == "总计"
    assert rows_with(chinese, "网络", column="B")  # the section's title
    assert totals(chinese) == _api_totals(api, quote)


def test_a_cny_total_is_also_written_in_words(api, quote):
    sheet = _quote_sheet(_xlsx(api, quote, lang="zh-hans"))
    words = rmb_in_words(quote.current_revision.total)
    assert words.endswith(("分", "角", "元整"))
    assert rows_with(sheet, f"金额大写: {words}")


def test_the_file_is_named_by_quote_and_revision(api, quote):
    response = _xlsx(api, quote)
    assert response["Content-Type"] == XLSX_CONTENT_TYPE
    filename = f"{quote.number}-R1.xlsx"
    assert response["Content-Disposition"] == f'attachment; filename="{filename}"'
    assert set(workbook(response.content).sheetnames) == {"Quote", "BOM"}


def test_the_header_names_the_quote_customer_project_dates_and_currency(api, quote):
    sheet = _quote_sheet(_xlsx(api, quote))
    fields = {sheet[f"B{row}"].value: sheet[f"C{row}"].value for row in range(1, totals_row(sheet))}
    assert fields["Quote"] == quote.number and fields["Revision"] == "R1"
    assert fields["Customer"] == "Pengcheng University"
    assert fields["Project"] == "GPU cluster"
    assert fields["Currency"] == "CNY"
    assert fields["Valid until"].date() == quote.valid_until
    assert fields["Date sent"].date() is not None


def test_the_seller_is_the_company_profile_in_the_language(api, quote):
    CompanyProfile(
        legal_name_en="Shenzhen Fabric Ltd",
        legal_name_zh="深圳织网有限公司",
        address_en="1 Science Park Road",
        tax_number="91440300MA5XXXXX1A",
        bank_name="Bank of China",
        bank_account="6222 0000 1111",
    ).save()
    english = _quote_sheet(_xlsx(api, quote, lang="en"))
    for text in ("Shenzhen Fabric Ltd", "1 Science Park Road", "91440300MA5XXXXX1A"):
        assert rows_with(english, text)
    assert rows_with(english, "Bank of China") and rows_with(english, "6222 0000 1111")
    chinese = _quote_sheet(_xlsx(api, quote, lang="zh-hans"))
    assert rows_with(chinese, "深圳织网有限公司")


def test_text_that_looks_like_a_formula_stays_text(api, world):
    world.customer.company = '=HYPERLINK("https://evil.example","Pengcheng")'
    world.customer.save()
    draft = quote_offering_choices(world, send=False)
    quote_add_free_text(
        quote=draft,
        description="=1+1",
        quantity=1,
        unit_price="10.00",
        user=world.sales,
        expected_version=draft.version,
    )
    sheet = _quote_sheet(_xlsx(api, draft, lang="en"))
    (row,) = rows_with(sheet, "=1+1")
    assert sheet[f"C{row}"].data_type == "s"
    (customer,) = rows_with(sheet, "=HYPERLINK(")
    assert sheet[f"C{customer}"].data_type == "s"
    assert totals(sheet) == _api_totals(api, draft)  # the line still adds up: a string is text


def test_a_draft_says_it_is_not_an_offer(api, world):
    draft = quote_offering_choices(world, send=False)
    sheet = _quote_sheet(_xlsx(api, draft))
    assert sheet["A2"].value == "Draft — not an offer"
    assert totals(sheet) == _api_totals(api, draft)


# --- the booked configuration --------------------------------------------------------------------


def _accepted_with_better_and_optics(world, quote):
    optics = optional_line(quote, "Spare optics kit")
    quote_mark_accepted(quote=quote, alternative="Better", optional=[str(optics.key)], name="Li")
    quote.refresh_from_db()
    return quote


def test_an_accepted_quote_gives_its_booked_configuration_and_totals(api, world, quote):
    quote = _accepted_with_better_and_optics(world, quote)
    sheet = _quote_sheet(_xlsx(api, quote))
    booked = _api_totals(api, quote, key="booked")
    assert totals(sheet) == booked
    assert booked["total"] != quote.current_revision.total  # not the offer as quoted
    added = {sheet[f"C{row}"].value for row in totalled_rows(sheet)}
    assert added == {"QM9700 managed switch", "UFM licence", "Installation", "Spare optics kit"}
    # What was not chosen is not ordered: not listed at all.
    for description in ("QM9790 switch", "On-site training day", "Spine switch"):
        assert not rows_with(sheet, description)
    fields = {sheet[f"B{row}"].value: sheet[f"C{row}"].value for row in range(1, 30)}
    assert fields["Option"] == "Better" and fields["Optional items included"] == "Spare optics kit"


def test_the_bom_of_a_booked_alternative_is_its_own_lines(api, quote):
    quote_mark_accepted(quote=quote, alternative="Best", name="Li")
    bom = workbook(_xlsx(api, quote, lang="en").content)["BOM"]
    rows = [tuple(c.value for c in row[:4]) for row in bom.iter_rows()]
    assert ("spine switches", "SW-BEST", "Spine switch", 4) in rows
    assert not any("SW-1" in str(row) for row in rows)  # the network the alternative replaced


def test_the_bom_is_the_designs_by_part_number_and_by_role(qw):
    client = token_client(qw.world.sales, scope="read")
    bom = workbook(_xlsx(client, qw.quote, lang="en").content)["BOM"]
    rows = [tuple(c.value for c in row[:4]) for row in bom.iter_rows()]
    assert (None, "SW-1", "Leaf switch", 2) in rows  # by part number
    assert ("leaf switches", "SW-1", "Leaf switch", 2) in rows  # by role
    assert ("server to leaf links", "CB-1", "Cable", 8) in rows


def test_the_bom_has_the_racks_and_the_installation_packs_parts_by_rack(qw):
    revision = qw.quote.current_revision
    QuoteRevision.objects.filter(pk=revision.pk).update(
        design_racks={
            "rows": [
                {
                    "racks": "A01",
                    "count": 1,
                    "kind": "compute",
                    "su": "1",
                    "units_used": 24,
                    "units_free": 24,
                    "typical_kw": 30.8,
                    "max_kw": 30.82,
                    "over": False,
                },
                {
                    "racks": "A02",
                    "count": 1,
                    "kind": "network",
                    "su": "1",
                    "units_used": 2,
                    "units_free": 46,
                    "typical_kw": 2.45,
                    "max_kw": 4.4,
                    "over": False,
                },
            ]
        }
    )
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as pack:
        pack.writestr(
            "Q-1-r1/bom-by-rack.csv",
            "rack,sku,category,quantity,in_quote\r\nA02,SW-1,switch,2,yes\r\n"
            "A01,CB-1,cable,8,yes\r\n",
        )
    InstallPack.objects.create(
        revision=revision,
        requirements={},
        status=InstallPackStatus.READY,
        archive=archive.getvalue(),
        sha256="0" * 64,
    )
    client = token_client(qw.world.sales, scope="read")
    bom = workbook(_xlsx(client, qw.quote, lang="en").content)["BOM"]
    rows = [tuple(c.value for c in row[:4]) for row in bom.iter_rows()]
    assert ("A01", "Compute", "1", "24 / 24") in rows and ("A02", "Network", "1", "2 / 46") in rows
    (title,) = rows_with(bom, "Parts by rack", column="A")
    assert rows[title + 1 : title + 3] == [
        ("A02", "SW-1", "Leaf switch", 2),
        ("A01", "CB-1", "Cable", 8),
    ]


@pytest.mark.parametrize(
    ("lang", "listed", "old"),
    [
        ("en", "A01–A03, A05 (×4)", "B01, B03 (×2)"),
        ("zh-hans", "A01–A03、A05 (×4)", "B01、B03 (×2)"),
    ],
)
def test_a_rows_racks_are_listed_in_the_workbooks_language(qw, lang, listed, old):
    row = {"kind": "compute", "su": "1", "units_used": 24, "units_free": 24}
    row |= {"typical_kw": 30.8, "max_kw": 30.82, "over": False}
    QuoteRevision.objects.filter(pk=qw.quote.current_revision_id).update(
        design_racks={
            "rows": [
                row | {"racks": ["A01–A03", "A05"], "count": 4},
                row | {"racks": "B01, B03", "count": 2},  # kept before the racks were a list
            ]
        }
    )
    client = token_client(qw.world.sales, scope="read")
    bom = workbook(_xlsx(client, qw.quote, lang=lang).content)["BOM"]
    names = [row[0].value for row in bom.iter_rows()]
    assert listed in names and old in names


# --- cost and margin -----------------------------------------------------------------------------


def test_the_internal_variant_is_refused_without_the_margin_permission(api, quote):
    response = api.get(f"/api/v1/quotes/{quote.pk}/xlsx/", {"variant": "internal"})
    assert response.status_code == 403
    assert response["Content-Type"] == "application/problem+json"


def test_the_internal_variant_adds_cost_and_margin_per_line_and_in_total(api, world, quote):
    _may_see_margins(world.sales)
    costs = _with_costs(quote)
    response = _xlsx(api, quote, variant="internal")
    assert response["Content-Disposition"].endswith(f'{quote.number}-R1-internal.xlsx"')
    sheet = _quote_sheet(response)
    assert rows_with(sheet, "Unit cost", column="I")
    revision = quote.current_revision
    for line in revision.lines.all():
        (row,) = rows_with(sheet, line.description)
        margin = line_margin(line, discount_percent=revision.discount_percent)
        assert value(sheet, f"I{row}") == costs[line.description]
        assert value(sheet, f"J{row}") == margin.cost_total
        assert value(sheet, f"K{row}") == margin.margin_amount
        assert value(sheet, f"L{row}") == margin.margin_percent
    assert totals(sheet) == _api_totals(api, quote)  # the totals are the same


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_customers_variant_has_no_cost_or_margin_anywhere(api, world, quote, language):
    _may_see_margins(world.sales)  # even for a user who may see them
    _with_costs(quote)
    revision = quote.current_revision
    secret = set()
    for line in revision.lines.all():
        margin = line_margin(line, discount_percent=revision.discount_percent)
        secret |= {line.unit_cost, margin.cost_total, margin.margin_amount}
    book = workbook(_xlsx(api, quote, lang=language).content)
    numbers = {Decimal(repr(v)) for v in every_value(book) if isinstance(v, int | float)}
    assert not numbers & secret
    words = texts(book).lower()
    assert not [word for word in COST_WORDS if word in words]
    # The same scan finds them in the internal variant: it would see a leak.
    internal = workbook(_xlsx(api, quote, lang=language, variant="internal").content)
    assert any(word in texts(internal).lower() for word in COST_WORDS)


# --- the API's rules -----------------------------------------------------------------------------


def test_another_teams_quote_is_a_404(world, quote):
    assert (
        token_client(world.other_sales, scope="read")
        .get(f"/api/v1/quotes/{quote.pk}/xlsx/")
        .status_code
        == 404
    )


@pytest.mark.parametrize("query", [{"lang": "fr"}, {"variant": "secret"}])
def test_a_language_or_variant_not_offered_is_a_400(api, quote, query):
    assert api.get(f"/api/v1/quotes/{quote.pk}/xlsx/", query).status_code == 400


def test_the_queries_do_not_grow_with_the_lines(api, world):
    counts = []
    for count in (3, 60):
        quote = quote_with_lines(world, count)
        _xlsx(api, quote)  # the token's first use of the minute writes its last use
        with CaptureQueriesContext(connection) as queries:
            _xlsx(api, quote)
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_the_schema_documents_the_workbook(client):
    schema = client.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/v1/quotes/{id}/xlsx/"]["get"]
    assert XLSX_CONTENT_TYPE in operation["responses"]["200"]["content"]
    assert {p["name"] for p in operation["parameters"]} >= {"lang", "variant"}


# --- the quote page's door -----------------------------------------------------------------------


def test_the_quote_page_offers_the_download_through_the_same_rules(client, world, quote):
    client.force_login(world.sales)
    page = client.get(f"/quotes/{quote.pk}/").content.decode()
    assert f'href="/quotes/{quote.pk}/xlsx/"' in page
    assert "variant=internal" not in page
    response = client.get(f"/quotes/{quote.pk}/xlsx/", {"lang": "zh-hans"})
    assert response.status_code == 200 and response["Content-Type"] == XLSX_CONTENT_TYPE
    assert totals(_quote_sheet(response)) == totals(_quote_sheet(_xlsx(client, quote)))
    assert client.get(f"/quotes/{quote.pk}/xlsx/", {"variant": "internal"}).status_code == 403
    client.force_login(world.other_sales)
    assert client.get(f"/quotes/{quote.pk}/xlsx/").status_code == 404


def test_a_user_who_may_see_margins_gets_both_buttons(client, world, quote):
    _may_see_margins(world.sales)
    client.force_login(world.sales)
    page = client.get(f"/quotes/{quote.pk}/").content.decode()
    assert f"/quotes/{quote.pk}/xlsx/?variant=internal" in page
    internal = client.get(f"/quotes/{quote.pk}/xlsx/", {"variant": "internal"})
    assert rows_with(_quote_sheet(internal), "Unit cost", column="I")


# --- the amount in words -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "words"),
    [
        ("0", "零元整"),
        ("10", "壹拾元整"),
        ("100000", "壹拾万元整"),
        ("1000001", "壹佰万零壹元整"),
        ("0.05", "伍分"),
        ("100000000.01", "壹亿元零壹分"),
        ("12345.67", "壹万贰仟叁佰肆拾伍元陆角柒分"),
        (
            "9999999999999999.99",
            "玖仟玖佰玖拾玖万玖仟玖佰玖拾玖亿玖仟玖佰玖拾玖万玖仟玖佰玖拾玖元玖角玖分",
        ),
    ],
)
def test_rmb_amounts_in_words_as_invoices_print_them(amount, words):
    assert rmb_in_words(Decimal(amount)) == words


def test_from_ten_to_the_sixteenth_the_figures_stand_alone():
    assert rmb_in_words(Decimal(10) ** 16) == ""


def test_control_characters_in_a_name_are_dropped_not_a_500(api, world, quote):
    world.customer.company = "Pengcheng\x0b University\x01"  # PostgreSQL refuses \x00 itself
    world.customer.save()
    response = _xlsx(api, quote)
    assert response.status_code == 200
    assert "Pengcheng University" in texts(workbook(response.content))

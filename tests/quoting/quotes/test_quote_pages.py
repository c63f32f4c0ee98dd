"""The quote builder and the quote list in the browser's terms: pages, htmx edits, scoping,
errors shown inline, the approval flow through the views, and constant query counts."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from quoting.quotes.models import QuoteLine, QuoteStatus, Section
from quoting.quotes.services.quotes import (
    quote_add_product,
    quote_create,
    quote_send,
    quote_update_line,
)
from tests.quoting.factories import (
    CustomerFactory,
    ProductFactory,
    ProjectFactory,
    price_set,
    quote_reload,
)

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def draft(world):
    """A draft of the sales user's team: two lines, 10,000.00 x 2 and 500.00 x 4, VAT 13 %."""
    price_set(ProductFactory(part_number="SW-1", name="Leaf switch"), "CNY", "10000.00")
    price_set(ProductFactory(part_number="CB-1", name="Cable"), "CNY", "500.00")
    quote = quote_create(project=world.project, user=world.sales)
    for sku, quantity in (("SW-1", 2), ("CB-1", 4)):
        quote_add_product(
            quote=quote,
            sku=sku,
            quantity=quantity,
            user=world.sales,
            expected_version=quote.version,
        )
    return quote


@pytest.fixture
def sales(client, world):
    client.force_login(world.sales)
    return client


def _lines(quote):
    return list(QuoteLine.objects.filter(revision=quote_reload(quote).current_revision))


def _line(quote, sku):
    return next(line for line in _lines(quote) if line.sku == sku)


def _lines_add(quote, count: int) -> None:
    product = ProductFactory(part_number="BULK-1")
    QuoteLine.objects.bulk_create(
        QuoteLine(
            revision=quote_reload(quote).current_revision,
            position=100 + i,
            product=product,
            sku=product.part_number,
            description=f"Bulk line {i}",
            quantity=1 + i,
            unit_price=Decimal("12.34"),
        )
        for i in range(count)
    )


# --- pages ---------------------------------------------------------------------------------------


def test_the_quote_page_shows_lines_totals_and_the_rounding_rule(sales, draft):
    body = sales.get(f"/quotes/{draft.pk}/").content.decode()
    assert draft.number in body and "R1" in body and "Draft" in body
    assert "Leaf switch" in body and "20,000.00" in body and "2,000.00" in body
    # 22,000.00 + 13 % VAT
    assert "24,860.00" in body
    assert "Each line is rounded to 0.01" in body
    assert 'class="quote-version"' in body and f'value="{draft.version}"' in body


def test_a_chinese_speaker_reads_the_cny_total_in_words_beside_the_figures(sales, world, draft):
    world.sales.language = "zh-hans"
    world.sales.save()
    body = sales.get(f"/quotes/{draft.pk}/").content.decode()
    # 24,860.00 CNY
    assert "金额大写" in body and "贰万肆仟捌佰陆拾元整" in body


def test_an_english_quote_page_has_no_amount_in_words(sales, draft):
    body = sales.get(f"/quotes/{draft.pk}/").content.decode()
    assert "24,860.00" in body and 'id="total-in-words"' not in body


def test_the_quote_list_shows_number_customer_status_owner_and_total(sales, draft):
    body = sales.get("/quotes/").content.decode()
    assert draft.number in body and "Pengcheng University" in body and "GPU cluster" in body
    assert "wang" in body and "24,860.00 CNY" in body and "Draft" in body


def test_the_quote_list_filters_by_status_and_search_and_swaps_only_the_table(sales, draft):
    assert draft.number in sales.get("/quotes/?status=draft").content.decode()
    assert draft.number not in sales.get("/quotes/?status=sent").content.decode()
    partial = sales.get("/quotes/?q=Pengcheng", **HTMX).content.decode()
    assert "<html" not in partial and draft.number in partial
    assert draft.number not in sales.get("/quotes/?q=nothing-like-it").content.decode()


def test_a_sent_quote_lists_its_stored_total(sales, world, draft):
    quote_send(quote=draft, user=world.sales, expected_version=draft.version)
    assert "24,860.00 CNY" in sales.get("/quotes/?status=sent").content.decode()


# --- scoping -------------------------------------------------------------------------------------


def test_another_teams_quote_is_a_404_on_every_quote_url(client, world, draft):
    client.force_login(world.other_sales)
    line = _lines(draft)[0]
    base = f"/quotes/{draft.pk}"
    for url in (f"{base}/", f"{base}/diff/", f"{base}/products/?q=SW"):
        assert client.get(url).status_code == 404, url
        assert client.get(url, **HTMX).status_code == 404, url
    posts = [
        f"{base}/lines/{line.pk}/",
        f"{base}/lines/{line.pk}/remove/",
        f"{base}/lines/add/",
        f"{base}/lines/free-text/",
        f"{base}/alternatives/add/",
        f"{base}/terms/",
        *(f"{base}/{action}/" for action in ("request-approval", "approve", "send", "revise")),
    ]
    for url in posts:
        data = {"expected_version": draft.version, "quantity": 9, "sku": "SW-1"}
        assert client.post(url, data, **HTMX).status_code == 404, url
    assert draft.number not in client.get("/quotes/").content.decode()
    assert quote_reload(draft).version == draft.version


def test_a_line_of_another_quote_is_a_404(sales, world, draft):
    other_customer = CustomerFactory(team=world.other_team, owner=world.other_sales)
    other = quote_create(project=ProjectFactory(customer=other_customer), user=world.other_sales)
    quote_add_product(
        quote=other, sku="SW-1", quantity=1, user=world.other_sales, expected_version=other.version
    )
    foreign = _lines(other)[0]
    response = sales.post(
        f"/quotes/{draft.pk}/lines/{foreign.pk}/",
        {"expected_version": draft.version, "quantity": 5},
        **HTMX,
    )
    assert response.status_code == 404


# --- editing lines -------------------------------------------------------------------------------


def test_changing_a_quantity_answers_new_totals_out_of_band(sales, draft):
    line = _line(draft, "SW-1")
    response = sales.post(
        f"/quotes/{draft.pk}/lines/{line.pk}/",
        {"expected_version": draft.version, "quantity": 3, "discount_percent": "0"},
        **HTMX,
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert f'id="amount-{line.pk}" hx-swap-oob="true">30,000.00' in body
    assert "36,160.00" in body  # 32,000.00 + 13 %
    # Every form on the page gets the new version.
    assert (
        f'value="{draft.version + 1}" class="quote-version" '
        'hx-swap-oob="outerHTML:input.quote-version"' in body
    )
    assert _line(draft, "SW-1").quantity == 3


def test_without_htmx_an_edit_redirects_back_to_the_quote(sales, draft):
    line = _line(draft, "CB-1")
    response = sales.post(
        f"/quotes/{draft.pk}/lines/{line.pk}/", {"expected_version": draft.version, "quantity": 5}
    )
    assert response.status_code == 302 and response["Location"] == f"/quotes/{draft.pk}/"
    assert _line(draft, "CB-1").quantity == 5


def test_a_stale_version_tells_the_loser_to_reload_and_changes_nothing(sales, world, draft):
    line = _line(draft, "SW-1")
    seen = draft.version
    quote_update_line(quote=draft, line=line, quantity=7, user=world.sales, expected_version=seen)
    response = sales.post(
        f"/quotes/{draft.pk}/lines/{line.pk}/", {"expected_version": seen, "quantity": 3}, **HTMX
    )
    body = response.content.decode()
    assert response.status_code == 412
    assert "Someone else changed this quote: reload to see their changes" in body
    # Only the message box is swapped: the loser's typed input stays on their page.
    assert "quote-lines" not in body and "qty-" not in body
    assert _line(draft, "SW-1").quantity == 7


@pytest.mark.parametrize("quantity", ["-1", "abc", str(10**9), "", "2.5"])
def test_a_bad_quantity_is_an_inline_error_beside_the_line_and_changes_nothing(
    sales, draft, quantity
):
    line = _line(draft, "SW-1")
    response = sales.post(
        f"/quotes/{draft.pk}/lines/{line.pk}/",
        {"expected_version": draft.version, "quantity": quantity},
        **HTMX,
    )
    body = response.content.decode()
    assert response.status_code == 400
    assert f'id="err-line-{line.pk}"' in body and 'class="field-error"' in body
    assert _line(draft, "SW-1").quantity == 2
    assert quote_reload(draft).version == draft.version


def test_a_bad_discount_is_an_inline_error(sales, draft):
    line = _line(draft, "SW-1")
    response = sales.post(
        f"/quotes/{draft.pk}/lines/{line.pk}/",
        {"expected_version": draft.version, "quantity": 2, "discount_percent": "150"},
        **HTMX,
    )
    assert response.status_code == 400
    assert "between 0 and 100" in response.content.decode()
    assert _line(draft, "SW-1").discount_percent == 0


def test_removing_a_line_swaps_the_lines_and_totals(sales, draft):
    line = _line(draft, "CB-1")
    body = sales.post(
        f"/quotes/{draft.pk}/lines/{line.pk}/remove/", {"expected_version": draft.version}, **HTMX
    ).content.decode()
    assert 'id="quote-lines" hx-swap-oob="true"' in body and "Cable" not in body
    assert "22,600.00" in body  # 20,000.00 + 13 %
    assert [ln.sku for ln in _lines(draft)] == ["SW-1"]


def test_the_picker_finds_products_and_adds_one_with_its_quantity(sales, draft):
    price_set(ProductFactory(part_number="NIC-7", name="ConnectX-7 adapter"), "CNY", "9000.00")
    picker = sales.get(f"/quotes/{draft.pk}/products/?q=ConnectX", **HTMX).content.decode()
    assert "NIC-7" in picker and "9,000.00 CNY" in picker
    body = sales.post(
        f"/quotes/{draft.pk}/lines/add/",
        {"expected_version": draft.version, "sku": "NIC-7", "quantity": 3},
        **HTMX,
    ).content.decode()
    assert "ConnectX-7 adapter" in body and "27,000.00" in body
    assert _line(draft, "NIC-7").quantity == 3


def test_an_unknown_product_is_refused_with_a_message(sales, draft):
    response = sales.post(
        f"/quotes/{draft.pk}/lines/add/",
        {"expected_version": draft.version, "sku": "NOPE", "quantity": 1},
        **HTMX,
    )
    assert response.status_code == 400 and "no product NOPE" in response.content.decode()


def test_a_free_text_line_is_added_in_its_section(sales, draft):
    sales.post(
        f"/quotes/{draft.pk}/lines/free-text/",
        {
            "expected_version": draft.version,
            "description": "Site survey",
            "quantity": 1,
            "unit_price": "3000.00",
            "section": Section.SERVICES,
        },
        **HTMX,
    )
    line = _line(draft, "")
    assert line.description == "Site survey" and line.section == Section.SERVICES


def test_terms_set_the_quote_discount_vat_and_validity(sales, draft):
    revision = quote_reload(draft).current_revision
    body = sales.post(
        f"/quotes/{draft.pk}/terms/",
        {
            "expected_version": draft.version,
            "discount_percent": "5",
            "tax_percent": "0",
            "valid_until": "2099-01-31",
        },
        **HTMX,
    ).content.decode()
    revision.refresh_from_db()
    assert revision.discount_percent == Decimal(5) and revision.tax_percent == 0
    assert quote_reload(draft).valid_until.isoformat() == "2099-01-31"
    assert "20,900.00" in body  # 22,000.00 - 5 %


def test_a_validity_in_the_past_is_shown_beside_its_field(sales, draft):
    response = sales.post(
        f"/quotes/{draft.pk}/terms/",
        {
            "expected_version": draft.version,
            "discount_percent": "0",
            "tax_percent": "13",
            "valid_until": "2001-01-01",
        },
        **HTMX,
    )
    body = response.content.decode()
    assert response.status_code == 400
    assert 'id="err-valid_until"' in body and "in the past" in body


# --- the approval flow ---------------------------------------------------------------------------


def test_a_15_percent_discount_needs_a_managers_approval_before_it_is_sent(client, world, draft):
    client.force_login(world.sales)
    client.post(
        f"/quotes/{draft.pk}/terms/",
        {
            "expected_version": draft.version,
            "discount_percent": "15",
            "tax_percent": "13",
            "valid_until": draft.valid_until.isoformat(),
        },
        **HTMX,
    )
    page = client.get(f"/quotes/{draft.pk}/").content.decode()
    assert "Request approval" in page and "Mark sent" not in page

    version = quote_reload(draft).version
    response = client.post(
        f"/quotes/{draft.pk}/request-approval/",
        {"expected_version": version, "note": "Strategic account"},
    )
    assert response.status_code == 302
    assert quote_reload(draft).status == QuoteStatus.AWAITING_APPROVAL
    assert "Approve" not in client.get(f"/quotes/{draft.pk}/").content.decode()

    client.force_login(world.manager)
    page = client.get(f"/quotes/{draft.pk}/").content.decode()
    assert "Approve" in page and "Strategic account" in page
    client.post(
        f"/quotes/{draft.pk}/approve/",
        {"expected_version": quote_reload(draft).version, "note": "OK for Q4"},
    )
    assert quote_reload(draft).status == QuoteStatus.APPROVED

    client.force_login(world.sales)
    assert "Mark sent" in client.get(f"/quotes/{draft.pk}/").content.decode()
    client.post(f"/quotes/{draft.pk}/send/", {"expected_version": quote_reload(draft).version})
    page = client.get(f"/quotes/{draft.pk}/").content.decode()
    assert quote_reload(draft).status == QuoteStatus.SENT
    assert "Sent" in page and "Discount approved" in page and "is frozen" in page


def test_a_sales_user_cannot_approve_and_sees_why(client, world, draft):
    client.force_login(world.sales)
    client.post(
        f"/quotes/{draft.pk}/terms/",
        {
            "expected_version": draft.version,
            "discount_percent": "15",
            "tax_percent": "13",
            "valid_until": draft.valid_until.isoformat(),
        },
        **HTMX,
    )
    client.post(
        f"/quotes/{draft.pk}/request-approval/", {"expected_version": quote_reload(draft).version}
    )
    response = client.post(
        f"/quotes/{draft.pk}/approve/", {"expected_version": quote_reload(draft).version}
    )
    assert response.status_code == 403
    assert "Only a sales manager" in response.content.decode()
    assert quote_reload(draft).status == QuoteStatus.AWAITING_APPROVAL


def test_a_chinese_sales_user_is_told_in_chinese_why_they_cannot_approve_or_send(
    client, world, draft
):
    world.sales.language = "zh-hans"
    world.sales.save(update_fields=["language"])
    client.force_login(world.sales)
    client.post(
        f"/quotes/{draft.pk}/terms/",
        {
            "expected_version": draft.version,
            "discount_percent": "15",
            "tax_percent": "13",
            "valid_until": draft.valid_until.isoformat(),
        },
        **HTMX,
    )
    client.post(
        f"/quotes/{draft.pk}/request-approval/", {"expected_version": quote_reload(draft).version}
    )
    approve = client.post(
        f"/quotes/{draft.pk}/approve/", {"expected_version": quote_reload(draft).version}
    )
    send = client.post(
        f"/quotes/{draft.pk}/send/", {"expected_version": quote_reload(draft).version}, follow=True
    )

    assert "只有销售经理可以批准或驳回折扣。" in approve.content.decode()
    assert "Only a sales manager" not in approve.content.decode()
    assert "经理尚未对该折扣作出决定。" in send.content.decode()
    assert "has not decided" not in send.content.decode()


def test_a_chinese_sales_user_is_told_in_chinese_that_a_discount_needs_a_manager(
    client, world, draft
):
    world.sales.language = "zh-hans"
    world.sales.save(update_fields=["language"])
    client.force_login(world.sales)
    client.post(
        f"/quotes/{draft.pk}/terms/",
        {
            "expected_version": draft.version,
            "discount_percent": "15",
            "tax_percent": "13",
            "valid_until": draft.valid_until.isoformat(),
        },
        **HTMX,
    )
    response = client.post(
        f"/quotes/{draft.pk}/send/", {"expected_version": quote_reload(draft).version}
    )
    body = response.content.decode()
    assert response.status_code == 409
    assert "15.00 % 的折扣超出了您 10 % 的权限" in body and "请先请经理批准" in body
    assert "ask a manager" not in body and "worst choice" not in body


def test_sending_a_draft_with_a_big_discount_is_refused_with_a_message(client, world, draft):
    client.force_login(world.sales)
    client.post(
        f"/quotes/{draft.pk}/terms/",
        {
            "expected_version": draft.version,
            "discount_percent": "15",
            "tax_percent": "13",
            "valid_until": draft.valid_until.isoformat(),
        },
        **HTMX,
    )
    response = client.post(
        f"/quotes/{draft.pk}/send/", {"expected_version": quote_reload(draft).version}
    )
    assert response.status_code == 409 and "ask a manager" in response.content.decode()


def test_revising_a_sent_quote_opens_r2_and_the_diff_shows_the_change(sales, world, draft):
    quote_send(quote=draft, user=world.sales, expected_version=draft.version)
    sales.post(f"/quotes/{draft.pk}/revise/", {"expected_version": draft.version})
    quote = quote_reload(draft)
    assert quote.current_revision.number == 2 and quote.status == QuoteStatus.DRAFT
    line = _line(quote, "CB-1")
    sales.post(
        f"/quotes/{quote.pk}/lines/{line.pk}/",
        {"expected_version": quote.version, "quantity": 10},
        **HTMX,
    )
    r1 = sales.get(f"/quotes/{quote.pk}/?r=1").content.decode()
    assert "R1 was sent and is frozen" in r1 and 'name="quantity"' not in r1
    diff = sales.get(f"/quotes/{quote.pk}/diff/?a=1&b=2").content.decode()
    assert "Changed" in diff and "4 → 10" in diff
    assert "24,860.00" in diff and "28,250.00" in diff  # 25,000.00 + 13 %
    assert sales.get(f"/quotes/{quote.pk}/diff/?a=1&b=9").status_code == 404
    assert sales.get(f"/quotes/{quote.pk}/?r=9").status_code == 404


def test_recording_the_customers_answer_by_phone(sales, world, draft):
    quote_send(quote=draft, user=world.sales, expected_version=draft.version)
    sales.post(
        f"/quotes/{draft.pk}/accept/",
        {"expected_version": draft.version, "note": "Mr Chen, by phone"},
    )
    assert quote_reload(draft).status == QuoteStatus.ACCEPTED
    page = sales.get(f"/quotes/{draft.pk}/").content.decode()
    assert "Accepted" in page and "Mr Chen, by phone" in page and "Accepted and booked" in page


# --- query counts --------------------------------------------------------------------------------


def _queries(client, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_the_quote_page_query_count_does_not_grow_with_lines(
    sales, draft, django_assert_max_num_queries
):
    _lines_add(draft, 3)  # 5 lines
    few = _queries(sales, f"/quotes/{draft.pk}/")
    _lines_add(draft, 45)  # 50 lines
    with django_assert_max_num_queries(few):
        assert sales.get(f"/quotes/{draft.pk}/").status_code == 200


def test_the_diff_page_names_products_in_chinese_for_a_chinese_reader(client, world, draft):
    from catalog.models import Product

    Product.objects.filter(part_number="CB-1").update(name_zh="线缆")
    Product.objects.filter(part_number="SW-1").update(name_zh="叶交换机")
    quote_send(quote=draft, user=world.sales, expected_version=draft.version)
    world.sales.language = "zh-hans"
    world.sales.save(update_fields=["language"])
    client.force_login(world.sales)
    client.post(f"/quotes/{draft.pk}/revise/", {"expected_version": draft.version})
    quote = quote_reload(draft)
    client.post(
        f"/quotes/{quote.pk}/lines/{_line(quote, 'CB-1').pk}/",
        {"expected_version": quote.version, "quantity": 10},
        **HTMX,
    )
    client.post(
        f"/quotes/{quote.pk}/lines/{_line(quote, 'SW-1').pk}/remove/",
        {"expected_version": quote_reload(quote).version},
        **HTMX,
    )

    diff = client.get(f"/quotes/{quote.pk}/diff/?a=1&b=2").content.decode()

    assert "线缆" in diff and ">Cable<" not in diff
    assert "叶交换机" in diff and "Leaf switch" not in diff


def _line_table(page: str) -> str:
    start = page.index('<div id="quote-lines"')
    return page[start : page.index("</section>", start)]


def test_a_sent_quotes_page_is_the_same_from_the_cache_and_loads_no_line(
    sales, world, draft, django_assert_max_num_queries
):
    _lines_add(draft, 48)  # 50 lines
    quote_send(quote=draft, user=world.sales, expected_version=quote_reload(draft).version)
    url = f"/quotes/{draft.pk}/"
    first = sales.get(url).content.decode()  # renders the frozen line table and keeps it
    with CaptureQueriesContext(connection) as captured:
        again = sales.get(url).content.decode()
    assert _line_table(again) == _line_table(first)
    assert "Bulk line 47" in again and "R1 was sent and is frozen" in again
    assert not any("quoting_quoteline" in query["sql"] for query in captured)
    # In Chinese the table is rendered (and kept) apart.
    world.sales.language = "zh-hans"
    world.sales.save()
    chinese = sales.get(url).content.decode()
    assert "Bulk line 47" in chinese and chinese != first


def test_a_sent_quotes_page_asks_three_queries_once_its_header_and_table_are_kept(
    sales, world, draft
):
    _lines_add(draft, 48)
    quote_send(quote=draft, user=world.sales, expected_version=quote_reload(draft).version)
    url = f"/quotes/{draft.pk}/"
    sales.get(url)  # keeps the header's counts, the figures and the line table
    with CaptureQueriesContext(connection) as captured:
        assert sales.get(url).status_code == 200
    asked = [q["sql"] for q in captured if "django_session" not in q["sql"]]  # Redis's, live
    # The user with their roles; the revision with its quote (scoped), customer, project and
    # how many revisions there are; the audit trail. It has no approvals or installation packs:
    # they are not asked for.
    assert len(asked) == 3, asked


def test_the_quote_list_query_count_does_not_grow_with_quotes(
    sales, world, draft, django_assert_max_num_queries
):
    def make(count):
        for _ in range(count):
            quote = quote_create(project=world.project, user=world.sales)
            quote_add_product(
                quote=quote,
                sku="SW-1",
                quantity=1,
                user=world.sales,
                expected_version=quote.version,
            )

    make(2)  # 3 quotes
    few = _queries(sales, "/quotes/")
    make(27)  # 30 quotes, one of them sent (a stored total)
    quote_send(quote=draft, user=world.sales, expected_version=quote_reload(draft).version)
    with django_assert_max_num_queries(few):
        body = sales.get("/quotes/").content.decode()
    assert "30 quotes" in body


# --- escaping ------------------------------------------------------------------------------------


def test_user_text_is_escaped_everywhere_it_is_shown(client, world, draft):
    client.force_login(world.sales)
    world.customer.company = "<script>alert(1)</script>"
    world.customer.save()
    client.post(
        f"/quotes/{draft.pk}/lines/free-text/",
        {
            "expected_version": draft.version,
            "description": "<img src=x onerror=alert(2)>",
            "quantity": 1,
            "unit_price": "1.00",
            "section": Section.SERVICES,
        },
        **HTMX,
    )
    for url in (f"/quotes/{draft.pk}/", "/quotes/", "/customers/"):
        body = client.get(url).content.decode()
        assert "<script>alert(1)" not in body and "&lt;script&gt;alert(1)" in body, url
        assert "<img src=x" not in body, url


def _saved_design(world, name, switches):
    from quoting.designs.models import SavedDesign

    bom = [
        {
            "sku": "SW-1",
            "category": "switch",
            "quantity": switches,
            "role": "leaf",
            "name": "Leaf switch",
        }
    ]
    return SavedDesign.objects.create(
        project=world.project,
        name=name,
        requirements={},
        result={"bom": bom},
        created_by=world.sales,
    )


def test_another_saved_design_is_offered_as_an_alternative_outside_the_totals(sales, world, draft):
    better = _saved_design(world, "Bigger fabric", switches=3)
    before = sales.get(f"/quotes/{draft.pk}/").content.decode()
    assert "Bigger fabric" in before  # offered in the form
    response = sales.post(
        f"/quotes/{draft.pk}/alternatives/add/",
        {"expected_version": draft.version, "design": better.pk, "label": "Better: room to grow"},
        **HTMX,
    )
    assert response.status_code == 200
    lines = [ln for ln in _lines(draft) if ln.section == Section.ALTERNATIVES]
    assert [(ln.sku, ln.quantity, ln.alternative_group) for ln in lines] == [
        ("SW-1", 3, "Better: room to grow")
    ]
    page = sales.get(f"/quotes/{draft.pk}/").content.decode()
    assert "Better: room to grow" in page
    assert "24,860.00" in page  # the total, 22,000.00 plus 13 % VAT, is unchanged


def test_an_alternative_without_a_label_is_an_inline_error(sales, world, draft):
    better = _saved_design(world, "Bigger fabric", switches=3)
    response = sales.post(
        f"/quotes/{draft.pk}/alternatives/add/",
        {"expected_version": draft.version, "design": better.pk, "label": ""},
        **HTMX,
    )
    assert response.status_code == 400 and "err-alt-label" in response.content.decode()
    assert not [ln for ln in _lines(draft) if ln.section == Section.ALTERNATIVES]

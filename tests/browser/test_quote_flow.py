"""From a new customer to a sent quote, in a real browser: a sales engineer and a manager."""

import re

import pytest

from quoting.quotes.models import Quote, QuoteStatus
from tests.browser.conftest import sign_in_as
from tests.quoting.factories import TeamFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_sales_quotes_a_designed_fabric_a_manager_approves_the_discount_and_it_is_sent(
    live_server, browser, page, make_user, seeded
):
    sales, manager = make_user("wang", role="sales"), make_user("zhao", role="sales-manager")
    TeamFactory(name="Shenzhen").members.add(sales, manager)
    base = live_server.url
    sign_in_as(page, base, "wang")

    # A customer with a contact, then a project.
    page.click("nav >> text=Customers")
    page.click("text=New customer")
    page.fill("#id_company", "Pengcheng Lab")
    page.fill("#id_contacts-0-name", "Chen Jie")
    page.click("text=Create customer")
    page.wait_for_url(re.compile(r".*/customers/\d+/$"))
    page.click("text=New project")
    page.fill("#id_name", "AI training cluster")
    page.fill("#id_gpu_count", "128")
    page.select_option("#id_nic_generation", "NDR")
    page.click("text=Create project")
    page.wait_for_url(re.compile(r".*/projects/\d+/$"))

    # Design the fabric for this project and save it there.
    page.click("text=New design")
    page.wait_for_url(re.compile(r".*/designs/new/\?.*project=\d+"))
    page.fill("#id_name", "128 GPUs NDR")
    page.click("text=Save to project")
    page.click("text=Open the project")
    page.wait_for_url(re.compile(r".*/projects/\d+/$"))

    # One click turns the design into a quote.
    page.click("text=Make a quote")
    page.wait_for_url(re.compile(r".*/quotes/\d+/$"))
    quote_url = page.url
    total = page.locator("#total-total")
    before = total.inner_text()

    # A quantity changes the totals without reloading the page.
    loads = []
    page.on("load", lambda _: loads.append(1))
    quantity = page.locator("#quote-lines input.qty").first
    quantity.fill(str(int(quantity.input_value()) + 1))
    quantity.press("Tab")
    page.wait_for_function(
        "before => document.querySelector('#total-total').innerText !== before", arg=before
    )
    assert loads == []

    # 15 % is above a sales engineer's limit: the quote asks for approval instead of sending.
    page.fill("#id_discount_percent", "15")
    page.click("text=Apply")
    page.wait_for_selector("#quote-actions >> text=Request approval")
    assert page.locator("#quote-actions >> text=Mark sent").count() == 0
    assert loads == []
    page.fill("#approval-note", "Strategic account")
    page.click("#quote-actions >> button:has-text('Request approval')")
    page.wait_for_selector("#quote-status >> text=Awaiting approval")

    # The manager, in another browser session, approves.
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    try:
        manager_page = context.new_page()
        manager_page.set_default_timeout(10_000)
        sign_in_as(manager_page, base, "zhao")
        manager_page.goto(quote_url)
        assert "Strategic account" in manager_page.content()
        manager_page.fill("#decision-reason", "Fine for a first order")
        manager_page.click("#quote-actions >> button:has-text('Approve')")
        manager_page.wait_for_selector("#quote-status >> text=Approved")
    finally:
        context.close()

    # Back to sales: send it.
    page.goto(quote_url)
    # Sending freezes the revision, prices its TCO and queues its PDFs before the page
    # answers: on two loaded cores (CI with its workers) that has taken over 10 s.
    page.click("#quote-actions >> button:has-text('Mark sent')", timeout=45_000)
    page.wait_for_selector("#quote-status >> text=Sent", timeout=45_000)
    audit = page.locator("#quote-audit").inner_text()
    for entry in (
        "Lines from the design",
        "Line changed",
        "Quote discount changed",
        "Approval requested",
        "Discount approved",
        "Status changed",
    ):
        assert entry in audit, entry
    assert "zhao" in audit and "wang" in audit
    assert Quote.objects.get().status == QuoteStatus.SENT


def test_the_loser_of_a_concurrent_edit_is_told_to_reload_and_keeps_what_they_typed(
    live_server, page, make_user
):
    from quoting.quotes.services.quotes import quote_add_product, quote_create, quote_update_line
    from tests.quoting.factories import ProductFactory, price_set, world_make

    world = world_make(make_user)
    price_set(ProductFactory(part_number="SW-1"), "CNY", "10000.00")
    quote = quote_create(project=world.project, user=world.sales)
    line = quote_add_product(
        quote=quote, sku="SW-1", quantity=2, user=world.sales, expected_version=quote.version
    )
    sign_in_as(page, live_server.url, "wang")
    page.goto(f"{live_server.url}/quotes/{quote.pk}/")
    total = page.locator("#total-total").inner_text()

    # A colleague changes the quote after this page was loaded.
    quote_update_line(
        quote=quote, line=line, quantity=5, user=world.sales, expected_version=quote.version
    )
    page.fill(f"#qty-{line.pk}", "3")
    page.press(f"#qty-{line.pk}", "Enter")
    page.wait_for_selector("#quote-message >> text=Someone else changed this quote")
    assert page.input_value(f"#qty-{line.pk}") == "3"
    assert page.locator("#total-total").inner_text() == total

    # A bad quantity is shown beside its line.
    page.reload()
    page.fill(f"#qty-{line.pk}", "abc")
    page.press(f"#qty-{line.pk}", "Enter")
    page.wait_for_selector(f"#err-line-{line.pk} >> text=whole number")
    assert page.input_value(f"#qty-{line.pk}") == "abc"

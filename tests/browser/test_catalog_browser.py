"""A new staff member signs in and browses the catalog in a real browser."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_sales_engineer_signs_in_searches_and_opens_a_product(
    live_server, sign_in, make_user, seeded
):
    make_user("wang", first_name="Wang")
    page = sign_in("wang")
    assert "Welcome, Wang" in page.content()

    page.click("text=Browse the catalog")
    page.wait_for_url("**/catalog/")
    loads = []
    page.on("load", lambda _: loads.append(1))
    page.fill("#id_q", "QM97")
    # The table updates as they type, without reloading the page: the four QM97x0 switches and
    # the two PSUs made for them (their names say "for QM9700/QM9790").
    page.wait_for_selector("#results >> text=6 products")
    # The address follows the search (shareable), pushed once the table is swapped in: waited
    # for, as on a loaded machine it comes a moment after the table.
    page.wait_for_function("() => new URLSearchParams(location.search).get('q') === 'QM97'")
    assert loads == []
    page.select_option("#id_category", "adapter")
    page.wait_for_selector("#results >> text=No product matches")

    page.fill("#id_q", "")
    page.select_option("#id_category", "switch")
    page.wait_for_selector("#results >> text=MQM9790-NS2F")
    page.click("text=MQM9790-NS2F")
    page.wait_for_url("**/catalog/MQM9790-NS2F/")
    assert page.locator("h1").inner_text() == "MQM9790-NS2F"
    assert "28,000.00" in page.content()


def test_switching_to_chinese_translates_the_portal(live_server, sign_in, make_user):
    make_user("zhang")
    page = sign_in("zhang")
    page.select_option("#language-select", "zh-hans")
    page.wait_for_selector("text=浏览产品目录")
    assert page.locator("html").get_attribute("lang") == "zh-hans"


def test_a_wrong_password_stays_on_the_form_with_a_message(live_server, page, make_user):
    make_user("li")
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "li")
    page.fill("#id_password", "wrong")
    page.click("button[type=submit]")
    assert page.locator("[role=alert]").is_visible()
    assert "/accounts/login/" in page.url

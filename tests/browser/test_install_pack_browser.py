"""The design page lays out the racks live: a tighter power budget redraws the elevations and
warns about the racks it overloads, under the portal's Content-Security-Policy."""

import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_changing_the_rack_power_budget_redraws_the_elevations_and_warns(
    live_server, sign_in, make_user, seeded
):
    make_user("wang")
    page = sign_in("wang")
    page.goto(
        f"{live_server.url}/designs/new/?gpu_count=256&gpus_per_server=8"
        "&nic_generation=NDR&family=infiniband&planes=1&oversubscription=1"
        "&server_to_leaf=same-row&leaf_to_spine=same-row&spine_to_core=across-hall"
        "&subnet_manager=auto&spares_percent=0&rail_optimized=on&servers_per_rack=3"
        "&rack_power_kw=40"
    )
    frame = "sel => getComputedStyle(document.querySelector(sel)).fill"
    assert page.locator("#racks .elevations svg g.rack").count() == 13
    assert page.locator("#rack-warnings").count() == 0
    assert page.evaluate(frame, "#racks g.rack rect.frame") == "rgb(246, 248, 250)"  # styled
    with page.expect_response(re.compile(r".*/designs/new/\?.*rack_power_kw=30.*")):
        page.fill("#id_rack_power_kw", "30")
        page.press("#id_rack_power_kw", "Tab")
    page.wait_for_selector("#rack-warnings")
    assert "10 racks draw more than their 30 kW budget" in page.inner_text("#rack-warnings")
    over = page.locator("#racks g.rack.over")
    assert over.count() == 10  # the full compute racks: 3 x 10.2 kW and optics (the 11th has 2)
    assert page.evaluate(frame, "#racks g.rack.over rect.frame") == "rgb(253, 236, 234)"
    assert "rack_power_kw=30" in page.get_attribute("text=Installation pack (zip)", "href")
    # The high-density preset is one choice away: it fills the budget, and the racks fit again.
    with page.expect_response(re.compile(r".*/designs/new/\?.*rack_power_kw=40.*")):
        page.select_option("#id_rack_power_preset", "40")
    page.wait_for_selector("#rack-warnings", state="detached")
    assert page.input_value("#id_rack_power_kw") == "40"
    assert page.input_value("#id_rack_power_preset") == ""  # back to "keep the budget entered"
    with page.expect_response(re.compile(r".*/designs/new/\?.*rack_units=4.*")):
        page.fill("#id_rack_units", "4")
        page.press("#id_rack_units", "Tab")
    page.wait_for_function(
        "() => document.querySelector('#err-rack_units').textContent.includes('cannot hold')"
    )
    page.wait_for_load_state("networkidle")

"""The design page in a real browser: the project it was opened for, and errors the user sees."""

from __future__ import annotations

import re

import pytest

from quoting.designs.models import SavedDesign
from tests.browser.conftest import design_tco_loaded
from tests.quoting.factories import ProjectFactory, world_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _redesigned(page):
    """Waits for the design request an input change sets off."""
    return page.expect_response(
        lambda r: "/designs/new/" in r.url and r.request.headers.get("hx-request") == "true"
    )


def _settled(page):
    page.wait_for_function(
        "() => !document.querySelector('#design-form').classList.contains('htmx-request')"
    )


def test_a_new_design_started_from_a_project_is_saved_into_that_project(
    live_server, page, sign_in, make_user, seeded
):
    world = world_make(make_user)
    # Another of the user's projects, listed before this one: the save must not drift to it.
    ProjectFactory(customer=world.customer, name="A first project")
    target = world.project

    sign_in("wang")
    page.goto(f"{live_server.url}/projects/{target.pk}/")
    page.click("text=New design")
    page.wait_for_url(re.compile(rf".*/designs/new/\?project={target.pk}$"))

    for field, value in (("#id_gpu_count", "512"), ("#id_spares_percent", "5")):
        with _redesigned(page):
            page.fill(field, value)
        _settled(page)
        assert f"project={target.pk}" in page.url  # the pushed URL keeps it
        assert page.locator("#id_project").input_value() == str(target.pk)

    # The name typed while the page is still redesigning (the last input's change) stays.
    page.fill("#id_name", "512 GPUs with spares")
    _settled(page)
    assert page.input_value("#id_name") == "512 GPUs with spares"
    page.click("text=Save to project")
    page.wait_for_selector(".save-design .saved")
    design_tco_loaded(page)

    saved = SavedDesign.objects.get(name="512 GPUs with spares")
    assert saved.project == target
    assert (saved.requirements["gpu_count"], saved.requirements["spares_percent"]) == (512, 5)


NDR_WITH_ITS_NIC = (
    "gpu_count=256&gpus_per_server=8&nic_generation=NDR&family=infiniband"
    "&planes=1&oversubscription=1&rail_optimized=on&server_to_leaf=same-row"
    "&leaf_to_spine=same-row&spine_to_core=across-hall&subnet_manager=auto"
    "&spares_percent=0&nic_part_number=MCX75310AAS-NEAT"
)

# Whether the element is on screen and inside the visible part of the design form's own scroll.
# Within a pixel: a field scrolled to the panel's edge can end a fraction of a pixel past the
# window (the longer form's panel measured 700.72 px in a 700 px window, the field 700.06).
_IN_VIEW = """id => {
  const field = document.getElementById(id).getBoundingClientRect();
  const panel = document.getElementById('design-form').getBoundingClientRect();
  return field.top >= Math.max(panel.top, 0) - 1
    && field.bottom <= Math.min(panel.bottom, innerHeight) + 1;
}"""


def test_an_error_out_of_sight_is_listed_with_a_link_and_its_field_comes_into_view(
    live_server, page, sign_in, make_user, seeded
):
    make_user("wang")
    page.set_viewport_size({"width": 1440, "height": 700})
    sign_in("wang")
    page.goto(f"{live_server.url}/designs/new/?{NDR_WITH_ITS_NIC}")
    page.wait_for_selector("#design-results table")
    assert not page.evaluate(_IN_VIEW, "id_nic_part_number")  # far down the form's panel

    # HDR at the top of the form makes the chosen NIC, at its bottom, wrong.
    page.focus("#id_nic_generation")
    with _redesigned(page):
        page.select_option("#id_nic_generation", "HDR")
    link = page.wait_for_selector(".error-summary a[href='#id_nic_part_number']")
    assert "MCX75310AAS-NEAT" in link.inner_text() and link.inner_text().startswith("NIC")
    page.wait_for_function(_IN_VIEW, arg="id_nic_part_number")
    assert page.get_attribute("#id_nic_part_number", "aria-invalid") == "true"
    assert page.evaluate("document.activeElement.id") == "id_nic_generation"  # still theirs

    # The link takes the user to the field.
    page.evaluate("document.getElementById('design-form').scrollTop = 0")
    link.click()
    assert page.evaluate("document.activeElement.id") == "id_nic_part_number"
    assert page.evaluate(_IN_VIEW, "id_nic_part_number")

    # Putting it right clears the mark and the summary.
    with _redesigned(page):
        page.select_option("#id_nic_part_number", "")
    page.wait_for_selector("#design-results table")
    # The mark is cleared by the answer's swap, which a loaded machine may finish after the
    # table shows: waited for, not read once.
    page.wait_for_function(
        "document.getElementById('id_nic_part_number').getAttribute('aria-invalid') === 'false'"
    )
    assert page.locator(".error-summary").count() == 0
    design_tco_loaded(page)


def test_a_page_opened_with_an_error_focuses_the_field_at_fault(
    live_server, page, sign_in, make_user, seeded
):
    make_user("wang")
    page.set_viewport_size({"width": 1440, "height": 700})
    sign_in("wang")
    page.goto(f"{live_server.url}/designs/new/?{NDR_WITH_ITS_NIC.replace('=NDR&', '=HDR&')}")
    page.wait_for_selector(".error-summary")
    page.wait_for_function("document.activeElement.id === 'id_nic_part_number'")
    assert page.evaluate(_IN_VIEW, "id_nic_part_number")

"""The design page in a real browser: the project it was opened for, and errors the user sees."""

from __future__ import annotations

import re

import pytest

from quoting.models import SavedDesign
from tests.quoting.factories import ProjectFactory, world_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _redesigned(page):
    """Waits for the design request an input change sets off."""
    return page.expect_response(
        lambda r: "/designs/new/" in r.url and r.request.headers.get("hx-request") == "true")


def _settled(page):
    page.wait_for_function(
        "() => !document.querySelector('#design-form').classList.contains('htmx-request')")


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

    saved = SavedDesign.objects.get(name="512 GPUs with spares")
    assert saved.project == target
    assert (saved.requirements["gpu_count"], saved.requirements["spares_percent"]) == (512, 5)

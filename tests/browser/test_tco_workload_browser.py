"""The design page's TCO workload in a real browser: chosen beside the comparison, kept in the
URL while the cluster changes, and saved with the design."""

import re

import pytest

from quoting.designs.models import SavedDesign
from tests.quoting.factories import world_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_workload_chosen_beside_the_comparison_is_kept_and_saved_with_the_design(
    live_server, page, sign_in, make_user, seeded
):
    world = world_make(make_user)
    sign_in("wang")
    page.goto(f"{live_server.url}/designs/new/?project={world.project.pk}")
    workload = page.locator("#tco-workload")
    workload.wait_for()
    # The comparison arrives by its own request; htmx wires its form once that has settled (a
    # change made in between is the page's own, not sent).
    page.wait_for_load_state("networkidle")
    assert workload.input_value() == "llm_pretrain_70b"

    workload.select_option("moe_47b")
    page.wait_for_url(re.compile(r".*workload=moe_47b.*"))
    page.locator("#design-tco >> text=Mixtral-8x7B-like").first.wait_for()
    assert page.locator("#id_workload").input_value() == "moe_47b"

    # Another cluster size: the page designs again and keeps the workload.
    page.fill("#id_gpu_count", "128")
    page.press("#id_gpu_count", "Tab")  # its change event now, not while the save form is filled
    page.wait_for_url(re.compile(r".*gpu_count=128.*"))
    page.wait_for_url(re.compile(r".*workload=moe_47b.*"))
    page.wait_for_load_state("networkidle")  # the design and its comparison are in
    assert page.locator("#tco-workload").input_value() == "moe_47b"

    page.select_option("#id_project", str(world.project.pk))
    page.fill("#id_name", "MoE cluster")
    page.click("text=Save to project")
    page.locator("text=Open the project").wait_for()
    saved = SavedDesign.objects.get(name="MoE cluster")
    assert saved.workload == "moe_47b" and saved.requirements["gpu_count"] == 128

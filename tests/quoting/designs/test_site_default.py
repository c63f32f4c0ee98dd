"""Site-aware by default (issue 26): a new design is laid out on a typical Chinese IDC rack of
12 kW, the 40 kW high-density rack is one choice away on the page, and a design saved before
this default keeps the 40 kW racks it was measured on.

NVIDIA DGX H100 User Guide, "Power Specifications": 10.2 kW max per system (one per 12 kW rack,
three per 40 kW rack); NVIDIA DGX B200 User Guide: 14.3 kW max (no 12 kW rack powers one).
"""

from __future__ import annotations

import pytest

from quoting.designs.models import SavedDesign
from quoting.designs.services.saved import design_save
from quoting.designs.services.snapshots import SNAPSHOT_VERSION, design_snapshot_current
from tests.api_errors import field_errors

# The design page's query with the distances left to the layout: 32 servers of 10.2 kW.
PAGE = (
    "/designs/new/?gpu_count=256&gpus_per_server=8&nic_generation=NDR&family=infiniband"
    "&planes=1&oversubscription=1&subnet_manager=auto&spares_percent=0&rail_optimized=on"
)


def cables(bom) -> dict[str, int]:
    return {line["sku"]: line["quantity"] for line in bom if line["category"] == "cable"}


@pytest.fixture
def api(client, make_user, seeded):
    client.force_login(make_user("crm"))
    return client


def design_api(api, **body):
    return api.post("/api/v1/designs/", {"gpu_count": 256, **body}, content_type="application/json")


@pytest.mark.parametrize(
    ("language", "preset_label", "dense_label"),
    [
        ("en", "Rack power preset", "High-density rack (40 kW)"),
        ("zh-hans", "机柜功率预设", "高密度机柜（40 kW）"),
    ],
)
def test_a_new_design_page_offers_12_kw_idc_racks_with_the_40_kw_rack_one_choice_away(
    client, make_user, seeded, language, preset_label, dense_label
):
    client.force_login(make_user("wang", language=language))
    response = client.get("/designs/new/")
    page = response.content.decode()
    assert response.context["site_form"]["rack_power_kw"].value() == 12
    assert response.context["layout"].site.rack_power_kw == 12
    assert response.context["layout"].servers_per_rack == 1  # one 10.2 kW server per 12 kW rack
    # The preset select sits beside the budget, labelled, its 40 kW choice named.
    assert '<label for="id_rack_power_preset">' + preset_label + "</label>" in page
    assert f'<option value="40">{dense_label}</option>' in page
    assert page.index('id="id_rack_power_kw"') < page.index('id="id_rack_power_preset"')


def test_the_40_kw_preset_sets_the_budget_without_javascript(sales_client, seeded):
    response = sales_client.get(PAGE + "&rack_power_kw=12&rack_power_preset=40")
    assert response.context["layout"].site.rack_power_kw == 40
    assert response.context["layout"].servers_per_rack == 3
    # The page shows the number it designed with; its links carry the number, not the preset.
    assert response.context["site_form"]["rack_power_kw"].value() == "40"
    assert "rack_power_kw=40" in response.context["query"]
    assert "rack_power_preset" not in response.context["query"]


def test_a_budget_typed_with_no_preset_chosen_is_the_budget(sales_client, seeded):
    response = sales_client.get(PAGE + "&rack_power_kw=25&rack_power_preset=")
    assert response.context["layout"].site.rack_power_kw == 25
    assert response.context["layout"].servers_per_rack == 2


def test_the_api_lays_a_design_out_on_12_kw_racks_when_the_budget_is_left_out(api):
    default = design_api(api)
    dense = design_api(api, rack_power_kw=40)
    assert default.status_code == 200 and dense.status_code == 200
    assert default.json()["site"]["rack_power_kw"] == 12
    assert dense.json()["site"]["rack_power_kw"] == 40
    # The hall of one-server racks is longer: its runs buy other cables.
    assert cables(default.json()["bom"]) != cables(dense.json()["bom"])


@pytest.mark.parametrize("server", ["DGX-B200", "DGX-B300"])
def test_a_server_the_default_rack_cannot_power_is_refused_at_the_budget_naming_the_40_kw_rack(
    api, server
):
    response = design_api(api, gpu_count=64, server_part_number=server)
    assert response.status_code == 400
    (error,) = field_errors(response)["rack_power_kw"]
    assert error.startswith("A 12 kW rack cannot power one 14.")
    assert "high-density rack (40 kW)" in error
    dense = design_api(api, gpu_count=64, server_part_number=server, rack_power_kw=40)
    assert dense.status_code == 200


def test_the_page_says_so_at_the_budget_in_chinese(client, make_user, seeded):
    client.force_login(make_user("wang", language="zh-hans"))
    response = client.get(PAGE.replace("gpu_count=256", "gpu_count=64") + "&rack_power_kw=12"
                          "&server_part_number=DGX-B200")  # fmt: skip
    errors = response.context["site_form"].errors["rack_power_kw"]
    assert errors == [
        "12 kW 的机柜供不起一台 14.3 kW 的服务器：请选择高密度机柜（40 kW），"
        "或填写机房实际的功率预算。"
    ]


def test_a_server_beyond_the_high_density_rack_is_not_told_to_take_it(api):
    response = design_api(api, gpu_count=64, server_power_kw=45, rack_power_kw=40)
    assert response.status_code == 400
    assert field_errors(response)["rack_power_kw"] == [
        "A 40 kW rack cannot power one 45 kW server."
    ]


def test_a_design_saved_before_the_idc_default_keeps_its_40_kw_racks(seeded, make_user):
    """A snapshot made before sites were kept has no site: it was measured on 40 kW racks, and
    designing it again (a newer snapshot version) must not move it onto 12 kW ones."""
    from tests.quoting.factories import CustomerFactory, ProjectFactory

    owner = make_user("owner")
    project = ProjectFactory(customer=CustomerFactory(owner=owner))
    requirements = {"gpu_count": 256}
    at_40 = design_save(
        project=project, name="40", user=owner, requirements=requirements,
        site={"rack_power_kw": 40},
    )  # fmt: skip
    at_12 = design_save(project=project, name="12", user=owner, requirements=requirements)
    assert cables(at_40.result["bom"]) != cables(at_12.result["bom"])

    old = design_save(project=project, name="old", user=owner, requirements=requirements)
    SavedDesign.objects.filter(pk=old.pk).update(
        snapshot_version=SNAPSHOT_VERSION - 1,
        result={key: value for key, value in at_40.result.items() if key != "site"},
    )
    old = design_snapshot_current(design=SavedDesign.objects.get(pk=old.pk))
    assert old.result["site"]["rack_power_kw"] == 40
    assert cables(old.result["bom"]) == cables(at_40.result["bom"])


def test_a_saved_design_opens_with_the_budget_it_was_saved_with(client, seeded, make_user):
    from tests.quoting.factories import CustomerFactory, ProjectFactory

    owner = make_user("owner")
    customer = CustomerFactory(owner=owner)
    customer.team.members.add(owner)
    project = ProjectFactory(customer=customer)
    saved = design_save(
        project=project, name="dense", user=owner, requirements={"gpu_count": 64},
        site={"rack_power_kw": 40},
    )  # fmt: skip
    client.force_login(owner)
    page = client.get(f"/designs/new/?design={saved.pk}")
    assert page.context["site_form"]["rack_power_kw"].value() == 40

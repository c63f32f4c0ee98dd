"""The site reaches the design wherever a design is computed: page, API, CLI, saved snapshot,
the cable schedule and the revision's pack; its runs decide the cables bought."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from collections import Counter

import pytest
from django.core.management import call_command

from quoting.designs.models import SavedDesign
from quoting.designs.services.saved import design_save
from quoting.designs.services.snapshots import SNAPSHOT_VERSION, design_snapshot_current
from tests.api_errors import field_errors

# The page's query with the distances left to the layout.
PAGE = (
    "/designs/new/?gpu_count=256&gpus_per_server=8&nic_generation=NDR&family=infiniband"
    "&planes=1&oversubscription=1&subnet_manager=auto&spares_percent=0&rail_optimized=on"
)
RAISED = "&cable_route=raised-floor&cable_slack_m=0.3"
COPPER = {"MCP7Y00-N003", "MCA7J60-N004", "MCA7J60-N005"}


def skus(bom) -> set[str]:
    return {line["sku"] if isinstance(line, dict) else line.sku for line in bom}


@pytest.fixture
def api(client, make_user, seeded):
    client.force_login(make_user("crm"))
    return client


def test_the_api_measures_the_cables_on_the_site_it_is_given(api):
    def design(**site):
        response = api.post(
            "/api/v1/designs/", {"gpu_count": 256, **site}, content_type="application/json"
        )
        assert response.status_code == 200, response.content
        return response.json()

    overhead = design()
    raised = design(cable_route="raised-floor", cable_slack_m=0.3)
    assert overhead["site"]["cable_route"] == "overhead" and overhead["site"]["rack_pitch_m"] == 0.6
    assert raised["site"]["cable_route"] == "raised-floor"
    assert not skus(overhead["bom"]) & COPPER and skus(raised["bom"]) & COPPER
    assert overhead["media"]["server-leaf"]["measured"] is True


@pytest.mark.parametrize(
    ("site", "field"),
    [
        ({"rack_pitch_m": 0}, "rack_pitch_m"),
        ({"cable_route": "sideways"}, "cable_route"),
        ({"rows": 1}, "rows"),
    ],
)
def test_a_bad_site_is_a_400_naming_its_field(api, site, field):
    response = api.post(
        "/api/v1/designs/", {"gpu_count": 256, **site}, content_type="application/json"
    )
    assert response.status_code == 400 and field in field_errors(response)


def test_the_design_page_bom_and_cable_schedule_follow_the_site_fields(sales_client, seeded):
    overhead = sales_client.get(PAGE).context["summary"]
    raised = sales_client.get(PAGE + RAISED).context["summary"]
    assert not skus(overhead["bom"]) & COPPER and skus(raised["bom"]) & COPPER
    query = (PAGE + RAISED).split("?", 1)[1]
    response = sales_client.get(f"/designs/cable-schedule.csv?{query}")
    rows = b"".join(response.streaming_content).decode().splitlines()[1:]
    cables = Counter(row.split(",")[6] for row in rows)  # cable_part
    assert set(cables) & COPPER, "the schedule buys what the page's BOM buys"


def test_a_bad_site_field_is_an_inline_error_on_the_page(sales_client, seeded):
    response = sales_client.get(PAGE + "&racks_per_row=1&rows=2")
    assert response.context["design"] is None
    assert "rows" in response.context["site_form"].errors


def test_a_bad_site_input_the_design_page_has_no_field_for_is_in_its_error_box(
    sales_client, seeded
):
    response = sales_client.get(PAGE + "&server_units=99", headers={"HX-Request": "true"})
    assert response.context["design"] is None
    html = response.content.decode()
    assert 'id="err-server_units"' not in html, "no out-of-band swap without a target"
    box = html.split('class="error-box"', 1)[1].split("</div>", 1)[0]
    assert "Server height (U):" in box


def test_a_saved_design_keeps_its_site_and_opens_with_it(client, seeded, make_user):
    from tests.quoting.factories import CustomerFactory, ProjectFactory

    owner = make_user("owner")
    customer = CustomerFactory(owner=owner)
    customer.team.members.add(owner)
    project = ProjectFactory(customer=customer)
    client.force_login(owner)
    query = (PAGE + RAISED).split("?", 1)[1]
    client.post(f"/designs/save/?{query}", {"project": project.pk, "name": "Raised"})
    saved = project.designs.get()
    assert saved.result["site"]["cable_route"] == "raised-floor"
    assert skus(saved.bom) & COPPER
    page = client.get(f"/designs/new/?design={saved.pk}")
    assert page.context["site_form"].data["cable_route"] == "raised-floor"


def test_an_older_snapshot_is_measured_on_the_default_site_on_first_read(seeded, make_user):
    from tests.quoting.factories import CustomerFactory, ProjectFactory

    owner = make_user("owner")
    project = ProjectFactory(customer=CustomerFactory(owner=owner))
    saved = design_save(project=project, name="old", user=owner, requirements={"gpu_count": 64})
    SavedDesign.objects.filter(pk=saved.pk).update(
        snapshot_version=SNAPSHOT_VERSION - 1,
        result={key: value for key, value in saved.result.items() if key != "site"},
    )
    saved = design_snapshot_current(design=SavedDesign.objects.get(pk=saved.pk))
    assert saved.snapshot_version == SNAPSHOT_VERSION
    assert saved.result["site"]["cable_route"] == "overhead"


def test_the_command_takes_the_site_for_the_design(seeded, capsys):
    call_command(
        "fabric_design",
        "--gpus",
        "256",
        "--cable-route",
        "raised-floor",
        "--cable-slack-m",
        "0.3",
        "--json",
    )
    printed = json.loads(capsys.readouterr().out)
    assert printed["site"]["cable_route"] == "raised-floor"
    assert skus(printed["bom"]) & COPPER


NVL72_RACKS = {"server_count": 8, "gpus_per_server": 72, "server_part_number": "DGX-GB200-NVL72"}


def test_nvl72_racks_are_designed_on_the_default_12_kw_site_through_the_api(api):
    """A DGX GB200 NVL72 (about 120 kW, liquid-cooled, its own power shelves) is a rack of its
    own: the 12 kW air-cooled budget does not refuse it (DGX SuperPOD RA, DGX GB200: 8 racks,
    576 GPUs per SU; DGX GB200 User Guide: 72 ConnectX-7 NDR ports a rack)."""
    response = api.post("/api/v1/designs/", NVL72_RACKS, content_type="application/json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["site"]["rack_power_kw"] == 12
    assert body["cables"]["server-leaf"] == 576
    assert any("liquid-cooled rack of its own" in a for a in body["advice"])
    # Two on a rack is refused at the field, not a 500.
    response = api.post(
        "/api/v1/designs/", {**NVL72_RACKS, "servers_per_rack": 2}, content_type="application/json"
    )
    assert response.status_code == 400 and "servers_per_rack" in field_errors(response)


def test_the_nvl72_page_and_pack_show_the_racks_liquid_cooled_on_their_own_power(
    sales_client, seeded
):
    query = (
        "server_count=8&gpus_per_server=72&server_part_number=DGX-GB200-NVL72"
        "&nic_generation=NDR&family=infiniband&planes=1&oversubscription=1"
        "&subnet_manager=auto&spares_percent=0&rail_optimized=on"
    )
    response = sales_client.get(f"/designs/new/?{query}")
    assert response.context["design"] is not None and not response.context["site_form"].errors
    html = response.content.decode()
    assert html.count("kW max, liquid-cooled, own power") == 8 and "over its" not in html

    pack = sales_client.get(f"/designs/install-pack.zip?{query}")
    archive = zipfile.ZipFile(io.BytesIO(b"".join(pack.streaming_content)))
    racks = list(csv.DictReader(io.StringIO(archive.read("racks.csv").decode())))
    liquid = [r for r in racks if r["cooling"] == "liquid"]
    assert len(liquid) == 8 and {r["kind"] for r in liquid} == {"compute"}
    assert all(r["over_budget"] == "no" and float(r["max_kw"]) >= 120 for r in liquid)

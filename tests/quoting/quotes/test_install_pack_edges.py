"""The installation pack's doors: the API, the design page's link and the command."""

import csv
import io
import json
import re
import zipfile

import pytest
from django.core.management import CommandError, call_command

from quoting.engine.install.pack import PACK_FILE_NAMES
from tests.api_errors import field_errors


@pytest.fixture
def api(client, make_user, seeded):
    client.force_login(make_user("crm"))
    return client


def post(api, **body):
    return api.post("/api/v1/designs/install-pack/", body, content_type="application/json")


def read_zip(response) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))


def test_the_api_streams_the_pack_of_the_design_body_on_the_site_given(api):
    response = post(api, gpu_count=256, rack_power_kw=70, site_name="SZ-DC2")
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/zip"
    pack = read_zip(response)
    assert [n for n in pack.namelist() if not n.startswith("ibnl/")] == list(PACK_FILE_NAMES)
    devices = list(csv.DictReader(io.StringIO(pack.read("netbox-devices.csv").decode())))
    assert {d["site"] for d in devices} == {"SZ-DC2"}
    racks = list(csv.DictReader(io.StringIO(pack.read("racks.csv").decode())))
    assert {r["budget_kw"] for r in racks} == {"70.0"}
    assert "rack_power_kw = 70" in pack.read("README.txt").decode()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"gpu_count": 256, "rack_units": 0}, "rack_units"),
        ({"gpu_count": 256, "rack_power_kw": -1}, "rack_power_kw"),
        ({"gpu_count": 256, "rack_units": 4}, "rack_units"),  # too small for one 8 U server
        ({"gpu_count": 256, "rack_power_kw": 5}, "rack_power_kw"),  # nor one 10.2 kW server
        ({"gpu_count": 4096, "rows": 2}, "rows"),  # too large for the site
        ({"gpu_count": 256, "cable_route": "by pigeon"}, "cable_route"),
        ({"gpu_count": 0}, "gpu_count"),  # the design's own contract still applies
        ({"gpu_count": 40_000}, "gpu_count"),  # too large to build while the request waits
        ({"gpu_count": 256, "rack_colour": "blue"}, "rack_colour"),
    ],
)
def test_bad_site_or_design_input_is_a_400_naming_the_field(api, body, field):
    response = post(api, **body)
    assert response.status_code == 400, response.content
    assert field in field_errors(response)


QUERY = (
    "gpu_count=64&gpus_per_server=8&nic_generation=NDR&family=infiniband&planes=1"
    "&oversubscription=1&server_to_leaf=same-row&leaf_to_spine=same-row"
    "&spine_to_core=across-hall&subnet_manager=auto&spares_percent=0&rail_optimized=on"
)


def test_the_design_page_offers_the_pack_and_its_link_downloads_it(sales_client, seeded):
    page = sales_client.get(f"/designs/new/?{QUERY}").content.decode()
    assert "/designs/install-pack.zip?" in page and "Installation pack (zip)" in page
    response = sales_client.get(f"/designs/install-pack.zip?{QUERY}&rack_units=42")
    assert response.status_code == 200
    pack = read_zip(response)
    assert [n for n in pack.namelist() if not n.startswith("ibnl/")] == list(PACK_FILE_NAMES)
    assert "rack_units = 42" in pack.read("README.txt").decode()


@pytest.fixture
def chinese_client(client, make_user):
    client.force_login(make_user("wang", language="zh-hans"))
    return client


def test_the_chinese_design_page_draws_warns_and_packs_in_chinese_and_packs_english_on_request(
    chinese_client, seeded
):
    over_budget = f"{QUERY}&rack_power_kw=40&servers_per_rack=4"  # 4 x 10.2 kW: over 40 kW

    page = chinese_client.get(f"/designs/new/?{over_budget}").content.decode()

    assert "机柜立面图" in page and "A 排" in page and "kW max" not in page
    assert "超出其 40 kW 的功率预算" in page and "over its 40 kW budget" not in page
    assert "language=en" in page and "language=zh-hans" in page  # the pack in either language
    pack = read_zip(chinese_client.get(f"/designs/install-pack.zip?{over_budget}"))
    readme = pack.read("README.txt").decode()
    assert "超出其 40 kW 的功率预算" in readme and "more than their 40 kW budget" not in readme
    elevations = pack.read("rack-elevations.svg").decode()
    assert "机柜立面图" in elevations and "A 排" in elevations and "Row A" not in elevations
    english = read_zip(chinese_client.get(f"/designs/install-pack.zip?{over_budget}&language=en"))
    assert "more than their 40 kW budget" in english.read("README.txt").decode()
    elevations = english.read("rack-elevations.svg").decode()
    assert "Rack elevations" in elevations and "Row A" in elevations and "机柜" not in elevations


def test_the_page_link_answers_a_language_it_does_not_make_with_a_400(chinese_client, seeded):
    response = chinese_client.get(f"/designs/install-pack.zip?{QUERY}&language=fr")

    assert response.status_code == 400
    assert response.content.decode() == "language: 请为安装包选择英文或简体中文。"


def test_a_site_too_small_for_a_server_is_refused_in_chinese_beside_its_field(
    chinese_client, seeded
):
    page = chinese_client.get(f"/designs/new/?{QUERY}&rack_units=6").content.decode()

    assert "6 U 的机柜放不下一台 8 U 的服务器。" in page
    assert "cannot hold" not in page


@pytest.mark.parametrize("site", ["rack_units=0", "rack_power_kw=-3", "rack_units=4"])
def test_the_page_link_answers_bad_site_input_with_a_400(sales_client, seeded, site):
    response = sales_client.get(f"/designs/install-pack.zip?{QUERY}&{site}")
    assert response.status_code == 400
    assert site.split("=")[0] in response.content.decode()


def test_the_command_writes_the_pack_into_a_directory(seeded, capsys, tmp_path):
    call_command(
        "fabric_design", "--gpus", "128", "--pack", str(tmp_path / "pack"), "--rack-power-kw", "60"
    )
    assert re.search(r"Installation pack: 2[0-9] files", capsys.readouterr().err)
    assert sorted(p.name for p in (tmp_path / "pack").iterdir()) == sorted(
        [*PACK_FILE_NAMES, "ibnl"]
    )


def test_with_json_the_command_prints_only_json_on_stdout_and_progress_on_stderr(
    seeded, capsys, tmp_path
):
    call_command("fabric_design", "--gpus", "128", "--pack", str(tmp_path / "pack"), "--json")
    out = capsys.readouterr()
    assert json.loads(out.out)["gpu_count"] == 128  # `| jq` reads it whole
    assert "Installation pack:" in out.err and "Installation pack" not in out.out


def test_the_command_refuses_a_rack_too_small_for_a_server(seeded, tmp_path):
    with pytest.raises(CommandError, match="rack_units"):
        call_command("fabric_design", "--gpus", "128", "--pack", str(tmp_path), "--rack-units", "4")

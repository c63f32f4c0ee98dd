"""Storage sized from the workload on the design page, through the API and the command: the
capacity and rates asked are fields like the others, refused at the field when bad, and the
design shows what it delivers against them."""

import json

import pytest
from django.core.management import call_command

from tests.api_errors import field_errors

PAGE = (
    "/designs/new/?server_count=32&gpus_per_server=8&nic_generation=NDR"
    "&family=infiniband&planes=1&oversubscription=1&server_to_leaf=same-row"
    "&leaf_to_spine=same-row&spine_to_core=across-hall&subnet_manager=auto"
    "&spares_percent=0&rail_optimized=on"
)
# 1,000 TB at 300 TB per storage server: 4 servers, 1,200 TB; reads need 400 / 40 = 10 servers.
WORKLOAD = {"storage_capacity_tb": 1000, "storage_server_tb": 300, "storage_read_gb_per_s": 400}


@pytest.fixture
def api(client, make_user, seeded):
    client.force_login(make_user("crm"))
    return client


def post(api, path="/api/v1/designs/", **body):
    return api.post(path, body, content_type="application/json")


def query(**fields) -> str:
    return PAGE + "".join(f"&{name}={value}" for name, value in fields.items())


def test_the_api_sizes_the_storage_and_returns_the_headroom(api):
    body = post(api, server_count=32, **WORKLOAD).json()
    z = body["storage_sizing"]
    assert (z["storage_servers"], z["sized_by"]) == (10, "storage_read_gb_per_s")
    assert z["capacity_tb"] == {"delivered": 3000, "asked": 1000, "headroom_percent": 200}
    assert z["read_gb_per_s"] == {"delivered": 400, "asked": 400, "headroom_percent": 0}
    assert z["write_gb_per_s"] == {"delivered": 200, "asked": None, "headroom_percent": None}
    assert body["storage"]["endpoint_ports"] == 32 * 1 + 10 * 2
    assert post(api, server_count=32, storage_servers=8).json()["storage_sizing"] is None


def test_the_schema_documents_the_storage_sizing(api):
    schema = api.get("/api/schema/?format=json").json()["components"]["schemas"]
    design = schema["Design"]["properties"]
    assert "storage_sizing" in design
    sizing = schema["StorageSizing"]["properties"]
    assert {"storage_servers", "sized_by", "capacity_tb", "read_gb_per_s", "compute_gb_per_s"} <= (
        set(sizing)
    )
    request = schema["DesignOnSiteRequest"]["properties"]
    capacity = request["storage_capacity_tb"]
    assert (capacity["maximum"], capacity["nullable"]) == (10_000_000, True)
    assert "Above 0." in capacity["description"]
    assert request["storage_server_tb"]["default"] == 295


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"storage_capacity_tb": -1}, "storage_capacity_tb"),
        ({"storage_read_gb_per_s": 0}, "storage_read_gb_per_s"),
        ({"storage_write_gb_per_s": "fast"}, "storage_write_gb_per_s"),
        ({"storage_server_tb": 0}, "storage_server_tb"),
        ({"storage_server_write_gb_per_s": 1e9}, "storage_server_write_gb_per_s"),
        ({"storage_capacity_tb": 10_000_000, "storage_server_tb": 1}, "storage_capacity_tb"),
        ({"storage_capacity_tb": 100, "storage_ports_per_server": 0}, "storage_ports_per_server"),
        (
            {
                "nic_generation": "HDR",
                "storage_read_gb_per_s": 100,
                "storage_server_read_gb_per_s": 400,
            },
            "storage_server_read_gb_per_s",
        ),
    ],
)
def test_bad_storage_figures_are_a_400_naming_the_field(api, bad, field):
    response = post(api, server_count=32, **bad)
    assert response.status_code == 400 and field in field_errors(response), response.content


def test_the_page_shows_the_headroom_against_the_ask(sales_client, seeded):
    body = sales_client.get(query(**WORKLOAD), HTTP_HX_REQUEST="true").content.decode()
    assert "10 storage servers, 2 ports each" in body
    assert "Capacity 3,000 TB for 1,000 TB asked (+200 %)" in body
    assert "Read 400 GB/s for 400 GB/s asked (+0 %)" in body
    assert "Write 200 GB/s<" in body
    assert "the reads asked need 10 storage servers of 40 GB/s" in body


def test_the_page_has_the_workload_fields_and_no_headroom_without_them(sales_client, seeded):
    first = sales_client.get("/designs/new/").content.decode()
    for name in ("storage_capacity_tb", "storage_read_gb_per_s", "storage_server_tb"):
        assert f'name="{name}"' in first
    assert 'name="storage_server_tb" value="295"' in first  # the assumption, there to change
    assert "data-storage-sizing" not in first
    body = sales_client.get(query(storage_servers=8), HTTP_HX_REQUEST="true").content.decode()
    assert 'id="storage-fabric"' in body and "data-storage-sizing" not in body


def test_a_bad_storage_figure_is_an_inline_error_on_the_page(sales_client, seeded):
    body = sales_client.get(query(storage_capacity_tb=-5), HTTP_HX_REQUEST="true").content.decode()
    error = body.split('id="err-storage_capacity_tb"', 1)[1].split("</div>", 1)[0]
    assert "Ensure this value is greater than 0." in error
    assert "No design yet" in body
    # Refused by the engine once it knows the port speed: still at the field that caused it.
    body = sales_client.get(
        query(storage_read_gb_per_s=100, storage_server_read_gb_per_s=400).replace(
            "nic_generation=NDR", "nic_generation=HDR"
        ),
        HTTP_HX_REQUEST="true",
    ).content.decode()
    error = body.split('id="err-storage_server_read_gb_per_s"', 1)[1].split("</div>", 1)[0]
    assert "needs 20 ports of 20 GB/s, more than 16" in error


def test_the_headroom_and_the_short_compute_ports_read_in_chinese(client, make_user, seeded):
    client.force_login(make_user("li", language="zh-hans"))
    body = client.get(
        query(storage_capacity_tb=1000, storage_server_tb=300, storage_read_gb_per_s=2000)
    ).content.decode()
    assert "容量 15,000 TB，需求 1,000 TB（余量 +1400%）" in body
    assert "GPU 服务器的存储端口可承载 1,280 GB/s" in body
    assert "Capacity 15,000" not in body


def test_the_command_sizes_the_storage_as_the_api_does(api, capsys):
    args = ["--servers", "32", "--storage-capacity-tb", "1000", "--storage-server-tb", "300"]
    call_command("fabric_design", *args, "--storage-read", "400", "--json")
    printed = json.loads(capsys.readouterr().out)
    assert printed == post(api, server_count=32, **WORKLOAD).json()
    call_command("fabric_design", *args)
    assert (  # in the design page's words, a figure a line
        "Storage sized by --storage-capacity-tb:\n  4 storage servers, 2 ports each\n  Capacity "
        "1,200 TB for 1,000 TB asked (+20 %)\n  Read 160 GB/s\n  Write 80 GB/s\n"
    ) in capsys.readouterr().out

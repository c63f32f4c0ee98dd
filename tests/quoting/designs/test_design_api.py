"""POST /api/v1/designs/ computes a design from the catalog without saving it."""

import pytest

from tests.api_errors import field_errors


@pytest.fixture
def api(client, make_user, seeded):
    client.force_login(make_user("crm"))
    return client


def post(api, path="/api/v1/designs/", **body):
    return api.post(path, body, content_type="application/json")


def test_the_seed_university_design_through_the_api(api):
    body = post(
        api,
        gpu_count=256,
        switch_part_number="MQM9790-NS2F",
        subnet_manager="on-switch",
        server_to_leaf=30,
        leaf_to_spine="same-row",
    ).json()
    assert (body["tiers"], body["leaf_count"], body["spine_count"]) == (2, 8, 4)
    assert body["links_per_leaf_per_spine"] == 8
    assert body["ports"] == {"used": 768, "free": 0}
    by_role = {}
    for line in body["bom"]:
        by_role[(line["sku"], line["role"])] = line["quantity"]
    assert by_role[("MMA4Z00-NS400", "server-leaf")] == 256
    assert sum(q for (sku, _), q in by_role.items() if sku == "MMA4Z00-NS") == 384
    assert sum(q for (sku, _), q in by_role.items() if sku.startswith("MFP7E10")) == 512
    for key in (
        "node_count",
        "endpoint_ports",
        "switch_sku",
        "core_count",
        "oversubscription",
        "power_w",
        "rack_units",
        "bisection_gbps",
        "max_hops",
        "warnings",
    ):
        assert key in body


def test_nothing_is_saved(api, django_assert_max_num_queries):
    with django_assert_max_num_queries(6):  # session, user, catalog specs; no writes
        assert post(api, gpu_count=64).status_code == 200


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"gpu_count": 0}, "gpu_count"),
        ({"gpu_count": -8}, "gpu_count"),
        ({}, "gpu_count"),
        ({"gpu_count": 64, "family": "token-ring"}, "family"),
        ({"gpu_count": 64, "oversubscription": 0.5}, "oversubscription"),
        ({"gpu_count": 64, "growth_gpus": 32}, "growth_gpus"),
        ({"gpu_count": 64, "server_to_leaf": "on the moon"}, "server_to_leaf"),
        ({"gpu_count": 64, "server_to_leaf": True}, "server_to_leaf"),
        ({"gpu_count": 64, "switch_part_number": "NOPE-1"}, "switch_part_number"),
        (
            {"gpu_count": 64, "nic_generation": "HDR", "switch_part_number": "MQM9700-NS2F"},
            "nic_generation",
        ),
        ({"gpu_count": 100_000, "nic_generation": "NDR"}, "gpu_count"),
        ({"gpu_count": 10**30}, "gpu_count"),
        ({"gpu_count": 64, "colour": "green"}, "colour"),
        ({"gpu_count": "lots"}, "gpu_count"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(api, body, field):
    response = api.post("/api/v1/designs/", body, content_type="application/json")
    assert response.status_code == 400, response.content
    assert field in field_errors(response)


@pytest.mark.parametrize("raw", ["not json", "[1, 2]", "null", '"text"'])
def test_a_body_that_is_not_an_object_is_a_400(api, raw):
    response = api.post("/api/v1/designs/", raw, content_type="application/json")
    assert response.status_code == 400


def test_the_cable_schedule_lists_every_link(api):
    response = post(api, "/api/v1/designs/cable-schedule/", gpu_count=256)
    assert response["Content-Type"].startswith("text/csv")
    rows = b"".join(response.streaming_content).decode().splitlines()
    assert rows[0].startswith("tier,a_device,a_port,b_device,b_port,media")
    assert len(rows) == 1 + 512
    assert any(row.startswith("server-leaf,node-001,") for row in rows)


def test_the_drawing_is_svg_with_the_label_escaped(api):
    response = post(api, "/api/v1/designs/drawing/", gpu_count=256, label="<b>ACME</b>")
    assert response["Content-Type"] == "image/svg+xml"
    svg = response.content.decode()
    assert svg.startswith("<svg") and "<b>" not in svg and "&lt;b&gt;ACME" in svg


def test_designs_need_authentication(client, seeded):
    assert (
        client.post(
            "/api/v1/designs/", {"gpu_count": 8}, content_type="application/json"
        ).status_code
        == 401
    )


def test_the_schema_documents_the_design_contract(api):
    schema = api.get("/api/schema/?format=json").json()
    assert "/api/v1/designs/" in schema["paths"]
    props = schema["components"]["schemas"]["Design"]["properties"]
    assert {"tiers", "leaf_count", "spine_count", "bom", "warnings"} <= set(props)


def test_a_separate_storage_fabric_through_the_api(api):
    body = post(api, server_count=32, storage_servers=8).json()
    storage = body["storage"]
    assert (storage["endpoint_ports"], storage["tiers"], storage["leaf_count"]) == (48, 1, 1)
    assert storage["ports"] == {"used": 48, "free": 16}
    assert body["endpoint_ports"] == 256  # the compute fabric's figures stay the compute's
    assert {"storage leaf", "storage server-leaf"} <= {line["role"] for line in body["bom"]}
    assert post(api, server_count=32).json()["storage"] is None
    schedule = b"".join(
        post(
            api, "/api/v1/designs/cable-schedule/", server_count=32, storage_servers=8
        ).streaming_content
    ).decode()
    assert "storage server-leaf,storage-08,p2,stor-switch-01," in schedule
    for bad, field in [
        ({"storage_servers": -1}, "storage_servers"),
        ({"storage_servers": 8, "storage_ports_per_server": 0}, "storage_ports_per_server"),
        ({"storage_servers": 40_000, "storage_ports_per_storage_server": 2}, "storage_servers"),
    ]:
        response = post(api, server_count=32, **bad)
        assert response.status_code == 400 and field in field_errors(response), response.content

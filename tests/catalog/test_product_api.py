import pytest

from tests.api_errors import field_errors


@pytest.fixture
def api(client, make_user, seeded):
    client.force_login(make_user("crm"))
    return client


def test_the_product_api_needs_authentication(client, seeded):
    assert client.get("/api/v1/products/").status_code == 401


def test_products_are_paginated_with_specs_and_prices(api):
    body = api.get("/api/v1/products/").json()
    assert body["count"] >= 40 and len(body["results"]) == 50 and body["next"]
    switch = api.get("/api/v1/products/MQM9700-NS2F/").json()
    assert switch["specs"]["port_count"] == 64
    assert switch["specs"]["managed"] is True
    assert switch["specs"]["power_typical_w"] == "747.0"
    assert {p["currency"] for p in switch["prices"]} == {"CNY", "USD"}
    assert "cost" not in switch["prices"][0], "cost is internal"


def test_a_switchs_uplinks_are_in_its_specs(api):
    sn2201 = api.get("/api/v1/products/920-9N110-00F1-0C0/").json()["specs"]
    assert (sn2201["port_count"], sn2201["port_speed_gbps"]) == (48, 1)
    assert (sn2201["uplink_port_count"], sn2201["uplink_speed_gbps"]) == (4, 100)
    qm9700 = api.get("/api/v1/products/MQM9700-NS2F/").json()["specs"]
    assert qm9700["uplink_port_count"] is None and qm9700["uplink_speed_gbps"] is None


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            "category=switch&generation=NDR",
            {"MQM9700-NS2F", "MQM9700-NS2R", "MQM9790-NS2F", "MQM9790-NS2R"},
        ),
        # The QM8790's spare PSU names the switch it fits in its description.
        ("q=qm87", {"MQM8700-HS2F", "MQM8790-HS2F", "MTEF-PSF-AC-C"}),
        ("category=support", {"SUP-STD-1Y", "SUP-PREM-1Y", "SUP-DEV-NBD-1Y", "SUP-HW-PCT-1Y"}),
    ],
)
def test_products_filter_by_category_generation_and_text(api, query, expected):
    body = api.get(f"/api/v1/products/?{query}").json()
    assert {p["part_number"] for p in body["results"]} == expected


def test_a_bad_filter_value_is_a_400_with_the_field(api):
    response = api.get("/api/v1/products/?category=toaster")
    assert response.status_code == 400
    assert "category" in field_errors(response)


def test_an_unknown_part_number_is_a_404(api):
    assert api.get("/api/v1/products/NOPE-123/").status_code == 404


def test_the_list_costs_a_fixed_number_of_queries(api, django_assert_max_num_queries):
    with django_assert_max_num_queries(6):
        api.get("/api/v1/products/?page_size=50")


def test_the_schema_documents_the_product_endpoints(api):
    schema = api.get("/api/schema/?format=json").json()
    assert "/api/v1/products/" in schema["paths"]
    assert "/api/v1/products/{part_number}/" in schema["paths"]

"""The design page: inputs on the left, the design updating on the right."""


def test_a_first_visit_shows_a_design_from_the_defaults(sales_client, seeded):
    body = sales_client.get("/designs/new/").content.decode()
    assert "Design a fabric" in body and "<svg" in body and "Bill of materials" in body


def test_changing_an_input_returns_only_the_results(sales_client, seeded):
    response = sales_client.get("/designs/new/?gpu_count=1024&gpus_per_server=8"
                                "&nic_generation=NDR&family=infiniband&planes=1"
                                "&oversubscription=1&server_to_leaf=same-row"
                                "&leaf_to_spine=same-row&spine_to_core=across-hall"
                                "&subnet_manager=auto&spares_percent=0&rail_optimized=on",
                                HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert "<html" not in body and "<svg" in body
    assert 'hx-swap-oob="true"' in body  # field errors are cleared in place


def test_an_engine_error_shows_beside_its_field(sales_client, seeded):
    body = sales_client.get("/designs/new/?gpu_count=64&gpus_per_server=8&nic_generation=NDR"
                            "&family=infiniband&planes=1&oversubscription=1"
                            "&growth_gpus=16&server_to_leaf=same-row&leaf_to_spine=same-row"
                            "&spine_to_core=across-hall&subnet_manager=auto&spares_percent=0",
                            HTTP_HX_REQUEST="true").content.decode()
    assert 'id="err-growth_gpus"' in body and "below the current size" in body
    assert "No design yet" in body


def test_a_bad_distance_is_an_inline_error(sales_client, seeded):
    body = sales_client.get("/designs/new/?gpu_count=64&gpus_per_server=8&nic_generation=NDR"
                            "&family=infiniband&planes=1&oversubscription=1"
                            "&server_to_leaf=far&leaf_to_spine=same-row"
                            "&spine_to_core=across-hall&subnet_manager=auto&spares_percent=0"
                            ).content.decode()
    assert "Use metres or one of" in body


def test_the_bom_is_priced_in_the_chosen_currency(sales_client, seeded):
    body = sales_client.get("/designs/new/?gpu_count=256&gpus_per_server=8&nic_generation=NDR"
                            "&family=infiniband&planes=1&oversubscription=1"
                            "&switch_part_number=MQM9700-NS2F&server_to_leaf=same-row"
                            "&leaf_to_spine=same-row&spine_to_core=across-hall"
                            "&subnet_manager=auto&spares_percent=0&rail_optimized=on"
                            "&currency=USD").content.decode()
    # 8 leaves and 4 spines at 32,000 USD each.
    assert "256,000.00" in body and "128,000.00" in body and "USD" in body


def test_the_cable_schedule_downloads_as_csv(sales_client, seeded):
    response = sales_client.get("/designs/cable-schedule.csv?gpu_count=16&gpus_per_server=8"
                                "&nic_generation=NDR&family=infiniband&planes=1"
                                "&oversubscription=1&server_to_leaf=same-rack"
                                "&leaf_to_spine=same-row&spine_to_core=across-hall"
                                "&subnet_manager=auto&spares_percent=0&rail_optimized=on")
    assert response["Content-Disposition"].startswith("attachment")
    rows = b"".join(response.streaming_content).decode().splitlines()
    assert len(rows) == 1 + 16


def test_the_design_page_needs_sign_in(client):
    assert client.get("/designs/new/").status_code == 302

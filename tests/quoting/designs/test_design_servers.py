"""A server chosen from the catalog decides the host side: form, API, saved designs, CLI."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from catalog.models import Product
from tests.api_errors import field_errors

QUERY = (
    "gpu_count=256&gpus_per_server=8&nic_generation=NDR&family=infiniband&planes=1"
    "&oversubscription=1&server_to_leaf=same-row&leaf_to_spine=same-row"
    "&spine_to_core=across-hall&subnet_manager=auto&spares_percent=0&rail_optimized=on"
)


def quantities(bom: list[dict]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for line in bom:
        totals[line["sku"]] = totals.get(line["sku"], 0) + line["quantity"]
    return totals


@pytest.fixture
def api(client, make_user, seeded):
    client.force_login(make_user("crm"))
    return client


def post(api, **body):
    return api.post("/api/v1/designs/", body, content_type="application/json")


def test_the_api_quotes_a_dgx_with_four_twin_port_modules_per_node(api):
    body = post(api, gpu_count=256, server_part_number="DGX-H100").json()
    bom = quantities(body["bom"])
    assert body["server_sku"] == "DGX-H100"
    assert bom["980-9I51A-00NS00"] == 32 * 4 and "MMA4Z00-NS400" not in bom


def test_the_api_default_stays_one_single_port_module_per_nic(api):
    body = post(api, gpu_count=256).json()
    assert body["server_sku"] is None and quantities(body["bom"])["MMA4Z00-NS400"] == 256


def test_the_server_sets_the_nic_generation_the_request_left_out(api):
    body = post(api, gpu_count=64, server_part_number="HGX-B300-8GPU-SRV", rack_power_kw=40).json()
    assert body["switch_sku"] == "920-9B36F-00RX-8S0"  # the XDR Quantum-X800


def test_an_xdr_server_on_ethernet_is_spectrum_x_on_two_planes_of_400gbe(api):
    """NVIDIA's B300 Spectrum-X build: each 800G ConnectX-8 cage feeds two 400GbE planes."""
    response = post(
        api,
        gpu_count=512,
        server_part_number="HGX-B300-8GPU-SRV",
        family="ethernet",
        rack_power_kw=40,
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["planes"] == 2 and body["switch_sku"] == "920-9N42F-00RI-7C0"  # SN5600
    assert (body["leaf_count"], body["spine_count"]) == (16, 8)  # one SU, as the RA has it


def test_an_xdr_server_with_an_ndr_fabric_is_a_field_error(api):
    response = post(api, gpu_count=64, server_part_number="HGX-B300-8GPU-SRV", nic_generation="NDR")
    assert response.status_code == 400
    assert "XDR" in " ".join(field_errors(response)["nic_generation"])


@pytest.mark.parametrize("sku", ["NOPE-1", "MQM9700-NS2F", "UFM-APPLIANCE-3.1"])
def test_an_unknown_or_non_server_sku_is_a_400_on_its_field(api, sku):
    response = post(api, gpu_count=64, server_part_number=sku)
    assert response.status_code == 400
    assert field_errors(response)["server_part_number"] == [f"{sku} is not a catalog server."]


def test_the_api_reports_ufm_appliance_links_in_ports_bom_and_schedule(api):
    body = post(
        api, gpu_count=248, server_part_number="DGX-H100", subnet_manager="ufm-appliance"
    ).json()
    assert body["links"]["ufm-leaf"] == 4 and body["ufm_appliances"]["appliances"] == 2
    assert any(line["role"] == "ufm-leaf" for line in body["bom"])
    csv = api.post(
        "/api/v1/designs/cable-schedule/",
        {"gpu_count": 248, "server_part_number": "DGX-H100", "subnet_manager": "ufm-appliance"},
        content_type="application/json",
    )
    rows = b"".join(csv.streaming_content).decode().splitlines()
    assert sum(row.startswith("ufm-leaf,ufm-0") for row in rows) == 4
    assert any(",node-001,c1/1," in f",{row}" for row in rows)


def test_the_design_form_offers_the_servers_and_designs_with_one(sales_client, seeded):
    body = sales_client.get(
        f"/designs/new/?{QUERY}&server_part_number=DGX-H100", HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "980-9I51A-00NS00" in body and "MMA4Z00-NS400" not in body
    page = sales_client.get("/designs/new/").content.decode()
    assert 'name="server_part_number"' in page and 'value="DGX-B200"' in page


def test_a_server_that_does_not_fit_is_an_inline_error_on_the_form(sales_client, seeded):
    body = sales_client.get(
        f"/designs/new/?{QUERY}&server_part_number=HGX-B300-8GPU-SRV", HTTP_HX_REQUEST="true"
    ).content.decode()
    assert 'id="err-nic_generation"' in body and "XDR" in body


def test_an_unknown_server_is_an_inline_form_error(sales_client, seeded):
    body = sales_client.get(
        f"/designs/new/?{QUERY}&server_part_number=NOPE-1", HTTP_HX_REQUEST="true"
    ).content.decode()
    assert 'id="err-server_part_number"' in body


def test_a_saved_design_keeps_its_server(client, seeded, make_user):
    from tests.quoting.factories import CustomerFactory, ProjectFactory

    owner = make_user("owner")
    customer = CustomerFactory(owner=owner)
    customer.team.members.add(owner)
    project = ProjectFactory(customer=customer)
    client.force_login(owner)
    client.post(
        f"/designs/save/?{QUERY}&server_part_number=DGX-H200",
        {"project": project.pk, "name": "DGX H200"},
    )
    saved = project.designs.get()
    assert saved.requirements["server_part_number"] == "DGX-H200"
    assert quantities(saved.result["bom"])["980-9I51A-00NS00"] == 128
    body = client.get(f"/designs/new/?project={project.pk}").content.decode()
    assert '<option value="DGX-H200" selected>' in body


def test_the_command_takes_a_server(seeded, capsys):
    call_command(
        "fabric_design", "--gpus", "256", "--server", "DGX-B200", "--rack-power-kw", "40", "--json"
    )
    printed = json.loads(capsys.readouterr().out)
    assert printed["server_sku"] == "DGX-B200"
    assert quantities(printed["bom"])["980-9I51A-00NS00"] == 128
    call_command(
        "fabric_design",
        "--gpus",
        "248",
        "--server",
        "DGX-H100",
        "--subnet-manager",
        "ufm-appliance",
    )
    out = capsys.readouterr().out
    assert "DGX-H100" in out and "UFM: 2 appliances, 4 leaf links" in out


def test_the_command_refuses_a_non_server_clearly(seeded):
    with pytest.raises(CommandError, match="server_part_number"):
        call_command("fabric_design", "--gpus", "64", "--server", "MQM9700-NS2F")


def test_a_server_host_layout_is_all_or_nothing(seeded):
    server = Product.objects.get(part_number="DGX-H100")
    server.cage_count = None
    with pytest.raises(ValidationError) as caught:
        server.full_clean()
    assert "cage_count" in caught.value.message_dict


def test_the_tco_comparison_of_a_dgx_b200_design_prices_that_server_and_its_gpus(seeded):
    from quoting.designs.services.designs import design_bom_priced, design_compute
    from quoting.designs.services.tco import design_tco_body
    from quoting.engine.fabric import FabricRequirements
    from quoting.engine.install import SiteInputs

    design = design_compute(
        requirements=FabricRequirements(gpu_count=64, server_part_number="DGX-B200"),
        site=SiteInputs(rack_power_kw=40),
    )
    total = design_bom_priced(design=design, currency="USD").total
    body = design_tco_body(design=design, bom_total=total, currency="USD")
    assert body["gpu"] == "B200"
    assert body["costs"]["server_capex"] == str(Decimal("515000.00") * 8)

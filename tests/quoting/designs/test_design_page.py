"""The design page: inputs on the left, the design updating on the right."""

import re

from quoting.designs.services.designs import design_bom_priced, design_compute
from quoting.engine.fabric import FabricRequirements


def test_a_first_visit_shows_a_design_from_the_defaults(sales_client, seeded):
    body = sales_client.get("/designs/new/").content.decode()
    assert "Design a fabric" in body and "<svg" in body and "Bill of materials" in body


def test_changing_an_input_returns_only_the_results(sales_client, seeded):
    response = sales_client.get(
        "/designs/new/?gpu_count=1024&gpus_per_server=8"
        "&nic_generation=NDR&family=infiniband&planes=1"
        "&oversubscription=1&server_to_leaf=same-row"
        "&leaf_to_spine=same-row&spine_to_core=across-hall"
        "&subnet_manager=auto&spares_percent=0&rail_optimized=on",
        HTTP_HX_REQUEST="true",
    )
    body = response.content.decode()
    assert "<html" not in body and "<svg" in body
    assert 'hx-swap-oob="true"' in body  # field errors are cleared in place


def test_an_engine_error_shows_beside_its_field(sales_client, seeded):
    body = sales_client.get(
        "/designs/new/?gpu_count=64&gpus_per_server=8&nic_generation=NDR"
        "&family=infiniband&planes=1&oversubscription=1"
        "&growth_gpus=16&server_to_leaf=same-row&leaf_to_spine=same-row"
        "&spine_to_core=across-hall&subnet_manager=auto&spares_percent=0",
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert 'id="err-growth_gpus"' in body and "below the current size" in body
    assert "No design yet" in body


def test_a_bad_distance_is_an_inline_error(sales_client, seeded):
    body = sales_client.get(
        "/designs/new/?gpu_count=64&gpus_per_server=8&nic_generation=NDR"
        "&family=infiniband&planes=1&oversubscription=1"
        "&server_to_leaf=far&leaf_to_spine=same-row"
        "&spine_to_core=across-hall&subnet_manager=auto&spares_percent=0"
    ).content.decode()
    assert "Use metres or one of" in body


def test_the_bom_is_priced_in_the_chosen_currency(sales_client, seeded):
    body = sales_client.get(
        "/designs/new/?gpu_count=256&gpus_per_server=8&nic_generation=NDR"
        "&family=infiniband&planes=1&oversubscription=1"
        "&switch_part_number=MQM9700-NS2F&server_to_leaf=same-row"
        "&leaf_to_spine=same-row&spine_to_core=across-hall"
        "&subnet_manager=auto&spares_percent=0&rail_optimized=on"
        "&currency=USD"
    ).content.decode()
    # 8 leaves and 4 spines at 32,000 USD each.
    assert "256,000.00" in body and "128,000.00" in body and "USD" in body


def test_the_cable_schedule_downloads_as_csv(sales_client, seeded):
    response = sales_client.get(
        "/designs/cable-schedule.csv?gpu_count=16&gpus_per_server=8"
        "&nic_generation=NDR&family=infiniband&planes=1"
        "&oversubscription=1&server_to_leaf=same-rack"
        "&leaf_to_spine=same-row&spine_to_core=across-hall"
        "&subnet_manager=auto&spares_percent=0&rail_optimized=on"
    )
    assert response["Content-Disposition"].startswith("attachment")
    rows = b"".join(response.streaming_content).decode().splitlines()
    assert len(rows) == 1 + 16


def test_the_design_page_needs_sign_in(client):
    assert client.get("/designs/new/").status_code == 302


DESIGN_QUERY = (
    "gpu_count=256&gpus_per_server=8&nic_generation=NDR&family=infiniband&planes=1"
    "&oversubscription=1&switch_part_number=MQM9790-NS2F&server_to_leaf=same-row"
    "&leaf_to_spine=same-row&spine_to_core=across-hall&subnet_manager=on-switch"
    "&spares_percent=0&rail_optimized=on"
)


def _client_for(client, project):
    user = project.owner
    client.force_login(user)
    return client


def test_a_design_is_saved_to_a_project_with_its_requirements(client, project):
    client = _client_for(client, project)
    response = client.post(
        f"/designs/save/?{DESIGN_QUERY}", {"project": project.pk, "name": "University NDR"}
    )
    assert "Saved" in response.content.decode()
    saved = project.designs.get()
    assert saved.name == "University NDR"
    assert saved.requirements["gpu_count"] == 256
    assert (saved.result["leaf_count"], saved.result["spine_count"]) == (8, 4)
    # Opening the design page for the project starts from what was saved.
    body = client.get(f"/designs/new/?project={project.pk}").content.decode()
    assert 'value="256"' in body and "MQM9790-NS2F" in body


def test_a_duplicate_design_name_is_an_inline_error_and_saves_nothing(client, project):
    client = _client_for(client, project)
    client.post(f"/designs/save/?{DESIGN_QUERY}", {"project": project.pk, "name": "A"})
    body = client.post(
        f"/designs/save/?{DESIGN_QUERY}", {"project": project.pk, "name": "A"}
    ).content.decode()
    assert "already has a design called A" in body
    assert project.designs.count() == 1


def test_a_broken_design_cannot_be_saved(client, project):
    client = _client_for(client, project)
    body = client.post(
        "/designs/save/?gpu_count=0&gpus_per_server=8", {"project": project.pk, "name": "Broken"}
    ).content.decode()
    assert "Correct the design" in body and project.designs.count() == 0


def test_another_teams_project_is_not_offered_nor_accepted(client, project, make_user):
    from tests.quoting.factories import CustomerFactory, ProjectFactory

    outsider = make_user("outsider")
    own_customer = CustomerFactory(owner=outsider)
    own_customer.team.members.add(outsider)
    ProjectFactory(customer=own_customer)
    client.force_login(outsider)
    body = client.get(f"/designs/new/?project={project.pk}").content.decode()
    assert str(project) not in body
    body = client.post(
        f"/designs/save/?{DESIGN_QUERY}", {"project": project.pk, "name": "Sneaky"}
    ).content.decode()
    assert "You cannot save to this project" in body and project.designs.count() == 0


def test_a_design_started_from_a_project_keeps_it_through_every_re_render(client, project):
    client = _client_for(client, project)
    page = client.get(f"/designs/new/?project={project.pk}").content.decode()
    # htmx adds the project to every re-render's request (and so to the pushed URL).
    assert f"""hx-vals='{{"project": "{project.pk}"}}'""" in page
    assert f'<option value="{project.pk}" selected>' in page
    # That URL, reloaded, still offers the project.
    page = client.get(f"/designs/new/?project={project.pk}&{DESIGN_QUERY}").content.decode()
    assert f'<option value="{project.pk}" selected>' in page


def test_a_save_takes_the_design_on_screen_not_an_older_url(client, project):
    from django.http import QueryDict

    client = _client_for(client, project)
    on_screen = QueryDict(DESIGN_QUERY, mutable=True)
    on_screen["gpu_count"] = "512"
    on_screen.update({"project": project.pk, "name": "Grown"})
    body = client.post(
        f"/designs/save/?{DESIGN_QUERY}",
        on_screen.urlencode(),
        content_type="application/x-www-form-urlencoded",
    ).content.decode()
    assert "Saved" in body
    assert project.designs.get().requirements["gpu_count"] == 512
    # The form is ready for the next variant, in the same project.
    assert f'<option value="{project.pk}" selected>' in body and 'value="Grown"' not in body


def test_a_saved_design_opened_without_its_project_still_saves_to_it(client, project):
    from quoting.designs.services.saved import design_save

    client = _client_for(client, project)
    saved = design_save(
        project=project, name="Uni", requirements={"gpu_count": 256}, user=project.owner
    )
    page = client.get(f"/designs/new/?design={saved.pk}").content.decode()
    assert f"""hx-vals='{{"project": "{project.pk}"}}'""" in page
    assert f'<option value="{project.pk}" selected>' in page


def test_the_design_page_shows_what_the_network_is_worth(sales_client, seeded):
    body = sales_client.get(f"/designs/tco/?{DESIGN_QUERY}&currency=CNY").content.decode()
    assert "This design (Quantum-2)" in body and "RoCE on Spectrum-4" in body
    assert "2×100G RoCE (commodity)" in body
    # For the default large-model job (70B pre-training) the starved commodity build loses
    # 42 % of the compute; the designed ones lose none.
    assert "LLM pre-training, 70B" in body
    assert "42 %" in body and "Open in the TCO page" in body


def test_the_tco_comparison_prices_servers_and_each_designed_fabric(seeded):
    from decimal import Decimal

    from quoting.designs.services.designs import design_bom_priced, design_compute
    from quoting.designs.services.tco import design_tco_body
    from quoting.engine.fabric import FabricRequirements

    design = design_compute(requirements=FabricRequirements(gpu_count=256))
    total = design_bom_priced(design=design, currency="CNY").total
    body = design_tco_body(design=design, bom_total=total, currency="CNY")
    assert body["nodes"] == 32 and body["gpus_per_node"] == 8
    assert Decimal(body["costs"]["server_capex"]) == 32 * Decimal("1872000.00")
    this, roce, untuned, commodity = body["fabrics"]
    assert Decimal(this["network_capex"]) == total
    assert (this["transport"], roce["transport"], untuned["transport"]) == (
        "infiniband",
        "roce",
        "roce_untuned",
    )
    assert Decimal(roce["network_capex"]) > 0 and "network_capex" not in commodity


def test_the_tco_page_opens_prefilled_from_a_query(sales_client, seeded):
    body = sales_client.get(
        "/tco/?nodes=12&fabrics-0-name=Only+this&fabrics-0-transport=tcp"
        "&fabrics-0-nics_per_node=1&fabrics-0-nic_gbps=25"
    ).content.decode()
    assert 'value="12"' in body and "Only this" in body
    assert "8×400G InfiniBand" not in body, "a query with fabric rows replaces the defaults"


def test_a_quote_made_from_a_design_carries_its_tco_comparison(client, project):
    from quoting.designs.services.saved import design_save
    from quoting.quotes.services.quotes import quote_create_from_design

    saved = design_save(
        project=project, name="Uni", requirements={"gpu_count": 256}, user=project.owner
    )
    quote = quote_create_from_design(project=project, design=saved, user=project.owner)
    snapshot = quote.current_revision.tco_snapshot
    names = [o["name"] for o in snapshot["options"]]
    assert names[0] == "This design (Quantum-2)" and "2×100G RoCE (commodity)" in names
    assert quote.current_revision.tco.project == project


def test_the_warnings_are_in_the_users_language(client, make_user, seeded):
    client.force_login(make_user("li", language="zh-hans"))
    body = client.get(
        "/designs/new/?gpu_count=256&gpus_per_server=8&nic_generation=NDR"
        "&family=infiniband&planes=1&oversubscription=1"
        "&switch_part_number=MQM9790-NS2F&server_to_leaf=same-row"
        "&leaf_to_spine=same-row&spine_to_core=across-hall"
        "&subnet_manager=on-switch&spares_percent=0&rail_optimized=on"
    ).content.decode()
    assert "此设计已满：扩容需要重新布线。" in body
    assert "This design is full" not in body


def test_only_generations_the_catalog_can_build_are_offered(sales_client, seeded):
    body = sales_client.get("/designs/new/").content.decode()
    offered = re.findall(
        r'<option value="([^"]+)"[^>]*>',
        body.split('id="id_nic_generation"')[1].split("</select>")[0],
    )
    assert offered == ["HDR", "NDR200", "NDR", "XDR", "400GbE"]
    # A bookmarked 800GbE design says why, beside the field, instead of failing in the engine.
    body = sales_client.get(
        "/designs/new/?gpu_count=64&nic_generation=800GbE&family=ethernet"
    ).content.decode()
    assert "No switch in the catalog runs 800GbE" in body


def test_the_project_form_offers_the_same_generations(client, project):
    from quoting.designs.forms.projects import ProjectForm

    client = _client_for(client, project)
    form = ProjectForm(data={"name": "X", "nic_generation": "800GbE"})
    assert "800GbE" not in dict(form.fields["nic_generation"].choices)
    assert not form.is_valid()
    assert "No switch in the catalog runs 800GbE" in str(form.errors["nic_generation"])


def test_the_save_forms_workload_follows_the_workload_the_page_compares(client, project):
    client = _client_for(client, project)
    body = client.get(
        f"/designs/new/?project={project.pk}&{DESIGN_QUERY}&workload=moe_47b",
        HTTP_HX_REQUEST="true",
    ).content.decode()
    swapped = body.split('<div id="design-save-workload" hx-swap-oob="true">')[1].split("</div>")[0]
    assert '<option value="moe_47b" selected>' in swapped


PAGE_72_GPUS = (
    "/designs/new/?gpu_count={gpus}&gpus_per_server=8&nic_generation=NDR"
    "&family=infiniband&planes=1&oversubscription=1"
    "&switch_part_number=MQM9700-NS2F&server_to_leaf=same-row"
    "&leaf_to_spine=same-row&spine_to_core=across-hall"
    "&subnet_manager=auto&spares_percent=0&rail_optimized=on&currency=USD"
)


def test_a_rail_design_needing_more_switches_shows_the_non_rail_one_with_its_list_total(
    sales_client, seeded
):
    """docs/fabric-design.md rule 6, "say so and show both": 72 HGX GPUs rail-optimised take
    4 leaves of two rails + 2 spines; without rails 3 + 2, priced here beside the BOM."""
    body = sales_client.get(PAGE_72_GPUS.format(gpus=72)).content.decode()
    flat = design_compute(
        requirements=FabricRequirements(
            gpu_count=72,
            switch_part_number="MQM9700-NS2F",
            server_to_leaf="same-row",
            leaf_to_spine="same-row",
            spine_to_core="across-hall",
            rail_optimized=False,
        )
    )
    total = design_bom_priced(design=flat, currency="USD").total
    assert (flat.leaf_count, flat.spine_count) == (3, 2)
    assert f"Without rail optimization: 3 leaves + 2 spines, list total {total:,.2f} USD." in body
    assert "where a design without rails needs 5 (3 leaves + 2 spines)" in body


def test_no_non_rail_option_when_the_rail_design_is_as_small(sales_client, seeded):
    body = sales_client.get(PAGE_72_GPUS.format(gpus=128)).content.decode()
    assert 'id="non-rail-option"' not in body and "without rails needs" not in body

"""The in-band MLAG pair is the default for new designs; a design saved before the choice existed
keeps its single switch, so its quote does not change under the customer (issue #26)."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from quoting.designs.forms.designs import DesignForm, design_form_data
from quoting.designs.models import SavedDesign
from quoting.designs.services import snapshots
from quoting.designs.services.saved import design_save

SN4600C = "920-9N302-00F7-0C2"
REQUIREMENTS = {"server_count": 16, "server_part_number": "DGX-H100", "inband_management": True}


@pytest.fixture(name="world")
def world_on_the_catalog(seeded, world):
    """The shared world, made after the shipped catalog is loaded."""
    return world


def _saved(world, name: str, **changes) -> SavedDesign:
    return design_save(
        project=world.project, name=name, user=world.sales, requirements=REQUIREMENTS | changes
    )


def _sn4600c(design: SavedDesign) -> int:
    return sum(
        line["quantity"]
        for line in design.priced_bom["lines"]
        if line["sku"] == SN4600C and line["role"] == "in-band management"
    )


def test_a_new_design_gets_the_pair_and_a_budget_one_the_single_switch(world):
    assert _sn4600c(_saved(world, "pair")) == 2
    assert _sn4600c(_saved(world, "budget", inband_redundant=False)) == 1


def test_a_design_saved_before_the_field_keeps_its_single_switch_when_designed_again(world):
    single = _saved(world, "as saved then", inband_redundant=False)
    old = _saved(world, "saved before pairs")
    stored = {k: v for k, v in old.requirements.items() if k != "inband_redundant"}
    SavedDesign.objects.filter(pk=old.pk).update(
        requirements=stored, priced_bom=None, snapshot_version=0
    )

    call_command("snapshots_refresh")
    refreshed = SavedDesign.objects.get(pk=old.pk)
    assert refreshed.snapshot_version == snapshots.SNAPSHOT_VERSION
    assert _sn4600c(refreshed) == 1
    assert refreshed.priced_bom["total"] == single.priced_bom["total"]
    # Opened on the design page, its form shows the choice it was made with: single.
    assert "inband_redundant" not in design_form_data(refreshed.requirements)
    assert design_form_data(_saved(world, "pair").requirements)["inband_redundant"] == "on"


def test_the_design_page_offers_the_pair_ticked_and_labels_it_in_chinese(client, make_user, seeded):
    assert DesignForm.initial_data()["inband_redundant"] == "on"
    client.force_login(make_user("li", language="zh-hans"))
    body = client.get("/designs/new/").content.decode()
    assert 'name="inband_redundant"' in body
    assert "冗余带内管理交换机（MLAG 成对）" in body


def test_the_api_designs_the_pair_unless_asked_for_one_switch(client, make_user, seeded):
    client.force_login(make_user("crm"))

    def sn4600c(**body) -> int:
        response = client.post(
            "/api/v1/designs/", REQUIREMENTS | body, content_type="application/json"
        )
        assert response.status_code == 200, response.content
        return response.json()["management"]["inband_switches"]

    assert sn4600c() == 2
    assert sn4600c(inband_redundant=False) == 1
    response = client.post(
        "/api/v1/designs/",
        REQUIREMENTS | {"inband_redundant": "perhaps"},
        content_type="application/json",
    )
    assert response.status_code == 400 and "inband_redundant" in response.json()["errors"]

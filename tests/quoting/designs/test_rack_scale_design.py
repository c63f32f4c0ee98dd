"""NVL72 racks on the design page (issue #26): the smallest fabric for the racks beside NVIDIA's
whole scalable unit, each with its price, the choice kept by the form, the API and saved
designs; and a TCO comparison for rack-scale nodes with no raw engine error on the page."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from catalog.models import Category, Product
from quoting.designs.forms.designs import design_form_data
from quoting.designs.models import SavedDesign
from quoting.designs.services.designs import design_bom_priced, design_compute
from quoting.designs.services.saved import design_save
from quoting.designs.services.tco import design_tco_body, tco_compute, tco_request
from quoting.engine.fabric import FabricRequirements
from quoting.engine.tco.model import server_power

GB200 = "DGX-GB200-NVL72"
PAGE = (
    "/designs/new/?server_count={racks}&gpus_per_server=72&server_part_number=DGX-GB200-NVL72"
    "&nic_generation=NDR&family=infiniband&planes=1&oversubscription=1&subnet_manager=auto"
    "&spares_percent=0&rail_optimized=on&currency=USD{smallest}"
)


@pytest.fixture(name="world")
def world_on_the_catalog(seeded, world):
    """The shared world, made after the shipped catalog is loaded."""
    return world


def _page(client, racks: int, smallest: bool = False) -> str:
    query = PAGE.format(racks=racks, smallest="&rack_scale_smallest=on" if smallest else "")
    return client.get(query, HTTP_HX_REQUEST="true").content.decode()


def _racks(racks: int, **fields) -> FabricRequirements:
    return FabricRequirements(
        server_count=racks,
        gpus_per_server=72,
        server_part_number=GB200,
        nic_generation="NDR",
        **fields,
    )


def _total(requirements: FabricRequirements) -> Decimal:
    return design_bom_priced(design=design_compute(requirements=requirements), currency="USD").total


def test_one_rack_shows_the_smallest_fabric_priced_beside_the_whole_unit(sales_client, seeded):
    """The whole SU stays the default; one rack's 3 leaves + 2 spines are priced beside it,
    and the growth note says what moving to 8 racks re-cables."""
    whole, small = _total(_racks(1)), _total(_racks(1, rack_scale_smallest=True))
    assert small < whole / 5  # the full SU's network is several times one rack's own
    body = _page(sales_client, 1)
    assert f"{whole:,.2f} USD" in body
    assert (
        "Smallest fabric for the racks asked (1): 3 leaves + 2 spines, "
        f"list total {small:,.2f} USD."
    ) in body
    assert "re-cables 68 of the racks&#x27; 72 ports and 72 leaf-spine cables" in body


def test_the_smallest_build_asked_shows_the_whole_unit_priced_beside_it(sales_client, seeded):
    whole = _total(_racks(1))
    body = _page(sales_client, 1, smallest=True)
    assert (
        "As a whole scalable unit of 8 racks, ready to grow: 18 leaves + 16 spines, "
        f"list total {whole:,.2f} USD."
    ) in body
    assert "This is the smallest fabric for the racks asked (1)." in body


def test_eight_racks_are_one_build_with_nothing_shown_beside(sales_client, seeded):
    assert 'id="rack-scale-option"' not in _page(sales_client, 8)


def test_the_api_takes_the_choice_and_answers_the_other_build(sales_client, seeded):
    body = {
        "server_count": 2,
        "server_part_number": GB200,
        "rack_scale_smallest": True,
    }
    answer = sales_client.post("/api/v1/designs/", body, content_type="application/json")
    assert answer.status_code == 200, answer.content
    data = answer.json()
    assert (data["leaf_count"], data["spine_count"]) == (6, 3)
    other = data["rack_scale_other"]
    assert other["whole_units"] and (other["leaf_count"], other["spine_count"]) == (18, 16)


def test_a_saved_design_keeps_the_choice_and_one_saved_before_it_reads_as_whole_units(world):
    requirements = {"server_count": 1, "server_part_number": GB200, "gpus_per_server": 72}
    small = design_save(
        project=world.project,
        name="one rack",
        user=world.sales,
        requirements=requirements | {"rack_scale_smallest": True},
    )
    assert (small.result["leaf_count"], small.result["spine_count"]) == (3, 2)
    assert design_form_data(small.requirements)["rack_scale_smallest"] == "on"
    old = design_save(
        project=world.project, name="before", user=world.sales, requirements=requirements
    )
    stored = {k: v for k, v in old.requirements.items() if k != "rack_scale_smallest"}
    SavedDesign.objects.filter(pk=old.pk).update(requirements=stored)
    old.refresh_from_db()
    assert "rack_scale_smallest" not in design_form_data(old.requirements)
    assert (old.result["leaf_count"], old.result["spine_count"]) == (18, 16)


@pytest.mark.parametrize("racks", [1, 8])
def test_the_tco_of_gb200_racks_is_computed_per_rack(seeded, racks):
    """A rack is one node of 72 GPUs and 72 NDR NICs, powered as the catalog's rack."""
    design = design_compute(requirements=_racks(racks))
    priced = design_bom_priced(design=design, currency="CNY")
    body = design_tco_body(design=design, bom_total=priced.total, currency="CNY")
    assert (body["nodes"], body["gpus_per_node"], body["server"]) == (racks, 72, GB200)
    assert body["fabrics"][0]["nics_per_node"] == 72
    # The preset's tokens are per 8-GPU node: a rack of 72 does nine nodes' work per step.
    assert body["workload"]["tokens_per_node_per_step"] == 9 * 131_072
    result = tco_compute(data=body)
    this, commodity = result.options[0], result.options[-1]
    assert 0.9 < this.network_efficiency <= 1
    if racks > 1:  # one rack sends nothing over the network: every option is as good
        assert commodity.network_efficiency < this.network_efficiency / 2
    assert this.capex > priced.total  # the racks are priced too
    rack = Product.objects.get(part_number=GB200)
    assert server_power(tco_request(data=body)).kw == Decimal(str(rack.power_max_w)) / 1000


@pytest.mark.parametrize("racks", [1, 8])
def test_the_design_page_compares_gb200_racks_without_an_error(sales_client, seeded, racks):
    query = PAGE.format(racks=racks, smallest="").split("?", 1)[1].replace("USD", "CNY")
    panel = sales_client.get(f"/designs/tco/?{query}").content.decode()
    assert "error-box" not in panel, panel
    assert "This design (Quantum-2)" in panel
    assert re.search(r"\d+ %", panel)


def test_a_comparison_that_cannot_be_computed_is_worded_in_the_readers_language(
    sales_client, seeded
):
    """No catalog figure for the racks' GPUs: the panel says so in words, never with the TCO
    engine's field paths."""
    Product.objects.filter(category=Category.SERVER, gpu_model="B200").update(gpu_peak_tflops=None)
    query = PAGE.format(racks=1, smallest="").split("?", 1)[1]
    panel = sales_client.get(f"/designs/tco/?{query}").content.decode()
    assert "cannot be computed for this design" in panel
    assert "&#x27;B200&#x27; is not a GPU in the catalog" in panel
    assert "gpu:" not in panel and "fabrics[" not in panel
    chinese = sales_client.get(f"/designs/tco/?{query}", HTTP_ACCEPT_LANGUAGE="zh-hans")
    chinese = chinese.content.decode()
    assert "不是产品目录中的 GPU" in chinese and "gpu:" not in chinese


def _other_build_designs(monkeypatch, *, racks: int, smallest: bool) -> dict[str, int]:
    """Counts, as the request runs, the engine's plans of the other build of `racks` racks (the
    build with `smallest`), its placements on the site, and the engine's entries (design_fabric:
    one per fabric designed from scratch)."""
    from quoting.engine.fabric import design as engine
    from quoting.engine.install import lengths

    counted = {"planned": 0, "placed": 0, "design_fabric": 0}
    real_design, real_entry = engine._design, lengths.design_fabric

    def designing(req, catalog, *, look_ahead, lengths=None):
        if req.server_count == racks and req.rack_scale_smallest == smallest:
            counted["planned" if lengths is None else "placed"] += 1
        return real_design(req, catalog, look_ahead=look_ahead, lengths=lengths)

    def entering(requirements, catalog):
        counted["design_fabric"] += 1
        return real_entry(requirements, catalog)

    monkeypatch.setattr(engine, "_design", designing)
    monkeypatch.setattr(lengths, "design_fabric", entering)
    return counted


def test_the_design_page_designs_the_other_build_once(sales_client, seeded, monkeypatch):
    """The priced panel places and prices the smallest build the design already designed: one
    plan of it, one placement on the site, one fabric designed from scratch."""
    small = _total(_racks(1, rack_scale_smallest=True))
    counted = _other_build_designs(monkeypatch, racks=1, smallest=True)
    body = _page(sales_client, 1)
    assert (
        f"Smallest fabric for the racks asked (1): 3 leaves + 2 spines, list total {small:,.2f}"
        in body
    )
    assert counted == {"planned": 1, "placed": 1, "design_fabric": 1}


def test_the_api_designs_the_other_build_once(sales_client, seeded, monkeypatch):
    counted = _other_build_designs(monkeypatch, racks=2, smallest=False)
    body = {"server_count": 2, "server_part_number": GB200, "rack_scale_smallest": True}
    answer = sales_client.post("/api/v1/designs/", body, content_type="application/json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["rack_scale_other"]["leaf_count"] == 18
    assert counted == {"planned": 1, "placed": 0, "design_fabric": 1}

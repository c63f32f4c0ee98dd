"""A design's TCO comparison carries its leaf ratio, its rail groups and its yearly licences
(issue 10 item 6): oversubscribed designs no longer score like non-blocking ones, and the UFM
per-endpoint licence is paid every year of the horizon."""

from decimal import Decimal

import pytest

from quoting.designs.services.designs import design_bom_priced, design_compute
from quoting.designs.services.tco import design_tco_body, tco_compute
from quoting.engine.fabric import FabricRequirements
from quoting.engine.install import SiteInputs

# Network-bound (small batch, no overlap) so that what the spine layer costs shows.
HARD_JOB = {"params_billion": 7, "tokens_per_node_per_step": 16_384, "overlap": 0.0}


def design_body(gpus: int, ratio: float = 1, **workload) -> dict:
    design = design_compute(requirements=FabricRequirements(gpu_count=gpus, oversubscription=ratio))
    priced = design_bom_priced(design=design, currency="CNY")
    body = design_tco_body(design=design, bom_total=priced.total, currency="CNY",
                           yearly_total=priced.yearly_total)  # fmt: skip
    body["workload"] |= workload
    return body


def this_design(body: dict):
    return tco_compute(data=body).options[0]


def test_1_to_1_2_to_1_and_3_to_1_designs_no_longer_score_identically(seeded):
    """1,024 GPUs (128 nodes, four or more rail groups): every step of the ratio costs a
    multi-leaf job bandwidth, so the cheaper oversubscribed fabric is not simply cheaper."""
    bodies = [design_body(1024, ratio, **HARD_JOB) for ratio in (1, 2, 3)]
    options = [this_design(body) for body in bodies]

    assert [b["fabrics"][0]["oversubscription"] for b in bodies] == [1.0, 2.0, 3.0]
    efficiency = [o.network_efficiency for o in options]
    busbw = [o.predicted_busbw_gbytes for o in options]
    assert efficiency == sorted(efficiency, reverse=True) and len(set(efficiency)) == 3
    assert busbw == sorted(busbw, reverse=True) and len(set(busbw)) == 3


def test_a_design_passes_its_rail_group_as_the_servers_under_one_leaf(seeded):
    """NVIDIA's SU: a QM9700 leaf gives 32 ports to servers at 1:1, so 32 servers share a rail
    group; a 256-GPU (32-node) design fits in one, and its 2:1 version loses nothing."""
    body = design_body(256)
    assert body["fabrics"][0]["servers_per_leaf"] == 32
    assert this_design(design_body(256, 2, **HARD_JOB)).network_efficiency == pytest.approx(
        this_design(design_body(256, 1, **HARD_JOB)).network_efficiency
    )


def test_the_ufm_endpoint_licence_is_yearly_opex_not_capex(seeded):
    """384 GPUs need UFM (above 300 endpoints) and leave leaf ports for its hosts: 384 licences
    at 2,160 CNY a year each."""
    design = design_compute(requirements=FabricRequirements(gpu_count=384))
    priced = design_bom_priced(design=design, currency="CNY")
    licences = Decimal(384 * 2160)
    assert design.subnet_manager == "ufm-licence"
    assert priced.yearly_total == licences

    body = design_tco_body(design=design, bom_total=priced.total, currency="CNY",
                           yearly_total=priced.yearly_total)  # fmt: skip
    option = body["fabrics"][0]
    assert Decimal(option["network_capex"]) == priced.total - licences
    assert Decimal(option["network_opex_per_year"]) == licences

    result = tco_compute(data=body).options[0]
    life = body.get("costs", {}).get("life_years", 5)
    assert result.annual_cost_breakdown.licences == licences
    assert result.tco_n_years - result.capex == life * result.annual_cost_breakdown.operating
    assert result.tco_n_years >= result.capex + life * licences


def test_a_design_without_yearly_lines_has_no_licence_opex(seeded):
    option = design_body(256)["fabrics"][0]
    assert "network_opex_per_year" not in option


def test_a_quote_from_an_oversubscribed_design_keeps_the_ratio_in_its_tco(project):
    from quoting.designs.services.saved import design_save
    from quoting.quotes.services.quotes import quote_create_from_design

    saved = design_save(project=project, name="2:1", user=project.owner,
                        requirements={"gpu_count": 1016, "oversubscription": 2})  # fmt: skip
    quote = quote_create_from_design(project=project, design=saved, user=project.owner)
    request = quote.current_revision.tco.request

    assert request["fabrics"][0]["oversubscription"] == 2.0
    # 127 servers leave a leaf port for the UFM hosts (1,024 GPUs would not): UFM licences.
    assert "network_opex_per_year" in request["fabrics"][0]


def test_a_design_names_its_server_and_the_tco_powers_it_from_the_catalog(seeded):
    """Issue 26: a DGX B200 design's TCO took 8 kW per server; it now names the server it prices
    and takes the catalog's 11 kW typical (NVIDIA DGX B200 User Guide: 14.3 kW max). A design
    without a chosen server is priced and powered as the cheapest server with its GPUs."""
    design = design_compute(
        requirements=FabricRequirements(gpu_count=256, server_part_number="DGX-B200"),
        site=SiteInputs(rack_power_kw=40),  # a 14.3 kW server: not on the 12 kW IDC rack
    )
    priced = design_bom_priced(design=design, currency="CNY")
    body = design_tco_body(design=design, bom_total=priced.total, currency="CNY",
                           yearly_total=priced.yearly_total)  # fmt: skip
    assert body["server"] == "DGX-B200"

    result = tco_compute(data=body)
    (power,) = [a for a in result.assumptions if a.key == "costs.server_power_kw"]
    assert power.value == Decimal("11") and "DGX-B200" in str(power.label)
    commodity = result.options[-1]  # no network power: its energy is the servers' alone
    kw, pue, tariff = Decimal(11), Decimal("1.3"), Decimal("0.7")
    assert commodity.annual_cost_breakdown.energy == 32 * kw * pue * 8760 * tariff  # 2,806,003.20

    assert design_body(256)["server"] == "HGX-H100-8GPU-SRV"  # the cheapest H100 server priced

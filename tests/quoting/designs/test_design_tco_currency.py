"""The design page's "what the network is worth" in USD as well as CNY (issue 26): the TCO's
tariff and value of a GPU-hour are CNY defaults, and a USD page takes them converted at the
catalog's reference rate (the rate its USD and CNY list prices are set at) instead of failing
with "USD needs a tariff and a GPU-hour value"."""

from decimal import Decimal

import pytest

from quoting.engine.tco.presets import CNY_PER_USD
from tests.quoting.designs.test_design_page import DESIGN_QUERY  # 256 H100 GPUs, Quantum-2

CENT = Decimal("0.01")
# Parts of the annual cost, capex and the figures made of them: each in USD is the CNY figure
# at the stated rate, to the cent.
AT_THE_RATE = ("capex", "annual_cost", "value_lost_per_year")
PARTS = ("capital", "support", "server_support", "energy", "space", "licences")
# The N-year TCO and the NPV add the yearly parts, each rounded to the cent, over the life: the
# two currencies' roundings may part by a cent a year.
OVER_THE_LIFE = ("tco_n_years", "npv")
LIFE_YEARS = 5


def _panel(client, currency: str):
    response = client.get(f"/designs/tco/?{DESIGN_QUERY}&currency={currency}")
    assert response.status_code == 200
    return response


@pytest.mark.parametrize("currency", ["CNY", "USD"])
def test_the_design_pages_tco_shows_figures_and_no_error_in_either_currency(
    sales_client, seeded, currency
):
    response = _panel(sales_client, currency)
    body = response.content.decode()

    assert not response.context.get("error") and "error-box" not in body
    assert response.context["result"].currency == currency
    assert f" {currency}</td>" in body and "This design (Quantum-2)" in body


def test_the_usd_figures_are_the_cny_ones_at_the_stated_rate_to_the_cent(sales_client, seeded):
    cny = _panel(sales_client, "CNY").context["result"]
    usd = _panel(sales_client, "USD").context["result"]

    def at_rate(amount: Decimal) -> Decimal:
        return (amount / CNY_PER_USD).quantize(CENT)

    assert [o.name for o in usd.options] == [o.name for o in cny.options]
    for c, u in zip(cny.options, usd.options, strict=True):
        for name in AT_THE_RATE:
            assert getattr(u, name).quantize(CENT) == at_rate(getattr(c, name)), (c.name, name)
        for name in PARTS:
            part_c, part_u = (getattr(o.annual_cost_breakdown, name) for o in (c, u))
            assert part_u.quantize(CENT) == at_rate(part_c), (c.name, name)
        for name in OVER_THE_LIFE:
            apart = abs(getattr(u, name) - at_rate(getattr(c, name)))
            assert apart <= LIFE_YEARS * CENT, (c.name, name)
        # 4 decimals per GPU-hour: the same to the cent.
        assert u.cost_per_effective_gpu_hour.quantize(CENT) == at_rate(
            c.cost_per_effective_gpu_hour
        )
        assert u.network_efficiency == c.network_efficiency
    assert cny.options[-1].value_lost_per_year > 0  # the commodity build loses value: compared


def test_the_assumptions_say_the_usd_defaults_are_converted_and_at_what_rate(seeded):
    from quoting.designs.services.designs import design_bom_priced, design_compute
    from quoting.designs.services.tco import design_tco_body, tco_compute
    from quoting.engine.fabric import FabricRequirements

    design = design_compute(requirements=FabricRequirements(gpu_count=256))
    rows = {}
    for currency in ("CNY", "USD"):
        priced = design_bom_priced(design=design, currency=currency)
        body = design_tco_body(design=design, bom_total=priced.total, currency=currency)
        rows[currency] = {a.key: a for a in tco_compute(data=body).assumptions}

    usd, cny = rows["USD"], rows["CNY"]
    assert usd["costs.cny_per_unit"].value == Decimal("7.2")
    assert usd["costs.cny_per_unit"].unit == "CNY/USD"
    assert usd["costs.tariff_per_kwh"].value == Decimal("0.7") / Decimal("7.2")  # not rounded
    assert "converted at 7.2 CNY/USD" in str(usd["costs.tariff_per_kwh"].label)
    assert "converted at 7.2 CNY/USD" in str(usd["costs.gpu_hour_value"].label)
    assert "costs.cny_per_unit" not in cny  # CNY takes its own defaults: nothing converted
    assert str(cny["costs.tariff_per_kwh"].label) == "Electricity tariff"

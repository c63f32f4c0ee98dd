"""The UFM option a design leaves out is priced beside it, as the non-rail and rack-scale ones are.

docs/fabric-design.md rule 8: UFM licences come only with their two hosts quoted and cabled.
256 NDR GPUs fill every leaf port, so UFM licences asked are not quoted; the design and its
saved page show what UFM would add (a licence per endpoint, two hosts, their two NICs) at list
price, in the page's language."""

from __future__ import annotations

from decimal import Decimal

import pytest

from catalog.models import PriceListItem
from quoting.designs.services.designs import design_compute
from quoting.engine.fabric import FabricRequirements

PAGE = (
    "/designs/new/?gpu_count=256&gpus_per_server=8&nic_generation=NDR&family=infiniband"
    "&planes=1&oversubscription=1&subnet_manager={subnet_manager}&spares_percent=0"
    "&rail_optimized=on&currency=USD"
)
SENTENCE = {
    "en": "UFM option, not in the bill of materials (its parts are in the warnings): "
    "list total {total} USD.",
    "zh-hans": "UFM 方案（不在物料清单中，所含部件见警告）：目录价合计 {total} USD。",
}


def option_at_list_price(design) -> Decimal:
    """The option's lines at the catalog's USD list price, line by line."""
    return sum(
        PriceListItem.objects.get(
            product__part_number=line.sku, price_list__currency="USD"
        ).list_price
        * line.quantity
        for line in design.ufm_option
    )


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_design_page_prices_the_ufm_option_beside_the_design(sales_client, seeded, language):
    design = design_compute(
        requirements=FabricRequirements(gpu_count=256, subnet_manager="ufm-licence")
    )
    assert [line.sku for line in design.ufm_option] == [
        "UFM-ENT-LIC-EP",
        "UFM-HOST-1U",
        "MCX75310AAS-NEAT",
    ]
    total = option_at_list_price(design)

    body = sales_client.get(
        PAGE.format(subnet_manager="ufm-licence"), HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()

    assert 'id="ufm-option"' in body
    assert SENTENCE[language].format(total=f"{total:,.2f}") in body


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_saved_design_page_prices_it_too(client, project, language):
    from quoting.designs.services.saved import design_save

    client.force_login(project.owner)
    saved = design_save(
        project=project,
        name="256 NDR, UFM asked",
        requirements={"gpu_count": 256, "subnet_manager": "ufm-licence"},
        user=project.owner,
    )
    design = design_compute(
        requirements=FabricRequirements(gpu_count=256, subnet_manager="ufm-licence")
    )
    total = option_at_list_price(design)

    body = client.get(
        f"/designs/new/?design={saved.pk}&currency=USD", HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()

    assert SENTENCE[language].format(total=f"{total:,.2f}") in body


def test_a_design_that_quotes_ufm_shows_no_option(sales_client, seeded):
    # 248 GPUs leave the hosts a leaf port: UFM is in the bill of materials.
    body = sales_client.get(
        PAGE.replace("gpu_count=256", "gpu_count=248").format(subnet_manager="ufm-licence")
    ).content.decode()
    assert 'id="ufm-option"' not in body and "UFM-HOST-1U" in body

"""A quote made from a design whose bill of materials reaches beyond the network (GPU servers,
per-GPU cluster software, UFM licences per endpoint), a line added by hand in the network section
and one in services, and a second design of the project offered as the alternative "Larger".

Prices (CNY, VAT 13 % on goods and software, 6 % on services; no discount):

- chosen design: 4 switches x 10,000.00, 2 GPU servers x 1,000,000.00, 16 per-GPU licences x
  500.00, 16 UFM licences x 100.00: 2,049,600.00 (servers in GPU servers, licences per GPU in
  cluster management, switches and UFM in network);
- by hand: a cabling kit 1,000.00 (network) and installation 5,000.00 (services);
- the alternative: 6 switches, 3 servers, 24 + 24 licences: 3,074,400.00.
"""

from __future__ import annotations

from decimal import Decimal

from catalog.models import Category, SparesRatio, Unit
from quoting.designs.models import SavedDesign
from quoting.quotes.models import Section
from quoting.quotes.services.quotes import (
    quote_add_alternative,
    quote_add_free_text,
    quote_create_from_design,
)
from tests.quoting.factories import ProductFactory, price_set

AS_QUOTED_SUBTOTAL = Decimal("2055600.00")  # 2,049,600.00 + 1,000.00 + 5,000.00
# 2,050,600.00 of goods at 13 % (266,578.00) and 5,000.00 of services at 6 % (300.00).
AS_QUOTED_TOTAL = Decimal("2322478.00")
ALTERNATIVE_SUBTOTAL = Decimal("3074400.00")
# The alternative's 3,074,400.00 with the two lines added by hand: 3,080,400.00; 3,075,400.00 of
# goods at 13 % (399,802.00) and 5,000.00 of services at 6 % (300.00).
LARGER_SUBTOTAL = Decimal("3080400.00")
LARGER_TOTAL = Decimal("3480502.00")


def _bom(switches: int, servers: int) -> list[dict]:
    gpus = servers * 8
    return [
        {"sku": "SW-A", "category": "switch", "quantity": switches, "role": "leaf", "name": "Leaf"},
        {
            "sku": "SRV-8",
            "category": "server",
            "quantity": servers,
            "role": "server",
            "name": "GPU",
        },
        {
            "sku": "BCM-GPU",
            "category": "software",
            "quantity": gpus,
            "role": "licence",
            "name": "B",
        },
        {"sku": "UFM-EP", "category": "software", "quantity": gpus, "role": "subnet manager"},
    ]


def _design(project, name: str, *, switches: int, servers: int, nodes: bool) -> SavedDesign:
    result = {"bom": _bom(switches, servers)}
    if nodes:  # one compute node per server, as the fabric designer counts them
        result["node_count"] = servers
    return SavedDesign.objects.create(
        project=project,
        name=name,
        requirements={"gpu_count": servers * 8},
        result=result,
        created_by=project.owner,
    )


def quote_with_a_larger_alternative(world, *, nodes: bool = False):
    """`nodes`: the designs count their compute nodes (2 and 3), so the catalog's services
    priced per node, if any, come with the quote."""
    price_set(ProductFactory(part_number="SW-A", category=Category.SWITCH), "CNY", "10000.00")
    server = ProductFactory(part_number="SRV-8", category=Category.SERVER, gpu_count=8)
    price_set(server, "CNY", "1000000.00")
    licence = ProductFactory(part_number="BCM-GPU", category=Category.SOFTWARE, unit=Unit.GPU_YEAR)
    price_set(licence, "CNY", "500.00")
    ufm = ProductFactory(part_number="UFM-EP", category=Category.SOFTWARE, unit=Unit.ENDPOINT)
    price_set(ufm, "CNY", "100.00")
    SparesRatio.objects.update(percent=0)  # no spares kit: the figures are the lines' own
    chosen = _design(world.project, "2 servers", switches=4, servers=2, nodes=nodes)
    larger = _design(world.project, "3 servers", switches=6, servers=3, nodes=nodes)
    quote = quote_create_from_design(
        project=world.project, design=chosen, user=world.sales, currency="CNY"
    )
    for description, price, section in (
        ("Rack cabling kit", "1000.00", Section.NETWORK),
        ("Installation", "5000.00", Section.SERVICES),
    ):
        quote_add_free_text(
            quote=quote,
            description=description,
            quantity=1,
            unit_price=price,
            section=section,
            user=world.sales,
            expected_version=quote.version,
        )
    quote_add_alternative(
        quote=quote, design=larger, label="Larger", user=world.sales, expected_version=quote.version
    )
    quote.refresh_from_db()
    return quote

"""Fabric designs: the catalog, turned into engine specs, fed to the pure-Python engine."""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from catalog.models import Category, Lifecycle, Product
from catalog.selectors import price_lookup, product_specs
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricDesign, FabricRequirements, design_fabric
from quoting.engine.money import round_money
from quoting.engine.tco.presets import (
    MAX_OVERSUBSCRIPTION,
    MAX_SERVERS_PER_LEAF,
    WORKLOAD_PRESETS,
)


def design_compute(*, requirements: FabricRequirements) -> FabricDesign:
    """Design a fabric from the current catalog. Raises InvalidInput naming the bad field."""
    return design_fabric(requirements, product_specs())


def design_server_defaults(*, part_number: str, family: str) -> dict:
    """What a catalog server says about fields a request leaves out: its GPUs per server and
    its NIC generation (on Ethernet, the Ethernet generation of the same speed). Empty for a
    part that is not a catalog server: the engine refuses it on its field."""
    server = Product.objects.filter(part_number=part_number, category=Category.SERVER).first()
    if server is None:
        return {}
    defaults = {}
    if server.gpu_count:
        defaults["gpus_per_server"] = server.gpu_count
    if server.generation:
        defaults["nic_generation"] = (
            server.generation if family == "infiniband"
            else ALTERNATIVE_GENERATION.get(server.generation, server.generation))
    return defaults


@dataclass(frozen=True, slots=True)
class PricedBomLine:
    sku: str
    name: str
    category: str
    role: str
    quantity: int
    unit_price: Decimal | None
    amount: Decimal | None
    is_reference: bool
    paid_yearly: bool = False  # the amount buys one year: a TCO pays it every year


@dataclass(frozen=True, slots=True)
class PricedBom:
    currency: str
    lines: tuple[PricedBomLine, ...]
    total: Decimal  # of the priced lines; `missing` says which are not in it
    missing: tuple[str, ...]
    has_reference_prices: bool
    yearly_total: Decimal = Decimal("0.00")  # the part of `total` paid again every year

    @property
    def one_time_total(self) -> Decimal:
        return self.total - self.yearly_total


def design_bom_priced(*, design: FabricDesign, currency: str) -> PricedBom:
    """The BOM at list prices in one currency: what the design costs before any discount."""
    prices = price_lookup(part_numbers={line.sku for line in design.bom}, currency=currency)
    lines = []
    for line in design.bom:
        price = prices.get(line.sku)
        unit = price.list_price if price else None
        lines.append(PricedBomLine(
            sku=line.sku, name=line.name, category=line.category, role=line.role,
            quantity=line.quantity, unit_price=unit,
            amount=round_money(unit * line.quantity) if unit is not None else None,
            is_reference=bool(price and price.is_reference),
            paid_yearly=bool(price and price.paid_yearly),
        ))
    return PricedBom(
        currency=currency, lines=tuple(lines),
        total=sum((ln.amount for ln in lines if ln.amount is not None), Decimal("0.00")),
        missing=tuple(sorted({ln.sku for ln in lines if ln.amount is None})),
        has_reference_prices=any(ln.is_reference for ln in lines),
        yearly_total=sum(
            (ln.amount for ln in lines if ln.amount is not None and ln.paid_yearly),
            Decimal("0.00"),
        ),
    )


TCO_PRESET = "llm_pretrain_7b"  # the job the design page assumes; the TCO page changes it
# The cheap build the seed's claim is about: two 100G ports per 8-GPU node, commodity Ethernet.
COMMODITY_OPTION = {"name": "2×100G RoCE (commodity)", "transport": "roce",
                    "nics_per_node": 2, "nic_gbps": 100}
# The other fabric family's NIC generation at the same per-port speed.
ALTERNATIVE_GENERATION = {"NDR": "400GbE", "XDR": "800GbE", "HDR": "200GbE",
                          "400GbE": "NDR", "800GbE": "XDR", "200GbE": "HDR"}


def design_servers_per_leaf(design: FabricDesign) -> int:
    """Servers a job can span without crossing the spine layer (the TCO's cross-leaf share)."""
    t = design.topology
    if t.tiers == 1:
        return t.servers  # one switch per plane: no spine to cross
    if t.rail_optimized:
        return t.leaf_capacity  # a rail group: each server has one port on each rail's leaf
    return max(1, t.leaf_capacity // t.rails)  # a server's ports all on one leaf


def tco_option_from_design(
    *, name: str, design_dict: dict, network_capex: Any, transport: str | None = None,
    network_opex_per_year: Any = 0, servers_per_leaf: int | None = None,
) -> dict:
    """A `fabrics` entry of the TCO body from a fabric design's `as_dict()` and its quoted price.

    Per-node bandwidth is what the model needs, so every endpoint port of a node (over all
    planes) counts as one NIC at the design's port speed. Only InfiniBand designs run a subnet
    manager, which tells the transport when the caller does not; Ethernet is taken as tuned RoCE,
    since that is what we design and quote. The leaf's achieved oversubscription comes with it
    (a leaf cabled with spare uplinks counts as non-blocking); `network_opex_per_year` is the
    part of the price sold per year, `servers_per_leaf` what one leaf or rail group serves.
    """
    ports_per_node = design_dict["endpoint_ports"] // design_dict["node_count"]
    option = {
        "name": name,
        "transport": transport or ("infiniband" if design_dict["subnet_manager"] else "roce"),
        "nics_per_node": ports_per_node,
        "nic_gbps": design_dict["injection_gbps"] / design_dict["endpoint_ports"],
        "network_capex": str(network_capex),
        "network_power_w": design_dict["power_w"]["typical"],
        "oversubscription": min(
            MAX_OVERSUBSCRIPTION, max(1.0, float(design_dict["oversubscription"]))
        ),
    }
    if network_opex_per_year:
        option["network_opex_per_year"] = str(network_opex_per_year)
    if servers_per_leaf is not None:
        option["servers_per_leaf"] = min(servers_per_leaf, MAX_SERVERS_PER_LEAF)
    return option


def design_tco_option(*, name: str, design: FabricDesign, priced: PricedBom) -> dict:
    """A `fabrics` entry of the TCO body from a design and its priced BOM: lines sold per year
    (UFM per-endpoint licences) are yearly opex, the rest is capex; the leaf's oversubscription
    and servers come from the topology."""
    return tco_option_from_design(
        name=name, design_dict=design.as_dict(), network_capex=priced.one_time_total,
        network_opex_per_year=priced.yearly_total,
        servers_per_leaf=design_servers_per_leaf(design),
    )  # fmt: skip


def design_tco_body(*, design: FabricDesign, bom_total: Decimal, currency: str,
                    gpu: str = "H100", yearly_total: Decimal = Decimal(0)) -> dict:
    """A TCO request comparing this design with the other fabric family and a commodity build.

    Each designed option carries its own list-priced network capex and power, so the payback
    of the premium is real; the commodity build has no design and no capex (the model says so).
    `yearly_total` is the part of `bom_total` sold per year (design_bom_priced says which).
    """
    req = design.requirements
    this = design.as_dict()
    if design.server is not None and design.server.gpu_model:
        gpu = design.server.gpu_model  # the chosen server's GPUs and price, not the cheapest
    fabrics = [tco_option_from_design(name=f"This design ({design.switch.family})",
                                      design_dict=this, network_capex=bom_total - yearly_total,
                                      network_opex_per_year=yearly_total,
                                      servers_per_leaf=design_servers_per_leaf(design))]
    other_family = "ethernet" if req.family == "infiniband" else "infiniband"
    other_generation = ALTERNATIVE_GENERATION.get(req.nic_generation)
    if other_generation:
        try:
            other = design_compute(requirements=replace(
                req, family=other_family, nic_generation=other_generation, planes=1,
                switch_part_number=None, nic_part_number=None,
                subnet_manager="auto"))
        except InvalidInput:
            other = None  # the catalog cannot build it: compare with what it can
        if other is not None:
            label = "RoCE" if other_family == "ethernet" else "InfiniBand"
            fabrics.append(design_tco_option(
                name=f"{label} on {other.switch.family}", design=other,
                priced=design_bom_priced(design=other, currency=currency)))
            if other_family == "ethernet":
                fabrics.append({**fabrics[-1], "name": f"{fabrics[-1]['name']} untuned",
                                "transport": "roce_untuned"})
    fabrics.append(dict(COMMODITY_OPTION))
    costs = {"currency": currency}
    # The servers dominate the cost of compute: without them a cheap network looks cheap.
    server_price = _server_price(gpu=gpu, gpus_per_server=req.gpus_per_server, currency=currency,
                                 part_number=req.server_part_number)
    if server_price is not None:
        costs["server_capex"] = str(server_price * this["node_count"])
    return {"gpu": gpu, "nodes": this["node_count"], "gpus_per_node": req.gpus_per_server,
            "workload": dict(WORKLOAD_PRESETS[TCO_PRESET].workload), "fabrics": fabrics,
            "costs": costs}


def _server_price(*, gpu: str, gpus_per_server: int, currency: str,
                  part_number: str | None = None) -> Decimal | None:
    """List price of the chosen server, else of the catalog's cheapest server with these GPUs,
    or None."""
    servers = Product.objects.filter(category=Category.SERVER)
    if part_number:
        servers = servers.filter(part_number=part_number)
    else:
        servers = servers.filter(gpu_model=gpu, gpu_count=gpus_per_server)
    part_numbers = servers.exclude(lifecycle=Lifecycle.EOL).values_list("part_number", flat=True)
    prices = price_lookup(part_numbers=list(part_numbers), currency=currency)
    return min((p.list_price for p in prices.values()), default=None)

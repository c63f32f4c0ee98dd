"""Tuning and acceptance services priced by the cluster's size (issue 26 item 8).

The seed brief sells NCCL communication tuning, a firmware compatibility audit and RDMA
bandwidth stress tests with every cluster it delivers (catalog/data/SOURCES.md, "Services per
node"). The catalog prices them per GPU node (unit "node"); a quote made from a design offers
each, one per compute node of the design, as an optional line at the catalog's reference price.
"""

from __future__ import annotations

import csv
import importlib
from decimal import Decimal

import pytest
from django.apps import apps

from catalog.models import Product, Unit
from quoting.designs.services.saved import design_save
from quoting.quotes.models import LineKind, LineOrigin, QuoteEventVerb, Section
from quoting.quotes.services.quotes import (
    quote_add_product,
    quote_create,
    quote_create_from_design,
)

add_services = importlib.import_module("catalog.migrations.0012_services_per_node").add_services
PER_NODE = {"SVC-NCCL-TUNING-1N", "SVC-FW-AUDIT-1N", "SVC-RDMA-TEST-1N"}


@pytest.fixture(name="world")
def world_on_the_catalog(seeded, world):
    return world


def _quote(world, gpu_count=256, currency="CNY"):
    design = design_save(
        project=world.project,
        name=f"{gpu_count} GPUs",
        user=world.sales,
        requirements={"gpu_count": gpu_count, "nic_generation": "NDR"},
    )
    quote = quote_create_from_design(
        project=world.project, design=design, user=world.sales, currency=currency
    )
    return design, quote.current_revision


def _services(revision):
    return {ln.sku: ln for ln in revision.lines.filter(product__unit=Unit.NODE)}


def test_the_catalog_prices_the_briefs_three_services_per_node_as_reference_prices(seeded):
    services = Product.objects.filter(category="service", unit=Unit.NODE)
    assert set(services.values_list("part_number", flat=True)) == PER_NODE
    for product in services:
        assert {p.price_list.currency for p in product.prices.all()} == {"CNY", "USD"}
        assert all(p.price_list.is_reference for p in product.prices.all())


@pytest.mark.parametrize("gpu_count", [64, 256])
def test_each_service_is_offered_once_per_node_of_the_design(world, gpu_count):
    design, revision = _quote(world, gpu_count)
    services = _services(revision)

    assert design.result["node_count"] == gpu_count // 8
    assert set(services) == PER_NODE
    for ln in services.values():
        assert ln.quantity == design.result["node_count"]
        assert (ln.section, ln.kind) == (Section.OPTIONAL, LineKind.SERVICE)
        # Sized from the chosen design: an alternative does not take their place (#26).
        assert ln.origin == LineOrigin.NODE_SERVICES
    kit = revision.lines.filter(role__startswith="spares-kit:")
    assert kit.exists() and set(kit.values_list("origin", flat=True)) == {LineOrigin.SPARES_KIT}
    bom = revision.lines.exclude(section=Section.OPTIONAL)
    assert set(bom.values_list("origin", flat=True)) == {LineOrigin.DESIGN}


@pytest.mark.parametrize("currency", ["CNY", "USD"])
def test_a_services_unit_price_is_the_catalogs_reference_price(world, currency):
    _, revision = _quote(world, currency=currency)

    for sku, ln in _services(revision).items():
        price = Product.objects.get(part_number=sku).prices.get(
            price_list__currency=currency, price_list__is_default=True
        )
        assert ln.unit_price == ln.list_price == price.list_price
        assert "(reference)" in ln.price_source


def test_the_services_leave_the_designs_totals_alone(world):
    design, revision = _quote(world)
    required = revision.lines.exclude(section=Section.OPTIONAL)

    assert not required.filter(product__category="service").exists()
    assert revision.design_list_value == sum(ln.quantity * ln.list_price for ln in required)
    event = revision.quote.events.get(verb=QuoteEventVerb.LINES_FROM_DESIGN)
    assert event.details["service_lines"] == len(PER_NODE)


def test_a_service_the_catalog_manager_prices_per_project_is_not_offered(world):
    Product.objects.filter(part_number="SVC-FW-AUDIT-1N").update(unit=Unit.PROJECT)
    _, revision = _quote(world)

    assert set(_services(revision)) == PER_NODE - {"SVC-FW-AUDIT-1N"}
    assert not revision.lines.filter(sku="SVC-FW-AUDIT-1N").exists()


def test_a_quote_without_a_design_sells_a_per_node_service_as_typed(world):
    quote = quote_create(project=world.project, user=world.sales)
    line = quote_add_product(
        quote=quote,
        sku="SVC-NCCL-TUNING-1N",
        quantity=4,
        user=world.sales,
        expected_version=quote.version,
    )

    assert [(ln.sku, ln.quantity) for ln in quote.current_revision.lines.all()] == [
        ("SVC-NCCL-TUNING-1N", 4)
    ]
    assert line.section == Section.SERVICES


def test_the_migration_adds_the_services_to_a_database_seeded_before_them_as_the_seed_has_them(
    seeded,
):
    Product.objects.filter(part_number__in=PER_NODE).delete()
    add_services(apps, None)
    with open("catalog/data/nvidia_catalog.csv", newline="", encoding="utf-8") as seed:
        rows = {r["part_number"]: r for r in csv.DictReader(seed) if r["part_number"] in PER_NODE}

    for sku, row in rows.items():
        product = Product.objects.get(part_number=sku)
        assert (product.name, product.name_zh, product.unit) == (
            row["name"],
            row["name_zh"],
            "node",
        )
        prices = {p.price_list.currency: p for p in product.prices.all()}
        assert prices["USD"].list_price == Decimal(row["list_price_usd"])
        assert prices["CNY"].list_price == Decimal(row["list_price_cny"])


def test_the_migration_leaves_an_unseeded_database_alone(db):
    add_services(apps, None)
    assert not Product.objects.filter(part_number__in=PER_NODE).exists()

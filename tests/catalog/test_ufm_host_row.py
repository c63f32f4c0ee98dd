"""The UFM host server: a catalog server without GPUs, for the hosts UFM licences run on.

NVIDIA UFM Enterprise User Manual, "Fabric Topology with UFM" (a UFM Server and a UFM HA
Server) and "Bare Metal Deployment Requirements" (x86_64, a ConnectX HCA); catalog/data/
SOURCES.md, "UFM-HOST-1U". A server's GPU columns are given together or not at all; the TCO
page offers GPU servers only. Migration 0009 adds the row to a database seeded before it."""

from __future__ import annotations

import importlib
from decimal import Decimal

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError

from catalog.models import PriceListItem, Product
from catalog.selectors import servers_with_power

HOST = "UFM-HOST-1U"
add_ufm_host = importlib.import_module("catalog.migrations.0009_ufm_host_server").add_ufm_host


def test_the_seed_holds_the_ufm_host_as_a_server_without_gpus_at_reference_prices(seeded):
    host = Product.objects.get(part_number=HOST)
    assert (host.category, host.family, host.gpu_count, host.rack_units) == (
        "server",
        "UFM",
        None,
        1,
    )
    host.full_clean()
    prices = {p.price_list.currency: p for p in PriceListItem.objects.filter(product=host)}
    assert prices["USD"].list_price == Decimal("12000.00") and prices["USD"].price_list.is_reference


@pytest.mark.parametrize("missing", ["gpu_model", "gpu_count", "gpu_peak_tflops"])
def test_a_server_with_some_gpu_columns_must_give_them_all(seeded, missing):
    server = Product.objects.get(part_number="HGX-H100-8GPU-SRV")
    setattr(server, missing, "" if missing == "gpu_model" else None)
    with pytest.raises(ValidationError) as error:
        server.full_clean()
    assert "GPUs need" in error.value.message_dict[missing][0]


def test_the_tco_pages_server_choice_leaves_the_ufm_host_out(seeded):
    offered = {part for part, _name in servers_with_power()}
    assert HOST not in offered and "DGX-B200" in offered


def test_the_migration_adds_the_host_to_a_database_seeded_before_it(seeded):
    Product.objects.filter(part_number=HOST).delete()
    add_ufm_host(apps, None)
    host = Product.objects.get(part_number=HOST)
    assert host.category == "server" and host.power_max_w == Decimal("600")
    assert {p.price_list.currency for p in PriceListItem.objects.filter(product=host)} == {
        "USD",
        "CNY",
    }


def test_the_migration_leaves_an_unseeded_database_alone(db):
    add_ufm_host(apps, None)
    assert not Product.objects.filter(part_number=HOST).exists()

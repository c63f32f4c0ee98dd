"""Specs are validated per category: a bad product is refused when saved, not later."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from catalog.models import Product
from catalog.selectors import product_specs


def switch(**overrides) -> Product:
    values = dict(
        part_number="TEST-SW",
        name="Test switch",
        category="switch",
        generation="NDR",
        protocol="infiniband",
        port_count=64,
        port_speed_gbps=400,
        cage_type="OSFP",
        cage_count=32,
        managed=True,
        rack_units=1,
        power_typical_w=Decimal("747"),
        power_max_w=Decimal("1720"),
    )
    values.update(overrides)
    return Product(**values)


@pytest.mark.django_db
def test_a_complete_switch_is_valid():
    switch().full_clean()


@pytest.mark.django_db
def test_a_switch_without_a_port_count_is_an_error_naming_the_field():
    with pytest.raises(ValidationError) as error:
        switch(port_count=None).full_clean()
    assert "port_count" in error.value.message_dict
    assert "switch needs a value for ports" in error.value.message_dict["port_count"][0]


@pytest.mark.django_db
def test_a_switch_must_say_whether_it_is_managed():
    with pytest.raises(ValidationError) as error:
        switch(managed=None).full_clean()
    assert "managed" in error.value.message_dict


@pytest.mark.django_db
def test_ports_must_divide_evenly_into_cages():
    with pytest.raises(ValidationError) as error:
        switch(port_count=63).full_clean()
    assert "cage_count" in error.value.message_dict


@pytest.mark.django_db
def test_maximum_power_cannot_be_below_typical():
    with pytest.raises(ValidationError) as error:
        switch(power_max_w=Decimal("100")).full_clean()
    assert "power_max_w" in error.value.message_dict


@pytest.mark.django_db
def test_a_transceiver_needs_media_reach_and_form_factor():
    product = Product(
        part_number="OPT-1",
        name="Optic",
        category="transceiver",
        generation="NDR",
        port_speed_gbps=400,
        cage_type="OSFP",
        power_typical_w=Decimal("15"),
    )
    with pytest.raises(ValidationError) as error:
        product.full_clean()
    assert {"media", "reach_m", "form_factor", "ports_per_module"} <= set(error.value.message_dict)


@pytest.mark.django_db
def test_a_service_needs_no_technical_specs():
    Product(part_number="SVC-X", name="Tuning", category="service", unit="project").full_clean()


@pytest.mark.django_db
def test_part_numbers_are_unique_and_plain():
    with pytest.raises(ValidationError) as error:
        switch(part_number="bad part/number").full_clean()
    assert "part_number" in error.value.message_dict


def test_the_seed_catalog_has_at_least_forty_real_products(seeded):
    assert seeded.created >= 40
    categories = set(Product.objects.values_list("category", flat=True))
    assert categories == {
        "switch",
        "adapter",
        "dpu",
        "transceiver",
        "cable",
        "server",
        "software",
        "service",
        "support",
        "psu_fan",
    }
    for pn in (
        "MQM9700-NS2F",
        "MQM9790-NS2F",
        "MQM8700-HS2F",
        "MQM8790-HS2F",
        "920-9B36F-00RX-8S0",
        "MCX75310AAS-NEAT",
        "MMA4Z00-NS",
        "MMA4Z00-NS400",
        "MMS4X00-NM",
        "MCP4Y10-N002",
        "MCP7Y00-N003",
        "MCA4J80-N005",
        "MFS1S00-H010",
        "UFM-ENT-LIC-EP",
        "SUP-PREM-1Y",
        "SVC-NCCL-TUNING",
    ):
        assert Product.objects.filter(part_number=pn).exists(), pn


def test_every_seed_product_passes_its_own_validation(seeded):
    for product in Product.objects.all():
        product.full_clean()


def test_the_engine_gets_typed_specs_from_the_catalog(seeded):
    specs = {s.part_number: s for s in product_specs()}
    qm9700 = specs["MQM9700-NS2F"]
    assert (qm9700.port_count, qm9700.port_speed_gbps, qm9700.cage_count) == (64, 400, 32)
    assert qm9700.managed is True and specs["MQM9790-NS2F"].managed is False
    assert qm9700.ports_per_cage == 2
    assert isinstance(qm9700.power_typical_w, float) and qm9700.power_typical_w == 747.0
    assert specs["MMA4Z00-NS"].ports_per_module == 2
    assert specs["MMA4Z00-NS"].form_factor == "finned"
    assert specs["MCP7Y00-N003"].breakout == 2


def test_end_of_life_products_are_not_designable(seeded):
    Product.objects.filter(part_number="MQM8790-HS2F").update(lifecycle="eol")
    assert "MQM8790-HS2F" not in {s.part_number for s in product_specs()}
    assert "MQM8790-HS2F" in {s.part_number for s in product_specs(include_eol=True)}

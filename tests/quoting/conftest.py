"""Fixtures of the quoting tests."""

import pytest


@pytest.fixture
def h100_catalog(db):
    """One H100 server: all the TCO model reads from the catalog, ten times faster to load
    than the whole seed (`seeded`), which the TCO tests need only where a design is made."""
    from catalog.models import Category, Product

    return Product.objects.create(
        part_number="HGX-H100-TEST", name="8-GPU HGX H100 server", category=Category.SERVER,
        gpu_model="H100", gpu_count=8, gpu_peak_tflops=989, power_max_w=10200,
    )  # fmt: skip


@pytest.fixture
def api(qw):
    """An API client holding a write token of the quote world's sales user."""
    from tests.quoting.api_world import token_client

    return token_client(qw.world.sales)


@pytest.fixture
def project(seeded, make_user):
    """A project over the shipped catalog, of a customer whose owner ("owner") is in its team."""
    from tests.quoting.factories import CustomerFactory, ProjectFactory

    owner = make_user("owner")
    customer = CustomerFactory(owner=owner)
    customer.team.members.add(owner)
    return ProjectFactory(customer=customer)

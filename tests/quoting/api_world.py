"""A small world for API tests: two teams, tokens, and a quote made from a saved design."""

from __future__ import annotations

from dataclasses import dataclass

from rest_framework.test import APIClient

from catalog.models import SparesRatio
from integrations.services import api_token_issue
from quoting.customers.models import Contact
from quoting.designs.models import SavedDesign
from quoting.quotes.models import Quote
from quoting.quotes.services.quotes import quote_create_from_design
from tests.quoting.factories import ProductFactory, World, price_set, world_make

BOM = [
    {"sku": "SW-1", "category": "switch", "quantity": 2, "role": "leaf", "name": "Leaf switch"},
    {"sku": "CB-1", "category": "cable", "quantity": 8, "role": "server-leaf", "name": "Cable"},
]


def token_client(user, scope: str = "write") -> APIClient:
    _token, raw = api_token_issue(user=user, scope=scope, name="test CRM")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def design_make(project, name: str = "Design A") -> SavedDesign:
    price_set(ProductFactory(part_number="SW-1"), "CNY", "10000.00")
    price_set(ProductFactory(part_number="CB-1"), "CNY", "100.00")
    return SavedDesign.objects.create(
        project=project,
        name=name,
        requirements={"gpu_count": 16},
        result={"bom": BOM},
        created_by=project.owner,
    )


@dataclass
class QuoteWorld:
    world: World
    design: SavedDesign
    quote: Quote
    contact: Contact


def quote_world_make(make_user) -> QuoteWorld:
    world = world_make(make_user)
    design = design_make(world.project)
    # The quote is the design's BOM line for line, as the API tests address it by SKU: no spares
    # kit beside it (tests/quoting/quotes/test_spares_kit.py has the kit's own tests).
    SparesRatio.objects.update(percent=0)
    quote = quote_create_from_design(project=world.project, design=design, user=world.sales)
    contact = Contact.objects.create(customer=world.customer, name="Dr. Chen")
    return QuoteWorld(world, design, quote, contact)


def etag_of(response) -> str:
    return response["ETag"]

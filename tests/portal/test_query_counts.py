"""Every page and every API read asks the database a fixed number of questions: as many with
one quote of a few lines as with many customers, projects, designs, quotes, lines, events and
link views (issue 12: query counts stay constant in the number of lines and quotes).

Each read is measured twice, in a small world and again after the world has grown around the
same objects; the two counts must be equal. A read that issues one query per row shows up here
as a difference, named with its URL.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from catalog.models import Product
from proposals.share.services import share_link_create
from quoting.customers.models import Contact
from quoting.designs.services.saved import design_save
from quoting.quotes.models import LineKind, Quote, QuoteEvent, QuoteLine, QuoteRevision, Section
from quoting.quotes.models.audit import QuoteEventVerb
from quoting.quotes.services.quotes import quote_create_from_design, quote_send
from tests.quoting.api_world import token_client
from tests.quoting.factories import CustomerFactory, ProjectFactory, world_make

pytestmark = pytest.mark.django_db

REQUIREMENTS = {
    "server_count": 4,
    "gpus_per_server": 8,
    "nic_generation": "NDR",
    "switch_part_number": "MQM9790-NS2F",
    "subnet_manager": "on-switch",
}


def _design(project, user, name):
    return design_save(project=project, name=name, user=user, requirements=REQUIREMENTS)


class Small:
    """One customer with a contact, a project, a saved design, a sent quote made from it and
    shared once, and a draft; a sales user (browser and token) and a manager."""

    def __init__(self, make_user):
        self.world = world_make(make_user)
        w = self.world
        self.contact = Contact.objects.create(customer=w.customer, name="Dr. Chen")
        self.design = _design(w.project, w.sales, "Design A")
        self.quote = quote_create_from_design(project=w.project, design=self.design, user=w.sales)
        quote_send(
            quote=self.quote,
            user=w.sales,
            expected_version=Quote.objects.get(pk=self.quote.pk).version,
        )
        self.revision = QuoteRevision.objects.get(pk=self.quote.current_revision_id)
        _, self.token = share_link_create(quote=self.quote, user=w.sales, recipient_name="Chen")
        quote_create_from_design(project=w.project, design=self.design, user=w.sales)  # a draft
        Client().get(f"/p/{self.token}")  # opened once, not answered: the home page lists it
        self.product = Product.objects.order_by("part_number").first()

    def grow(self):
        """Ten times as much of everything around the same objects."""
        w = self.world
        for n in range(5):
            customer = CustomerFactory(team=w.team, owner=w.sales, company=f"Grown {n}")
            Contact.objects.create(customer=customer, name=f"Contact {n}")
            ProjectFactory(customer=customer, name=f"Grown cluster {n}")
        for n in range(3):
            design = _design(w.project, w.sales, f"Design {n}")
            quote_create_from_design(project=w.project, design=design, user=w.sales)
        have = self.revision.lines.count()
        products = list(Product.objects.order_by("part_number")[:40])
        QuoteLine.objects.bulk_create(
            QuoteLine(
                revision=self.revision,
                position=have + n,
                section=Section.NETWORK,
                kind=LineKind.PRODUCT,
                product=products[n % len(products)],
                sku=products[n % len(products)].part_number,
                description=products[n % len(products)].name[:500],
                quantity=1 + n % 3,
                unit_price=Decimal("100.00"),
            )
            for n in range(1, 41)
        )
        QuoteEvent.objects.bulk_create(
            QuoteEvent(
                quote=self.quote,
                revision=self.revision,
                actor=w.sales,
                verb=QuoteEventVerb.SHARE_LINK_REVOKED,
                details={"link": n},
            )
            for n in range(20)
        )
        for _ in range(3):
            Client().get(f"/p/{self.token}")  # link views


def _page_urls(s: Small) -> list[str]:
    quote, project = s.quote.pk, s.world.project.pk
    return [
        "/",
        "/quotes/",
        f"/quotes/{quote}/",
        f"/quotes/{quote}/proposal-panel/",
        f"/quotes/{quote}/renewals/",
        f"/quotes/{quote}/products/",
        "/customers/",
        f"/customers/{s.world.customer.pk}/",
        f"/customers/{s.world.customer.pk}/edit/",
        "/projects/",
        f"/projects/{project}/",
        f"/designs/new/?project={project}",
        "/tco/",
        "/catalog/",
        f"/catalog/{s.product.part_number}/",
    ]


def _api_urls(s: Small) -> list[str]:
    quote, rev = s.quote.pk, s.revision.number
    return [
        "/api/v1/products/",
        f"/api/v1/products/{s.product.part_number}/",
        "/api/v1/customers/",
        f"/api/v1/customers/{s.world.customer.pk}/",
        "/api/v1/contacts/",
        f"/api/v1/contacts/{s.contact.pk}/",
        "/api/v1/projects/",
        f"/api/v1/projects/{s.world.project.pk}/",
        f"/api/v1/projects/{s.world.project.pk}/designs/",
        "/api/v1/quotes/",
        f"/api/v1/quotes/{quote}/",
        f"/api/v1/quotes/{quote}/events/",
        f"/api/v1/quotes/{quote}/lines/",
        f"/api/v1/quotes/{quote}/revisions/",
        f"/api/v1/quotes/{quote}/revisions/{rev}/",
        f"/api/v1/quotes/{quote}/revisions/diff/?a={rev}&b={rev}",
        f"/api/v1/quotes/{quote}/share-links/",
        "/api/v1/approvals/",
        "/api/v1/renewals/",
    ]


def _count(client, url: str) -> int:
    client.get(url)  # warm: sessions, caches and lazy snapshot migration settle first
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return len(captured)


def _counts(client, urls: list[str]) -> dict[str, int]:
    return {url: _count(client, url) for url in urls}


def _compare(before: dict[str, int], after: dict[str, int]) -> None:
    grew = {url: (before[url], after[url]) for url in before if after[url] != before[url]}
    assert not grew, f"query counts changed with the size of the data (before, after): {grew}"


@pytest.fixture
def small(seeded, make_user):
    return Small(make_user)


def test_every_page_asks_as_many_queries_for_many_rows_as_for_few(small):
    sales, manager = Client(), Client()
    sales.force_login(small.world.sales)
    manager.force_login(small.world.manager)
    pages = _page_urls(small)
    before = {
        "sales": _counts(sales, pages),
        "manager": _counts(manager, pages),
        "customer": _counts(Client(), [f"/p/{small.token}"]),
    }
    small.grow()
    after = {
        "sales": _counts(sales, pages),
        "manager": _counts(manager, pages),
        "customer": _counts(Client(), [f"/p/{small.token}"]),
    }
    for role in before:
        _compare(before[role], after[role])


def test_every_api_read_asks_as_many_queries_for_many_rows_as_for_few(small):
    sales = token_client(small.world.sales, scope="read")
    manager = token_client(small.world.manager, scope="read")
    urls = _api_urls(small)
    before = {"sales": _counts(sales, urls), "manager": _counts(manager, urls)}
    small.grow()
    after = {"sales": _counts(sales, urls), "manager": _counts(manager, urls)}
    for role in before:
        _compare(before[role], after[role])

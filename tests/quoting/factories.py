"""Factories for quoting tests, and the small world most of them start from."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, fields
from decimal import Decimal

import factory

from catalog.models import Category, PriceList, PriceListItem, Product
from portal.models import User
from quoting.customers.models import Customer, Project, Team
from quoting.quotes.models import Quote


class TeamFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Team
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"Team {n}")


class CustomerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Customer

    company = factory.Sequence(lambda n: f"Customer {n} Ltd")
    industry = "Research"
    region = "Guangdong"
    default_currency = "CNY"
    team = factory.SubFactory(TeamFactory)
    owner = None  # always given: owners are users made with make_user


class ProjectFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Project

    customer = None
    name = factory.Sequence(lambda n: f"Cluster {n}")
    owner = factory.LazyAttribute(lambda o: o.customer.owner)


class ProductFactory(factory.django.DjangoModelFactory):
    """A bare product: spec validation lives in Product.clean(), which quoting never needs."""

    class Meta:
        model = Product
        django_get_or_create = ("part_number",)

    part_number = factory.Sequence(lambda n: f"TEST-{n:04d}")
    name = factory.LazyAttribute(lambda o: f"Test product {o.part_number}")
    category = Category.SWITCH


def price_set(product: Product, currency: str, amount: str | Decimal) -> PriceListItem:
    """The product's price in the default list of `currency` (created when missing)."""
    price_list, _ = PriceList.objects.get_or_create(
        currency=currency, is_default=True, defaults={"name": f"Test {currency}"}
    )
    item, _ = PriceListItem.objects.update_or_create(
        price_list=price_list, product=product, defaults={"list_price": Decimal(amount)}
    )
    return item


@dataclass
class World:
    """Two teams, a sales user in each, a manager, and one customer with a project."""

    sales: User
    other_sales: User
    manager: User
    team: Team
    other_team: Team
    customer: Customer
    project: Project


def world_make(make_user) -> World:
    sales, other = make_user("wang", role="sales"), make_user("li", role="sales")
    manager = make_user("zhao", role="sales-manager")
    team, other_team = TeamFactory(name="Shenzhen"), TeamFactory(name="Beijing")
    team.members.add(sales)
    other_team.members.add(other)
    customer = CustomerFactory(team=team, owner=sales, company="Pengcheng University")
    return World(
        sales,
        other,
        manager,
        team,
        other_team,
        customer,
        ProjectFactory(customer=customer, name="GPU cluster"),
    )


def world_fresh(world: World) -> World:
    """The same rows read again: for a test of a module that shares one world (`module_world`),
    whose objects an earlier test may have changed in memory (a language, a project)."""
    rows = {f.name: getattr(world, f.name) for f in fields(world)}
    return World(**{name: type(row).objects.get(pk=row.pk) for name, row in rows.items()})


def quote_reload(quote: Quote) -> Quote:
    return Quote.objects.select_related("current_revision").get(pk=quote.pk)


def days_from_today(days: int) -> dt.date:
    from django.utils import timezone

    return timezone.localdate() + dt.timedelta(days=days)

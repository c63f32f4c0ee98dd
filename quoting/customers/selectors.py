"""Reads of customers and projects: who sees which, the one place object scoping starts.

Every view and API endpoint starts from `customers_visible_to(user=)` or
`projects_visible_to(user=)` (the quotes' own scoping, quotes_visible_to, builds on them).
"""

from __future__ import annotations

from decimal import Decimal

from django.db.models import (
    QuerySet,
)

from portal.models import SALES_MANAGER, User
from quoting.customers.models import Contact, Customer, Project, VatRate, VatZone

# --- scoping -------------------------------------------------------------------------------------


def sees_every_team(user: User) -> bool:
    """Sales managers and superusers see every team's customers (the quote rules,
    quoting.quotes.permissions, ask too)."""
    return user.is_superuser or user.has_role(SALES_MANAGER)


def customers_visible_to(*, user: User) -> QuerySet[Customer]:
    """Sales users see their teams' customers; managers and superusers see all."""
    if not user.is_authenticated or not user.is_active:
        return Customer.objects.none()
    customers = Customer.objects.select_related("team", "owner")
    if sees_every_team(user):
        return customers
    return customers.filter(team__members=user)


def contacts_visible_to(*, user: User) -> QuerySet[Contact]:
    return Contact.objects.filter(customer__in=customers_visible_to(user=user).values("pk"))


def projects_visible_to(*, user: User) -> QuerySet[Project]:
    return Project.objects.filter(
        customer__in=customers_visible_to(user=user).values("pk")
    ).select_related("customer", "owner")


# A customer's or a project's quotes, read through the reverse relation: the quotes sub-app sits
# above this one. A quote belongs to its customer's team (a project changes customer only while
# it has no quotes), so the quotes of a customer or project the user sees are quotes they see.
QUOTE_LIST_RELATED = ("customer", "project", "owner", "current_revision")


def customer_quotes(*, customer: Customer) -> QuerySet:
    return customer.quotes.select_related(*QUOTE_LIST_RELATED)


def project_quotes(*, project: Project) -> QuerySet:
    return project.quotes.select_related(*QUOTE_LIST_RELATED)


# --- VAT -----------------------------------------------------------------------------------------


def customer_country(customer: Customer) -> str:
    """The customer's ISO 3166 country: as entered, else CN for a Mainland China customer."""
    if customer.country:
        return customer.country
    return "CN" if customer.vat_zone == VatZone.CHINA else ""


def vat_rates_for(customer: Customer) -> dict[str, Decimal]:
    """The VAT % per tax category for lines sold to this customer (one query): the rate table's
    rows for their country. An export customer pays no VAT on any line: no rates (their lines
    take the revision's VAT %, 0 for the export zone)."""
    if customer.vat_zone == VatZone.EXPORT:
        return {}
    country = customer_country(customer)
    if not country:
        return {}
    return dict(VatRate.objects.filter(country=country).values_list("tax_category", "vat_percent"))

"""Writes to customers, contacts, projects and saved designs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import transaction

from portal.header_counts import work_counts_changed
from portal.models import User
from quoting.customers.models import Contact, Customer, Project, Team, VatZone
from quoting.customers.permissions import team_for_filing
from quoting.engine.fabric.requirements import requirements_from_json
from quoting.errors import InvalidValue

CUSTOMER_FIELDS = frozenset(
    {
        "company",
        "team",
        "industry",
        "region",
        "country",
        "vat_zone",
        "language",
        "default_currency",
        "notes",
    }
)
CONTACT_FIELDS = ("name", "title", "email", "phone")


@dataclass(frozen=True, slots=True)
class ContactEdit:
    """One row of a customer's contact list as the user left it: `contact` is None for a new
    one; `values` holds the fields of CONTACT_FIELDS; `delete` removes an existing one."""

    contact: Contact | None
    values: dict = field(default_factory=dict)
    delete: bool = False


def _contacts_apply(customer: Customer, edits: Iterable[ContactEdit]) -> None:
    for edit in edits:
        if edit.contact is not None and edit.contact.customer_id != customer.pk:
            raise InvalidValue("This contact belongs to another customer.", field="contacts")
        if edit.delete:
            if edit.contact is not None:
                edit.contact.delete()
            continue
        if edit.contact is None:
            contact_create(customer=customer, **edit.values)
        else:
            contact_update(contact=edit.contact, **edit.values)


def _company_check(*, team: Team, company: str, customer: Customer | None = None) -> str:
    company = company.strip()
    if not company:
        raise InvalidValue("Give the company's name.", field="company")
    namesakes = Customer.objects.filter(team=team, company=company)
    if customer is not None:
        namesakes = namesakes.exclude(pk=customer.pk)
    if namesakes.exists():
        raise InvalidValue(f"{team} already has a customer called {company}.", field="company")
    return company


@transaction.atomic
def customer_create(
    *,
    owner: User,
    company: str,
    team: Team | None = None,
    industry: str = "",
    region: str = "",
    country: str = "",
    vat_zone: str = VatZone.CHINA,
    language: str = "zh-hans",
    default_currency: str = "CNY",
    notes: str = "",
    contacts: Iterable[ContactEdit] = (),
) -> Customer:
    """A customer filed under `team` (left out: the owner's only team; see
    quoting.customers.permissions.team_for_filing), with its first contacts."""
    team = team_for_filing(user=owner, team=team)
    customer = Customer(
        team=team,
        owner=owner,
        company=_company_check(team=team, company=company),
        industry=industry,
        region=region,
        country=country.upper(),
        vat_zone=vat_zone,
        language=language,
        default_currency=default_currency.upper(),
        notes=notes,
    )
    customer.full_clean()
    customer.save()
    _contacts_apply(customer, contacts)
    return customer


@transaction.atomic
def customer_update(
    *, customer: Customer, user: User, contacts: Iterable[ContactEdit] = (), **changes
) -> Customer:
    """Change a customer's fields (CUSTOMER_FIELDS) and its contacts, all or nothing.

    Moving it to another team follows the filing rule: only to a team `user` may file under.
    """
    unknown = set(changes) - CUSTOMER_FIELDS
    if unknown:
        raise TypeError(f"customer_update() got unknown fields: {', '.join(sorted(unknown))}")
    customer = Customer.objects.select_for_update().get(pk=customer.pk)
    team = changes.get("team") or customer.team
    if team.pk != customer.team_id:
        team = team_for_filing(user=user, team=team)
    if "company" in changes or team.pk != customer.team_id:
        changes["company"] = _company_check(
            team=team, company=changes.get("company", customer.company), customer=customer
        )
    if "default_currency" in changes:
        changes["default_currency"] = changes["default_currency"].upper()
    if "country" in changes:
        changes["country"] = (changes["country"] or "").upper()
    moved = team.pk != customer.team_id
    for name, value in changes.items():
        setattr(customer, name, value)
    customer.full_clean()
    customer.save()
    _contacts_apply(customer, contacts)
    if moved:  # its quotes leave one team's managers' queues for another's
        work_counts_changed()
    return customer


@transaction.atomic
def customer_delete(*, customer: Customer) -> None:
    """A customer with its contacts and projects; refused (ProtectedError) once it has quotes."""
    customer.delete()


def contact_create(
    *, customer: Customer, name: str, title: str = "", email: str = "", phone: str = ""
) -> Contact:
    contact = Contact(customer=customer, name=name.strip(), title=title, email=email, phone=phone)
    contact.full_clean()
    contact.save()
    return contact


def contact_update(*, contact: Contact, **changes) -> Contact:
    """Change a contact's name, title, e-mail or phone, or move it to another `customer` (the
    caller has checked that the user may see it)."""
    unknown = set(changes) - {*CONTACT_FIELDS, "customer"}
    if unknown:
        raise TypeError(f"contact_update() got unknown fields: {', '.join(sorted(unknown))}")
    if "name" in changes:
        changes["name"] = changes["name"].strip()
    for name, value in changes.items():
        setattr(contact, name, value)
    contact.full_clean()
    contact.save()
    return contact


def contact_delete(*, contact: Contact) -> None:
    contact.delete()


def project_create(
    *, customer: Customer, name: str, owner: User, requirements: dict | None = None, notes: str = ""
) -> Project:
    if requirements:
        requirements_from_json(requirements)  # refuse unknown fields before storing them
    project = Project(
        customer=customer,
        name=name.strip(),
        owner=owner,
        requirements=requirements or {},
        notes=notes,
    )
    project.full_clean()
    project.save()
    return project


def project_customer_check(*, project: Project, customer: Customer) -> None:
    """Whether `project` may move to `customer`: only while it has no quotes (they belong to the
    customer they were made for), and only within its team. Raises InvalidValue on `customer`."""
    if customer.pk == project.customer_id:
        return
    if project.quotes.exists():
        raise InvalidValue(
            f"This project has quotes for {project.customer}: its customer can no longer "
            f"change. Start a new project for {customer}.",
            field="customer",
        )
    if customer.team_id != project.customer.team_id:
        raise InvalidValue(
            "A project stays with its team: choose a customer of the same team.",
            field="customer",
        )


@transaction.atomic
def project_update(*, project: Project, **changes) -> Project:
    """Rename a project, change its notes, or move it to another customer of its team while it
    has no quotes.

    A quote belongs to the customer it was made for: moving a project that has quotes would
    leave them on the old customer. The row lock makes a quote created at the same moment wait
    (quote_create locks the project too), so the check cannot be raced.
    """
    project = Project.objects.select_for_update().select_related("customer").get(pk=project.pk)
    if changes.get("customer") is not None:
        project_customer_check(project=project, customer=changes["customer"])
    for name, value in changes.items():
        setattr(project, name, value)
    project.full_clean()
    project.save()
    return project


@transaction.atomic
def project_delete(*, project: Project) -> None:
    """A project with its saved designs; refused (ProtectedError) once it has quotes."""
    project.delete()

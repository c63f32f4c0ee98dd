"""Writes to customers, contacts, projects and saved designs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.db import IntegrityError, models, transaction

from portal.header_counts import work_counts_changed
from portal.models import User
from quoting.customers.models import Contact, Customer, Project, Team, VatZone, plan_fields
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
        "external_id",
    }
)
CONTACT_FIELDS = ("name", "title", "email", "phone")
EXTERNAL_ID_MAX_LENGTH = 100


class AlreadyExists(InvalidValue):
    """Another record already holds a value that must be unique: a company in its team, a
    project's name for its customer, an external id. HTTP 409; `existing` is that record, so
    the API can name it to a caller who may see it; `code` says which kind of clash."""

    status_code = 409

    def __init__(self, message: str, *, field: str, code: str, existing: models.Model) -> None:
        super().__init__(message, field=field)
        self.code = code
        self.existing = existing


def external_id_clean(value: str | None) -> str | None:
    """A CRM's id as stored: trimmed; empty or None clears it (None, so it stays unique)."""
    value = (value or "").strip()
    if len(value) > EXTERNAL_ID_MAX_LENGTH:
        raise InvalidValue(f"Use at most {EXTERNAL_ID_MAX_LENGTH} characters.", field="external_id")
    if "/" in value:
        raise InvalidValue("An external id cannot hold a slash.", field="external_id")
    return value or None


def external_id_check(record: models.Model, external_id: str | None) -> None:
    """Refuse an external id another record of the same model holds (AlreadyExists)."""
    if external_id is None:
        return
    model = type(record)
    holder = model.objects.filter(external_id=external_id).exclude(pk=record.pk).first()
    if holder is not None:
        raise AlreadyExists(
            f"Another {model._meta.verbose_name} has the external id {external_id}.",
            field="external_id",
            code="external_id_taken",
            existing=holder,
        )


def unique_save(record: models.Model, checks: Callable[[], None]) -> None:
    """Save `record` after `checks` (which raise AlreadyExists). A concurrent write may take
    one of its unique values between the checks and the save: the save then fails on the
    database's constraint, and the checks, run again, see that write and answer as they would
    have (an upsert retries as an update) instead of an IntegrityError."""
    checks()
    try:
        with transaction.atomic():  # a savepoint: the caller's transaction stays usable
            record.save()
    except IntegrityError:
        checks()
        raise


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
    namesake = namesakes.first()
    if namesake is not None:
        raise AlreadyExists(
            f"{team} already has a customer called {company}.",
            field="company",
            code="duplicate",
            existing=namesake,
        )
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
    external_id: str | None = None,
    contacts: Iterable[ContactEdit] = (),
) -> Customer:
    """A customer filed under `team` (left out: the owner's only team; see
    quoting.customers.permissions.team_for_filing), with its first contacts.

    A company its team already has, or an external id another customer has, is refused with
    AlreadyExists naming that customer (the external id first: an upsert racing itself then
    sees its own row and updates it)."""
    team = team_for_filing(user=owner, team=team)
    customer = Customer(
        team=team,
        owner=owner,
        company=company.strip(),
        industry=industry,
        region=region,
        country=country.upper(),
        vat_zone=vat_zone,
        language=language,
        default_currency=default_currency.upper(),
        notes=notes,
        external_id=external_id_clean(external_id),
    )
    unique_save(customer, lambda: _customer_unique_check(customer))
    _contacts_apply(customer, contacts)
    return customer


def _customer_unique_check(customer: Customer) -> None:
    external_id_check(customer, customer.external_id)
    customer.company = _company_check(
        team=customer.team, company=customer.company, customer=customer
    )
    # The unique values are checked above (with the record that holds them); the rest here.
    customer.full_clean(validate_unique=False, validate_constraints=False)


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
    if "default_currency" in changes:
        changes["default_currency"] = changes["default_currency"].upper()
    if "country" in changes:
        changes["country"] = (changes["country"] or "").upper()
    if "external_id" in changes:
        changes["external_id"] = external_id_clean(changes["external_id"])
    moved = team.pk != customer.team_id
    renamed = "company" in changes or moved
    for name, value in changes.items():
        setattr(customer, name, value)
    customer.team = team

    def checks() -> None:
        if "external_id" in changes:
            external_id_check(customer, customer.external_id)
        if renamed:
            customer.company = _company_check(
                team=team, company=customer.company, customer=customer
            )
        customer.full_clean(validate_unique=False, validate_constraints=False)

    unique_save(customer, checks)
    _contacts_apply(customer, contacts)
    if moved:  # its quotes leave one team's managers' queues for another's
        work_counts_changed()
    return customer


@transaction.atomic
def customer_delete(*, customer: Customer) -> None:
    """A customer with its contacts and projects; refused (ProtectedError) once it has quotes."""
    customer.delete()


def _contact_checks(contact: Contact) -> None:
    external_id_check(contact, contact.external_id)
    contact.full_clean(validate_unique=False)


def contact_create(
    *,
    customer: Customer,
    name: str,
    title: str = "",
    email: str = "",
    phone: str = "",
    external_id: str | None = None,
) -> Contact:
    contact = Contact(
        customer=customer,
        name=name.strip(),
        title=title,
        email=email,
        phone=phone,
        external_id=external_id_clean(external_id),
    )
    unique_save(contact, lambda: _contact_checks(contact))
    return contact


def contact_update(*, contact: Contact, **changes) -> Contact:
    """Change a contact's name, title, e-mail or phone, or move it to another `customer` (the
    caller has checked that the user may see it)."""
    unknown = set(changes) - {*CONTACT_FIELDS, "customer", "external_id"}
    if unknown:
        raise TypeError(f"contact_update() got unknown fields: {', '.join(sorted(unknown))}")
    if "name" in changes:
        changes["name"] = changes["name"].strip()
    if "external_id" in changes:
        changes["external_id"] = external_id_clean(changes["external_id"])
    for name, value in changes.items():
        setattr(contact, name, value)
    unique_save(contact, lambda: _contact_checks(contact))
    return contact


def contact_delete(*, contact: Contact) -> None:
    contact.delete()


def _project_checks(project: Project) -> None:
    external_id_check(project, project.external_id)
    namesake = (
        Project.objects.filter(customer_id=project.customer_id, name=project.name)
        .exclude(pk=project.pk)
        .first()
    )
    if namesake is not None:
        raise AlreadyExists(
            f"A project called {project.name} already exists for {project.customer}.",
            field="name",
            code="duplicate",
            existing=namesake,
        )
    # The unique values are checked above (with the record that holds them); the rest here.
    project.full_clean(validate_unique=False, validate_constraints=False)


def project_create(
    *,
    customer: Customer,
    name: str,
    owner: User,
    requirements: dict | None = None,
    notes: str = "",
    external_id: str | None = None,
    **plan,
) -> Project:
    """A project of `customer`; a name the customer already has, or an external id another
    project has, is refused with AlreadyExists naming that project. `plan`: the parts it asks
    for (needs_gpu_servers, needs_gpu_servers_note, ...: plan_fields()), else the defaults."""
    if requirements:
        requirements_from_json(requirements)  # refuse unknown fields before storing them
    unknown = set(plan) - set(plan_fields())
    if unknown:
        raise TypeError(f"project_create() got unexpected fields {sorted(unknown)}")
    project = Project(
        customer=customer,
        name=name.strip(),
        owner=owner,
        requirements=requirements or {},
        notes=notes,
        external_id=external_id_clean(external_id),
        **plan,
    )
    unique_save(project, lambda: _project_checks(project))
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
    """Rename a project, change its notes or the parts of the plan it asks for, or move it to
    another customer of its team while it has no quotes.

    A quote belongs to the customer it was made for: moving a project that has quotes would
    leave them on the old customer. The row lock makes a quote created at the same moment wait
    (quote_create locks the project too), so the check cannot be raced.
    """
    project = Project.objects.select_for_update().select_related("customer").get(pk=project.pk)
    if changes.get("customer") is not None:
        project_customer_check(project=project, customer=changes["customer"])
    if "name" in changes:
        changes["name"] = changes["name"].strip()
    if "external_id" in changes:
        changes["external_id"] = external_id_clean(changes["external_id"])
    for name, value in changes.items():
        setattr(project, name, value)
    unique_save(project, lambda: _project_checks(project))
    return project


@transaction.atomic
def project_delete(*, project: Project) -> None:
    """A project with its saved designs; refused (ProtectedError) once it has quotes."""
    project.delete()

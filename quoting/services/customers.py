"""Writes to customers, contacts, projects and saved designs; the demo data."""

from __future__ import annotations

from dataclasses import asdict

from django.db import transaction

from catalog.models import Product
from portal.models import User
from quoting.engine.fabric import FabricRequirements
from quoting.models import Contact, Customer, Project, SavedDesign, Team, VatZone

from .designs import requirements_from_json
from .errors import InvalidValue
from .snapshots import design_snapshot_values


@transaction.atomic
def customer_create(
    *,
    team: Team,
    owner: User,
    company: str,
    industry: str = "",
    region: str = "",
    vat_zone: str = VatZone.CHINA,
    language: str = "zh-hans",
    default_currency: str = "CNY",
    notes: str = "",
) -> Customer:
    company = company.strip()
    if not company:
        raise InvalidValue("Give the company's name.", field="company")
    if Customer.objects.filter(team=team, company=company).exists():
        raise InvalidValue(f"{team} already has a customer called {company}.", field="company")
    customer = Customer(
        team=team,
        owner=owner,
        company=company,
        industry=industry,
        region=region,
        vat_zone=vat_zone,
        language=language,
        default_currency=default_currency.upper(),
        notes=notes,
    )
    customer.full_clean()
    customer.save()
    return customer


def contact_create(
    *, customer: Customer, name: str, title: str = "", email: str = "", phone: str = ""
) -> Contact:
    contact = Contact(customer=customer, name=name.strip(), title=title, email=email, phone=phone)
    contact.full_clean()
    contact.save()
    return contact


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
def design_save(
    *, project: Project, name: str, requirements: FabricRequirements | dict, user: User
) -> SavedDesign:
    """Design the fabric from the current catalog and keep both the question and the answer.

    The project's requirements become these (the last ones the engineer designed with).
    Raises the engine's InvalidInput naming the bad field.
    """
    if isinstance(requirements, dict):
        requirements = requirements_from_json(requirements)
    name = name.strip()
    if not name or len(name) > 200:
        raise InvalidValue("Name the design in 1 to 200 characters.", field="name")
    if project.designs.filter(name=name).exists():
        raise InvalidValue(f"This project already has a design called {name}.", field="name")
    # The engine runs here, once: pages, quotes and proposals read the snapshot.
    snapshot = design_snapshot_values(requirements=requirements,
                                      currency=project.customer.default_currency)
    stored = asdict(requirements)
    project.requirements = stored
    project.save(update_fields=["requirements", "updated_at"])
    return SavedDesign.objects.create(
        project=project, name=name, requirements=stored, created_by=user, **snapshot
    )


# --- demo data -----------------------------------------------------------------------------------

DEMO_TEAM = "Shenzhen sales"
DEMO_CUSTOMERS = (
    # company, industry, project, design name, requirements
    (
        "深圳某大学 (Shenzhen University demo)",
        "Higher education",
        "AI computing platform",
        "256 GPUs, NDR, QM9790, rail-optimized, all optical",
        {
            "gpu_count": 256,
            "nic_generation": "NDR",
            "switch_part_number": "MQM9790-NS2F",
            "rail_optimized": True,
            "server_to_leaf": "same-row",
            "leaf_to_spine": "same-row",
            "subnet_manager": "on-switch",
            "label": "Shenzhen University",
        },
    ),
    (
        "某证券公司 (Securities firm demo)",
        "Securities",
        "Quant research cluster",
        "16 x H200 servers (128 GPUs), NDR, QM9790",
        {
            "server_count": 16,
            "gpus_per_server": 8,
            "nic_generation": "NDR",
            "switch_part_number": "MQM9790-NS2F",
            "subnet_manager": "on-switch",
            "label": "Securities firm",
        },
    ),
)


@transaction.atomic
def demo_data_ensure() -> dict[str, int]:
    """The demo team, two customers with a project and a saved design each, and one draft quote
    from the university's design. Running it again changes nothing. Needs the catalog loaded
    (`load_catalog`); creates the demo users if they are missing. Returns what it created.
    """
    from portal.services import demo_users_ensure

    from .quotes import quote_create_from_design

    if not Product.objects.exists():
        raise RuntimeError("Load the catalog first (manage.py load_catalog).")
    demo_users_ensure()
    sales, manager = User.objects.get(username="sales"), User.objects.get(username="manager")
    made = {"teams": 0, "customers": 0, "projects": 0, "designs": 0, "quotes": 0}
    team, created = Team.objects.get_or_create(name=DEMO_TEAM)
    made["teams"] += created
    team.members.add(sales, manager)  # adding existing members is a no-op
    designs = []
    for company, industry, project_name, design_name, requirements in DEMO_CUSTOMERS:
        customer, created = Customer.objects.get_or_create(
            team=team,
            company=company,
            defaults={
                "owner": sales,
                "industry": industry,
                "region": "Guangdong, Shenzhen",
                "vat_zone": VatZone.CHINA,
                "language": "zh-hans",
                "default_currency": "CNY",
            },
        )
        made["customers"] += created
        project, created = Project.objects.get_or_create(
            customer=customer,
            name=project_name,
            defaults={"owner": sales, "requirements": requirements},
        )
        made["projects"] += created
        design = project.designs.filter(name=design_name).first()
        if design is None:
            design = design_save(
                project=project, name=design_name, requirements=requirements, user=sales
            )
            made["designs"] += 1
        designs.append((project, design))
    university, university_design = designs[0]
    if not university.quotes.exists():
        quote_create_from_design(
            project=university, design=university_design, user=sales, currency="CNY"
        )
        made["quotes"] += 1
    return made

"""The demo data of `manage.py setup_demo`: a team, two customers with a project and a saved
design each, and a draft quote. It uses the other services, so it sits above them all."""

from __future__ import annotations

from django.db import transaction

from catalog.models import Product
from portal.models import User
from portal.services import demo_users_ensure
from quoting.customers.models import Customer, Project, Team, VatZone
from quoting.designs.services.saved import design_save
from quoting.quotes.services.quotes import quote_create_from_design

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

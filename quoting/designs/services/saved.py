"""Saving a design into a project: its requirements, site and workload checked, its snapshot
computed once (quoting.designs.services.snapshots).
"""

from __future__ import annotations

from dataclasses import asdict

from django.db import transaction
from django.utils.translation import gettext

from portal.models import User
from quoting.customers.models import Project
from quoting.designs.models import SavedDesign
from quoting.designs.services.snapshots import design_snapshot_values
from quoting.designs.services.tco import workload_check
from quoting.engine.fabric import FabricRequirements
from quoting.engine.fabric.requirements import requirements_from_json
from quoting.engine.tco.presets import DEFAULT_WORKLOAD
from quoting.errors import InvalidValue


@transaction.atomic
def design_save(
    *,
    project: Project,
    name: str,
    requirements: FabricRequirements | dict,
    user: User,
    workload: str = DEFAULT_WORKLOAD,
    site: dict | None = None,
) -> SavedDesign:
    """Design the fabric from the current catalog and keep both the question and the answer.

    The project's requirements become these (the last ones the engineer designed with); the TCO
    comparison assumes `workload` (a preset's key); its cables are measured on `site` (site
    inputs, kept in the snapshot). Raises the engine's InvalidInput naming the bad field.
    """
    workload = workload_check(workload)
    if isinstance(requirements, dict):
        requirements = requirements_from_json(requirements)
    name = name.strip()
    if not name or len(name) > 200:
        raise InvalidValue(gettext("Name the design in 1 to 200 characters."), field="name")
    if project.designs.filter(name=name).exists():
        raise InvalidValue(
            gettext("This project already has a design called %(name)s.") % {"name": name},
            field="name",
        )
    # The engine runs here, once: pages, quotes and proposals read the snapshot.
    snapshot = design_snapshot_values(
        requirements=requirements,
        currency=project.customer.default_currency,
        workload=workload,
        site=site,
    )
    stored = asdict(requirements)
    project.requirements = stored
    project.save(update_fields=["requirements", "updated_at"])
    return SavedDesign.objects.create(
        project=project,
        name=name,
        requirements=stored,
        created_by=user,
        workload=workload,
        **snapshot,
    )

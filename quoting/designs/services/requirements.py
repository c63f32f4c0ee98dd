"""Cluster requirements from JSON: what a project or a saved design stores, and what the CLI
hands to the fabric engine. Below the customer, TCO and quote services (none of them is
imported here), so any of them may use it."""

from __future__ import annotations

from quoting.designs.services.designs import design_server_defaults
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements

# requirements_from_json is the engine's (quoting.engine.fabric.requirements); it is re-exported
# here with the design service's helpers, where the TCO and quote services look for it.
from quoting.engine.fabric.requirements import (
    distance_parse,
    requirements_from_json,
)

DISTANCE_FIELDS = ("server_to_leaf", "leaf_to_spine", "spine_to_core")


def requirements_from_request(data: dict) -> FabricRequirements:
    """A design request as typed (`manage.py fabric_design` options): distances as metres or a
    class name, and a catalog server filling in the gpus_per_server and nic_generation left out,
    as POST /designs/ does. The engine checks the rest when it designs."""
    values = dict(data)
    bad = {}
    for name in DISTANCE_FIELDS:
        if name in values:
            try:
                values[name] = distance_parse(values[name])
            except ValueError as error:
                bad[name] = [str(error)]
    if bad:
        raise InvalidInput(bad)
    if values.get("server_part_number"):
        defaults = design_server_defaults(
            part_number=values["server_part_number"], family=values.get("family", "infiniband")
        )
        values = defaults | values
    return requirements_from_json(values)

"""Cluster requirements from JSON: what a project or a saved design stores, what the API, the
CLI and a stored row hand to the fabric engine. A leaf module: every other service may use it."""

from __future__ import annotations

from dataclasses import fields

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements

REQUIREMENT_FIELDS = frozenset(field.name for field in fields(FabricRequirements))


def requirements_from_json(data: dict) -> FabricRequirements:
    """FabricRequirements from stored or posted JSON; unknown keys are refused, not ignored."""
    if not isinstance(data, dict):
        raise InvalidInput.field("requirements", "must be an object of requirement fields.")
    unknown = sorted(set(data) - REQUIREMENT_FIELDS)
    if unknown:
        raise InvalidInput({key: ["is not a cluster requirement."] for key in unknown})
    return FabricRequirements(**data)

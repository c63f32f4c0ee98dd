"""Fabric designs: the catalog, turned into engine specs, fed to the pure-Python engine."""

from __future__ import annotations

from catalog.selectors import product_specs
from quoting.engine.fabric import FabricDesign, FabricRequirements, design_fabric


def design_compute(*, requirements: FabricRequirements) -> FabricDesign:
    """Design a fabric from the current catalog. Raises InvalidInput naming the bad field."""
    return design_fabric(requirements, product_specs())

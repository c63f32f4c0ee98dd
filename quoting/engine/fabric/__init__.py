"""Fabric design engine: one-, two- and three-tier fat trees for InfiniBand and RoCE Ethernet.

`design_fabric(requirements, catalog)` returns a frozen `FabricDesign`; its cable schedule is
generated lazily by `cable_schedule(design)` and exported by `cable_schedule_csv(design)`.
"""

from quoting.engine.fabric.bom import BomLine
from quoting.engine.fabric.cabling import CableRun, cable_schedule, cable_schedule_csv
from quoting.engine.fabric.design import FabricDesign, NextStep, PreProvisioned, design_fabric
from quoting.engine.fabric.requirements import DISTANCE_CLASSES, FabricRequirements

__all__ = [
    "DISTANCE_CLASSES",
    "BomLine",
    "CableRun",
    "FabricDesign",
    "FabricRequirements",
    "NextStep",
    "PreProvisioned",
    "cable_schedule",
    "cable_schedule_csv",
    "design_fabric",
]

"""Fabric design engine: one-, two- and three-tier fat trees for InfiniBand and RoCE Ethernet.

`design_fabric(requirements, catalog)` returns a frozen `FabricDesign`; its cable schedule is
generated lazily by `cable_schedule(design)` and exported by `cable_schedule_csv(design)`.
"""

from quoting.engine.fabric.bom import BomLine
from quoting.engine.fabric.cabling import (
    CableRun,
    cable_schedule,
    cable_schedule_csv,
    cable_schedule_csv_lines,
)
from quoting.engine.fabric.design import (
    FabricDesign,
    NextStep,
    PreProvisioned,
    design_fabric,
    designable_generations,
)
from quoting.engine.fabric.requirements import (
    DISTANCE_CLASSES,
    FAMILIES,
    SUBNET_MANAGERS,
    FabricRequirements,
    distance_parse,
)

__all__ = [
    "DISTANCE_CLASSES",
    "FAMILIES",
    "SUBNET_MANAGERS",
    "distance_parse",
    "BomLine",
    "CableRun",
    "FabricDesign",
    "FabricRequirements",
    "NextStep",
    "PreProvisioned",
    "cable_schedule",
    "cable_schedule_csv",
    "cable_schedule_csv_lines",
    "design_fabric",
    "designable_generations",
]

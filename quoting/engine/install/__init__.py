"""The installation pack: a physical layout of a fabric design, and the files installers,
NVIDIA's validators, Slurm and NetBox read. Pure Python, like the rest of the engine."""

from quoting.engine.install.layout import Cable, Device, InstallLayout, Rack
from quoting.engine.install.lengths import design_on_site, design_placed
from quoting.engine.install.plan import plan_layout
from quoting.engine.install.site import SITE_FIELDS, SiteInputs

__all__ = [
    "SITE_FIELDS",
    "Cable",
    "Device",
    "InstallLayout",
    "Rack",
    "SiteInputs",
    "design_on_site",
    "design_placed",
    "plan_layout",
]

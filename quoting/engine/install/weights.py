"""A rack's weight: what is mounted in it (servers, switches, appliances) by the catalog's
datasheet weights. A device of unknown weight is never guessed: the rack gives the sum of the
weights it knows and names the devices it does not ("≥ 412 kg, unknown: HGX-H100-8GPU-SRV x3"),
so a floor-load check knows what to add; a bare sum would read as the rack's load and understate
it. Pluggable optics and cables are not counted (grams each; the pack's README says so)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from quoting.engine.install.layout import Device, InstallLayout, Rack
from quoting.engine.messages import gettext_noop

# What a device the catalog does not name is called (the design page shows it translated).
UNNAMED_MODELS = {
    "server": gettext_noop("server (not in the catalog)"),
    "storage-server": gettext_noop("storage server (not in the catalog)"),
}


@dataclass(frozen=True, slots=True)
class RackWeight:
    known_kg: float  # the devices whose datasheet weight the catalog has
    unknown: tuple[tuple[str, int], ...] = ()  # (model, how many) of the others, in rack order

    @property
    def complete(self) -> bool:
        return not self.unknown

    def unknown_text(self, translate: Callable[[str], str] = str) -> str:
        """`HGX-H100-8GPU-SRV x3; UFM-APPLIANCE-3.1 x1`; "" when every weight is known."""
        return "; ".join(f"{translate(model)} x{count}" for model, count in self.unknown)


def model_of(device: Device) -> str:
    """The catalog part number; a server the catalog does not name goes by what it is."""
    if device.part:
        return device.part
    return UNNAMED_MODELS.get(device.role, f"{device.role} (not in the catalog)")


def rack_weight(layout: InstallLayout, rack: Rack) -> RackWeight:
    total = 0.0
    unknown: Counter[str] = Counter()
    for name in rack.devices:
        device = layout.devices[name]
        spec = layout.parts.get(device.part)
        if spec is None or spec.weight_kg is None:
            unknown[model_of(device)] += 1
        else:
            total += spec.weight_kg
    return RackWeight(round(total, 2), tuple(unknown.items()))


def rack_weight_kg(layout: InstallLayout, rack: Rack) -> float | None:
    """The rack's weight when every device's is known, else None."""
    weight = rack_weight(layout, rack)
    return weight.known_kg if weight.complete else None

"""A rack's weight: what is mounted in it (servers, switches, appliances) by the catalog's
datasheet weights. One device of unknown weight makes the rack's weight unknown (None, printed
"n/a"): a partial sum would read as the rack's load and understate it. Pluggable optics and
cables are not counted (grams each; the pack's README says so)."""

from __future__ import annotations

from quoting.engine.install.layout import InstallLayout, Rack


def rack_weight_kg(layout: InstallLayout, rack: Rack) -> float | None:
    total = 0.0
    for name in rack.devices:
        spec = layout.parts.get(layout.devices[name].part)
        if spec is None or spec.weight_kg is None:
            return None
        total += spec.weight_kg
    return round(total, 2)

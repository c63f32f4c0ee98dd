"""The whole layout of a design on a site: devices placed (install/layout.py), the out-of-band
management switches beside them (install/management.py), which builds on the placed layout, the
fabric's cables routed, then the management cables (out-of-band, then in-band:
install/inband.py). Here, above both, so that neither imports the other back."""

from __future__ import annotations

from dataclasses import replace

from quoting.engine.catalog import ProductSpec
from quoting.engine.fabric.design import FabricDesign
from quoting.engine.install.inband import inband_cables
from quoting.engine.install.layout import (
    InstallLayout,
    _cables,
    _length_warnings,
    place_devices,
)
from quoting.engine.install.management import (
    management_cables,
    management_warnings,
    place_management_switches,
)
from quoting.engine.install.site import SiteInputs
from quoting.engine.messages import gettext_noop, listing, message


def plan_layout(
    design: FabricDesign, site: SiteInputs, catalog: list[ProductSpec]
) -> InstallLayout:
    """Place every device and route every cable; raises InvalidInput on a site field."""
    layout, rename, by_sku = place_devices(design, site, catalog)
    # The out-of-band switches before the fabric's optics, as the design measured their runs.
    management = layout.management
    if management:
        place_management_switches(layout, *management)
        layout.management = ()
    layout.cables = list(_cables(layout, rename, by_sku))
    _power_warning(layout, site)
    _length_warnings(layout)
    if management:
        _add_management_network(layout, by_sku)
    # The in-band network's cables last, so the fabric's and out-of-band cables keep the IDs
    # they had before in-band cables were quoted.
    layout.cables.extend(inband_cables(layout, len({c.base_id for c in layout.cables}) + 1))
    if prefix := site.name_prefix.strip():
        _prefix_names(layout, prefix)
    return layout


def _prefix_names(layout: InstallLayout, prefix: str) -> None:
    """Every device renamed `<prefix>-<name>`, everywhere the layout names it. Done last, once,
    so the placement and cabling code never sees the prefix."""

    def new(name: str) -> str:
        return f"{prefix}-{name}"

    for device in layout.devices.values():
        device.name = new(device.name)
    layout.devices = {device.name: device for device in layout.devices.values()}
    for rack in layout.racks:
        rack.devices = [new(name) for name in rack.devices]
    layout.cables = [
        replace(cable, a_device=new(cable.a_device), z_device=new(cable.z_device))
        for cable in layout.cables
    ]
    layout._locations.clear()


# Racks named in the over-budget warning; the racks CSV and the elevations flag every one.
RACKS_NAMED = 8


def _power_warning(layout: InstallLayout, site: SiteInputs) -> None:
    """One warning for the design, not one per rack: a hall of 12 kW racks holding 10 kW
    servers would otherwise list hundreds of lines saying the same thing."""
    over = [rack for rack in layout.racks if rack.over_budget(site.rack_power_kw)]
    if not over:
        return
    worst = max(rack.max_kw for rack in over)
    if len(over) == 1:
        layout.warning_messages.append(
            message(
                gettext_noop("Rack {rack} draws up to {kw:.1f} kW, over its {budget:g} kW budget."),
                rack=over[0].name,
                kw=worst,
                budget=site.rack_power_kw,
            )
        )
        return
    names = listing(rack.name for rack in over[:RACKS_NAMED])
    layout.warning_messages.append(
        message(
            gettext_noop(
                "{count} racks draw more than their {budget:g} kW budget (up to {kw:.1f} kW): "
                "{racks}{more}. Raise the power budget per rack, or set fewer servers per rack."
            ),
            count=len(over),
            budget=site.rack_power_kw,
            kw=worst,
            racks=names,
            more=" …" if len(over) > RACKS_NAMED else "",
        )
    )


def _add_management_network(layout: InstallLayout, by_sku: dict[str, ProductSpec]) -> None:
    """The out-of-band switches' cables, after the fabric's (install/management.py)."""
    first = len({c.base_id for c in layout.cables}) + 1
    layout.cables.extend(management_cables(layout, by_sku, first))
    management_warnings(layout)

"""The pack's NetBox bulk-import files, in the order an empty NetBox takes them: sites,
locations (one per row), racks, manufacturers, device roles, device types, then devices,
interfaces and cables (NETBOX_FILES).

Column names and choice values are those of NetBox 4's import forms (dcim/forms/bulk_import.py)
and choices (dcim/choices.py). Every reference between files is by name, which NetBox resolves
as follows, and which decides how names are made unique:
- a device's location and rack are looked up within its site (and location), so rows named
  "Row A" and racks named "A01" may repeat across sites;
- an interface's device is looked up by name across the whole NetBox, so device names must be
  unique in it: the site's `name_prefix` (install/site.py) prefixes every device of a design,
  and also its locations, so a second design in the same site gets rows of its own;
- a cable's devices are looked up within `side_a_site` / `side_b_site`.
Manufacturers, roles and device types are shared by every pack: in a NetBox that already has
them, their rows are skipped (README.txt says so).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator

from quoting.engine.install.exports import csv_chunks, uplink_ports
from quoting.engine.install.inband import TIER as INBAND_TIER
from quoting.engine.install.layout import HOST_TIERS, Cable, Device, InstallLayout, Rack
from quoting.engine.install.management import TIER as MANAGEMENT_TIER

NETBOX_FILES = (
    "netbox-sites.csv",
    "netbox-locations.csv",
    "netbox-racks.csv",
    "netbox-manufacturers.csv",
    "netbox-device-roles.csv",
    "netbox-device-types.csv",
    "netbox-devices.csv",
    "netbox-interfaces.csv",
    "netbox-cables.csv",
)

SITE_COLUMNS = ("name", "slug", "status", "description")
LOCATION_COLUMNS = ("site", "name", "slug", "status")
RACK_COLUMNS = ("site", "location", "name", "status", "width", "u_height", "description")
MANUFACTURER_COLUMNS = ("name", "slug")
ROLE_COLUMNS = ("name", "slug", "color", "vm_role")
DEVICE_TYPE_COLUMNS = (
    "manufacturer",
    "model",
    "slug",
    "part_number",
    "u_height",
    "is_full_depth",
    "weight",
    "weight_unit",
)
DEVICE_COLUMNS = (
    "name",
    "role",
    "manufacturer",
    "device_type",
    "status",
    "site",
    "location",
    "rack",
    "position",
    "face",
)
INTERFACE_COLUMNS = ("device", "name", "type", "speed", "enabled")
CABLE_COLUMNS = (
    "side_a_site",
    "side_a_device",
    "side_a_type",
    "side_a_name",
    "side_b_site",
    "side_b_device",
    "side_b_type",
    "side_b_name",
    "type",
    "status",
    "label",
    "color",
    "length",
    "length_unit",
)

CABLE_TYPES = {
    "dac": "dac-passive",
    "acc": "dac-active",
    "aoc": "aoc",
    "multimode": "mmf-om4",
    "singlemode": "smf-os2",
    "twisted-pair": "cat6a",
}

# NetBox's Ethernet interface types (InterfaceTypeChoices) for the speeds and cages the catalog
# has; a speed and cage NetBox does not list (200G in a QSFP112 cage) is its "other".
ETHERNET_TYPES = frozenset(
    {
        "10gbase-x-sfpp",
        "25gbase-x-sfp28",
        "50gbase-x-sfp56",
        "40gbase-x-qsfpp",
        "100gbase-x-sfp112",
        "100gbase-x-qsfp28",
        "100gbase-x-qsfpdd",
        "200gbase-x-qsfp56",
        "200gbase-x-qsfpdd",
        "400gbase-x-qsfp112",
        "400gbase-x-qsfpdd",
        "400gbase-x-osfp",
        "800gbase-x-qsfpdd",
        "800gbase-x-osfp",
    }
)
# An uplink's cage by its speed, where the catalog does not say (the SN2201's 100G are QSFP28).
UPLINK_CAGES = {10: "SFP+", 25: "SFP28", 100: "QSFP28", 400: "QSFP-DD"}
# Elevation colours by role (NetBox's own palette), grey for the rest.
ROLE_COLOURS = {
    "server": "4caf50",
    "leaf": "2196f3",
    "spine": "3f51b5",
    "core": "673ab7",
    "ufm": "ff9800",
    "storage-server": "795548",
}
OTHER_ROLE_COLOUR = "9e9e9e"
GENERIC_MANUFACTURER = "Generic"


def slug(text: str) -> str:
    """NetBox's slug rule ([-a-zA-Z0-9_]); a name with no such character at all (a Chinese site
    name) gets a stable one from its hash."""
    made = re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-")[:90]
    return made or "x-" + hashlib.sha256(text.encode()).hexdigest()[:10]


def location_name(layout: InstallLayout, rack: Rack) -> str:
    prefix = layout.site.name_prefix.strip()
    return f"{prefix} Row {rack.row_name}" if prefix else f"Row {rack.row_name}"


def manufacturer(device: Device) -> str:
    return "NVIDIA" if device.part else GENERIC_MANUFACTURER


def device_type(layout: InstallLayout, device: Device) -> str:
    """The catalog part number; a server the catalog does not name is a generic model."""
    if device.part:
        return device.part
    if device.role == "server":
        return f"{layout.design.requirements.gpus_per_server}-GPU server ({device.units}U)"
    return f"{device.role} ({device.units}U)"


def ethernet_type(speed_gbps: int, cage: str | None) -> str:
    kind = f"{speed_gbps}gbase-x-{(cage or '').lower().replace('-', '').replace('+', 'p')}"
    return kind if kind in ETHERNET_TYPES else "other"


def interface_type(layout: InstallLayout, cable: Cable, host_end: bool) -> str:
    """NetBox's type for one end of a cable: infiniband-ndr on an InfiniBand fabric; on
    Ethernet the speed in the cage of that end (a host's NIC cage: 400gbase-x-qsfp112 for a
    BlueField-3, a switch's OSFP), 1000base-t on the management network."""
    if cable.tier == MANAGEMENT_TIER:
        return "1000base-t"
    if cable.tier == INBAND_TIER:  # both ends as the in-band switch's cage (100GbE QSFP28)
        switch = layout.parts.get(layout.devices[cable.z_device].part)
        return ethernet_type(cable.speed_gbps, switch.cage_type if switch else None)
    design = layout.design.storage if cable.tier.startswith("storage ") else layout.design
    design = design or layout.design
    if design.requirements.family == "infiniband":
        return f"infiniband-{design.switch.generation.lower().removesuffix('200')}"
    cage = design.nic.cage_type if host_end else design.switch.cage_type
    return ethernet_type(cable.speed_gbps, cage)


def _is_host_end(cable: Cable, end: str) -> bool:
    return end == "a" and cable.tier.removeprefix("storage ") in HOST_TIERS


def sites_csv(layout: InstallLayout) -> Iterator[str]:
    name = layout.site.site_name
    return csv_chunks(
        SITE_COLUMNS, [(name, slug(name), "planned", "GPU cluster fabric (FabricQuote pack)")]
    )


def locations_csv(layout: InstallLayout) -> Iterator[str]:
    site = layout.site.site_name
    names = dict.fromkeys(location_name(layout, rack) for rack in layout.racks)
    return csv_chunks(LOCATION_COLUMNS, ((site, n, slug(n), "planned") for n in names))


def racks_csv(layout: InstallLayout) -> Iterator[str]:
    site = layout.site
    return csv_chunks(
        RACK_COLUMNS,
        (
            (
                site.site_name,
                location_name(layout, rack),
                rack.name,
                "planned",
                19,
                site.rack_units,
                f"{rack.kind} rack",
            )
            for rack in layout.racks
        ),
    )


def manufacturers_csv(layout: InstallLayout) -> Iterator[str]:
    names = sorted({manufacturer(d) for d in layout.devices.values()})
    return csv_chunks(MANUFACTURER_COLUMNS, ((n, slug(n)) for n in names))


def device_roles_csv(layout: InstallLayout) -> Iterator[str]:
    roles = dict.fromkeys(d.role for d in layout.devices.values())
    return csv_chunks(
        ROLE_COLUMNS,
        ((r, slug(r), ROLE_COLOURS.get(r, OTHER_ROLE_COLOUR), "false") for r in roles),
    )


def device_types_csv(layout: InstallLayout) -> Iterator[str]:
    """One row per model racked, with its height and, where the catalog has it, its datasheet
    weight (NetBox sums them into the rack's weight)."""
    types: dict[tuple[str, str], Device] = {}
    for d in layout.devices.values():
        types.setdefault((manufacturer(d), device_type(layout, d)), d)

    def rows():
        for (maker, model), d in types.items():
            spec = layout.parts.get(d.part)
            weight = spec.weight_kg if spec is not None else None
            yield (
                maker,
                model,
                slug(model),
                d.part,
                d.units,
                "true",
                "" if weight is None else weight,
                "" if weight is None else "kg",
            )

    return csv_chunks(DEVICE_TYPE_COLUMNS, rows())


def devices_csv(layout: InstallLayout) -> Iterator[str]:
    site = layout.site

    def rows():
        for d in layout.devices.values():
            rack = layout.racks[d.rack]
            yield (
                d.name,
                d.role,
                manufacturer(d),
                device_type(layout, d),
                "planned",
                site.site_name,
                location_name(layout, rack),
                rack.name,
                d.u,
                "front",
            )

    return csv_chunks(DEVICE_COLUMNS, rows())


def interfaces_csv(layout: InstallLayout) -> Iterator[str]:
    """Every cabled interface, then every switch's uplinks not cabled (where the installer
    connects the management network upstream), in placement order."""

    def rows():
        seen: set[tuple[str, str]] = set()
        for c in layout.cables:
            for end, device, port in (("a", c.a_device, c.a_port), ("z", c.z_device, c.z_port)):
                if (device, port) not in seen:
                    seen.add((device, port))
                    kind = interface_type(layout, c, _is_host_end(c, end))
                    yield device, port, kind, c.speed_gbps * 1_000_000, "true"
        for device in layout.devices.values():
            spec = layout.parts.get(device.part)
            if spec is None or spec.category != "switch" or not spec.uplink_speed_gbps:
                continue
            speed = spec.uplink_speed_gbps
            kind = ethernet_type(speed, UPLINK_CAGES.get(speed))
            for port in uplink_ports(spec):
                if (device.name, port) not in seen:
                    seen.add((device.name, port))
                    yield device.name, port, kind, speed * 1_000_000, "true"

    return csv_chunks(INTERFACE_COLUMNS, rows())


def cables_csv(layout: InstallLayout) -> Iterator[str]:
    site = layout.site.site_name
    return csv_chunks(
        CABLE_COLUMNS,
        (
            (
                site,
                c.a_device,
                "dcim.interface",
                c.a_port,
                site,
                c.z_device,
                "dcim.interface",
                c.z_port,
                CABLE_TYPES.get(c.media, ""),
                "planned",
                c.cable_id,
                c.colour_hex,
                c.length_m,
                "m",
            )
            for c in layout.cables
        ),
    )


PRODUCERS = {
    "netbox-sites.csv": sites_csv,
    "netbox-locations.csv": locations_csv,
    "netbox-racks.csv": racks_csv,
    "netbox-manufacturers.csv": manufacturers_csv,
    "netbox-device-roles.csv": device_roles_csv,
    "netbox-device-types.csv": device_types_csv,
    "netbox-devices.csv": devices_csv,
    "netbox-interfaces.csv": interfaces_csv,
    "netbox-cables.csv": cables_csv,
}

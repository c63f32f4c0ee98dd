"""The pack's NetBox files import into an empty NetBox in the README's order, and a second
design's pack (another name prefix) into the same NetBox.

NetBox itself needs Python 3.12 and its own PostgreSQL and Redis; CI does not run it. This file
restates, as a small importer, what NetBox 4's bulk-import forms (dcim/forms/bulk_import.py)
and models check for the columns the pack writes: required fields, choice values
(dcim/choices.py), slugs, references resolved by name the way each form scopes them, and the
unique constraints. A pack read by it is read by NetBox; a reference NetBox would not find, or
a name it would refuse as a duplicate, fails here with NetBox's own words.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import re

import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.install import SiteInputs, plan_layout
from quoting.engine.install.netbox import (
    NETBOX_FILES,
    PRODUCERS,
    interfaces_csv,
)

# NetBox 4 dcim/choices.py (the values the pack may write).
SITE_STATUSES = {"planned", "staging", "active", "decommissioning", "retired"}
RACK_STATUSES = {"reserved", "available", "planned", "active", "deprecated"}
DEVICE_STATUSES = {
    "offline",
    "active",
    "planned",
    "staged",
    "failed",
    "inventory",
    "decommissioning",
}
RACK_WIDTHS = {"10", "19", "21", "23"}
WEIGHT_UNITS = {"kg", "g", "lb", "oz"}
FACES = {"front", "rear"}
INTERFACE_TYPES = {
    "other",
    "1000base-t",
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
    "400gbase-x-osfp-rhs",
    "800gbase-x-qsfpdd",
    "800gbase-x-osfp",
    *(f"infiniband-{g}" for g in ("sdr", "ddr", "qdr", "fdr10", "fdr", "edr", "hdr", "ndr", "xdr")),
}
CABLE_TYPES = {
    "cat6",
    "cat6a",
    "dac-active",
    "dac-passive",
    "mmf-om3",
    "mmf-om4",
    "smf-os2",
    "aoc",
    "",
}
LINK_STATUSES = {"connected", "planned", "decommissioning"}
LENGTH_UNITS = {"km", "m", "cm", "mi", "ft", "in"}
SLUG = re.compile(r"^[-a-zA-Z0-9_]+$")
COLOUR = re.compile(r"^[0-9a-f]{6}$")


class Refused(AssertionError):
    """What NetBox would say, and where."""


@dataclasses.dataclass
class NetBox:
    """The objects imported so far, keyed as NetBox's unique constraints key them."""

    site_rows: dict[str, str] = dataclasses.field(default_factory=dict)  # name -> slug
    locations: dict[tuple[str, str], str] = dataclasses.field(default_factory=dict)
    racks: dict[tuple[str, str, str], int] = dataclasses.field(default_factory=dict)  # -> U
    manufacturers: set[str] = dataclasses.field(default_factory=set)
    roles: set[str] = dataclasses.field(default_factory=set)
    device_types: dict[tuple[str, str], tuple[int, str]] = dataclasses.field(default_factory=dict)
    devices: dict[str, str] = dataclasses.field(default_factory=dict)  # lower(name) -> site
    units: dict[tuple[str, str, str], set[int]] = dataclasses.field(default_factory=dict)
    interfaces: dict[tuple[str, str], bool] = dataclasses.field(default_factory=dict)

    @staticmethod
    def need(row: dict, *names: str) -> None:
        for name in names:
            if not (row.get(name) or "").strip():
                raise Refused(f"{name}: This field is required.")

    @staticmethod
    def choice(row: dict, name: str, values: set[str]) -> None:
        if row.get(name, "") not in values:
            raise Refused(f"{name}: Select a valid choice. {row.get(name)!r}")

    @staticmethod
    def slug(row: dict) -> None:
        if not SLUG.match(row["slug"]):
            raise Refused(f"slug: Enter a valid slug: {row['slug']!r}")


def _sites(nb: NetBox, row: dict) -> None:
    nb.need(row, "name", "slug", "status")
    nb.choice(row, "status", SITE_STATUSES)
    nb.slug(row)
    if row["name"] in nb.site_rows or row["slug"] in nb.site_rows.values():
        raise Refused("Site with this name already exists.")
    nb.site_rows[row["name"]] = row["slug"]


def _locations(nb: NetBox, row: dict) -> None:
    nb.need(row, "site", "name", "slug", "status")
    nb.choice(row, "status", SITE_STATUSES)
    nb.slug(row)
    if row["site"] not in nb.site_rows:
        raise Refused(f"site: Object not found: {row['site']}")
    key = (row["site"], row["name"])
    slugs = {(site, slug) for (site, _), slug in nb.locations.items()}
    if key in nb.locations or (row["site"], row["slug"]) in slugs:
        raise Refused("Location with this Site, Parent and Name already exists.")
    nb.locations[key] = row["slug"]


def _racks(nb: NetBox, row: dict) -> None:
    nb.need(row, "site", "name", "status", "width", "u_height")
    nb.choice(row, "status", RACK_STATUSES)
    nb.choice(row, "width", RACK_WIDTHS)
    if row["site"] not in nb.site_rows:
        raise Refused(f"site: Object not found: {row['site']}")
    if row["location"] and (row["site"], row["location"]) not in nb.locations:
        raise Refused(f"location: Object not found: {row['location']}")
    key = (row["site"], row["location"], row["name"])
    if key in nb.racks:
        raise Refused("Rack with this Location and Name already exists.")
    nb.racks[key] = int(row["u_height"])


def _manufacturers(nb: NetBox, row: dict) -> None:
    nb.need(row, "name", "slug")
    nb.slug(row)
    if row["name"] in nb.manufacturers:
        raise Refused("Manufacturer with this Name already exists.")
    nb.manufacturers.add(row["name"])


def _device_roles(nb: NetBox, row: dict) -> None:
    nb.need(row, "name", "slug")
    nb.slug(row)
    if row.get("color") and not COLOUR.match(row["color"]):
        raise Refused(f"color: {row['color']!r}")
    nb.choice(row, "vm_role", {"true", "false", ""})
    if row["name"] in nb.roles:
        raise Refused("Device role with this Name already exists.")
    nb.roles.add(row["name"])


def _device_types(nb: NetBox, row: dict) -> None:
    nb.need(row, "manufacturer", "model", "slug", "u_height")
    nb.slug(row)
    if row["manufacturer"] not in nb.manufacturers:
        raise Refused(f"manufacturer: Object not found: {row['manufacturer']}")
    if row["weight"]:
        float(row["weight"])
        nb.choice(row, "weight_unit", WEIGHT_UNITS)
    key = (row["manufacturer"], row["model"])
    slugs = {(maker, slug) for (maker, _), (_, slug) in nb.device_types.items()}
    if key in nb.device_types or (row["manufacturer"], row["slug"]) in slugs:
        raise Refused("Device type with this Manufacturer and Model already exists.")
    nb.device_types[key] = (int(row["u_height"]), row["slug"])


def _devices(nb: NetBox, row: dict) -> None:
    nb.need(row, "role", "manufacturer", "device_type", "status", "site")
    nb.choice(row, "status", DEVICE_STATUSES)
    if row["role"] not in nb.roles:
        raise Refused(f"role: Object not found: {row['role']}")
    device_type = nb.device_types.get((row["manufacturer"], row["device_type"]))
    if device_type is None:
        raise Refused(f"device_type: Object not found: {row['device_type']}")
    if row["site"] not in nb.site_rows:
        raise Refused(f"site: Object not found: {row['site']}")
    if row["location"] and (row["site"], row["location"]) not in nb.locations:
        raise Refused(f"location: Object not found: {row['location']}")
    rack = (row["site"], row["location"], row["rack"])
    if rack not in nb.racks:
        raise Refused(f"rack: Object not found: {row['rack']}")
    nb.choice(row, "face", FACES)
    lowest, height = int(row["position"]), device_type[0]
    wanted = set(range(lowest, lowest + height))
    if lowest < 1 or max(wanted) > nb.racks[rack]:
        raise Refused(f"U{lowest} is outside the rack's {nb.racks[rack]} U.")
    taken = nb.units.setdefault(rack, set())
    if taken & wanted:  # full-depth device types: a U is taken on both faces
        raise Refused(f"U{lowest} is already occupied in rack {row['rack']}.")
    taken |= wanted
    if row["name"].lower() in nb.devices:  # unique per site; and the interface import
        raise Refused("Device name must be unique per site.")  # finds by name alone
    nb.devices[row["name"].lower()] = row["site"]


def _interfaces(nb: NetBox, row: dict) -> None:
    nb.need(row, "device", "name", "type")
    nb.choice(row, "type", INTERFACE_TYPES)
    if row["device"].lower() not in nb.devices:
        raise Refused(f"device: Object not found: {row['device']}")
    key = (row["device"], row["name"])
    if key in nb.interfaces:
        raise Refused("Interface with this Device and Name already exists.")
    nb.interfaces[key] = False


def _cables(nb: NetBox, row: dict) -> None:
    nb.choice(row, "status", LINK_STATUSES)
    nb.choice(row, "type", CABLE_TYPES)
    nb.choice(row, "length_unit", LENGTH_UNITS)
    if row["color"] and not COLOUR.match(row["color"]):
        raise Refused(f"color: {row['color']!r}")
    for side in ("a", "b"):
        nb.need(row, f"side_{side}_device", f"side_{side}_type", f"side_{side}_name")
        if row[f"side_{side}_type"] != "dcim.interface":
            raise Refused(f"side_{side}_type: {row[f'side_{side}_type']!r}")
        device = row[f"side_{side}_device"]
        if nb.devices.get(device.lower()) != row[f"side_{side}_site"]:
            raise Refused(f"side_{side}_device: Object not found: {device}")
        end = (device, row[f"side_{side}_name"])
        if end not in nb.interfaces:
            raise Refused(f"{side.upper()} side termination not found: {end}")
        if nb.interfaces[end]:
            raise Refused(f"Side {side.upper()}: {end} is already connected")
        nb.interfaces[end] = True


RULES = {
    "netbox-sites.csv": _sites,
    "netbox-locations.csv": _locations,
    "netbox-racks.csv": _racks,
    "netbox-manufacturers.csv": _manufacturers,
    "netbox-device-roles.csv": _device_roles,
    "netbox-device-types.csv": _device_types,
    "netbox-devices.csv": _devices,
    "netbox-interfaces.csv": _interfaces,
    "netbox-cables.csv": _cables,
}


def import_pack(nb: NetBox, files: dict[str, str], skip: tuple[str, ...] = ()) -> None:
    """Each file through NetBox's import page in the README's order; NetBox stops a file at its
    first refused record (and rolls the file back: here the test fails at once)."""
    for name in NETBOX_FILES:
        if name in skip:
            continue
        for number, row in enumerate(csv.DictReader(io.StringIO(files[name])), start=1):
            try:
                RULES[name](nb, row)
            except Refused as error:
                raise Refused(f"{name} record {number}: {error}") from None


def netbox_files(layout) -> dict[str, str]:
    return {name: "".join(produce(layout)) for name, produce in PRODUCERS.items()}


DESIGNS = {
    "248 DGX H100 GPUs with UFM appliances": dict(
        gpu_count=248, server_part_number="DGX-H100", subnet_manager="ufm-appliance"
    ),
    "512 GPUs on Spectrum-X, BlueField-3 hosts": dict(
        gpu_count=512, family="ethernet", nic_generation="400GbE"
    ),
    "NDR200 split ports, storage, management": dict(
        gpu_count=512,
        nic_generation="NDR200",
        storage_servers=8,
        inband_management=True,
        outofband_management=True,
    ),
    "two Spectrum-X planes, B300": dict(
        gpu_count=512,
        family="ethernet",
        nic_generation="400GbE",
        planes=2,
        server_part_number="DGX-B300",
    ),
    "three tiers": dict(gpu_count=4096),
    "16 DGX H100 at NDR200 on one switch (BasePOD)": dict(
        server_count=16, nic_generation="NDR200", server_part_number="DGX-H100"
    ),
    "72 DGX H100 GPUs on leaves of two rails, UFM appliances": dict(
        gpu_count=72, server_part_number="DGX-H100", subnet_manager="ufm-appliance"
    ),
    "256 GPUs on Spectrum-X, leaves of two rails": dict(
        gpu_count=256, family="ethernet", nic_generation="400GbE"
    ),
}


@pytest.fixture(scope="module", params=list(DESIGNS))
def design(request, catalog):
    return design_fabric(FabricRequirements(**DESIGNS[request.param]), catalog)


def test_a_pack_imports_into_an_empty_netbox_in_the_readmes_order(design, catalog):
    layout = plan_layout(design, SiteInputs(rack_power_kw=40), catalog)
    nb = NetBox()
    import_pack(nb, netbox_files(layout))
    assert len(nb.devices) == len(layout.devices)
    assert len(nb.racks) == len(layout.racks)
    assert sum(nb.interfaces.values()) == 2 * len(layout.cables)  # every cable end connected


def test_every_netbox_file_is_in_the_pack_and_the_readme_gives_the_order(catalog):
    from quoting.engine.install.exports import readme_txt
    from quoting.engine.install.pack import pack_file_names

    design = design_fabric(FabricRequirements(gpu_count=64), catalog)
    layout = plan_layout(design, SiteInputs(), catalog)
    names = pack_file_names(layout)
    assert [n for n in names if n.startswith("netbox-")] == list(NETBOX_FILES)
    readme = "".join(readme_txt(layout))
    order = "sites, locations (one per row), racks, manufacturers, device-roles, device-types"
    assert order in readme.replace("\n", " ")


def test_a_second_design_with_its_own_prefix_imports_into_the_same_netbox(catalog):
    first = design_fabric(FabricRequirements(gpu_count=256), catalog)
    second = design_fabric(FabricRequirements(gpu_count=512, nic_generation="NDR200"), catalog)
    nb = NetBox()
    earlier = plan_layout(first, SiteInputs(name_prefix="pod1"), catalog)
    import_pack(nb, netbox_files(earlier))
    layout = plan_layout(second, SiteInputs(name_prefix="pod2"), catalog)
    # The README: rows NetBox already has (the site, makers, roles, types) are left out.
    files = netbox_files(layout)
    shared = ("netbox-sites.csv", "netbox-manufacturers.csv", "netbox-device-roles.csv")
    files["netbox-device-types.csv"] = "".join(
        line
        for i, line in enumerate(files["netbox-device-types.csv"].splitlines(keepends=True))
        if i == 0 or tuple(next(csv.reader([line]))[:2]) not in nb.device_types
    )
    import_pack(nb, files, skip=shared)
    assert len(nb.devices) == len(earlier.devices) + len(layout.devices)
    assert sum(nb.interfaces.values()) == 2 * (len(earlier.cables) + len(layout.cables))
    assert {location for _, location, _ in nb.racks} == {
        f"{prefix} Row {rack.row_name}"
        for prefix, plan in (("pod1", earlier), ("pod2", layout))
        for rack in plan.racks
    }


def test_without_a_prefix_a_second_pack_is_refused_as_netbox_would(catalog):
    """Why the prefix exists: NetBox finds an interface's device by name alone."""
    design = design_fabric(FabricRequirements(gpu_count=256), catalog)
    nb = NetBox()
    import_pack(nb, netbox_files(plan_layout(design, SiteInputs(), catalog)))
    files = netbox_files(plan_layout(design, SiteInputs(site_name="DC2"), catalog))
    with pytest.raises(Refused, match="netbox-devices.csv record 1: Device name must be unique"):
        import_pack(
            nb,
            files,
            skip=("netbox-manufacturers.csv", "netbox-device-roles.csv", "netbox-device-types.csv"),
        )


def test_the_prefix_names_every_device_in_every_file(catalog):
    design = design_fabric(FabricRequirements(gpu_count=128, outofband_management=True), catalog)
    plain = plan_layout(design, SiteInputs(), catalog)
    layout = plan_layout(design, SiteInputs(name_prefix="bj1-pod2"), catalog)
    assert list(layout.devices) == [f"bj1-pod2-{name}" for name in plain.devices]
    assert [(c.a_device, c.z_device) for c in layout.cables] == [
        (f"bj1-pod2-{c.a_device}", f"bj1-pod2-{c.z_device}") for c in plain.cables
    ]
    assert [r.devices for r in layout.racks] == [
        [f"bj1-pod2-{n}" for n in r.devices] for r in plain.racks
    ]


@pytest.mark.parametrize("prefix", ["-pod", "pod-", "pod 1", "pod_1", "p" * 25, "机房"])
def test_a_prefix_that_is_not_a_host_name_is_refused_at_its_field(catalog, prefix):
    design = design_fabric(FabricRequirements(gpu_count=64), catalog)
    with pytest.raises(InvalidInput) as error:
        plan_layout(design, SiteInputs(name_prefix=prefix), catalog)
    assert list(error.value.errors) == ["name_prefix"]


def test_ethernet_host_ports_are_typed_as_the_host_optic_and_switch_ports_as_theirs(catalog):
    """BlueField-3 SuperNICs have QSFP112 cages; the SN5600's are OSFP (split 2 x 400G)."""
    design = design_fabric(
        FabricRequirements(gpu_count=512, family="ethernet", nic_generation="400GbE"), catalog
    )
    assert (design.nic.cage_type, design.switch.cage_type) == ("QSFP112", "OSFP")
    layout = plan_layout(design, SiteInputs(), catalog)
    rows = list(csv.DictReader(io.StringIO("".join(interfaces_csv(layout)))))
    hosts = {d.name for d in layout.devices.values() if d.role == "server"}
    host_types = {r["type"] for r in rows if r["device"] in hosts}
    switch_types = {r["type"] for r in rows if r["device"] not in hosts}
    assert host_types == {"400gbase-x-qsfp112"}
    assert switch_types == {"400gbase-x-osfp"}


def test_infiniband_ports_are_typed_by_generation(catalog):
    design = design_fabric(FabricRequirements(gpu_count=512, nic_generation="NDR200"), catalog)
    layout = plan_layout(design, SiteInputs(), catalog)
    rows = list(csv.DictReader(io.StringIO("".join(interfaces_csv(layout)))))
    assert {r["type"] for r in rows} == {"infiniband-ndr"}


@pytest.mark.parametrize(
    "speed, kind",
    [
        (10, "10gbase-x-sfpp"),
        (25, "25gbase-x-sfp28"),
        (100, "100gbase-x-qsfp28"),
        (400, "400gbase-x-qsfpdd"),
        (40, "other"),
    ],
)
def test_an_uplinks_netbox_type_follows_its_speed(catalog, speed, kind):
    parts = [
        dataclasses.replace(p, uplink_speed_gbps=speed)
        if p.part_number == "920-9N110-00F1-0C0"
        else p
        for p in catalog
    ]
    design = design_fabric(FabricRequirements(gpu_count=64, outofband_management=True), parts)
    layout = plan_layout(design, SiteInputs(), parts)
    rows = list(csv.DictReader(io.StringIO("".join(interfaces_csv(layout)))))
    uplinks = [r for r in rows if r["name"] in ("p49", "p50", "p51", "p52")]
    assert len(uplinks) == 4 * design.management.outofband_switches > 0
    assert {(r["type"], r["speed"]) for r in uplinks} == {(kind, str(speed * 1_000_000))}


def test_device_types_carry_height_and_datasheet_weight(catalog):
    design = design_fabric(
        FabricRequirements(gpu_count=248, server_part_number="DGX-H100"), catalog
    )
    layout = plan_layout(design, SiteInputs(), catalog)
    rows = {
        r["model"]: r
        for r in csv.DictReader(io.StringIO("".join(PRODUCERS["netbox-device-types.csv"](layout))))
    }
    by_part = {p.part_number: p for p in catalog}
    dgx = rows["DGX-H100"]
    assert (dgx["u_height"], dgx["weight"], dgx["weight_unit"]) == (
        "8",
        str(by_part["DGX-H100"].weight_kg),
        "kg",
    )
    switch = rows[design.switch.part_number]
    assert switch["u_height"] == str(design.switch.rack_units or 1)


def test_a_chinese_site_name_gets_a_valid_slug(catalog):
    design = design_fabric(FabricRequirements(gpu_count=64), catalog)
    layout = plan_layout(design, SiteInputs(site_name="深圳一号机房"), catalog)
    nb = NetBox()
    import_pack(nb, netbox_files(layout))
    assert SLUG.match(nb.site_rows["深圳一号机房"])

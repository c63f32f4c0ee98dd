"""The installation pack, read back by parsers written here, independent of the exporters."""

from __future__ import annotations

import csv
import hashlib
import io
import math
import re
import zipfile
from collections import Counter, defaultdict

import pypdf
import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.install import SiteInputs, exports, plan_layout
from quoting.engine.install.elevations import rack_elevations_svg
from quoting.engine.install.exports import INFINIBAND_ONLY, port_map_csv
from quoting.engine.install.pack import (
    PACK_FILE_NAMES,
    pack_file_names,
    pack_zip_chunks,
)
from quoting.engine.install.pdf import rack_elevations_pdf

U_M = 0.04445  # 1.75 in

DESIGNS = {
    "256 GPUs, two tiers": dict(gpu_count=256),
    "copper in the rack (splitters, twin-port DAC)": dict(
        gpu_count=256, server_to_leaf="same-rack", leaf_to_spine="same-rack"
    ),
    "DGX H100, twin-port host cages": dict(gpu_count=512, server_part_number="DGX-H100"),
    "UFM appliances, storage and management": dict(
        gpu_count=496,
        subnet_manager="ufm-appliance",
        storage_servers=4,
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
    "NDR200 split ports": dict(gpu_count=512, nic_generation="NDR200"),
    "16 DGX H100 at NDR200 on one switch (BasePOD)": dict(
        server_count=16, nic_generation="NDR200", server_part_number="DGX-H100"
    ),
    "not rail-optimized": dict(gpu_count=512, rail_optimized=False),
    "72 DGX H100 GPUs on leaves of two rails, UFM appliances": dict(
        gpu_count=72, server_part_number="DGX-H100", subnet_manager="ufm-appliance"
    ),
    "256 GPUs on Spectrum-X, leaves of two rails": dict(
        gpu_count=256, family="ethernet", nic_generation="400GbE"
    ),
    "three tiers": dict(gpu_count=4096),
}


class Pack:
    def __init__(self, design, layout, data: bytes) -> None:
        self.design, self.layout, self.data = design, layout, data
        self.zip = zipfile.ZipFile(io.BytesIO(data))

    def text(self, name: str) -> str:
        return self.zip.read(name).decode("utf-8")

    def rows(self, name: str) -> list[dict]:
        return list(csv.DictReader(io.StringIO(self.text(name))))


_PACKS: dict[str, Pack] = {}


def _pack(name: str, catalog) -> Pack:
    if name not in _PACKS:
        design = design_fabric(FabricRequirements(**DESIGNS[name]), catalog)
        layout = plan_layout(design, SiteInputs(rack_power_kw=40), catalog)
        _PACKS[name] = Pack(design, layout, b"".join(pack_zip_chunks(layout)))
    return _PACKS[name]


@pytest.fixture(params=list(DESIGNS))
def pack(request, catalog) -> Pack:
    return _pack(request.param, catalog)


# The InfiniBand tools' files (ibdm, UFM) are in InfiniBand packs only; an Ethernet pack's lack
# of them is its own test (test_pack_ibdm.py).
INFINIBAND_DESIGNS = [
    n for n, d in DESIGNS.items() if d.get("family", "infiniband") == "infiniband"
]


@pytest.fixture(params=INFINIBAND_DESIGNS)
def infiniband_pack(request, catalog) -> Pack:
    return _pack(request.param, catalog)


def is_host_tier(tier: str) -> bool:
    return tier.removeprefix("storage ") in ("server-leaf", "ufm-leaf")


MANAGEMENT = "oob-management"
INBAND = "inband-management"
NOT_FABRIC = (MANAGEMENT, INBAND)  # Ethernet management cables, in no fabric topology file


def switch_ends(cable: dict) -> list[tuple[str, str]]:
    """The switch ports a schedule row plugs into: its Z end, and its A end unless that is a
    host (a NIC port, a BMC or a server's in-band port)."""
    ends = [(cable["z_device"], cable["z_port"])]
    host = cable["a_port"] == "bmc" or cable["a_port"].startswith("inband")
    if not is_host_tier(cable["tier"]) and not host:
        ends.append((cable["a_device"], cable["a_port"]))
    return ends


def panel_port(port: str, ports_per_cage: int) -> str:
    """Our own reading of cage/port notation as front-panel port numbers."""
    if port.startswith("p"):
        return "P" + port[1:]
    numbers = [int(n) for n in port.split("/")]
    name = f"P{(numbers[0] - 1) * ports_per_cage + numbers[1]}"
    return name + (f"/{numbers[2]}" if len(numbers) == 3 else "")


def expand_hostlist(text: str) -> list[str]:
    """Slurm hostlists: name[01-03,07],other -> names."""
    names = []
    for item in re.findall(r"[^,\[]+(?:\[[^\]]*\])?[^,]*", text):
        match = re.fullmatch(r"(.*)\[([^\]]*)\](.*)", item)
        if not match:
            names.append(item)
            continue
        prefix, ranges, suffix = match.groups()
        for part in ranges.split(","):
            first, _, last = part.partition("-")
            for number in range(int(first), int(last or first) + 1):
                names.append(f"{prefix}{number:0{len(first)}d}{suffix}")
    return names


def test_the_zip_holds_exactly_the_named_files_and_is_the_same_every_time(pack):
    assert pack.zip.namelist() == pack_file_names(pack.layout)
    assert [n for n in pack.zip.namelist() if not n.startswith("ibnl/")] == [
        n
        for n in PACK_FILE_NAMES
        if pack.design.requirements.family == "infiniband" or n not in INFINIBAND_ONLY
    ]
    again = b"".join(pack_zip_chunks(pack.layout))
    assert hashlib.sha256(again).hexdigest() == hashlib.sha256(pack.data).hexdigest()


def test_every_cable_id_and_every_label_is_unique(pack):
    cables = pack.rows("cable-schedule.csv")
    ids = [c["cable_id"] for c in cables]
    labels = [c["label_a"] for c in cables] + [c["label_z"] for c in cables]
    assert len(ids) == len(set(ids)) > 0
    assert len(labels) == len(set(labels))
    for c in cables:  # each label starts at its own end: row.rack-Uu:port
        row, rack = c["a_rack"][:-2], c["a_rack"][-2:]
        assert c["label_a"].startswith(f"{row}.{rack}-U{int(c['a_u']):02d}:{c['a_port']} > ")


def test_every_switch_port_appears_at_most_once(pack):
    ends = Counter()
    for c in pack.rows("cable-schedule.csv"):
        ends.update(switch_ends(c))
    assert set(ends.values()) == {1}
    port_map = Counter((p["device"], p["port"]) for p in pack.rows("port-map.csv"))
    assert set(port_map.values()) == {1}
    cabled = {(p["device"], p["port"]) for p in pack.rows("port-map.csv") if p["peer_device"]}
    assert cabled == set(ends)


def test_the_port_map_lists_every_port_of_every_switch_with_the_schedules_peer(pack, catalog):
    by_sku = {p.part_number: p for p in catalog}
    kinds = {d["name"]: d["device_type"] for d in pack.rows("netbox-devices.csv")}
    switches = {
        name for name, sku in kinds.items() if sku in by_sku and by_sku[sku].category == "switch"
    }
    rows = pack.rows("port-map.csv")
    panel = defaultdict(set)  # device -> its physical ports (a split port's lanes are one)
    for r in rows:
        if r["port"] != "mgmt0":
            panel[r["device"]].add("/".join(r["port"].split("/")[:2]))
    assert set(panel) == switches
    for device, ports in panel.items():  # the panel's ports, then the uplinks beside it
        spec = by_sku[kinds[device]]
        assert len(ports) == spec.port_count + (spec.uplink_port_count or 0), device
    peers = {}
    for c in pack.rows("cable-schedule.csv"):
        peers[(c["z_device"], c["z_port"])] = (c["a_device"], c["a_port"], c["cable_id"])
        if (c["a_device"], c["a_port"]) in switch_ends(c):
            peers[(c["a_device"], c["a_port"])] = (c["z_device"], c["z_port"], c["cable_id"])
    for r in rows:
        key = (r["device"], r["port"])
        if key in peers:
            assert (r["peer_device"], r["peer_port"], r["cable_id"]) == peers[key]
        else:  # a free port: nothing plugged, nothing to pick
            assert r["peer_device"] == r["peer_port"] == r["part"] == r["cable_id"] == ""


def test_a_qm9700_has_64_ndr_ports_in_the_port_map(catalog):
    design = design_fabric(FabricRequirements(gpu_count=72), catalog)
    layout = plan_layout(design, SiteInputs(), catalog)
    assert design.switch.part_number.startswith("MQM97")
    rows = list(csv.DictReader(io.StringIO("".join(port_map_csv(layout)))))
    leaf = [r for r in rows if r["device"] == "su1-leaf-r1r2"]  # rails 1 and 2 of 9 servers
    assert len(leaf) == 64 and leaf[0]["port"] == "1/1" and leaf[-1]["port"] == "32/2"
    assert len([r for r in leaf if r["peer_device"]]) == 18 + 18  # 18 server ports, 18 uplinks
    free = [r for r in leaf if not r["peer_device"]]
    assert len(free) == 28 and all(r["speed_gbps"] == "400" for r in free)


def test_a_management_switch_lists_its_four_100g_uplinks_free_after_its_48_rj45_ports(catalog):
    pack = _PACKS.get("UFM appliances, storage and management")
    if pack is None:
        requirements = FabricRequirements(**DESIGNS["UFM appliances, storage and management"])
        design = design_fabric(requirements, catalog)
        layout = plan_layout(design, SiteInputs(), catalog)
        pack = Pack(design, layout, b"".join(pack_zip_chunks(layout)))
    devices = pack.rows("netbox-devices.csv")
    oob = [d["name"] for d in devices if d["role"] == "out-of-band management"]
    assert oob and {d["device_type"] for d in devices if d["name"] in oob} == {
        "920-9N110-00F1-0C0"
    }  # the SN2201
    uplinks = ["p49", "p50", "p51", "p52"]
    interfaces = {(i["device"], i["name"]): i for i in pack.rows("netbox-interfaces.csv")}
    by_switch = defaultdict(list)
    for r in pack.rows("port-map.csv"):
        by_switch[r["device"]].append(r)
    for switch in oob:
        rows = [r for r in by_switch[switch] if r["port"] != "mgmt0"]
        # The 48 RJ45 ports in panel order at 1G, then the uplinks at 100G: nothing plugged.
        assert [r["port"] for r in rows] == [f"p{n}" for n in range(1, 53)]
        assert {r["speed_gbps"] for r in rows[:48]} == {"1"}
        for r in rows[48:]:
            assert r["speed_gbps"] == "100"
            assert r["peer_device"] == r["peer_port"] == r["part"] == r["cable_id"] == ""
        for port in uplinks:
            assert interfaces[(switch, port)]["type"] == "100gbase-x-qsfp28"
            assert interfaces[(switch, port)]["speed"] == str(100 * 1_000_000)  # kbit/s
    # Every other interface is a cable's end: no uplinks invented for the fabric's switches.
    ends = set()
    for c in pack.rows("cable-schedule.csv"):
        ends |= {(c["a_device"], c["a_port"]), (c["z_device"], c["z_port"])}
    assert set(interfaces) == ends | {(s, p) for s in oob for p in uplinks}


def test_cable_counts_per_part_equal_the_bom(pack):
    cables = defaultdict(set)
    for c in pack.rows("cable-schedule.csv"):
        # An in-band run no catalog cable reaches has no part: quoted separately, not in the BOM.
        if c["tier"] != INBAND or c["part"]:
            cables[c["part"]].add(c["cable_id"].split(".")[0])
    quoted = Counter()
    for line in pack.design.bom:
        if line.category == "cable" and line.role != "spare":
            quoted[line.sku] += line.quantity
    assert {part: len(ids) for part, ids in cables.items()} == dict(quoted)


def test_every_length_is_at_least_the_straight_distance_and_fits_its_class(pack):
    racks, heights = {}, {}
    for r in pack.rows("racks.csv"):
        racks[r["rack"]] = (float(r["x_m"]), float(r["y_m"]))
        for entry in filter(None, r["devices"].split("; ")):
            first, last, name = re.match(r"U(\d+)-U(\d+) (\S+)", entry).groups()
            heights[name] = (int(first) - 1 + (int(last) - int(first) + 1) / 2) * U_M
    for c in pack.rows("cable-schedule.csv"):
        (xa, ya), (xz, yz) = racks[c["a_rack"]], racks[c["z_rack"]]
        straight = math.dist((xa, ya, heights[c["a_device"]]), (xz, yz, heights[c["z_device"]]))
        assert float(c["length_m"]) >= straight
        if c["length_class_m"]:
            assert float(c["length_class_m"]) >= float(c["length_m"])


def test_per_rack_power_adds_up_to_the_design_power(pack):
    racks = pack.rows("racks.csv")
    typical = sum(float(r["network_typical_w"]) for r in racks)
    maximum = sum(float(r["network_max_w"]) for r in racks)
    tolerance = 0.05 * len(racks) + 1e-6  # each rack's figure is rounded to 0.1 W
    assert abs(typical - pack.design.power_typical_w) <= tolerance
    assert abs(maximum - pack.design.power_max_w) <= tolerance
    for r in racks:
        assert r["over_budget"] == ("yes" if float(r["max_kw"]) > float(r["budget_kw"]) else "no")


def test_slurm_puts_every_node_under_one_switch_its_su_or_leaf_and_those_under_spines(pack):
    leaf_nodes, parents = {}, defaultdict(set)
    for line in pack.text("slurm-topology.conf").splitlines():
        if not line or line.startswith("#"):
            continue
        fields = dict(item.split("=", 1) for item in line.split())
        if "Nodes" in fields:
            leaf_nodes[fields["SwitchName"]] = set(expand_hostlist(fields["Nodes"]))
        else:
            for child in expand_hostlist(fields["Switches"]):
                parents[child].add(fields["SwitchName"])
    cables = [c for c in pack.rows("cable-schedule.csv") if not c["tier"].startswith("storage")]
    rails_of = defaultdict(set)
    for c in cables:
        if c["tier"] == "server-leaf":
            rails_of[c["a_device"]].add(c["z_device"])
    servers = {d["name"] for d in pack.rows("netbox-devices.csv") if d["role"] == "server"}
    assert set(rails_of) == servers
    devices = pack.layout.devices
    by_su = pack.design.topology.rail_optimized

    def switch_of(leaf: str) -> str:
        return f"su{devices[leaf].su}" if by_su else leaf

    for node, leaves in rails_of.items():
        holding = [name for name, nodes in leaf_nodes.items() if node in nodes]
        assert holding == [switch_of(next(iter(leaves)))]  # exactly one switch
        assert {switch_of(leaf) for leaf in leaves} == set(holding)  # all its rails in it
    # Above: spines over the same switches are one switch, their children those switches.
    over: dict[str, set[str]] = defaultdict(set)
    for c in cables:
        if c["tier"] == "leaf-spine":
            over[c["z_device"]].add(switch_of(c["a_device"]))
    children: dict[str, set[str]] = defaultdict(set)
    for child, uppers in parents.items():
        for upper in uppers:
            children[upper].add(child)
    spine_level = [kids for kids in children.values() if kids & set(leaf_nodes)]
    assert sorted(map(sorted, spine_level)) == sorted(
        map(sorted, set(map(frozenset, over.values())))
    )
    if pack.design.topology.tiers > 1:
        assert set(leaf_nodes) <= set(parents)
    if pack.design.topology.core_count:
        assert all(upper in parents for upper in children if children[upper] & set(leaf_nodes))


def _schedule_links(pack) -> set[frozenset]:
    """The fabric's links in ibdm's names, by our own reading: a switch with any split lane
    names every port by lane (P5s1), a lane P11/1 as P11s1."""
    ppc = pack.design.topology.ports_per_cage
    rows = [c for c in pack.rows("cable-schedule.csv") if c["tier"] not in NOT_FABRIC]
    split = {c["z_device"] for c in rows if c["z_port"].count("/") == 2} | {
        c["a_device"] for c in rows if not is_host_tier(c["tier"]) and c["a_port"].count("/") == 2
    }

    def name(device: str, port: str) -> tuple[str, str]:
        panel = panel_port(port, ppc).replace("/", "s")
        return device, panel + ("s1" if device in split and "s" not in panel[1:] else "")

    links = set()
    for c in rows:
        if is_host_tier(c["tier"]):
            a = (f"{c['a_device']}/{c['a_port']}", "P1")
        else:
            a = name(c["a_device"], c["a_port"])
        links.add(frozenset({a, name(c["z_device"], c["z_port"])}))
    return links


def test_the_ibdiagnet_topology_matches_the_cable_schedule_link_by_link(infiniband_pack):
    pack = infiniband_pack
    links, system = [], None
    for line in pack.text("ibdiagnet.topo").splitlines():
        if not line.strip() or line.startswith("#"):
            system = None
            continue
        if "->" not in line:
            system = line.split()[1]
            continue
        assert line.startswith("   ")  # ibdm reads only indented links
        local, remote = line.split("->")
        _type, name, port = remote.split()
        links.append(frozenset({(system, local.strip()), (name, port)}))
    assert len(links) == len(set(links))
    assert set(links) == _schedule_links(pack)


def test_the_ufm_topology_matches_the_cable_schedule_link_by_link(infiniband_pack):
    pack = infiniband_pack
    rows = pack.rows("ufm-ndt.csv")
    assert list(rows[0]) == ["#StartDevice", "StartPort", "EndDevice", "EndPort", "LinkType"]
    ndt = {
        frozenset({(r["#StartDevice"], r["StartPort"]), (r["EndDevice"], r["EndPort"])})
        for r in rows
    }

    def ndt_port(cable: dict, end: str) -> str:
        """Our own reading: a host port is its node description, a switch port its number."""
        device, port = cable[f"{end}_device"], cable[f"{end}_port"]
        if end == "a" and is_host_tier(cable["tier"]):
            return f"{device} {port}"
        fabric = pack.design.storage if cable["tier"].startswith("storage") else pack.design
        return "Port " + panel_port(port, fabric.topology.ports_per_cage)[1:]

    schedule = {
        frozenset({(c["a_device"], ndt_port(c, "a")), (c["z_device"], ndt_port(c, "z"))})
        for c in pack.rows("cable-schedule.csv")
        if c["tier"] not in NOT_FABRIC
    }
    assert len(rows) == len(ndt) == len(schedule)
    assert ndt == schedule


def test_the_bom_by_rack_picks_every_quoted_part_exactly_once(pack):
    picked = Counter()
    for row in pack.rows("bom-by-rack.csv"):
        if row["in_quote"] == "yes":
            picked[row["sku"]] += int(row["quantity"])
    quoted = Counter()
    for line in pack.design.bom:
        quoted[line.sku] += line.quantity
    assert picked == quoted


def font_sizes(page) -> list[float]:
    """Every font size the page's content stream sets (`/F1 8 Tf`)."""
    content = page.get_contents().get_data()
    return [float(size) for size in re.findall(rb"/F\d+ ([\d.]+) Tf", content)]


def test_the_label_sheets_hold_two_labels_per_cable_leg_and_the_elevations_every_rack(pack):
    legs = len(pack.layout.cables)
    labels = pypdf.PdfReader(io.BytesIO(pack.zip.read("labels.pdf")), strict=True)
    # Avery L7163 layout: 14 labels (2 x 7) to an A4 sheet.
    assert len(labels.pages) == math.ceil(2 * legs / 14)
    first = labels.pages[0].extract_text()
    cable = pack.rows("cable-schedule.csv")[0]
    assert f"{cable['cable_id']}  A" in first and f"{cable['cable_id']}  Z" in first
    assert cable["label_a"].split(" > ")[0] in first
    elevations = pypdf.PdfReader(io.BytesIO(pack.zip.read("rack-elevations.pdf")), strict=True)
    assert len(elevations.pages) == math.ceil(len(pack.layout.racks) / 6)
    text = "".join(page.extract_text() for page in elevations.pages)
    assert all(f"{rack.name} ({rack.kind})" in text for rack in pack.layout.racks)


def test_labels_are_printed_at_7_pt_or_more_on_the_stock_every_sheet_names(pack):
    labels = pypdf.PdfReader(io.BytesIO(pack.zip.read("labels.pdf")), strict=True)
    stock = "Avery L7163 / J8163 layout: A4, 14 labels of 99.1 x 38.1 mm (2 x 7)"
    assert stock in labels.metadata.subject
    for page in (labels.pages[0], labels.pages[-1]):
        assert min(font_sizes(page)) >= 7
        assert stock in page.extract_text().replace("\n", " ")
        assert [float(v) for v in page.mediabox] == [0, 0, 595, 842]  # A4
    assert stock in pack.text("README.txt")
    # Each label's two faces sit on its die-cut 99.1 x 38.1 mm label: the colour band's
    # rectangles start 4.65 mm + 39.55 mm in, on 38.1 mm rows under a 15.15 mm top margin.
    bands = re.findall(
        rb"([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+) re f", labels.pages[0].get_contents().get_data()
    )
    mm = 72 / 25.4
    xs = sorted({round(float(x) / mm, 1) for x, *_ in bands})
    assert xs[0] == pytest.approx(4.65 + 39.55, abs=0.1)
    tops = sorted({round((842 - float(y) - float(h)) / mm, 1) for _, y, _, h in bands})
    assert tops[0] == pytest.approx(15.15, abs=0.1)
    assert all(float(h) / mm == pytest.approx(38.1, abs=0.05) for *_, h in bands)


def test_servers_are_placed_by_scalable_unit_with_their_leaves_at_the_row_end(catalog):
    design = design_fabric(FabricRequirements(gpu_count=256), catalog)
    layout = plan_layout(design, SiteInputs(rack_power_kw=40), catalog)
    assert layout.servers_per_rack == 3  # 40 kW / 10.2 kW
    first = layout.devices["su1-r01-node01"]
    assert (layout.racks[first.rack].name, first.u) == ("A01", 1)
    leaf = layout.devices["su1-leaf-r2"]
    rack = layout.racks[leaf.rack]
    assert rack.kind == "network" and rack.position == 11  # after the SU's 11 compute racks
    assert "spine-04" in layout.devices
    assert layout.racks[layout.devices["spine-04"].rack].row == 1  # the network row


def test_racks_over_their_budget_are_flagged_once_for_the_design(catalog):
    design = design_fabric(FabricRequirements(gpu_count=64), catalog)
    layout = plan_layout(design, SiteInputs(rack_power_kw=40, servers_per_rack=4), catalog)
    over = [rack for rack in layout.racks if rack.max_kw > 40]
    assert len(over) == 2 and layout.racks[0] in over
    power = [w for w in layout.warnings if "kW budget" in w]
    assert power == [
        f"2 racks draw more than their 40 kW budget (up to {max(r.max_kw for r in over):.1f} "
        f"kW): {over[0].name}, {over[1].name}. Raise the power budget per rack, or set fewer "
        "servers per rack."
    ]


def test_one_rack_over_its_budget_is_named_alone(catalog):
    design = design_fabric(FabricRequirements(gpu_count=32), catalog)
    layout = plan_layout(design, SiteInputs(servers_per_rack=4), catalog)
    power = [w for w in layout.warnings if "kW budget" in w]
    assert len(power) == 1 and power[0].startswith("Rack A01 draws up to")


def test_a_hall_of_small_racks_gets_one_warning_naming_the_first_racks(catalog):
    design = design_fabric(FabricRequirements(gpu_count=1024), catalog)
    layout = plan_layout(design, SiteInputs(rack_power_kw=12, servers_per_rack=2), catalog)
    over = [rack for rack in layout.racks if rack.max_kw > 12]
    power = [w for w in layout.warnings if "kW budget" in w]
    assert len(over) > 8 and len(power) == 1
    assert power[0].startswith(f"{len(over)} racks draw more than their 12 kW budget")
    assert ", ".join(r.name for r in over[:8]) + " …." in power[0]


@pytest.mark.parametrize(
    ("site", "field"),
    [
        (dict(rack_units=0), "rack_units"),
        (dict(rack_power_kw=-5), "rack_power_kw"),
        (dict(rack_power_kw=0), "rack_power_kw"),
        (dict(rack_units=6), "rack_units"),  # an 8 U server does not fit
        (dict(rack_power_kw=8), "rack_power_kw"),  # a 10.2 kW server does not either
        (dict(servers_per_rack=7), "servers_per_rack"),  # 56 U in a 48 U rack
        (dict(cable_route="under the carpet"), "cable_route"),
        (dict(rows=1), "rows"),  # 256 GPUs need a compute row and a network row
    ],
)
def test_bad_site_inputs_name_their_field(catalog, site, field):
    design = design_fabric(FabricRequirements(gpu_count=256), catalog)
    with pytest.raises(InvalidInput) as error:
        plan_layout(design, SiteInputs(**site), catalog)
    assert field in error.value.errors


def test_a_design_too_large_for_its_site_says_how_many_racks_it_needs(catalog):
    design = design_fabric(FabricRequirements(gpu_count=4096), catalog)
    with pytest.raises(InvalidInput) as error:
        plan_layout(design, SiteInputs(rows=5), catalog)
    assert "racks in" in error.value.errors["rows"][0]


def test_copper_runs_longer_than_the_quoted_cable_are_reported(catalog):
    design = design_fabric(FabricRequirements(gpu_count=256, server_to_leaf="same-rack"), catalog)
    layout = plan_layout(design, SiteInputs(), catalog)
    assert any("server-leaf runs are longer than the quoted cable" in w for w in layout.warnings)


def test_every_management_port_is_cabled_once_to_a_management_switch_with_a_quoted_cord(pack):
    cables = [c for c in pack.rows("cable-schedule.csv") if c["tier"] == MANAGEMENT]
    management = pack.design.management
    assert len(cables) == management.outofband_cables
    if not cables:
        return
    devices = pack.rows("netbox-devices.csv")
    oob = {d["name"] for d in devices if d["role"] == "out-of-band management"}
    assert len(oob) == management.outofband_switches
    # Every placed device's management port once: BMCs of servers and appliances, mgmt0 of
    # switches (the management switches' own too).
    ends = Counter((c["a_device"], c["a_port"]) for c in cables)
    assert set(ends.values()) == {1}
    assert {device for device, _ in ends} == {d["name"] for d in devices}
    for d in devices:
        port = "bmc" if d["role"] in ("server", "storage-server", "ufm") else "mgmt0"
        assert (d["name"], port) in ends
    assert {c["z_device"] for c in cables} <= oob
    cords = {
        line.sku
        for line in pack.design.bom
        if line.role == "out-of-band management" and line.category == "cable"
    }
    assert {c["part"] for c in cables} == cords
    assert {c["media"] for c in cables} == {"twisted-pair"}
    interfaces = {(i["device"], i["name"]): i["type"] for i in pack.rows("netbox-interfaces.csv")}
    assert interfaces[(cables[0]["a_device"], cables[0]["a_port"])] == "1000base-t"
    netbox = {c["label"]: c["type"] for c in pack.rows("netbox-cables.csv")}
    assert netbox[cables[0]["cable_id"]] == "cat6a"


def test_rack_weight_sums_the_known_weights_and_names_the_devices_of_unknown_weight(catalog):
    design = design_fabric(
        FabricRequirements(gpu_count=256, server_part_number="DGX-H100"), catalog
    )
    layout = plan_layout(design, SiteInputs(rack_power_kw=40), catalog)
    racks = {r["rack"]: r for r in csv.DictReader(io.StringIO("".join(exports.racks_csv(layout))))}
    compute = racks["A01"]
    servers = compute["devices"].count("DGX-H100")
    assert servers == 3 and float(compute["weight_kg"]) == pytest.approx(3 * 130.45)
    assert compute["weight_unknown"] == ""
    spines = racks["B01"]  # four QM9700/QM9790 spines, 14.8 kg each
    assert float(spines["weight_kg"]) == pytest.approx(14.8 * spines["devices"].count("spine-"))
    # HGX servers are vendor-specific: no weight in the catalog. The rack gives what it knows
    # and names the rest, never a bare "n/a" nor a sum that reads as the rack's load.
    hgx = design_fabric(
        FabricRequirements(gpu_count=64, server_part_number="HGX-H100-8GPU-SRV"), catalog
    )
    hgx_layout = plan_layout(hgx, SiteInputs(rack_power_kw=40), catalog)
    hgx_racks = list(csv.DictReader(io.StringIO("".join(exports.racks_csv(hgx_layout)))))
    assert all(r["weight_kg"] != "n/a" for r in hgx_racks)
    assert float(hgx_racks[0]["weight_kg"]) == 0
    assert hgx_racks[0]["weight_unknown"] == "HGX-H100-8GPU-SRV x3"
    switch = hgx_racks[-1]  # one QM9700 serves the 8 servers
    assert (switch["weight_kg"], switch["weight_unknown"]) == ("14.8", "")
    # The elevations print the same figures on each rack: a floor and the unknown models.
    assert "391 kg" in "".join(rack_elevations_svg(layout))
    svg = "".join(rack_elevations_svg(hgx_layout))
    assert "≥ 0 kg, 3 unknown" in svg and "Weight unknown: HGX-H100-8GPU-SRV x3" in svg
    pdf = pypdf.PdfReader(io.BytesIO(b"".join(rack_elevations_pdf(layout))), strict=True)
    assert "391 kg" in pdf.pages[0].extract_text()
    hgx_pdf = pypdf.PdfReader(io.BytesIO(b"".join(rack_elevations_pdf(hgx_layout))), strict=True)
    text = hgx_pdf.pages[0].extract_text()
    assert ">= 0 kg, weight unknown:" in text and "HGX-H100-8GPU-SRV x3" in text


def test_every_catalog_switch_and_server_has_a_weight_or_a_rack_names_it_unknown(catalog):
    by_part = {p.part_number: p for p in catalog}
    weighed = {p.part_number for p in catalog if p.weight_kg is not None}
    # The datasheet figures SOURCES.md cites.
    assert by_part["920-9N42F-00RI-7C0"].weight_kg == 23.5  # SN5600
    assert by_part["920-9B36F-00RX-8S0"].weight_kg == 60  # Q3400-RA
    assert by_part["MQM8790-HS2F"].weight_kg == 11.4
    # No figure at hand, not guessed.
    assert {"HGX-H100-8GPU-SRV", "UFM-APPLIANCE-3.1", "MQM8700-HS2F"}.isdisjoint(weighed)
    design = design_fabric(
        FabricRequirements(
            gpu_count=248, server_part_number="DGX-H100", subnet_manager="ufm-appliance"
        ),
        catalog,
    )
    racks = list(
        csv.DictReader(
            io.StringIO("".join(exports.racks_csv(plan_layout(design, SiteInputs(), catalog))))
        )
    )
    assert any("UFM-APPLIANCE-3.1 x2" in r["weight_unknown"] for r in racks)


def test_elevations_have_a_u_scale_and_each_devices_model_in_its_box(pack):
    layout = pack.layout
    units = layout.site.rack_units
    numbered = [1, *range(5, units + 1, 5), units]
    svg = pack.text("rack-elevations.svg")
    rack = layout.racks[0]
    drawn = svg[svg.index(f'data-rack="{rack.name}"') :].split("</g>")[0]
    scale = [int(n) for n in re.findall(r'<text class="u"[^>]*>(\d+)</text>', drawn)]
    assert scale == sorted(set(numbered))
    assert drawn.count('class="tick"') == units
    for name in rack.devices:
        device = layout.devices[name]
        model = device.part or "server (not in the catalog)"
        assert re.search(
            rf">{re.escape(name)}(  |</text><text class=\"model\"[^>]*>){re.escape(model)}<", drawn
        )
    pdf = pypdf.PdfReader(io.BytesIO(pack.zip.read("rack-elevations.pdf")), strict=True)
    text = pdf.pages[0].extract_text()
    assert all(str(n) in text.split() for n in numbered)
    first = layout.devices[rack.devices[0]]
    assert first.name in text and (first.part or "server (not in the catalog)") in text
    # Every switch's part number is on the page of its rack.
    pages = ["".join(p.extract_text().split()) for p in pdf.pages]
    for index, r in enumerate(layout.racks):
        for name in r.devices:
            device = layout.devices[name]
            if device.part:
                assert device.part in pages[index // 6], (r.name, name)


def test_the_readme_says_lengths_are_estimates_on_the_site_inputs_and_which_are_defaults(catalog):
    from quoting.engine.install.lengths import design_on_site

    requirements = FabricRequirements(gpu_count=256, leaf_to_spine="same-row")
    site = SiteInputs(rack_pitch_m=0.8, cable_slack_m=1.5)
    layout = plan_layout(design_on_site(requirements, catalog, site), site, catalog)
    readme = "".join(exports.readme_txt(layout))
    note = readme[readme.index("Cable lengths: estimates on an assumed hall") :]
    assert "routed on the site inputs above, not measured" in note
    assert "Bought for the runs routed on this site: server-leaf." in note
    assert "leaf-spine (leaf_to_spine = same-row, 30 m), not for the routed runs" in note
    defaults = note[note.index("Site inputs at their defaults") :].split("\n")[0]
    assert "racks_per_row = 20" in defaults and "row_spacing_m = 3.0" in defaults
    assert "rack_pitch_m" not in defaults
    changed = note[note.index("Site inputs changed from the defaults") :].split("\n")[0]
    assert "rack_pitch_m = 0.8" in changed and "cable_slack_m = 1.5" in changed
    assert "Measure the real runs" in note
    # A design not measured on a site says its tiers were bought for their usual distance.
    plain = plan_layout(
        design_fabric(FabricRequirements(gpu_count=256), catalog), SiteInputs(), catalog
    )
    readme = "".join(exports.readme_txt(plain))
    assert "not measured on this site: server-leaf (same-row, 30 m)" in readme
    assert "Site inputs changed from the defaults" not in readme


def test_management_switches_stand_near_the_racks_they_serve(catalog):
    design = design_fabric(FabricRequirements(gpu_count=4096, outofband_management=True), catalog)
    layout = plan_layout(design, SiteInputs(rack_power_kw=40), catalog)
    runs = [c for c in layout.cables if c.tier == "oob-management"]
    assert len(runs) == design.management.outofband_cables
    # A management row across a 17-row hall would need runs of 50 m and more.
    assert max(c.length_m for c in runs) <= 20
    assert all(c.length_class_m is not None and c.length_class_m <= c.quoted_m for c in runs)
    # Each switch's own management port is on its own last used port.
    for c in runs:
        if c.a_device.startswith("mgmt-oob-"):
            assert c.z_device == c.a_device
    # Placing them put no rack over its power budget or height.
    assert not any("over its" in w for w in layout.warnings)
    assert all(r.units_used <= layout.site.rack_units for r in layout.racks)

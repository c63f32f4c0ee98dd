"""The optional separate storage fabric: planned like the compute fabric, merged into its BOM."""

from __future__ import annotations

from collections import Counter

import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, cable_schedule, design_fabric
from tests.quoting.engine.fabric_checks import check_schedule, port_index

COMPUTE_KEYS = (
    "tiers",
    "node_count",
    "endpoint_ports",
    "switch_sku",
    "leaf_count",
    "spine_count",
    "core_count",
    "ports",
    "ports_by_tier",
    "links",
    "links_per_leaf_per_spine",
    "oversubscription",
    "bisection_gbps",
    "max_hops",
)


def design(catalog, **fields):
    return design_fabric(FabricRequirements(**fields), catalog)


def storage_lines(d) -> Counter:
    return Counter(
        {(b.sku, b.role.removeprefix("storage ")): b.quantity for b in d.bom if b.role != "spare"}
    ) - Counter({(b.sku, b.role): b.quantity for b in d.bom if not b.role.startswith("storage ")})


@pytest.fixture
def small(catalog):
    # 32 compute servers x 1 storage port + 8 storage servers x 2 ports = 48 endpoint ports.
    return design(catalog, server_count=32, storage_servers=8)


@pytest.fixture
def large(catalog):
    # 256 x 1 + 32 x 2 = 320 ports: 10 leaves of 32 down and 32 up, and one for UFM's hosts.
    return design(catalog, server_count=256, storage_servers=32, switch_part_number="MQM9790-NS2F")


def test_no_storage_fabric_by_default(catalog):
    plain = design(catalog, gpu_count=256)
    assert plain.storage is None and plain.as_dict()["storage"] is None
    assert not any(b.role.startswith("storage") for b in plain.bom)
    ignored = design(catalog, gpu_count=256, storage_ports_per_server=4, storage_oversubscription=2)
    assert ignored.as_dict() == plain.as_dict()


def test_48_storage_ports_fit_one_64_port_switch(small):
    s = small.as_dict()["storage"]
    assert s["endpoint_ports"] == 48
    assert (s["tiers"], s["leaf_count"], s["spine_count"], s["core_count"]) == (1, 1, 0, 0)
    assert s["links_per_leaf_per_spine"] == 0
    assert s["ports"] == {"used": 48, "free": 16}
    assert s["switch_sku"] == small.switch.part_number
    assert {"storage leaf"} == {b.role for b in small.bom if b.category == "switch"} - {
        "leaf",
        "spine",
    }


def test_the_compute_figures_stay_the_compute_fabrics(catalog, small):
    plain = design(catalog, server_count=32).as_dict()
    merged = small.as_dict()
    assert {k: merged[k] for k in COMPUTE_KEYS} == {k: plain[k] for k in COMPUTE_KEYS}


def test_a_larger_storage_fabric_has_two_tiers_and_whole_links_per_leaf_spine_pair(large):
    t = large.storage.topology
    s = large.as_dict()["storage"]
    # 320 ports fill 10 leaves; its own subnet's UFM (auto: licences from 300 endpoints) runs on
    # 2 quoted hosts, which get an 11th leaf (test_ufm_hosts_quoted.py).
    assert (s["endpoint_ports"], s["tiers"], s["leaf_count"], s["spine_count"]) == (320, 2, 11, 8)
    assert large.storage.subnet_manager == "ufm-licence" and len(large.storage.ufm.links) == 2
    assert s["links_per_leaf_per_spine"] == 4 and t.leaf_up == 4 * t.spines_per_pod
    assert not t.rail_optimized and s["oversubscription"] == 1.0
    # Host and UFM ports, then both ends of each leaf's uplinks.
    assert s["ports"]["used"] == 320 + 2 + 2 * 11 * 32
    assert large.spine_count == 32  # the compute fabric's own, unchanged


def test_storage_oversubscription_splits_the_storage_leaves(catalog):
    d = design(catalog, server_count=256, storage_servers=32, storage_oversubscription=2)
    assert (d.storage.topology.leaf_down, d.storage.topology.leaf_up) == (42, 21)
    assert d.topology.leaf_up == 32  # the compute fabric stays non-blocking


def test_bom_power_and_rack_units_include_the_storage_fabric(catalog, large):
    plain = design(catalog, server_count=256, switch_part_number="MQM9790-NS2F")
    merged = Counter({(b.sku, b.role): b.quantity for b in large.bom})
    storage = Counter({(b.sku, f"storage {b.role}"): b.quantity for b in large.storage.bom})
    assert merged == Counter({(b.sku, b.role): b.quantity for b in plain.bom}) + storage
    assert ("MQM9790-NS2F", "storage leaf") in merged
    assert large.power_typical_w == pytest.approx(
        plain.power_typical_w + large.storage.power_typical_w
    )
    assert large.power_max_w == pytest.approx(plain.power_max_w + large.storage.power_max_w)
    assert large.rack_units == plain.rack_units + large.storage.rack_units
    assert large.storage.rack_units >= 18  # 18 switches of at least 1 U


def test_spares_and_out_of_band_management_cover_the_storage_fabric(catalog):
    d = design(catalog, server_count=32, storage_servers=8, spares_percent=5)
    spares = {b.sku: b.quantity for b in d.bom if b.role == "spare"}
    assert spares[d.switch.part_number] == 1  # 13 switches x 5%
    m = design(catalog, server_count=32, storage_servers=8, outofband_management=True)
    assert m.management.outofband_cables == (32 + 8) + (12 + 1) + 1 + 1


def test_the_storage_fabric_is_said_in_the_advice(small):
    assert any(a.startswith("Storage fabric: 48 ports") for a in small.advice)


@pytest.mark.parametrize("name", ["small", "large"])
def test_the_cable_schedule_lists_the_storage_links_and_agrees_with_the_storage_bom(
    request, catalog, name
):
    d = request.getfixturevalue(name)
    check_schedule(d.storage)  # the storage fabric alone keeps every link rule
    runs = list(cable_schedule(d))
    storage = [r for r in runs if r.tier.startswith("storage ")]
    assert Counter(r.tier for r in storage) == Counter(
        f"storage {tier}" for tier, n in d.storage.links_by_tier().items() for _ in range(n)
    )
    # The compute part of the schedule is the plain design's.
    plain = design(
        catalog, server_count=d.topology.servers, switch_part_number=d.switch.part_number
    )
    assert [r for r in runs if not r.tier.startswith("storage ")] == list(cable_schedule(plain))
    # Host ends: every storage port of every server, once.
    hosts = Counter((r.a_device, r.a_port) for r in storage if r.tier == "storage server-leaf")
    assert set(hosts.values()) == {1} and len(hosts) == d.storage.endpoint_ports
    assert ("node-017", "stor1") in hosts and ("storage-03", "p1") in hosts
    assert all(r.b_device.startswith("stor-") for r in storage)
    # Cables and transceivers in the schedule are exactly the storage lines of the BOM.
    ppc = d.storage.topology.ports_per_cage
    cables = Counter(part for _, part in {(r.cable_id, r.cable_part) for r in storage})
    modules = Counter(
        module
        for _, _, module in {
            (device, port_index(port, ppc) // ppc, module)
            for r in storage
            for device, port, module in (
                [(r.b_device, r.b_port, r.b_module)]
                + ([(r.a_device, r.a_port, r.a_module)] if "server" not in r.tier else [])
            )
            if module
        }
    ) + Counter(r.a_module for r in storage if "server" in r.tier and r.a_module)
    lines = Counter()
    for b in d.bom:
        if b.role.startswith("storage ") and b.category in ("cable", "transceiver"):
            lines[b.sku] += b.quantity
    assert cables + modules == lines


def test_two_plane_ethernet_gets_a_single_plane_storage_fabric(catalog):
    d = design(
        catalog,
        server_count=64,
        family="ethernet",
        nic_generation="400GbE",
        planes=2,
        storage_servers=16,
    )
    assert d.storage.planes == 1 and d.storage.endpoint_ports == 64 + 32
    assert d.storage.subnet_manager == "" and d.storage.switch.protocol == "ethernet"
    check_schedule(d.storage)


def test_an_infiniband_storage_fabric_gets_its_own_subnet_manager(large):
    assert large.storage.subnet_manager == "ufm-licence"
    assert any(w.startswith("Storage fabric: MQM9790-NS2F is unmanaged") for w in large.warnings)


def test_a_growth_target_still_gives_a_next_step(catalog):
    d = design(catalog, gpu_count=256, growth_gpus=512, storage_servers=8)
    assert d.pre_provisioned.spines == 4 and d.storage.topology.tiers == 1
    assert design(catalog, gpu_count=128, storage_servers=8).next_step is not None


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"storage_servers": -1}, "storage_servers"),
        ({"storage_servers": 2.5}, "storage_servers"),
        ({"storage_servers": "4"}, "storage_servers"),
        ({"storage_servers": True}, "storage_servers"),
        ({"storage_servers": 4, "storage_ports_per_server": 0}, "storage_ports_per_server"),
        ({"storage_ports_per_server": -1}, "storage_ports_per_server"),
        (
            {"storage_servers": 4, "storage_ports_per_storage_server": 0},
            "storage_ports_per_storage_server",
        ),
        (
            {"storage_servers": 4, "storage_ports_per_storage_server": 1.5},
            "storage_ports_per_storage_server",
        ),
        ({"storage_servers": 4, "storage_oversubscription": 0.5}, "storage_oversubscription"),
        ({"storage_servers": 4, "storage_oversubscription": "2"}, "storage_oversubscription"),
        ({"storage_servers": 40_000}, "storage_servers"),
    ],
)
def test_bad_storage_input_names_the_field(catalog, fields, field):
    with pytest.raises(InvalidInput) as caught:
        design(catalog, gpu_count=256, **fields)
    assert field in caught.value.errors and all(caught.value.errors[field])


def test_a_storage_fabric_beyond_the_switch_says_so(catalog):
    with pytest.raises(InvalidInput) as caught:
        design(catalog, gpu_count=256, storage_servers=40_000, switch_part_number="MQM9700-NS2F")
    (message,) = caught.value.errors["storage_servers"]
    assert "80032 endpoint ports" in message and "MQM9700-NS2F" in message

"""Storage sized from the workload: capacity and read/write rates decide the storage servers and
their ports, the largest need wins, and the design shows what it delivers against the ask."""

from __future__ import annotations

import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, cable_schedule, design_fabric
from quoting.engine.fabric.requirements import check_requirements

# 32 GPU servers, one 400G storage port each, and storage servers of round figures.
NODE = {"storage_server_tb": 250, "storage_server_read_gb_per_s": 40}


def design(catalog, **fields):
    return design_fabric(FabricRequirements(server_count=32, **fields), catalog)


def sizing(catalog, **fields) -> dict:
    return design(catalog, **fields).as_dict()["storage_sizing"]


def test_without_capacity_or_rates_the_storage_servers_given_decide_as_before(catalog):
    plain = design(catalog, storage_servers=8)
    assert plain.storage_sizing is None and plain.as_dict()["storage_sizing"] is None
    assert plain.as_dict()["storage"]["endpoint_ports"] == 32 * 1 + 8 * 2
    # The per-server assumptions alone change nothing: nothing asks for sizing.
    assumed = design(
        catalog, storage_servers=8, storage_server_tb=1, storage_server_read_gb_per_s=1
    )
    assert assumed.as_dict() == plain.as_dict()
    assert design(catalog).storage is None


def test_the_capacity_sets_the_count_when_it_needs_the_most_servers(catalog):
    z = sizing(catalog, storage_capacity_tb=1_100, storage_read_gb_per_s=80, **NODE)
    # ceil(1,100 / 250) = 5 servers; 80 GB/s of reads needs only ceil(80 / 40) = 2.
    assert (z["storage_servers"], z["sized_by"]) == (5, "storage_capacity_tb")
    assert z["capacity_tb"] == {"delivered": 1_250, "asked": 1_100, "headroom_percent": 13}
    assert z["read_gb_per_s"] == {"delivered": 200, "asked": 80, "headroom_percent": 150}


def test_the_read_rate_sets_the_count_when_it_needs_the_most_servers(catalog):
    z = sizing(catalog, storage_capacity_tb=1_000, storage_read_gb_per_s=400, **NODE)
    assert (z["storage_servers"], z["sized_by"]) == (10, "storage_read_gb_per_s")
    assert z["read_gb_per_s"] == {"delivered": 400, "asked": 400, "headroom_percent": 0}
    assert z["capacity_tb"]["headroom_percent"] == 150


def test_the_write_rate_sets_the_count_when_it_needs_the_most_servers(catalog):
    # Writes at 20 GB/s per server (the default): 300 GB/s of checkpoints need 15 servers.
    z = sizing(catalog, storage_read_gb_per_s=400, storage_write_gb_per_s=300, **NODE)
    assert (z["storage_servers"], z["sized_by"]) == (15, "storage_write_gb_per_s")
    assert z["write_gb_per_s"] == {"delivered": 300, "asked": 300, "headroom_percent": 0}
    assert z["capacity_tb"] == {"delivered": 3_750, "asked": None, "headroom_percent": None}


def test_more_storage_servers_given_than_the_workload_needs_are_kept(catalog):
    d = design(catalog, storage_servers=20, storage_capacity_tb=1_000, **NODE)
    z = d.as_dict()["storage_sizing"]
    assert (z["storage_servers"], z["sized_by"]) == (20, "storage_servers")
    assert z["capacity_tb"]["headroom_percent"] == 400


def test_the_sized_count_builds_the_storage_fabric_its_cables_and_advice(catalog):
    d = design(catalog, storage_capacity_tb=1_000, **NODE)
    assert d.requirements.storage_servers == 4
    assert d.as_dict()["storage"]["endpoint_ports"] == 32 * 1 + 4 * 2
    storage_nodes = {run.a_device for run in cable_schedule(d) if run.a_device.startswith("stor")}
    assert {"storage-01", "storage-04"} <= storage_nodes and "storage-05" not in storage_nodes
    assert any(
        a.startswith("Storage sized from the workload: the capacity asked needs 4 storage servers")
        for a in d.advice
    )


def test_capacity_shows_its_headroom_over_the_ask(catalog):
    z = sizing(catalog, storage_capacity_tb=1_000, storage_server_tb=300)
    assert z["capacity_tb"] == {"delivered": 1_200, "asked": 1_000, "headroom_percent": 20}


def test_each_storage_server_gets_the_ports_its_throughput_needs(catalog):
    fast = {"storage_read_gb_per_s": 100, "storage_server_read_gb_per_s": 90}
    # NDR: 400G is 50 GB/s of line rate, 40 GB/s at 80 %: 90 GB/s needs 3 ports, not the 2 given.
    ndr = sizing(catalog, **fast)
    assert (ndr["port_gbps"], ndr["port_gb_per_s"], ndr["port_efficiency"]) == (400, 40, 0.8)
    assert ndr["ports_per_storage_server"] == 3
    # HDR: 200G carries 20 GB/s: five ports.
    hdr = sizing(catalog, nic_generation="HDR", **fast)
    assert (hdr["port_gbps"], hdr["ports_per_storage_server"]) == (200, 5)
    # More ports given than needed are kept; the busier direction decides (writes here).
    given = sizing(catalog, storage_ports_per_storage_server=6, **fast)
    assert given["ports_per_storage_server"] == 6
    writes = sizing(catalog, storage_write_gb_per_s=10, storage_server_write_gb_per_s=130)
    assert writes["ports_per_storage_server"] == 4
    d = design(catalog, **fast)
    assert d.as_dict()["storage"]["endpoint_ports"] == 32 * 1 + 2 * 3


def test_the_gpu_servers_storage_ports_must_carry_the_rates_asked(catalog):
    # 32 servers x 1 port x 40 GB/s = 1,280 GB/s: enough for 1,000 GB/s, not for 2,000.
    enough = design(catalog, storage_read_gb_per_s=1_000)
    assert enough.as_dict()["storage_sizing"]["compute_gb_per_s"] == 1_280
    assert not any("GPU servers' storage ports" in w for w in enough.warnings)
    short = design(catalog, storage_read_gb_per_s=2_000, storage_write_gb_per_s=1_500)
    assert (
        "The GPU servers' storage ports carry 1,280 GB/s (32 servers x 1 x 40 GB/s), less than "
        "the 2,000 GB/s of reads asked: give each more storage ports or a faster generation."
    ) in short.warnings
    assert any("1,500 GB/s of writes asked" in w for w in short.warnings)
    two_ports = design(catalog, storage_read_gb_per_s=2_000, storage_ports_per_server=2)
    assert not any("GPU servers' storage ports" in w for w in two_ports.warnings)


def test_sizing_a_sized_design_again_changes_nothing(catalog):
    d = design(catalog, storage_capacity_tb=1_000, storage_read_gb_per_s=90, storage_server_tb=300)
    assert design_fabric(d.requirements, catalog).as_dict() == d.as_dict()


def test_counts_are_exact_for_decimal_figures(catalog):
    # 1.1 / 0.1 is 11.000000000000002 in floats: 11 servers, not 12.
    z = sizing(catalog, storage_capacity_tb=1.1, storage_server_tb=0.1)
    assert z["storage_servers"] == 11 and z["capacity_tb"]["headroom_percent"] == 0


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"storage_capacity_tb": -1}, "storage_capacity_tb"),
        ({"storage_capacity_tb": 0}, "storage_capacity_tb"),
        ({"storage_read_gb_per_s": -5}, "storage_read_gb_per_s"),
        ({"storage_write_gb_per_s": 2_000_000}, "storage_write_gb_per_s"),
        ({"storage_server_tb": 0}, "storage_server_tb"),
        ({"storage_server_read_gb_per_s": 5_000}, "storage_server_read_gb_per_s"),
        ({"storage_capacity_tb": 1_000_000, "storage_server_tb": 1}, "storage_capacity_tb"),
        ({"storage_read_gb_per_s": 100, "storage_ports_per_server": 0}, "storage_ports_per_server"),
    ],
)
def test_bad_storage_figures_are_refused_on_their_field(fields, field):
    with pytest.raises(InvalidInput) as caught:
        check_requirements(FabricRequirements(server_count=32, **fields))
    assert field in caught.value.messages, caught.value.messages


def test_a_workload_needing_more_than_100000_storage_servers_says_how_many(catalog):
    with pytest.raises(InvalidInput) as caught:
        design(catalog, storage_capacity_tb=1_000_000, storage_server_tb=1)
    assert [str(m) for m in caught.value.messages["storage_capacity_tb"]] == [
        "needs 1,000,000 storage servers, more than 100,000: check the figure, or give what one "
        "storage server delivers."
    ]


def test_the_worked_example_of_the_docs(catalog):
    d = design(
        catalog,
        storage_capacity_tb=1_000,
        storage_read_gb_per_s=400,
        storage_write_gb_per_s=100,
        storage_server_tb=300,
    )
    z, storage = d.as_dict()["storage_sizing"], d.as_dict()["storage"]
    assert (z["storage_servers"], z["sized_by"], z["ports_per_storage_server"]) == (
        10,
        "storage_read_gb_per_s",
        2,
    )
    assert (storage["endpoint_ports"], storage["leaf_count"], storage["tiers"]) == (52, 1, 1)
    figures = ("capacity_tb", "read_gb_per_s", "write_gb_per_s")
    assert [z[k]["headroom_percent"] for k in figures] == [200, 0, 100]
    assert z["compute_gb_per_s"] == 1_280


def test_a_storage_server_needing_more_than_16_ports_is_refused_on_its_rate(catalog):
    # HDR ports carry 20 GB/s: 400 GB/s from one storage server would need 20 of them.
    with pytest.raises(InvalidInput) as caught:
        design(
            catalog,
            nic_generation="HDR",
            storage_read_gb_per_s=800,
            storage_server_read_gb_per_s=400,
        )
    assert [str(m) for m in caught.value.messages["storage_server_read_gb_per_s"]] == [
        "one storage server of 400 GB/s needs 20 ports of 20 GB/s, more than 16: give a smaller "
        "figure or a faster generation."
    ]

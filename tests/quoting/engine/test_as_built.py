"""The as-built check: ibnetdiscover's output read by node description and port number, and
compared with the plan cable by cable (as planned, miswired, missing, unexpected, degraded)."""

from __future__ import annotations

import csv

import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.install import SiteInputs, plan_layout
from quoting.engine.install.as_built import (
    PlannedLink,
    compare,
    ib_port_number,
    parse_discovered,
    plan_from_layout,
    plan_from_pack,
)
from quoting.engine.install.pack import pack_write_dir


def cable(cable_id, host, nic, switch_port, tier="server-leaf"):
    return PlannedLink(
        cable_id, f"{cable_id}-a", f"{cable_id}-z", host, nic, "leaf-1", switch_port, 400, tier
    )


# Two hosts on leaf-1 ports 1/1 (port 1), 1/2 (port 2), 2/1 (port 3); leaf-1 p5 to the spine.
PLAN = [
    cable("C1", "node01", "mlx5_0", "1/1"),
    cable("C2", "node01", "mlx5_1", "1/2"),
    cable("C3", "node02", "mlx5_0", "2/1"),
    PlannedLink("C4", "C4-a", "C4-z", "leaf-1", "p5", "spine-1", "1/1", 400, "leaf-spine"),
]

HEADER = """#
# Topology file: generated on Sun Dec  6 14:03:57 2026
#
# Initiated from node 0000000000200000 port 0000000000200000

vendid=0x0
devid=0x0
sysimgguid=0x200000
switchguid=0x200000(200000)
"""


def discovered(c1="4xNDR", swap=False, drop_c3=False, extra=False) -> str:
    """What ibnetdiscover prints for PLAN (as infiniband-diags 0.10 prints an ibsim fabric)."""
    n1a, n1b = (
        ("H-0000000000100002", "H-0000000000100000")
        if swap
        else (
            "H-0000000000100000",
            "H-0000000000100002",
        )
    )
    lines = [
        'Switch\t64 "S-0000000000200000"\t\t# "leaf-1" enhanced port 0 lid 1 lmc 0',
        f'[1]\t"{n1a}"[1](100001) \t\t# "node01 mlx5_0" lid 2 {c1}',
        f'[2]\t"{n1b}"[1](100003) \t\t# "node01 mlx5_1" lid 3 4xNDR',
        *(
            []
            if drop_c3
            else ['[3]\t"H-0000000000100004"[1](100005) \t\t# "node02 mlx5_0" lid 4 4xNDR']
        ),
        '[5]\t"S-0000000000300000"[1]\t\t# "spine-1" lid 5 4xNDR',
        *(['[7]\t"S-0000000000300000"[9]\t\t# "spine-1" lid 5 4xNDR'] if extra else []),
        "",
        'Switch\t64 "S-0000000000300000"\t\t# "spine-1" enhanced port 0 lid 5 lmc 0',
        '[1]\t"S-0000000000200000"[5]\t\t# "leaf-1" lid 1 4xNDR',
        "",
        'Ca\t1 "H-0000000000100000"\t\t# "node01 mlx5_0"',
        f'[1](100001) \t"S-0000000000200000"[{2 if swap else 1}]\t\t# lid 2 lmc 0 "leaf-1" '
        f"lid 1 {c1}",
        "",
        'Ca\t1 "H-0000000000100002"\t\t# "node01 mlx5_1"',
        f'[1](100003) \t"S-0000000000200000"[{1 if swap else 2}]\t\t# lid 3 lmc 0 "leaf-1" '
        "lid 1 4xNDR",
        "",
    ]
    if not drop_c3:
        lines += [
            'Ca\t1 "H-0000000000100004"\t\t# "node02 mlx5_0"',
            '[1](100005) \t"S-0000000000200000"[3]\t\t# lid 4 lmc 0 "leaf-1" lid 1 4xNDR',
            "",
        ]
    return HEADER + "\n".join(lines) + "\n"


def test_a_fabric_cabled_as_planned_has_no_problems():
    report = compare(PLAN, parse_discovered(discovered()))
    assert report.problem_count == 0, report.as_dict()
    assert report.ok_count == report.planned_links == report.discovered_links == 4


def test_each_link_printed_from_both_ends_is_read_once_by_node_description():
    found = parse_discovered(discovered())
    assert found.switches == {"leaf-1", "spine-1"}
    assert found.hosts == {"node01 mlx5_0", "node01 mlx5_1", "node02 mlx5_0"}
    assert {(x.a_node, x.a_port, x.z_node, x.z_port) for x in found.links} >= {
        ("leaf-1", 1, "node01 mlx5_0", 1),
        ("leaf-1", 5, "spine-1", 1),
    }
    assert {(x.width, x.speed_gbps) for x in found.links} == {(4, 400)}


def test_two_cables_plugged_into_each_others_ports_are_one_miswire_naming_both():
    report = compare(PLAN, parse_discovered(discovered(swap=True)))
    assert {item["cable_id"]: item["swapped_with"] for item in report.miswired} == {
        "C1": "C2",
        "C2": "C1",
    }
    assert report.missing == report.unexpected == [] and report.ok_count == 2


def test_a_removed_cable_is_missing_and_its_host_port_not_found():
    report = compare(PLAN, parse_discovered(discovered(drop_c3=True)))
    assert [item["cable_id"] for item in report.missing] == ["C3"]
    assert [item["device"] for item in report.devices_missing] == ["node02 mlx5_0"]
    assert report.unexpected == report.miswired == [] and report.ok_count == 3


def test_a_link_no_cable_makes_is_unexpected():
    report = compare(PLAN, parse_discovered(discovered(extra=True)))
    assert report.unexpected == [
        {"a_node": "leaf-1", "a_port": 7, "z_node": "spine-1", "z_port": 9, "line": 15}
    ]
    assert report.problem_count == 1 and report.ok_count == 4


def test_a_link_on_one_lane_is_degraded():
    report = compare(PLAN, parse_discovered(discovered(c1="1xNDR")))
    assert [(item["cable_id"], item["width"]) for item in report.degraded] == [("C1", 1)]
    assert report.problem_count == 1


def test_a_slower_generation_is_degraded_but_ibsims_sdr_is_judged_by_width_only():
    slow = compare(PLAN, parse_discovered(discovered(c1="4xHDR")))
    assert [(item["cable_id"], item["speed_gbps"]) for item in slow.degraded] == [("C1", 200)]
    assert compare(PLAN, parse_discovered(discovered(c1="4xSDR"))).degraded == []


def test_a_line_that_is_not_ibnetdiscover_output_is_named_by_its_number():
    text = discovered().replace('[2]\t"H-', '[2] garbage\t"H-', 1)
    with pytest.raises(InvalidInput) as error:
        parse_discovered(text, "fabric.txt")
    assert error.value.errors["discovered"] == [
        "fabric.txt: line 12: not ibnetdiscover output: " + repr(text.splitlines()[11].strip()[:60])
    ]


def test_switch_ports_are_numbered_as_the_switch_reports_them():
    assert ib_port_number("14/2", split=False) == 28
    assert ib_port_number("p12", split=False) == 12
    # a split switch reports every front-panel port P as two: lane l of P is (P-1)*2+l
    assert ib_port_number("6/2/1", split=True) == 23 and ib_port_number("6/2/2", split=True) == 24
    assert ib_port_number("1/1", split=True) == 1


@pytest.fixture(scope="module")
def layout(catalog):
    design = design_fabric(FabricRequirements(gpu_count=64), catalog)
    return plan_layout(design, SiteInputs(), catalog)


def test_the_plan_read_back_from_the_pack_is_the_plan_of_the_layout(layout, tmp_path):
    pack_write_dir(layout, tmp_path)
    assert plan_from_pack(tmp_path) == plan_from_layout(layout)
    assert all(link.tier != "oob-management" for link in plan_from_layout(layout))


def test_a_pack_without_a_readable_cable_schedule_is_invalid(tmp_path):
    with pytest.raises(InvalidInput) as error:
        plan_from_pack(tmp_path)
    assert "pack" in error.value.errors
    with (tmp_path / "cable-schedule.csv").open("w", newline="") as out:
        csv.writer(out).writerows([["cable_id", "tier"], ["C1", "server-leaf"]])
    with pytest.raises(InvalidInput) as error:
        plan_from_pack(tmp_path)
    assert "no column a_device" in error.value.errors["pack"][0]

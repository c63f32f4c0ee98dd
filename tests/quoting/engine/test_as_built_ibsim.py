"""The as-built check against the real tools: ibsim simulates the planned 64-GPU NDR fabric from
a net file written from the plan, ibnetdiscover discovers it through umad2sim, and the check
reads what it printed. Skipped where the Debian tools are missing, except in CI."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import uuid
from collections import defaultdict
from pathlib import Path

import pytest

from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.install import SiteInputs, plan_layout
from quoting.engine.install.as_built import (
    _ends,
    _split_switches,
    compare,
    parse_discovered,
    plan_from_layout,
)

UMAD2SIM = Path("/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so")
TOOLS = shutil.which("ibsim") and shutil.which("ibnetdiscover") and UMAD2SIM.exists()
pytestmark = pytest.mark.skipif(
    not TOOLS and not os.environ.get("CI"), reason="ibsim-utils/infiniband-diags not installed"
)


def _id(prefix: str, node: str) -> str:
    return f"{prefix}-" + node.replace(" ", "_")


def net_file(links: list[tuple[tuple[str, int], tuple[str, int], str]]) -> str:
    """ibsim's net file: every switch and host port with both ends of each link; a host port is
    its own one-port channel adapter named "<host> mlx5_N" as the plan names it."""
    ports: dict[str, dict[int, tuple[str, int, str]]] = defaultdict(dict)
    for (a, ap), (z, zp), rate in links:
        ports[a][ap] = (z, zp, rate)
        ports[z][zp] = (a, ap, rate)
    is_host = {node: " mlx5_" in node for node in ports}
    lids = {node: lid for lid, node in enumerate(sorted(ports), start=1)}
    out = []
    for node in sorted(ports, key=lambda n: is_host[n]):
        if is_host[node]:
            out.append(f'Hca 1 "{_id("H", node)}" # "{node}"')
        else:
            count = max(64, *ports[node])
            out.append(
                f'Switch {count} "{_id("S", node)}" # "{node}" enhanced port 0 lid {lids[node]}'
            )
        for port, (peer, peer_port, rate) in sorted(ports[node].items()):
            kind = "H" if is_host[peer] else "S"
            out.append(
                f'[{port}] "{_id(kind, peer)}"[{peer_port}] # "{peer}" lid {lids[peer]} {rate}'
            )
        out.append("")
    return "\n".join(out) + "\n"


def discover(tmp_path: Path, net: str) -> str:
    """Run ibsim on the net file (our own process, ended by its pid) and ibnetdiscover on it."""
    netfile = tmp_path / "fabric.net"
    netfile.write_text(net)
    env = {**os.environ, "IBSIM_SOCKNAME": f"fq-as-built-{uuid.uuid4().hex[:12]}"}
    sim = subprocess.Popen(
        ["ibsim", "-s", "-n", str(netfile)],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(0.5)
        for _ in range(20):
            done = subprocess.run(
                ["ibnetdiscover"],
                env={**env, "LD_PRELOAD": str(UMAD2SIM)},
                capture_output=True,
                text=True,
                timeout=60,
            )
            if done.returncode == 0 and "Switch" in done.stdout:
                return done.stdout
            time.sleep(0.5)
        raise AssertionError(f"ibnetdiscover failed: {done.stderr[-500:]}")
    finally:
        sim.kill()
        sim.wait(timeout=10)


DESIGNS = {
    "64 GPUs, one switch": dict(gpu_count=64),
    "248 DGX H100 GPUs, two tiers, UFM appliances": dict(
        gpu_count=248, server_part_number="DGX-H100", subnet_manager="ufm-appliance"
    ),
}


@pytest.fixture(scope="module", params=list(DESIGNS))
def plan(request, catalog):
    design = design_fabric(FabricRequirements(**DESIGNS[request.param]), catalog)
    return plan_from_layout(plan_layout(design, SiteInputs(), catalog))


def planned_links(plan):
    split = _split_switches(plan)
    return [(*_ends(link, split), "4xNDR") for link in plan]


def test_the_fabric_ibsim_builds_from_the_plan_is_found_as_planned(plan, tmp_path):
    text = discover(tmp_path, net_file(planned_links(plan)))
    report = compare(plan, parse_discovered(text, "ibnetdiscover.txt"))
    assert report.problem_count == 0, report.as_dict()
    assert report.ok_count == len(plan)


def test_two_host_cables_swapped_in_ibsim_are_one_miswire(plan, tmp_path):
    links = planned_links(plan)
    first, second = 0, 1
    (a1, z1, r1), (a2, z2, r2) = links[first], links[second]
    links[first], links[second] = (a1, z2, r1), (a2, z1, r2)
    report = compare(plan, parse_discovered(discover(tmp_path, net_file(links))))
    named = {item["cable_id"] for item in report.miswired}
    assert named == {plan[first].cable_id, plan[second].cable_id}
    assert report.problem_count == len(report.miswired) and report.ok_count == len(plan) - 2

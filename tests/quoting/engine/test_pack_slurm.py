"""slurm-topology.conf as the real slurmctld (Debian slurm-wlm) loads it: each server under one
switch, no warning, the scalable units at the tree's bottom. slurmctld runs on loopback with a
slurm.conf written here, no munge (auth/none), until it has logged the switches it built."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time

import pytest

from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.install import SiteInputs, exports, plan_layout

SLURMCTLD = shutil.which("slurmctld") or "/usr/sbin/slurmctld"

DESIGNS = {
    "248 DGX H100 GPUs with UFM appliances": dict(
        gpu_count=248, server_part_number="DGX-H100", subnet_manager="ufm-appliance"
    ),
    "512 GPUs on Spectrum-X": dict(gpu_count=512, family="ethernet", nic_generation="400GbE"),
    "two Spectrum-X planes": dict(
        gpu_count=512,
        family="ethernet",
        nic_generation="400GbE",
        planes=2,
        server_part_number="DGX-B300",
    ),
    "not rail-optimised": dict(gpu_count=512, rail_optimized=False),
    "72 DGX H100 GPUs on leaves of two rails, UFM appliances": dict(
        gpu_count=72, server_part_number="DGX-H100", subnet_manager="ufm-appliance"
    ),
    "256 GPUs on Spectrum-X, leaves of two rails": dict(
        gpu_count=256, family="ethernet", nic_generation="400GbE"
    ),
    "three tiers": dict(gpu_count=4096),
    "16,384 GPUs": dict(gpu_count=16384),
    "16 DGX H100 at NDR200 on one switch (BasePOD)": dict(
        server_count=16, nic_generation="NDR200", server_part_number="DGX-H100"
    ),
    # Three tiers, rail groups of racks with several rails per leaf (rule 5b).
    "four SUs of DGX GB200 NVL72 racks": dict(
        server_count=32, gpus_per_server=72, server_part_number="DGX-GB200-NVL72"
    ),
}

pytestmark = pytest.mark.skipif(
    not os.path.exists(SLURMCTLD) and not os.environ.get("CI"),
    reason="slurmctld (Debian slurm-wlm) is not installed; CI installs it",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def slurmctld_log(tmp_path, layout) -> str:
    """Start slurmctld on the pack's topology; its log once it has built the switch tree."""
    (tmp_path / "state").mkdir()
    (tmp_path / "topology.conf").write_text("".join(exports.slurm_topology(layout)))
    servers = [name for name, d in layout.devices.items() if d.role == "server"]
    conf = tmp_path / "slurm.conf"
    conf.write_text(
        f"""ClusterName=fq
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/none
CredType=cred/none
SlurmUser={os.environ.get("USER", "root") if os.getuid() else "root"}
StateSaveLocation={tmp_path / "state"}
SlurmdSpoolDir={tmp_path / "spool"}
SlurmctldPidFile={tmp_path / "slurmctld.pid"}
MailProg=/bin/true
MpiDefault=none
TopologyPlugin=topology/tree
SchedulerType=sched/builtin
SelectType=select/linear
ProctrackType=proctrack/linuxproc
NodeName={exports.hostlist(servers)} CPUs=1 State=FUTURE
PartitionName=all Nodes=ALL Default=YES
"""
    )
    log = tmp_path / "slurmctld.log"
    with log.open("w") as out:
        daemon = subprocess.Popen(
            [SLURMCTLD, "-D", "-vvv", "-f", str(conf)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "SLURM_CONF": str(conf)},
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            text = log.read_text()
            # Past the tree's build and its timing check (a warning over 20 ms).
            if "Running as primary controller" in text or daemon.poll() is not None:
                break
            time.sleep(0.1)
    finally:
        os.killpg(daemon.pid, signal.SIGTERM)
        daemon.wait(timeout=10)
    return log.read_text()


@pytest.mark.parametrize("name", list(DESIGNS))
def test_slurmctld_loads_the_topology_with_each_server_under_one_switch(name, catalog, tmp_path):
    design = design_fabric(FabricRequirements(**DESIGNS[name]), catalog)
    layout = plan_layout(design, SiteInputs(rack_power_kw=40), catalog)
    log = slurmctld_log(tmp_path, layout).replace(str(tmp_path), "<tmp>")
    assert "_read_topo_file: Reading the topology.conf file" in log, log[-2000:]
    assert "fatal" not in log, log[-2000:]
    topology = [line for line in log.splitlines() if "topo" in line.lower()]
    # slurmctld's own stopwatch ("very large processing time" past 20 ms of wall clock) depends
    # on the machine's load, not on the file: the file's part is the tree's size, checked below.
    assert not [
        line
        for line in topology
        if re.search(r"warning|error", line, re.I) and "very large processing time" not in line
    ]
    switches = set(re.findall(r"Switch level:\d+ name:(\S+)", log))
    assert len(switches) <= 100  # 16,384 GPUs: 81 (one per SU, spines and cores merged)
    assert "Multiple leaf switches" not in log
    bottom = re.findall(r"Switch level:0 name:(\S+) nodes:(\S+)", log)
    servers = {n for n, d in layout.devices.items() if d.role == "server"}
    sus = {d.su for d in layout.devices.values() if d.role == "leaf"}
    if design.topology.rail_optimized:
        assert sorted(b[0] for b in bottom) == sorted(f"su{su}" for su in sus)
    named = [n for _, nodes in bottom for n in _expand(nodes)]
    assert sorted(named) == sorted(servers)  # every server once, under one switch


def _expand(hostlist: str) -> list[str]:
    names = []
    for item in re.findall(r"[^,\[]+(?:\[[^\]]*\])?[^,]*", hostlist):
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

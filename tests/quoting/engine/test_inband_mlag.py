"""In-band management as NVIDIA builds it: MLAG pairs of 100GbE switches, each server
dual-homed, the pair joined by a peer link; a single switch per group of servers on request.

Source: NVIDIA DGX BasePOD deployment guide. "Network Deployment" (docs.nvidia.com/dgx-basepod/
deployment-guide-dgx-basepod/latest/network-deploy.html): two SN4600C in MLAG, "each headnode /
K8s node / DGX ... dual homed to the SN4600C switches via bond interface". "Switch
Configurations" (docs.nvidia.com/dgx-basepod/deployment-guides/dgx-basepod-a100/latest/
switch-configurations.html), SN4600 #1 (In-band Management Switch): "nv set interface peerlink
bond member swp57" and "... swp58", a peer link of two ports. The guide shows one pair; the two
uplinks per switch and a new pair per 60 servers are the engine's rules (docs/fabric-design.md,
"Beside the compute fabric").
"""

from __future__ import annotations

import csv
import dataclasses
import io
from collections import Counter

import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.fabric.design import INBAND_PEER_LINK, INBAND_UPLINKS
from quoting.engine.fabric.requirements import requirements_from_json
from quoting.engine.install import SiteInputs, plan_layout
from quoting.engine.install.exports import (
    cable_schedule_csv,
    ibdiagnet_topo,
    port_map_csv,
    readme_txt,
)
from quoting.engine.install.inband import TIER as INBAND_TIER
from quoting.engine.install.netbox import cables_csv, devices_csv, interfaces_csv

SN4600C = "920-9N302-00F7-0C2"  # 64 x 100GbE
SN4600C_PORTS = 64
ROLE = "in-band management"


def dgx(catalog, nodes: int, **fields):
    return design_fabric(
        FabricRequirements(
            server_count=nodes, server_part_number="DGX-H100", inband_management=True, **fields
        ),
        catalog,
    )


def bom(design, sku: str, role: str) -> int:
    return sum(b.quantity for b in design.bom if b.sku == sku and b.role == role)


def test_the_source_s_numbers_are_the_engine_s():
    assert INBAND_PEER_LINK == 2  # swp57 and swp58
    assert INBAND_UPLINKS == 2  # ours: the guide's uplinks were not in a copy we could read


def test_new_requirements_ask_for_the_redundant_pair():
    assert FabricRequirements(gpu_count=8).inband_redundant is True


# A pair of SN4600C serves 64 - 2 uplinks - 2 peer-link ports = 60 servers, each on both.
@pytest.mark.parametrize(
    ("nodes", "pairs"), [(4, 1), (16, 1), (31, 1), (32, 1), (60, 1), (61, 2), (64, 2), (127, 3)]
)
def test_a_pair_serves_60_servers_each_dual_homed_and_pairs_grow_with_the_servers(
    catalog, nodes, pairs
):
    d = dgx(catalog, nodes)
    m = d.management
    assert m.inband_switches == 2 * pairs == bom(d, SN4600C, ROLE)
    assert m.inband_peer_cables == INBAND_PEER_LINK * pairs  # each pair's peer link
    assert m.inband_cables == 2 * nodes + m.inband_peer_cables  # two ports per server
    # Every server port and peer-link port fits on the pairs, the uplinks kept free.
    per_switch = SN4600C_PORTS - INBAND_UPLINKS - INBAND_PEER_LINK
    assert nodes <= pairs * per_switch and nodes > (pairs - 1) * per_switch


@pytest.mark.parametrize(
    ("nodes", "switches"), [(4, 1), (16, 1), (31, 1), (32, 1), (62, 1), (64, 2), (127, 3)]
)
def test_single_switches_are_as_before_one_port_per_server_62_servers_a_switch(
    catalog, nodes, switches
):
    d = dgx(catalog, nodes, inband_redundant=False)
    m = d.management
    assert m.inband_switches == switches == bom(d, SN4600C, ROLE)
    assert m.inband_cables == nodes and m.inband_peer_cables == 0


def test_storage_servers_are_dual_homed_too(catalog):
    d = dgx(catalog, 58, storage_servers=4)
    assert d.management.inband_switches == 4  # 62 servers: past one pair's 60
    assert d.management.inband_cables == 2 * 62 + 2 * INBAND_PEER_LINK


def test_the_pair_s_cables_are_quoted_and_the_design_says_how_it_is_built(catalog):
    # Changed on purpose (#26): the 34 cables (32 + the peer link's 2) were named in a warning to
    # quote separately; the catalog's 100GbE cables now quote them (test_inband_cables.py).
    d = dgx(catalog, 16)
    assert sum(b.quantity for b in d.bom if b.role == ROLE and b.category == "cable") == 34
    assert not any("in-band 100GbE cables" in w for w in d.warnings)
    assert any("MLAG switch pairs" in a and "(2 switches)" in a for a in d.advice)
    single = dgx(catalog, 16, inband_redundant=False)
    assert sum(b.quantity for b in single.bom if b.role == ROLE and b.category == "cable") == 16
    assert any("single switches (1 in all)" in a for a in single.advice)


def test_the_pair_costs_a_switch_more_in_power_and_rack_units(catalog):
    pair, single = dgx(catalog, 16), dgx(catalog, 16, inband_redundant=False)
    sn4600c = next(p for p in catalog if p.part_number == SN4600C)
    assert pair.power_typical_w - single.power_typical_w == pytest.approx(sn4600c.power_typical_w)
    assert pair.rack_units - single.rack_units == sn4600c.rack_units


def test_a_switch_too_small_for_a_pair_is_refused_on_the_field(catalog):
    small = [
        dataclasses.replace(p, port_count=4) if p.part_number == SN4600C else p for p in catalog
    ]
    with pytest.raises(InvalidInput) as refused:
        dgx(small, 4)
    assert "inband_redundant" in refused.value.errors
    assert dgx(small, 4, inband_redundant=False).management.inband_switches == 2  # 2 a switch


def test_stored_requirements_saved_before_the_field_read_as_single_and_a_request_as_the_pair():
    before = {"server_count": 16, "gpus_per_server": 8, "inband_management": True}
    assert requirements_from_json(before, stored=True).inband_redundant is False
    assert requirements_from_json(before).inband_redundant is True  # a request: the default
    # Stored since, the field is kept as saved.
    assert requirements_from_json(before | {"inband_redundant": True}, stored=True).inband_redundant


def rows(chunks) -> list[dict]:
    return list(csv.DictReader(io.StringIO("".join(chunks))))


@pytest.fixture(scope="module", params=[True, False], ids=["pair", "single"])
def laid_out(catalog, request):
    d = dgx(catalog, 64, storage_servers=2, inband_redundant=request.param)
    return d, plan_layout(d, SiteInputs(rack_power_kw=40), catalog)


def test_the_pack_racks_every_in_band_switch_and_lists_each_once_in_netbox(laid_out):
    d, layout = laid_out
    inband = [x for x in layout.devices.values() if x.role == ROLE]
    assert len(inband) == d.management.inband_switches
    assert all(x.part == SN4600C and x.rack >= 0 and x.u > 0 for x in inband)
    devices = [row["name"] for row in rows(devices_csv(layout))]
    assert sorted(n for n in devices if n.startswith("mgmt-inband")) == sorted(
        x.name for x in inband
    )


def test_the_cable_schedule_has_every_in_band_cable_the_design_counts_each_port_used_once(
    laid_out,
):
    d, layout = laid_out
    schedule = [r for r in rows(cable_schedule_csv(layout)) if r["tier"] == INBAND_TIER]
    assert len(schedule) == d.management.inband_cables  # 2 x 66 + 2 x 2, or 66
    # Each run names the cable the BOM quotes (changed on purpose, #26: they had no part).
    quoted = {b.sku: b.quantity for b in d.bom if b.role == ROLE and b.category == "cable"}
    assert Counter(r["part"] for r in schedule if r["part"]) == Counter(quoted)
    ends = [(r["a_device"], r["a_port"]) for r in schedule]
    ends += [(r["z_device"], r["z_port"]) for r in schedule]
    assert len(ends) == len(set(ends)), "an in-band port cabled twice"
    servers = [x.name for x in layout.devices.values() if x.role in ("server", "storage-server")]
    homes: dict[str, list[str]] = {}
    for r in schedule:
        if r["a_device"] in servers:
            homes.setdefault(r["a_device"], []).append(r["z_device"])
    assert sorted(homes) == sorted(servers)  # compute and storage servers
    lanes = 2 if d.requirements.inband_redundant else 1
    assert all(len(set(switches)) == lanes for switches in homes.values()), "dual-homed"
    peer = [r for r in schedule if r["a_device"] not in servers]
    assert len(peer) == d.management.inband_peer_cables
    # No in-band cable in the fabric's own files.
    assert INBAND_TIER not in "".join(ibdiagnet_topo(layout))


def test_the_port_map_and_netbox_agree_with_the_schedule_and_keep_the_uplinks_free(laid_out):
    d, layout = laid_out
    schedule = [r for r in rows(cable_schedule_csv(layout)) if r["tier"] == INBAND_TIER]
    ports = rows(port_map_csv(layout))
    inband = {x.name for x in layout.devices.values() if x.role == ROLE}
    cabled = {(r["device"], r["port"]) for r in ports if r["device"] in inband and r["cable_id"]}
    switch_ends = {(r["z_device"], r["z_port"]) for r in schedule}
    switch_ends |= {(r["a_device"], r["a_port"]) for r in schedule if r["a_device"] in inband}
    assert cabled == switch_ends
    for name in inband:  # the last two of 64 ports: the uplinks, free
        free = {r["port"] for r in ports if r["device"] == name and not r["cable_id"]}
        assert {"p63", "p64"} <= free
    interfaces = [(r["device"], r["name"]) for r in rows(interfaces_csv(layout))]
    assert len(interfaces) == len(set(interfaces))
    kinds = {r["type"] for r in rows(interfaces_csv(layout)) if r["device"] in inband}
    assert kinds == {"100gbase-x-qsfp28"}
    cables = rows(cables_csv(layout))
    assert sum(1 for r in cables if r["label"] in {s["cable_id"] for s in schedule}) == len(
        schedule
    )


def test_the_pack_readme_states_the_pairs_and_their_cables(catalog):
    d = dgx(catalog, 64)
    layout = plan_layout(d, SiteInputs(rack_power_kw=40), catalog)
    readme = "".join(readme_txt(layout))
    assert "132 100GbE cables (tier inband-management)" in readme  # 2 x 64 + 2 x 2
    assert "2 MLAG pairs of in-band switches" in readme and "(4 in all)" in readme

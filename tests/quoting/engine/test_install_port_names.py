"""Host ends are named as the server's OS names them: a DGX H100's cages carry mlx5_11, 6, 10, 9,
4, 3, 5, 0 (its user guide), not mlx5_0 ... 7; servers the catalog gives no names keep NIC order."""

from __future__ import annotations

from collections import defaultdict

from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.fabric.cabling import cable_schedule
from quoting.engine.install import SiteInputs, plan_layout

DGX_ORDER = ["mlx5_11", "mlx5_6", "mlx5_10", "mlx5_9", "mlx5_4", "mlx5_3", "mlx5_5", "mlx5_0"]


def host_ends(layout, tier="server-leaf") -> dict[str, list[str]]:
    ends = defaultdict(list)
    for cable in layout.cables:
        if cable.tier == tier:
            ends[cable.a_device].append(cable.a_port)
    return ends


def test_a_dgx_h100s_cage_ports_carry_the_user_guides_names_in_cage_order(catalog):
    design = design_fabric(
        FabricRequirements(gpu_count=256, server_part_number="DGX-H100"), catalog
    )
    layout = plan_layout(design, SiteInputs(), catalog)
    runs = [r for r in cable_schedule(design) if r.tier == "server-leaf"]
    cables = [c for c in layout.cables if c.tier == "server-leaf"]
    assert len(runs) == len(cables) == 256
    for run, cable in zip(runs, cables, strict=True):
        cage, port = (int(n) for n in run.a_port.removeprefix("c").split("/"))
        assert cable.a_port == DGX_ORDER[(cage - 1) * 2 + port - 1]
    for ports in host_ends(layout).values():
        assert sorted(ports) == sorted(DGX_ORDER)
    # The labels, the files and the as-built check all read the cable's own name.
    first = cables[0]
    assert f":{first.a_port} >" in layout.label(
        first.a_device, first.a_port, first.z_device, first.z_port
    )


def test_a_dgx_h100s_storage_ports_take_the_numbers_its_compute_ports_leave_free(catalog):
    design = design_fabric(
        FabricRequirements(
            gpu_count=256,
            server_part_number="DGX-H100",
            storage_servers=4,
            storage_ports_per_server=2,
        ),
        catalog,
    )
    layout = plan_layout(design, SiteInputs(), catalog)
    storage = host_ends(layout, "storage server-leaf")
    compute = {name: ports for name, ports in storage.items() if not name.startswith("storage-")}
    assert compute
    for ports in compute.values():
        assert sorted(ports) == ["mlx5_1", "mlx5_2"]


def test_servers_the_catalog_gives_no_names_keep_nic_order(catalog):
    design = design_fabric(FabricRequirements(gpu_count=64), catalog)
    layout = plan_layout(design, SiteInputs(), catalog)
    for ports in host_ends(layout).values():
        assert ports == [f"mlx5_{k}" for k in range(8)]

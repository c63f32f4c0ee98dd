"""What the engine knows about a catalog product: its typed specs, nothing about prices or rows.

`catalog.selectors.product_specs()` builds these from the database; engine tests build them from
`catalog/data/nvidia_catalog.csv`. The engine must read every switch, NIC and optic property from
here, never from constants, so that a product added to the catalog is designable at once.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ProductSpec:
    part_number: str
    name: str
    category: str  # switch, adapter, dpu, transceiver, cable, server, software, service, support
    family: str = ""  # Quantum-2, Spectrum-4, ConnectX-7, LinkX, UFM ...
    generation: str = ""  # HDR, NDR, NDR200, XDR, 1GbE ... 800GbE; "" when not a network port
    protocol: str = ""  # infiniband, ethernet, or "" for both / not applicable
    lifecycle: str = "active"  # active, preview, eol
    unit: str = "each"  # each, endpoint, day, year, project
    # Ports: port_count logical ports of port_speed_gbps through cage_count cages of cage_type.
    # A QM9700 is 64 x 400G through 32 OSFP cages: two ports per cage (twin-port optics).
    port_count: int | None = None
    port_speed_gbps: int | None = None
    cage_type: str = ""  # OSFP, QSFP112, QSFP56, QSFP28, SFP28, RJ45
    cage_count: int | None = None
    managed: bool | None = None  # switch runs its own management and an on-switch subnet manager
    rack_units: int | None = None
    power_typical_w: float | None = None
    power_max_w: float | None = None
    # Optics and cables.
    media: str = ""  # dac, acc, aoc, multimode, singlemode
    reach_m: float | None = None  # longest supported run (transceivers, AOC, DAC)
    length_m: float | None = None  # a cable's own length (its length class)
    form_factor: str = ""  # finned (switch cages) or flat-top (NIC / DGX cages)
    ports_per_module: int | None = None  # transceivers: 2 for twin-port, 1 for single-port
    breakout: int | None = None  # cables: far ends per near end (1 straight, 2 for a 1:2 splitter)
    # Servers.
    gpu_model: str = ""
    gpu_count: int | None = None
    gpu_peak_tflops: float | None = None  # dense BF16 per GPU
    weight_kg: float | None = None  # None: unknown, never guessed
    # A server's compute ports as its OS names them, in cage and port order, space-separated
    # ("mlx5_11 mlx5_6 ..." on a DGX H100); "" when the catalog does not say (mlx5_0, 1, ...).
    port_names: str = ""
    # Ports apart from the panel's port_count at their own speed: a management switch's
    # uplinks (the SN2201's 4 x 100G QSFP28 beside its 48 x 1G RJ45). Both or neither.
    uplink_port_count: int | None = None
    uplink_speed_gbps: int | None = None
    # air, liquid, or liquid-rack: a rack-scale system (GB200 NVL72), one item a whole
    # liquid-cooled rack with its own power shelves; "" when the catalog does not say (air).
    cooling: str = ""

    @property
    def rack_scale(self) -> bool:
        """A whole rack of its own: racked alone, outside the site's air-cooled power budget."""
        return self.cooling == "liquid-rack"

    @property
    def os_port_names(self) -> tuple[str, ...]:
        return tuple(self.port_names.split())

    @property
    def ports_per_cage(self) -> int:
        if not self.port_count or not self.cage_count:
            return 1
        return max(1, self.port_count // self.cage_count)

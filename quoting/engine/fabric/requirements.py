"""What a sales engineer asks for, and the checks that need no catalog."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from quoting.engine.errors import InvalidInput

# Named distances in metres, the longest run each usually means in a data hall: cables are bought
# by length class, so the engine plans for the long end of each.
DISTANCE_CLASSES: dict[str, float] = {
    "same-rack": 2,
    "adjacent-rack": 5,
    "same-row": 30,
    "across-hall": 100,
}

FAMILIES = ("infiniband", "ethernet")
SUBNET_MANAGERS = ("auto", "on-switch", "ufm-appliance", "ufm-licence", "opensm-host")

Distance = float | int | str


@dataclass(frozen=True, slots=True)
class FabricRequirements:
    gpu_count: int | None = None  # give this or server_count
    server_count: int | None = None
    gpus_per_server: int = 8
    nics_per_server: int | None = (
        None  # compute NIC ports per server (per plane); default 1 per GPU
    )
    nic_generation: str = "NDR"  # HDR, NDR, NDR200, XDR, or an Ethernet speed such as 400GbE
    family: str = "infiniband"
    planes: int = 1  # Ethernet only: each NIC sends one port to each of 1 or 2 identical fabrics
    switch_part_number: str | None = None
    nic_part_number: str | None = None
    # A catalog server: its host network layout (NIC generation, ports, cages) decides the
    # server-side optics and cables. None: single-port NIC cages, one module per port.
    server_part_number: str | None = None
    include_nics: bool = False
    rail_optimized: bool = True
    oversubscription: float = 1  # 2 means 2:1 at the leaf
    growth_gpus: int | None = None
    server_to_leaf: Distance = "same-row"
    leaf_to_spine: Distance = "same-row"
    spine_to_core: Distance = "across-hall"
    subnet_manager: str = "auto"
    inband_management: bool = False  # one in-band Ethernet port per server
    outofband_management: bool = False  # one RJ45 per server BMC and per switch
    spares_percent: float = 0
    label: str = ""  # free text shown on the drawing (customer or project name)
    # A separate storage fabric (0 storage servers: none). Its endpoints are the storage NIC
    # ports of every compute server (a BlueField-3 or ConnectX port) plus the storage nodes' own.
    storage_servers: int = 0
    storage_ports_per_server: int = 1
    storage_ports_per_storage_server: int = 2
    storage_oversubscription: float = 1

    @property
    def storage_endpoints(self) -> int:
        return (
            self.servers * self.storage_ports_per_server
            + self.storage_servers * self.storage_ports_per_storage_server
        )

    @property
    def nics(self) -> int:
        return self.nics_per_server if self.nics_per_server is not None else self.gpus_per_server

    @property
    def ratio(self) -> Fraction:
        """Oversubscription as an exact fraction so that port arithmetic never rounds wrongly."""
        return Fraction(self.oversubscription).limit_denominator(100)

    @property
    def servers(self) -> int:
        if self.server_count is not None:
            return self.server_count
        return -(-self.gpu_count // self.gpus_per_server)

    @property
    def growth_servers(self) -> int:
        if self.growth_gpus is None:
            return self.servers
        return max(self.servers, -(-self.growth_gpus // self.gpus_per_server))


def distance_m(value: Distance) -> float:
    return DISTANCE_CLASSES[value] if isinstance(value, str) else float(value)


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_requirements(req: FabricRequirements) -> None:
    """Every check that needs no catalog, reported together so a form marks all fields at once."""
    errors: dict[str, list[str]] = {}

    def fail(field: str, message: str) -> None:
        errors.setdefault(field, []).append(message)

    if not _is_whole(req.gpus_per_server) or req.gpus_per_server < 1:
        fail("gpus_per_server", "must be a whole number of at least 1.")
    if req.nics_per_server is not None and (
        not _is_whole(req.nics_per_server) or req.nics_per_server < 1
    ):
        fail("nics_per_server", "must be a whole number of at least 1.")
    if req.gpu_count is None and req.server_count is None:
        fail("gpu_count", "give the number of GPUs or of servers.")
    for field in ("gpu_count", "server_count"):
        value = getattr(req, field)
        if value is not None and (not _is_whole(value) or value < 1):
            fail(field, "must be a whole number of at least 1.")
    if errors:
        raise InvalidInput(errors)
    if (
        req.gpu_count is not None
        and req.server_count is not None
        and req.gpu_count != req.server_count * req.gpus_per_server
    ):
        fail(
            "gpu_count",
            f"{req.gpu_count} GPUs do not match {req.server_count} servers "
            f"of {req.gpus_per_server} GPUs; give one of the two.",
        )
    if req.family not in FAMILIES:
        fail("family", f"must be one of {', '.join(FAMILIES)}.")
    if not _is_whole(req.planes) or req.planes not in (1, 2):
        fail("planes", "must be 1 or 2.")
    elif req.planes == 2 and req.family != "ethernet":
        fail("planes", "two planes are an Ethernet (Spectrum-X) design; InfiniBand uses one.")
    if not _is_number(req.oversubscription) or req.oversubscription < 1:
        fail("oversubscription", "must be 1 (non-blocking) or more, e.g. 2 for 2:1.")
    elif req.oversubscription > 16:
        fail("oversubscription", "above 16:1 is not a GPU fabric.")
    if req.growth_gpus is not None:
        current = req.servers * req.gpus_per_server
        if not _is_whole(req.growth_gpus):
            fail("growth_gpus", "must be a whole number of GPUs.")
        # Rule 7: both sizes in whole servers, so a target equal to the asked size is accepted.
        elif -(-req.growth_gpus // req.gpus_per_server) < req.servers:
            fail(
                "growth_gpus",
                f"the growth target ({req.growth_gpus} GPUs) is below the "
                f"current size ({current} GPUs).",
            )
    for field in ("server_to_leaf", "leaf_to_spine", "spine_to_core"):
        value = getattr(req, field)
        if isinstance(value, str):
            if value not in DISTANCE_CLASSES:
                fail(field, f"use metres or one of {', '.join(DISTANCE_CLASSES)}.")
        elif not _is_number(value) or not 0 < value <= 10_000:
            fail(field, "must be a distance in metres between 0 and 10,000.")
    if req.subnet_manager not in SUBNET_MANAGERS:
        fail("subnet_manager", f"must be one of {', '.join(SUBNET_MANAGERS)}.")
    elif req.family == "ethernet" and req.subnet_manager != "auto":
        fail("subnet_manager", "Ethernet fabrics have no subnet manager; leave it on auto.")
    if not _is_number(req.spares_percent) or not 0 <= req.spares_percent <= 100:
        fail("spares_percent", "must be between 0 and 100.")
    if not isinstance(req.label, str) or len(req.label) > 200:
        fail("label", "must be text of at most 200 characters.")
    storage = _is_whole(req.storage_servers) and req.storage_servers > 0
    if not _is_whole(req.storage_servers) or req.storage_servers < 0:
        fail("storage_servers", "must be a whole number of storage servers (0 for none).")
    for field in ("storage_ports_per_server", "storage_ports_per_storage_server"):
        value = getattr(req, field)
        if not _is_whole(value) or value < 0:
            fail(field, "must be a whole number of ports.")
        elif storage and value == 0:
            fail(field, "must be at least 1 when there is a storage fabric.")
    if not _is_number(req.storage_oversubscription) or not 1 <= req.storage_oversubscription <= 16:
        fail("storage_oversubscription", "must be between 1 (non-blocking) and 16.")
    if errors:
        raise InvalidInput(errors)


def distance_parse(text: str | float | int) -> Distance:
    """A form or API value: a named class ("same-row") or metres ("12", "12.5", 12).

    Raises ValueError with a readable message for anything else.
    """
    if isinstance(text, int | float) and not isinstance(text, bool):
        return text
    value = str(text).strip().lower()
    if value in DISTANCE_CLASSES:
        return value
    try:
        return float(value.removesuffix("m").strip())
    except ValueError:
        raise ValueError(
            f"use metres or one of {', '.join(DISTANCE_CLASSES)}."
        ) from None

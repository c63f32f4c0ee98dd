"""What a sales engineer asks for, and the checks that need no catalog."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from decimal import ROUND_CEILING, Decimal
from fractions import Fraction

from quoting.engine.contract import field_errors, spec
from quoting.engine.errors import InvalidInput
from quoting.engine.messages import Message, message
from quoting.engine.messages import gettext_noop as _

# Named distances in metres, the longest run each usually means in a data hall: cables are bought
# by length class, so the engine plans for the long end of each.
DISTANCE_CLASSES: dict[str, float] = {
    "same-rack": 2,
    "adjacent-rack": 5,
    "same-row": 30,
    "across-hall": 100,
}


# How each class reads in a language: the English is the code a user types, other languages
# name it in their words (the form accepts either).
DISTANCE_LABELS: dict[str, str] = {
    "same-rack": _("same-rack"),
    "adjacent-rack": _("adjacent-rack"),
    "same-row": _("same-row"),
    "across-hall": _("across-hall"),
}

Distance = float | int | str


NIC_GENERATIONS: tuple[tuple[str, str], ...] = (
    ("HDR", "HDR 200G"),
    ("NDR200", "NDR200"),
    ("NDR", "NDR 400G"),
    ("XDR", "XDR 800G"),
    ("100GbE", "100GbE"),
    ("200GbE", "200GbE"),
    ("400GbE", "400GbE"),
    ("800GbE", "800GbE"),
)
FAMILY_CHOICES = (("infiniband", "InfiniBand"), ("ethernet", _("Ethernet (RoCE)")))
SUBNET_MANAGER_CHOICES = (
    ("auto", _("Automatic")),
    ("on-switch", _("On a managed switch")),
    ("ufm-appliance", _("UFM appliances")),
    ("ufm-licence", _("UFM licences per endpoint")),
    ("opensm-host", _("OpenSM on customer hosts")),
)
FAMILIES = tuple(value for value, _label in FAMILY_CHOICES)
SUBNET_MANAGERS = tuple(value for value, _label in SUBNET_MANAGER_CHOICES)
MAX_GPUS = 1_000_000
MAX_DISTANCE_M = 10_000
MAX_STORAGE_SERVERS = 100_000
MAX_STORAGE_TB = 10_000_000  # 10 EB
MAX_STORAGE_GB_PER_S = 1_000_000
MAX_STORAGE_SERVER_PORTS = 16  # the field's bound, and the storage sizing's (fabric/storage.py)


def _distance(label: str) -> dict:
    return spec(
        "distance",
        label=label,
        low=0,
        low_open=True,
        high=MAX_DISTANCE_M,
        choices=tuple((name, name) for name in DISTANCE_CLASSES),
        help=_("Empty: the real runs of the rack layout (site inputs)."),
    )


# A distance left empty is measured on the site's rack layout; without a layout (the engine
# called alone) it is the class each tier usually spans.
UNMEASURED_DISTANCES: dict[str, str] = {
    "server_to_leaf": "same-row",
    "leaf_to_spine": "same-row",
    "spine_to_core": "across-hall",
}


# Each field's spec (quoting/engine/contract.py) is the one contract: check_requirements checks
# it, and the design form and the API serializer are built from it.
@dataclass(frozen=True, slots=True)
class FabricRequirements:
    # Give gpu_count or server_count.
    gpu_count: int | None = field(
        default=None, metadata=spec("int", label=_("GPUs"), low=1, high=MAX_GPUS)
    )
    server_count: int | None = field(
        default=None, metadata=spec("int", label=_("or servers"), low=1, high=200_000)
    )
    gpus_per_server: int = field(
        default=8, metadata=spec("int", label=_("GPUs per server"), low=1, high=72)
    )
    # Compute NIC ports per server (per plane); default 1 per GPU.
    nics_per_server: int | None = field(
        default=None,
        metadata=spec(
            "int", label=_("Compute NICs per server"), help=_("Empty: one per GPU."), low=1, high=72
        ),
    )
    # HDR, NDR, NDR200, XDR, or an Ethernet speed such as 400GbE
    nic_generation: str = field(
        default="NDR", metadata=spec("choice", label=_("NIC generation"), choices=NIC_GENERATIONS)
    )
    family: str = field(
        default="infiniband", metadata=spec("choice", label=_("Fabric"), choices=FAMILY_CHOICES)
    )
    # Ethernet only: each NIC sends one port to each of 1 or 2 identical fabrics.
    planes: int = field(
        default=1,
        metadata=spec(
            "choice", label=_("Planes"), help=_("Ethernet only."), choices=((1, "1"), (2, "2"))
        ),
    )
    switch_part_number: str | None = field(
        default=None, metadata=spec("part", label=_("Switch"), max_length=64)
    )
    nic_part_number: str | None = field(
        default=None, metadata=spec("part", label=_("NIC"), max_length=64)
    )
    # A catalog server: its host network layout (NIC generation, ports, cages) decides the
    # server-side optics and cables. None: single-port NIC cages, one module per port.
    server_part_number: str | None = field(
        default=None,
        metadata=spec(
            "part",
            label=_("Server"),
            max_length=64,
            help=_(
                "Its own network cages decide the host-side optics (a DGX takes twin-port modules)."
            ),
        ),
    )
    include_nics: bool = field(default=False, metadata=spec("bool", label=_("Quote the NICs")))
    rail_optimized: bool = field(default=True, metadata=spec("bool", label=_("Rail-optimized")))
    # Rack-scale systems (NVL72) only. Off, as saved before the field: whole scalable units of
    # 8 racks, NVIDIA's grow-ready build (rule 5c); on: the smallest fabric for the racks asked.
    rack_scale_smallest: bool = field(
        default=False,
        metadata=spec(
            "bool",
            label=_("Smallest fabric for the racks (NVL72)"),
            help=_(
                "Off: a whole scalable unit of 8 racks, as NVIDIA's DGX SuperPOD, so adding "
                "racks needs no re-cabling."
            ),
        ),
    )
    # 2 means 2:1 at the leaf
    oversubscription: float = field(
        default=1,
        metadata=spec(
            "float",
            label=_("Oversubscription"),
            low=1,
            high=16,
            help=_("1 is non-blocking; 2 means 2:1 at the leaf."),
        ),
    )
    growth_gpus: int | None = field(
        default=None,
        metadata=spec(
            "int",
            label=_("Growth target (GPUs)"),
            low=1,
            high=MAX_GPUS,
            help=_("Spines are sized for it, so growing needs no re-cabling."),
        ),
    )
    # None: measured on the rack layout (install/lengths.py), else planned for this distance.
    server_to_leaf: Distance | None = field(default=None, metadata=_distance(_("Server to leaf")))
    leaf_to_spine: Distance | None = field(default=None, metadata=_distance(_("Leaf to spine")))
    spine_to_core: Distance | None = field(default=None, metadata=_distance(_("Spine to core")))
    subnet_manager: str = field(
        default="auto",
        metadata=spec("choice", label=_("Subnet manager"), choices=SUBNET_MANAGER_CHOICES),
    )
    # one in-band Ethernet port per server
    inband_management: bool = field(
        default=False, metadata=spec("bool", label=_("In-band management network"))
    )
    # NVIDIA's BasePOD dual-homes every node to an MLAG pair of in-band switches; a single switch
    # per group of servers is the budget build. Stored requirements saved before this field
    # existed read as single (STORED_BEFORE_FIELDS), so their quotes do not change.
    inband_redundant: bool = field(
        default=True,
        metadata=spec(
            "bool",
            label=_("Redundant in-band switches (MLAG pairs)"),
            help=_("Each server on two switches, as NVIDIA's BasePOD; off: one switch."),
        ),
    )
    # one RJ45 per server BMC and per switch
    outofband_management: bool = field(
        default=False, metadata=spec("bool", label=_("Out-of-band management network"))
    )
    spares_percent: float = field(
        default=0, metadata=spec("float", label=_("Spares (%)"), low=0, high=100)
    )
    # free text shown on the drawing (customer or project name)
    label: str = field(default="", metadata=spec("text", label=_("Label"), max_length=200))
    # A separate storage fabric (0 storage servers: none). Its endpoints are the storage NIC
    # ports of every compute server (a BlueField-3 or ConnectX port) plus the storage nodes' own.
    storage_servers: int = field(
        default=0,
        metadata=spec(
            "int",
            label=_("Storage servers"),
            low=0,
            high=MAX_STORAGE_SERVERS,
            help=_("0: no separate storage fabric."),
        ),
    )
    # 0 ports is refused only when there is a storage fabric (check_requirements).
    storage_ports_per_server: int = field(
        default=1,
        metadata=spec(
            "int",
            label=_("Storage ports per compute server"),
            low=0,
            high=16,
            help=_("e.g. one BlueField-3 or ConnectX port."),
        ),
    )
    storage_ports_per_storage_server: int = field(
        default=2,
        metadata=spec(
            "int", label=_("Ports per storage server"), low=0, high=MAX_STORAGE_SERVER_PORTS
        ),
    )
    storage_oversubscription: float = field(
        default=1, metadata=spec("float", label=_("Storage oversubscription"), low=1, high=16)
    )
    # The workload the storage serves (all empty: storage_servers alone decides). Each sets a
    # number of storage servers, the largest wins (fabric/storage.py); docs/fabric-design.md.
    storage_capacity_tb: float | None = field(
        default=None,
        metadata=spec(
            "float",
            label=_("Storage capacity (TB usable)"),
            low=0,
            low_open=True,
            high=MAX_STORAGE_TB,
            help=_("Empty: the storage servers given decide."),
        ),
    )
    storage_read_gb_per_s: float | None = field(
        default=None,
        metadata=spec(
            "float",
            label=_("Storage read (GB/s)"),
            low=0,
            low_open=True,
            high=MAX_STORAGE_GB_PER_S,
            help=_("What all GPU servers read together."),
        ),
    )
    storage_write_gb_per_s: float | None = field(
        default=None,
        metadata=spec(
            "float",
            label=_("Storage write (GB/s)"),
            low=0,
            low_open=True,
            high=MAX_STORAGE_GB_PER_S,
            help=_("What all GPU servers write together, e.g. checkpoints."),
        ),
    )
    # One storage server, by default a 2U all-flash NVMe node (an assumption, stated in
    # docs/fabric-design.md): 24 x 15.36 TB drives at 8+2 erasure coding is 294.9 TB usable.
    storage_server_tb: float = field(
        default=295,
        metadata=spec(
            "float",
            label=_("Usable TB per storage server"),
            low=0,
            low_open=True,
            high=10_000,
            help=_("Assumed: a 2U all-flash NVMe node; use the storage vendor's figure."),
        ),
    )
    storage_server_read_gb_per_s: float = field(
        default=40,
        metadata=spec(
            "float",
            label=_("Read GB/s per storage server"),
            low=0,
            low_open=True,
            high=1_000,
        ),
    )
    storage_server_write_gb_per_s: float = field(
        default=20,
        metadata=spec(
            "float",
            label=_("Write GB/s per storage server"),
            low=0,
            low_open=True,
            high=1_000,
        ),
    )

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


REQUIREMENT_FIELDS = frozenset(f.name for f in fields(FabricRequirements))


# What stored requirements (asdict of FabricRequirements: every field) saved before a field
# existed meant by its absence: the engine's behaviour then, not today's default. A saved
# design, quote or pack keeps its result; a request that leaves the field out gets the default.
STORED_BEFORE_FIELDS: dict[str, object] = {"inband_redundant": False}


def requirements_from_json(data: dict, *, stored: bool = False) -> FabricRequirements:
    """FabricRequirements from stored or posted JSON (a project's, a saved design's, an API
    request's); unknown keys are refused, not ignored. `stored`: saved earlier, so a field
    added since reads as what the engine did before it (STORED_BEFORE_FIELDS)."""
    if not isinstance(data, dict):
        raise InvalidInput.field(
            "requirements", message(_("must be an object of requirement fields."))
        )
    if stored:
        data = STORED_BEFORE_FIELDS | data
    unknown = sorted(set(data) - REQUIREMENT_FIELDS)
    if unknown:
        unknown_field = message(_("is not a cluster requirement."))
        raise InvalidInput({key: [unknown_field] for key in unknown})
    return FabricRequirements(**data)


def distance_m(value: Distance | None, field_name: str = "") -> float:
    """Metres of a distance; None (not given) is the tier's usual class."""
    if value is None:
        value = UNMEASURED_DISTANCES[field_name]
    return DISTANCE_CLASSES[value] if isinstance(value, str) else float(value)


# The inputs that ask for storage sizing (none given: storage_servers alone, as before), and the
# figure of one storage server that each is divided by (fabric/storage.py sizes).
STORAGE_ASKED = {
    "storage_capacity_tb": "storage_server_tb",
    "storage_read_gb_per_s": "storage_server_read_gb_per_s",
    "storage_write_gb_per_s": "storage_server_write_gb_per_s",
}


def number(value: float | int) -> Decimal:
    """A float as a person wrote it (str of a float is its shortest round-trip text)."""
    return Decimal(str(value))


def ceil_of(value: Decimal) -> int:
    return int(value.to_integral_value(rounding=ROUND_CEILING))


def sizing_asked(req: FabricRequirements) -> bool:
    return any(getattr(req, name) is not None for name in STORAGE_ASKED)


def servers_needed(req: FabricRequirements) -> dict[str, int]:
    """Storage servers each asked input needs on its own, by input (none asked: empty)."""
    return {
        asked: ceil_of(number(getattr(req, asked)) / number(getattr(req, per_server)))
        for asked, per_server in STORAGE_ASKED.items()
        if getattr(req, asked) is not None
    }


def check_requirements(req: FabricRequirements) -> None:
    """Every check that needs no catalog, reported together so a form marks all fields at once.

    First each field against its spec (type, bounds, choices), then the rules across fields.
    """
    errors = field_errors(req)

    def fail(field: str, text: Message) -> None:
        errors.setdefault(field, []).append(text)

    if req.gpu_count is None and req.server_count is None:
        fail("gpu_count", message(_("give the number of GPUs or of servers.")))
    if errors:
        raise InvalidInput(errors)
    if (
        req.gpu_count is not None
        and req.server_count is not None
        and req.gpu_count != req.server_count * req.gpus_per_server
    ):
        fail(
            "gpu_count",
            message(
                _(
                    "{gpus} GPUs do not match {servers} servers of {per_server} GPUs; give one of "
                    "the two."
                ),
                gpus=req.gpu_count,
                servers=req.server_count,
                per_server=req.gpus_per_server,
            ),
        )
    if req.planes == 2 and req.family != "ethernet":
        fail(
            "planes",
            message(_("two planes are an Ethernet (Spectrum-X) design; InfiniBand uses one.")),
        )
    # Rule 7: both sizes in whole servers, so a target equal to the asked size is accepted.
    if req.growth_gpus is not None and -(-req.growth_gpus // req.gpus_per_server) < req.servers:
        fail(
            "growth_gpus",
            message(
                _("the growth target ({target} GPUs) is below the current size ({gpus} GPUs)."),
                target=req.growth_gpus,
                gpus=req.servers * req.gpus_per_server,
            ),
        )
    if req.family == "ethernet" and req.subnet_manager != "auto":
        fail(
            "subnet_manager",
            message(_("Ethernet fabrics have no subnet manager; leave it on auto.")),
        )
    if req.storage_servers > 0 or sizing_asked(req):
        for field_name in ("storage_ports_per_server", "storage_ports_per_storage_server"):
            if getattr(req, field_name) == 0:
                fail(field_name, message(_("must be at least 1 when there is a storage fabric.")))
    for field_name, count in servers_needed(req).items():
        if count > MAX_STORAGE_SERVERS:
            fail(
                field_name,
                message(
                    _(
                        "needs {count} storage servers, more than {most}: check the figure, or "
                        "give what one storage server delivers."
                    ),
                    count=f"{count:,}",
                    most=f"{MAX_STORAGE_SERVERS:,}",
                ),
            )
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
        raise ValueError(f"use metres or one of {', '.join(DISTANCE_CLASSES)}.") from None

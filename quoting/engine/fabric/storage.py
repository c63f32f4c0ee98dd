"""Storage sized from the workload: usable capacity and aggregate read/write rates asked for
decide how many storage servers and how many ports each; the design shows what it delivers.

Pure arithmetic on the requirements and one port rate (the storage fabric's endpoint speed):
design.py applies it before planning the storage fabric, so the fabric, its cabling, drawing
and racks all see the sized counts. Decimal, from each number as written, so that 1.1 / 0.1 is
11 servers and not 12.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import ROUND_FLOOR, Decimal
from typing import Any

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric.requirements import (
    MAX_STORAGE_SERVER_PORTS,
    FabricRequirements,
    ceil_of,
    number,
    servers_needed,
    sizing_asked,
)
from quoting.engine.messages import Message, gettext_noop, message

# The share of a port's line rate a storage client sees end to end: perftest moves large RDMA
# messages at about 97 % of line rate, a parallel file system's clients see less (protocol,
# metadata, uneven striping). An assumption we state, not a measurement: 400G is 50 GB/s of line
# rate, 40 GB/s of storage throughput.
STORAGE_PORT_EFFICIENCY = Decimal("0.8")


def port_gb_per_s(port_gbps: int) -> Decimal:
    """Storage throughput one port carries each way: line rate in bytes times the efficiency."""
    return Decimal(port_gbps) / 8 * STORAGE_PORT_EFFICIENCY


@dataclass(frozen=True, slots=True)
class StorageSizing:
    """What the sized storage delivers against what was asked (None: not asked)."""

    storage_servers: int
    sized_by: str  # the input that set the count: storage_servers or one of STORAGE_ASKED
    ports_per_storage_server: int
    port_gbps: int
    port_gb_per_s: Decimal  # usable, each way
    capacity_tb: Decimal
    read_gb_per_s: Decimal
    write_gb_per_s: Decimal
    compute_gb_per_s: Decimal  # what the GPU servers' storage ports carry, each way
    capacity_tb_asked: Decimal | None
    read_gb_per_s_asked: Decimal | None
    write_gb_per_s_asked: Decimal | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "storage_servers": self.storage_servers,
            "sized_by": self.sized_by,
            "ports_per_storage_server": self.ports_per_storage_server,
            "port_gbps": self.port_gbps,
            "port_gb_per_s": float(self.port_gb_per_s),
            "port_efficiency": float(STORAGE_PORT_EFFICIENCY),
            "capacity_tb": _figure(self.capacity_tb, self.capacity_tb_asked),
            "read_gb_per_s": _figure(self.read_gb_per_s, self.read_gb_per_s_asked),
            "write_gb_per_s": _figure(self.write_gb_per_s, self.write_gb_per_s_asked),
            "compute_gb_per_s": float(self.compute_gb_per_s),
        }


def headroom_percent(delivered: Decimal, asked: Decimal) -> int:
    """Whole percent above the ask, rounded down so that the headroom is never overstated."""
    return int(((delivered / asked - 1) * 100).to_integral_value(rounding=ROUND_FLOOR))


def _figure(delivered: Decimal, asked: Decimal | None) -> dict[str, Any]:
    return {
        "delivered": float(delivered),
        "asked": None if asked is None else float(asked),
        "headroom_percent": None if asked is None else headroom_percent(delivered, asked),
    }


def storage_sized(
    req: FabricRequirements, port_gbps: int
) -> tuple[FabricRequirements, StorageSizing | None]:
    """The requirements with storage_servers and storage_ports_per_storage_server raised to what
    the capacity and rates asked need, and the sizing; unchanged and None when none is asked.
    Raises InvalidInput on the per-server rate when a storage server would need too many ports.

    Sizing sized requirements again changes nothing: each count is a max over the given one."""
    if not sizing_asked(req):
        return req, None
    needed = servers_needed(req)
    servers = max(req.storage_servers, *needed.values())
    # A tie goes to the workload: it is why there are that many servers.
    sized_by = next((name for name, n in needed.items() if n == servers), "storage_servers")
    per_port = port_gb_per_s(port_gbps)
    read = number(req.storage_server_read_gb_per_s)
    write = number(req.storage_server_write_gb_per_s)
    # Reads and writes go opposite ways on a full-duplex port: the busier direction decides.
    busier = max(read, write)
    ports = max(req.storage_ports_per_storage_server, ceil_of(busier / per_port))
    if ports > MAX_STORAGE_SERVER_PORTS:
        field = "storage_server_read_gb_per_s" if read >= write else "storage_server_write_gb_per_s"
        raise InvalidInput(
            {
                field: [
                    message(
                        gettext_noop(
                            "one storage server of {rate} GB/s needs {ports} ports of {per_port} "
                            "GB/s, more than {most}: give a smaller figure or a faster generation."
                        ),
                        rate=_text(busier),
                        ports=ports,
                        per_port=_text(per_port),
                        most=MAX_STORAGE_SERVER_PORTS,
                    )
                ]
            }
        )
    carried = ports * per_port
    sized = replace(req, storage_servers=servers, storage_ports_per_storage_server=ports)
    return sized, StorageSizing(
        storage_servers=servers,
        sized_by=sized_by,
        ports_per_storage_server=ports,
        port_gbps=port_gbps,
        port_gb_per_s=per_port,
        capacity_tb=servers * number(req.storage_server_tb),
        read_gb_per_s=servers * min(read, carried),
        write_gb_per_s=servers * min(write, carried),
        compute_gb_per_s=req.servers * req.storage_ports_per_server * per_port,
        capacity_tb_asked=_asked(req.storage_capacity_tb),
        read_gb_per_s_asked=_asked(req.storage_read_gb_per_s),
        write_gb_per_s_asked=_asked(req.storage_write_gb_per_s),
    )


def _asked(value: float | None) -> Decimal | None:
    return None if value is None else number(value)


def _text(value: Decimal) -> str:
    """1,200 and 12.5: grouped, no trailing zeros."""
    return f"{value.normalize():,f}"


# Whole sentences per direction, so each translates as a whole.
_COMPUTE_SHORT = {
    "read": gettext_noop(
        "The GPU servers' storage ports carry {carried} GB/s ({servers} servers x {ports} x "
        "{per_port} GB/s), less than the {asked} GB/s of reads asked: give each more storage "
        "ports or a faster generation."
    ),
    "write": gettext_noop(
        "The GPU servers' storage ports carry {carried} GB/s ({servers} servers x {ports} x "
        "{per_port} GB/s), less than the {asked} GB/s of writes asked: give each more storage "
        "ports or a faster generation."
    ),
}


def storage_sizing_warnings(req: FabricRequirements, sizing: StorageSizing) -> list[Message]:
    """The compute side must carry the rates too: the storage servers deliver them into the
    fabric, the GPU servers' own storage ports take them out."""
    warnings = []
    for direction, asked in (
        ("read", sizing.read_gb_per_s_asked),
        ("write", sizing.write_gb_per_s_asked),
    ):
        if asked is not None and sizing.compute_gb_per_s < asked:
            warnings.append(
                message(
                    _COMPUTE_SHORT[direction],
                    carried=_text(sizing.compute_gb_per_s),
                    servers=req.servers,
                    ports=req.storage_ports_per_server,
                    per_port=_text(sizing.port_gb_per_s),
                    asked=_text(asked),
                )
            )
    return warnings


_SIZED_BY = {
    "storage_servers": gettext_noop(
        "Storage sized from the workload: the {servers} storage servers given already cover "
        "it; {ports} ports each at {per_port} GB/s usable ({gbps}G at {efficiency} % of line "
        "rate)."
    ),
    "storage_capacity_tb": gettext_noop(
        "Storage sized from the workload: the capacity asked needs {servers} storage servers "
        "of {tb} TB; {ports} ports each at {per_port} GB/s usable ({gbps}G at {efficiency} % of "
        "line rate)."
    ),
    "storage_read_gb_per_s": gettext_noop(
        "Storage sized from the workload: the reads asked need {servers} storage servers of "
        "{read} GB/s; {ports} ports each at {per_port} GB/s usable ({gbps}G at {efficiency} % "
        "of line rate)."
    ),
    "storage_write_gb_per_s": gettext_noop(
        "Storage sized from the workload: the writes asked need {servers} storage servers of "
        "{write} GB/s; {ports} ports each at {per_port} GB/s usable ({gbps}G at {efficiency} % "
        "of line rate)."
    ),
}


def storage_sizing_advice(req: FabricRequirements, sizing: StorageSizing) -> Message:
    return message(
        _SIZED_BY[sizing.sized_by],
        servers=sizing.storage_servers,
        tb=_text(number(req.storage_server_tb)),
        read=_text(number(req.storage_server_read_gb_per_s)),
        write=_text(number(req.storage_server_write_gb_per_s)),
        ports=sizing.ports_per_storage_server,
        per_port=_text(sizing.port_gb_per_s),
        gbps=sizing.port_gbps,
        efficiency=_text(STORAGE_PORT_EFFICIENCY * 100),
    )

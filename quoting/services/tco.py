"""TCO: the catalog's GPU figures fed to the pure-Python TCO engine."""

from __future__ import annotations

from typing import Any

from catalog.selectors import gpu_peak_tflops
from quoting.engine.tco import TcoRequest, TcoResult, compute_tco


def tco_compute(*, data: Any) -> TcoResult:
    """Compute the TCO of a JSON-style body; raises InvalidInput with dotted field names.

    `gpu` is a model name looked up in the catalog's servers (or the body gives `peak_tflops`).
    """
    return compute_tco(TcoRequest.from_dict(data, gpu_catalog=gpu_peak_tflops()))


def tco_option_from_design(
    *, name: str, design_dict: dict, network_capex: Any, transport: str | None = None
) -> dict:
    """A `fabrics` entry of the TCO body from a fabric design's `as_dict()` and its quoted price.

    Per-node bandwidth is what the model needs, so every endpoint port of a node (over all
    planes) counts as one NIC at the design's port speed. Only InfiniBand designs run a subnet
    manager, which tells the transport when the caller does not; Ethernet is taken as tuned RoCE,
    since that is what we design and quote.
    """
    ports_per_node = design_dict["endpoint_ports"] // design_dict["node_count"]
    return {
        "name": name,
        "transport": transport or ("infiniband" if design_dict["subnet_manager"] else "roce"),
        "nics_per_node": ports_per_node,
        "nic_gbps": design_dict["injection_gbps"] / design_dict["endpoint_ports"],
        "network_capex": str(network_capex),
        "network_power_w": design_dict["power_w"]["typical"],
    }

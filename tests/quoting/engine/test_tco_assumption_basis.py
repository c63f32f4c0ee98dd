"""Each assumption carries a customer-facing basis from a fixed vocabulary, apart from our own
provenance note (`source`), which may say "the request" or "verify" and stays on staff pages."""

from __future__ import annotations

from quoting.engine.tco import TcoRequest, compute_tco
from quoting.engine.tco.assumptions import (
    BASIS_CLUSTER,
    BASIS_NOT_INCLUDED,
    BASIS_TYPICAL,
    BASIS_WORKLOAD,
    CUSTOMER_BASES,
)
from quoting.engine.tco.presets import WORKLOAD_PRESETS

BODY = {
    "peak_tflops": 989,
    "nodes": 32,
    "gpus_per_node": 8,
    "workload": WORKLOAD_PRESETS["moe_47b"].workload,
    "fabrics": [
        {
            "name": "IB",
            "transport": "infiniband",
            "nics_per_node": 8,
            "nic_gbps": 400,
            "network_capex": "1000",
            "network_opex_per_year": "10",
            "servers_per_leaf": 16,
        },
        {
            "name": "Measured",
            "transport": "roce",
            "nics_per_node": 8,
            "nic_gbps": 400,
            "measured_busbw_gbps": 300,
            "oversubscription": 2,
        },
        {"name": "TCP", "transport": "tcp", "nics_per_node": 1, "nic_gbps": 100},
    ],
}


def _rows(body=BODY):
    return {a.key: a for a in compute_tco(TcoRequest.from_dict(body)).assumptions}


def test_every_assumption_has_a_basis_from_the_customer_vocabulary():
    rows = _rows()
    assert all(a.basis in CUSTOMER_BASES for a in rows.values())
    assert {str(a.source) for a in rows.values()} >= {"the request", "not given"}, (
        "the internal notes are still there, for staff"
    )


def test_no_basis_is_an_internal_note():
    for a in _rows().values():
        for note in ("the request", "not given", "verify", "§", "default:", "tco-model"):
            assert note not in a.basis, (a.key, a.basis)


def test_the_basis_says_where_a_stated_value_comes_from():
    rows = _rows()
    assert rows["cluster.nodes"].basis == BASIS_CLUSTER
    assert rows["workload.tokens_per_node_per_step"].basis == BASIS_WORKLOAD
    assert rows["costs.tariff_per_kwh"].basis == BASIS_TYPICAL, "not 'verify'"
    assert rows["costs.server_capex"].basis == BASIS_NOT_INCLUDED
    assert rows["costs.space_per_year"].basis == BASIS_NOT_INCLUDED
    assert rows["fabric.Measured.node_bandwidth"].basis == "Measured on your cluster"
    assert (
        _rows(BODY | {"costs": {"server_capex": "5"}})["costs.server_capex"].basis
        != BASIS_NOT_INCLUDED
    )

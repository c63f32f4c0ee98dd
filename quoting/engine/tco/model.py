"""The effective-compute TCO model (docs/tco-model.md): step time, network efficiency, money.

Physics in floats, money in Decimal. No loss percentage is stored: the loss of each fabric comes
out of its step time for the customer's cluster and workload.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from decimal import Decimal
from typing import NamedTuple

from quoting.engine.money import round_money
from quoting.engine.tco.inputs import Costs, FabricOption, TcoRequest, Workload
from quoting.engine.tco.presets import ASSUMED_SERVER_POWER_KW, NVLINK_LATENCY_US, TRANSPORTS

HOURS_PER_YEAR = 8760
BACKWARD_SHARE = 2 / 3  # backward pass ~ 2/3 of a step's FLOPs: the window gradients can hide in
# Megatron-Core buckets max(40M, 1M x data-parallel size) parameters. We keep the 40M floor:
# the size-scaled part would shrink the latency term as nodes are added and make a bigger
# cluster look more efficient, which the model must never do.
BUCKET_PARAMS = 40e6
CURVE_NODE_COUNTS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


# --- Communication and step time --------------------------------------------------------------


def cross_leaf_share(*, nodes: int, servers_per_leaf: int) -> float:
    """Share of a node's collective traffic bound for nodes under another leaf (rail group).

    A job is packed leaf by leaf; a node's traffic spreads over the job's other nodes (trees,
    all-to-all, rings not laid out by leaf), so the share is that of its peers off its leaf.
    A job that fits under one leaf sends nothing across the spine layer.
    """
    if nodes <= servers_per_leaf:
        return 0.0
    return (nodes - servers_per_leaf) / (nodes - 1)


def oversubscription_slowdown(fabric: FabricOption, *, nodes: int) -> float:
    """How much longer the network part of a step takes on an r:1 leaf than on a 1:1 one.

    tco-model §4 point 8: across the spine layer a job gets at most 1/r of the leaf's downlink
    bandwidth, so its cross-leaf share x takes r times as long. A collective's steps wait for
    their slowest hop, so that time adds to, rather than hides behind, the in-leaf part:
    1 - x + x * r. At 1:1, or for a job under one leaf, it is 1.
    """
    share = cross_leaf_share(nodes=nodes, servers_per_leaf=fabric.leaf_servers)
    return 1 + share * (fabric.oversubscription - 1)


def busbw_ratio(fabric: FabricOption) -> float:
    """nccl-tests' large-message busbw over the bandwidth a training step's buckets achieve."""
    transport = TRANSPORTS[fabric.transport]
    return transport.busbw_efficiency / transport.efficiency


def node_bandwidth(fabric: FabricOption, *, nodes: int, gpus_per_node: int) -> float:
    """Bytes per second one node's NICs achieve together in a training step's AllReduce buckets,
    inside one leaf (oversubscription_slowdown adds the spine layer)."""
    if fabric.measured_busbw_gbps is not None:
        # nccl-tests prints a ring AllReduce's busbw, which is the per-node wire rate (flat with
        # the node count; see predicted_busbw_gbytes). The measurement is taken across the quoted
        # cluster, so it already pays that cluster's oversubscription: take it back out, then
        # scale to gradient buckets as the transport's defaults are.
        slowdown = oversubscription_slowdown(fabric, nodes=nodes)
        return fabric.measured_busbw_gbps * 1e9 * slowdown / busbw_ratio(fabric)
    line_rate = fabric.nic_gbps * 1e9 / 8
    if fabric.efficiency is not None:
        # A stated efficiency is what the customer measured or promises: no further ceiling.
        return fabric.nics_per_node * line_rate * fabric.efficiency
    transport = TRANSPORTS[fabric.transport]
    per_nic = line_rate * transport.efficiency
    if transport.nic_ceiling_gbytes is not None:
        per_nic = min(per_nic, transport.nic_ceiling_gbytes * 1e9)
    return fabric.nics_per_node * per_nic


def busbw_node_rate(fabric: FabricOption, *, nodes: int, gpus_per_node: int) -> float:
    """Bytes per second one node's NICs carry in nccl-tests' 4 GiB AllReduce inside one leaf.

    Never above the NICs' line rate, unless the customer measured more.
    """
    rate = node_bandwidth(fabric, nodes=nodes, gpus_per_node=gpus_per_node) * busbw_ratio(fabric)
    if fabric.measured_busbw_gbps is not None:
        return rate
    return min(rate, fabric.nics_per_node * fabric.nic_gbps * 1e9 / 8)


def collective_latency_s(*, nodes: int, gpus_per_node: int, net_latency_us: float) -> float:
    """Alpha term of one AllReduce: 2 network steps per level between nodes, NVLink inside.

    A ring pays 2(k-1) network steps; NCCL switches to its double binary tree (2 log2 k steps)
    when that is cheaper, which keeps a 1,000-node job from looking latency-bound.
    """
    net_steps = 2 * min(nodes - 1, math.ceil(math.log2(nodes)))
    nvlink_steps = 2 * (gpus_per_node - 1)
    return (net_steps * net_latency_us + nvlink_steps * NVLINK_LATENCY_US) * 1e-6


def bucket_count(workload: Workload) -> int:
    """Gradient buckets per step; each is one AllReduce that pays the latency term."""
    if workload.bucket_mb is not None:
        bucket_bytes = workload.bucket_mb * 1e6
    else:
        bucket_bytes = BUCKET_PARAMS * workload.bytes_per_grad
    return math.ceil(workload.params_billion * 1e9 * workload.bytes_per_grad / bucket_bytes)


@dataclass(frozen=True, slots=True)
class StepTime:
    compute_s: float
    comm_s: float
    exposed_comm_s: float

    @property
    def network_efficiency(self) -> float:
        return self.compute_s / (self.compute_s + self.exposed_comm_s)


def step_time(
    workload: Workload,
    *,
    nodes: int,
    gpus_per_node: int,
    peak_tflops: float,
    node_bandwidth: float,
    net_latency_us: float,
) -> StepTime:
    """One training step on one node: compute, network time, and the part compute cannot hide."""
    tokens = workload.tokens_per_node_per_step
    compute_s = (
        6 * workload.compute_params_billion * 1e9 * tokens
        / (gpus_per_node * peak_tflops * 1e12 * workload.mfu)
    )  # fmt: skip
    if nodes == 1:
        return StepTime(compute_s, 0.0, 0.0)  # NVLink only: nothing leaves the node
    leaving_share = (nodes - 1) / nodes
    gradient_bytes = (
        2 * leaving_share * workload.bytes_per_grad * workload.params_billion * 1e9
        * workload.sharding_factor
    )  # fmt: skip
    parallel_bytes = workload.cross_node_bytes_per_token * tokens * leaving_share
    latency_s = bucket_count(workload) * collective_latency_s(
        nodes=nodes, gpus_per_node=gpus_per_node, net_latency_us=net_latency_us
    )
    comm_s = (gradient_bytes + parallel_bytes) / node_bandwidth + latency_s
    exposed_s = max(0.0, comm_s - workload.overlap * BACKWARD_SHARE * compute_s)
    return StepTime(compute_s, comm_s, exposed_s)


def fabric_step_time(request: TcoRequest, fabric: FabricOption, *, nodes: int) -> StepTime:
    """Step time of `fabric` at `nodes`, its per-node bandwidth fixed at the quoted cluster and
    its spine layer slowing the jobs that span more than one leaf."""
    bandwidth = node_bandwidth(fabric, nodes=request.nodes, gpus_per_node=request.gpus_per_node)
    return step_time(
        request.workload,
        nodes=nodes,
        gpus_per_node=request.gpus_per_node,
        peak_tflops=request.peak_tflops,
        node_bandwidth=bandwidth / oversubscription_slowdown(fabric, nodes=nodes),
        net_latency_us=TRANSPORTS[fabric.transport].latency_us,
    )


# The run the predicted busbw is for: nccl-tests' AllReduce forced onto NCCL's ring, one process
# per node driving its GPUs (-g). NCCL's default choice on two nodes (tree, NVLS/CollNet where
# the fabric has them) reports a busbw above the network's rate, which no ring can reach (NCCL
# environment variables: NCCL_ALGO; tco-model §4 "The predicted busbw and NCCL_ALGO=Ring").
BUSBW_ALGORITHM = "Ring"
BUSBW_COMMAND = "NCCL_ALGO=Ring all_reduce_perf -b 8 -e 8G -f 2 -g {gpus_per_node}"


def busbw_command(gpus_per_node: int) -> str:
    """The nccl-tests command line whose busbw predicted_busbw_gbytes predicts."""
    return BUSBW_COMMAND.format(gpus_per_node=gpus_per_node)


def predicted_busbw_gbytes(
    fabric: FabricOption, *, nodes: int, gpus_per_node: int, size_bytes: float = 4 * 2**30
) -> float | None:
    """What nccl-tests all_reduce_perf would print as busbw (GB/s) for one S-byte AllReduce run
    with NCCL_ALGO=Ring (busbw_command): NCCL's default algorithms report more on two nodes.

    Lets a sales engineer hold the model against a measurement taken on the customer's floor.
    nccl-tests runs a ring over all n = g*k ranks: each node's NICs carry 2(n-1)/n * S, and
    busbw = S/t * 2(n-1)/n, so busbw is the per-node wire rate, roughly flat with the node count
    (NVIDIA: 46-48 GB/s per NDR NIC, tco-model §4 point 7), less the latency share, less the
    spine layer's share for a run across several leaves.
    """
    if nodes == 1:
        return None  # NVLink only: the network is not part of the measurement
    ranks = nodes * gpus_per_node
    ring_share = 2 * (ranks - 1) / ranks
    rate = busbw_node_rate(fabric, nodes=nodes, gpus_per_node=gpus_per_node)
    seconds = ring_share * size_bytes / rate * oversubscription_slowdown(
        fabric, nodes=nodes
    ) + collective_latency_s(
        nodes=nodes,
        gpus_per_node=gpus_per_node,
        net_latency_us=TRANSPORTS[fabric.transport].latency_us,
    )
    return size_bytes / seconds * ring_share / 1e9


# --- Money ------------------------------------------------------------------------------------


def capital_recovery_factor(rate: Decimal, years: int) -> Decimal:
    """Share of the capex to pay each year so a loan at `rate` is repaid over `years`."""
    if rate == 0:
        return Decimal(1) / years
    growth = (1 + rate) ** years
    return rate * growth / (growth - 1)


@dataclass(frozen=True, slots=True)
class AnnualCost:
    capital: Decimal  # capex x capital recovery factor
    support: Decimal  # of the network: as priced (support_per_year), else the support percentage
    energy: Decimal
    space: Decimal
    licences: Decimal = Decimal(0)  # network lines sold per year, paid every year of the life
    server_support: Decimal = Decimal(0)  # the support percentage of the server capex

    @property
    def total(self) -> Decimal:
        return self.capital + self.operating

    @property
    def operating(self) -> Decimal:
        return self.support + self.server_support + self.energy + self.space + self.licences


class ServerPower(NamedTuple):
    kw: Decimal  # one server at training load
    figure: str  # "stated" (the costs), "power_typical_w" or "power_max_w" (catalog), "assumed"


def server_power(request: TcoRequest) -> ServerPower:
    """One server's power at training load: as the costs state it; else the named catalog
    server's typical power (its maximum when the catalog has no typical figure); else the
    assumed 8 kW of an H100-class 8-GPU server (a DGX B200 is 11 kW typical: its user guide)."""
    if request.costs.server_power_kw is not None:
        return ServerPower(request.costs.server_power_kw, "stated")
    server = request.server_spec
    for figure in ("power_typical_w", "power_max_w"):
        watts = getattr(server, figure, None)
        if watts:
            # Exact: 11000.0 W is 11.0 kW, 7500.0 W is 7.5 kW (Decimal division keeps the watts).
            return ServerPower(Decimal(str(watts)) / 1000, figure)
    return ServerPower(ASSUMED_SERVER_POWER_KW, "assumed")


def option_capex(costs: Costs, fabric: FabricOption) -> Decimal:
    return costs.server_capex + costs.services_capex + fabric.network_capex


def network_support(costs: Costs, fabric: FabricOption) -> Decimal:
    """The option's network support per year: as priced when it states it (a quote's support
    lines), else the support percentage of its network capex (tco-model §3)."""
    if fabric.support_per_year is not None:
        return fabric.support_per_year
    return fabric.network_capex * costs.support_percent / 100


def annual_cost(request: TcoRequest, fabric: FabricOption) -> AnnualCost:
    costs = request.costs
    it_kw = request.nodes * server_power(request).kw + fabric.network_power_w / 1000
    return AnnualCost(
        capital=option_capex(costs, fabric)
        * capital_recovery_factor(costs.discount_rate, costs.life_years),
        support=network_support(costs, fabric),
        energy=it_kw * costs.pue * HOURS_PER_YEAR * costs.tariff_per_kwh,
        space=costs.space_per_year,
        licences=fabric.network_opex_per_year,
        server_support=costs.server_capex * costs.support_percent / 100,
    )


def effective_gpu_hours(request: TcoRequest, network_efficiency: float) -> Decimal:
    costs = request.costs
    # The efficiency is physics (a float); str() keeps its printed digits exact in Decimal.
    efficiency = Decimal(str(network_efficiency))
    return request.gpu_count * HOURS_PER_YEAR * costs.availability * costs.utilisation * efficiency


# --- Results ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OptionResult:
    name: str
    transport: str
    network_efficiency: float
    compute_time_s: float
    comm_time_s: float
    exposed_comm_time_s: float
    predicted_busbw_gbytes: float | None  # nccl-tests 4 GiB AllReduce busbw to check on site
    effective_gpu_hours_per_year: Decimal
    capex: Decimal
    annual_cost: Decimal
    annual_cost_breakdown: AnnualCost
    cost_per_effective_gpu_hour: Decimal
    currency: str
    value_lost_per_year: Decimal  # effective GPU-hours lost vs the best option, at their value
    # Of this option's capex premium over the cheapest priced option (payback_baseline), net of
    # its extra yearly costs; None when it is not dearer, when it never pays back
    # (never_pays_back), or when its network or every network is not priced.
    payback_years: Decimal | None
    never_pays_back: bool  # dearer, and its net yearly gain over the baseline is 0 or less
    tco_n_years: Decimal  # capex plus life-years of operating cost (licences too), undiscounted
    npv: Decimal  # value of the effective GPU-hours minus all costs, discounted

    def as_dict(self) -> dict:
        data = {f.name: plain(getattr(self, f.name)) for f in fields(self)}
        data["annual_cost_breakdown"] = {
            f.name: plain(getattr(self.annual_cost_breakdown, f.name)) for f in fields(AnnualCost)
        }
        return data


@dataclass(frozen=True, slots=True)
class EfficiencyCurve:
    name: str
    points: tuple[tuple[int, float], ...]  # (nodes, network efficiency) at the same tokens/node

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "points": [{"nodes": n, "network_efficiency": e} for n, e in self.points],
        }


def plain(value):
    """JSON-ready: Decimal as a string so no amount passes through a float on its way out."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, float):
        return round(value, 6)
    return value


def premium_payback(
    *, premium: Decimal, gained: Decimal, extra_costs: Decimal
) -> tuple[Decimal | None, bool]:
    """(years, never pays back) of a capex premium over the cheapest option (tco-model §3).

    The premium is paid back by the compute value it gains a year less what it costs more a
    year (`extra_costs`: its energy, network support and licences over the cheapest option's;
    servers and space are the same for every option). Not dearer: (None, False), nothing to pay
    back. A net yearly gain of 0 or less: (None, True), never, rather than a negative or
    infinite number of years.
    """
    if premium <= 0:
        return None, False
    net_gain = gained - extra_costs
    if net_gain <= 0:
        return None, True
    return round_money(premium / net_gain), False


def payback_baseline(request: TcoRequest) -> int | None:
    """The index of the option every payback is measured against: the cheapest whose network is
    priced. An unpriced network leaves its cost out, so it would read as the cheapest build and
    make every priced option's premium its whole network; None when no network is priced."""
    priced = [i for i, fabric in enumerate(request.fabrics) if fabric.network_priced]
    if not priced:
        return None
    return min(priced, key=lambda i: option_capex(request.costs, request.fabrics[i]))


def evaluate_options(request: TcoRequest) -> tuple[OptionResult, ...]:
    """Every fabric option side by side: efficiency, cost per effective GPU-hour, value, payback
    (against payback_baseline; none for an option whose network is not priced)."""
    costs = request.costs
    steps = [fabric_step_time(request, f, nodes=request.nodes) for f in request.fabrics]
    hours = [effective_gpu_hours(request, s.network_efficiency) for s in steps]
    capexes = [option_capex(costs, f) for f in request.fabrics]
    best_hours = max(hours)
    baseline = payback_baseline(request)
    value = costs.gpu_hour_value
    discount = [(1 + costs.discount_rate) ** -year for year in range(1, costs.life_years + 1)]

    # Round the parts and add them, so the printed breakdown sums to the printed total.
    yearlies = [
        AnnualCost(
            *(round_money(getattr(annual_cost(request, f), a.name)) for a in fields(AnnualCost))
        )
        for f in request.fabrics
    ]

    results = []
    for fabric, step, effective_hours, capex, yearly in zip(
        request.fabrics, steps, hours, capexes, yearlies, strict=True
    ):
        payback, never = None, False
        if baseline is not None and fabric.network_priced:
            payback, never = premium_payback(
                premium=capex - capexes[baseline],
                gained=(effective_hours - hours[baseline]) * value,
                extra_costs=yearly.operating - yearlies[baseline].operating,
            )
        net_yearly = effective_hours * value - yearly.operating
        results.append(
            OptionResult(
                name=fabric.name,
                transport=fabric.transport,
                network_efficiency=step.network_efficiency,
                compute_time_s=step.compute_s,
                comm_time_s=step.comm_s,
                exposed_comm_time_s=step.exposed_comm_s,
                predicted_busbw_gbytes=predicted_busbw_gbytes(
                    fabric, nodes=request.nodes, gpus_per_node=request.gpus_per_node
                ),
                effective_gpu_hours_per_year=effective_hours.to_integral_value(),
                capex=round_money(capex),
                annual_cost=yearly.total,
                annual_cost_breakdown=yearly,
                cost_per_effective_gpu_hour=round_money(yearly.total / effective_hours, 4),
                currency=costs.currency,
                value_lost_per_year=round_money((best_hours - effective_hours) * value),
                payback_years=payback,
                never_pays_back=never,
                tco_n_years=round_money(capex + costs.life_years * yearly.operating),
                npv=round_money(sum(net_yearly * d for d in discount) - capex),
            )
        )
    return tuple(results)


def efficiency_curves(request: TcoRequest) -> tuple[EfficiencyCurve, ...]:
    """Efficiency versus cluster size at the same tokens per node (the buyer's scaling view)."""
    counts = sorted(set(CURVE_NODE_COUNTS) | {request.nodes})
    return tuple(
        EfficiencyCurve(
            name=f.name,
            points=tuple(
                (k, fabric_step_time(request, f, nodes=k).network_efficiency) for k in counts
            ),
        )
        for f in request.fabrics
    )

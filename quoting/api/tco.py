"""POST /api/v1/tco/: the effective-compute TCO of each fabric option, side by side.

The serializers describe the body for the OpenAPI schema and check its shape (types, ranges,
list length, no unknown keys); the engine checks the business rules. Both answer a 400 in one
shape, a flat object of dotted field paths to messages, the same names the engine uses:

    {"nodes": ["..."], "workload.overlap": ["..."], "fabrics[1].transport": ["..."]}

"body" names the request as a whole (not JSON, not an object).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers, viewsets
from rest_framework.exceptions import ParseError
from rest_framework.response import Response
from rest_framework.settings import api_settings

from integrations.parsers import DepthLimitedJSONParser
from quoting.engine.errors import InvalidInput
from quoting.engine.money import MONEY_MAX
from quoting.engine.tco.inputs import MAX_FABRICS
from quoting.engine.tco.presets import (
    MAX_OVERSUBSCRIPTION,
    MAX_SERVERS_PER_LEAF,
    SHARDING_FACTORS,
    TRANSPORTS,
)
from quoting.services.tco import tco_compute


def _money(**kwargs) -> serializers.DecimalField:
    # Shape only: the engine reads the raw JSON value itself, through str(), never a float.
    kwargs.setdefault("max_value", MONEY_MAX)
    return serializers.DecimalField(
        max_digits=30, decimal_places=10, min_value=Decimal(0), coerce_to_string=False,
        required=False, **kwargs,
    )  # fmt: skip


def _number(low: float, high: float, **kwargs) -> serializers.FloatField:
    return serializers.FloatField(min_value=low, max_value=high, **kwargs)


class StrictSerializer(serializers.Serializer):
    # Refuses keys it does not know: a typo such as "overlapp" must not fall back to a default.

    def to_internal_value(self, data):
        unknown = {}
        if isinstance(data, Mapping):
            unknown = {str(k): [_("Unknown field.")] for k in data if k not in self.fields}
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as error:
            raise serializers.ValidationError({**error.detail, **unknown}) from error
        if unknown:
            raise serializers.ValidationError(unknown)
        return value


class TcoWorkloadSerializer(StrictSerializer):
    """The training job; the presets in quoting/engine/tco/presets.py are valid bodies."""

    params_billion = _number(0.001, 100_000, help_text="Parameters whose gradients are reduced.")
    tokens_per_node_per_step = serializers.IntegerField(min_value=1, max_value=10**9)
    sharding = serializers.ChoiceField(choices=list(SHARDING_FACTORS), required=False)
    overlap = _number(0, 0.9, required=False, help_text="Share of traffic hidden by backward.")
    mfu = _number(0.01, 1, required=False, help_text="Single-node model-FLOPs utilisation.")
    bytes_per_grad = serializers.ChoiceField(choices=[1, 2, 4], required=False)
    active_params_billion = _number(0.001, 100_000, required=False)
    cross_node_bytes_per_token = _number(0, 1e9, required=False)
    bucket_mb = _number(1, 1e6, required=False)


class TcoFabricSerializer(StrictSerializer):
    """One fabric option to compare; names are unique within a request."""

    name = serializers.CharField(max_length=60)
    transport = serializers.ChoiceField(choices=list(TRANSPORTS))
    nics_per_node = serializers.IntegerField(min_value=1, max_value=32)
    nic_gbps = _number(1, 3200, help_text="Line rate of one NIC port, Gb/s.")
    efficiency = _number(0.01, 1, required=False, help_text="Achieved share of line rate.")
    measured_busbw_gbps = _number(
        0.1, 10_000, required=False, help_text="nccl-tests AllReduce busbw, GB/s; overrides."
    )
    network_capex = _money(help_text="Bought once: switches, NICs, optics, cables.")
    network_power_w = _money(max_value=Decimal(10**9))
    network_opex_per_year = _money(
        help_text="Sold per year (UFM per-endpoint licences, support): paid every year."
    )
    oversubscription = _number(
        1, MAX_OVERSUBSCRIPTION, required=False,
        help_text="r in r:1 between leaf and spine; 1 (default) is non-blocking.",
    )  # fmt: skip
    servers_per_leaf = serializers.IntegerField(
        min_value=1, max_value=MAX_SERVERS_PER_LEAF, required=False,
        help_text="Servers under one leaf (a rail group when rail-optimized); default 32.",
    )  # fmt: skip


class TcoCostsSerializer(StrictSerializer):
    """Money and its factors; outside CNY give tariff_per_kwh and gpu_hour_value."""

    currency = serializers.CharField(min_length=3, max_length=3, required=False)
    server_capex = _money()
    services_capex = _money()
    server_power_kw = _money(max_value=Decimal(1000))
    pue = _money(max_value=Decimal(3))
    tariff_per_kwh = _money(max_value=Decimal(1000))
    life_years = serializers.IntegerField(min_value=1, max_value=15, required=False)
    discount_rate = _money(max_value=Decimal(1))
    support_percent = _money(max_value=Decimal(100))
    space_per_year = _money()
    availability = _money(max_value=Decimal(1))
    utilisation = _money(max_value=Decimal(1))
    gpu_hour_value = _money(max_value=Decimal(10**6))


class TcoRequestSerializer(StrictSerializer):
    """A cluster, its workload, up to eight fabric options and the costs."""

    gpu = serializers.CharField(max_length=60, required=False, help_text="GPU model in catalog.")
    peak_tflops = _number(1, 100_000, required=False, help_text="Instead of gpu: dense BF16.")
    nodes = serializers.IntegerField(min_value=1, max_value=100_000)
    gpus_per_node = serializers.IntegerField(min_value=1, max_value=72)
    workload = TcoWorkloadSerializer()
    # A ListField, not many=True: drf-spectacular then prints the bound as maxItems.
    fabrics = serializers.ListField(
        child=TcoFabricSerializer(), min_length=1, max_length=MAX_FABRICS
    )
    costs = TcoCostsSerializer(required=False)


# --- The response, described for the schema (the engine's as_dict() is returned as it is) ----


def _amount(**kwargs) -> serializers.DecimalField:
    return serializers.DecimalField(max_digits=None, decimal_places=None, **kwargs)


class TcoAnnualCostSerializer(serializers.Serializer):
    capital = _amount()
    support = _amount()
    energy = _amount()
    space = _amount()
    licences = _amount()


class TcoOptionSerializer(serializers.Serializer):
    name = serializers.CharField()
    transport = serializers.CharField()
    network_efficiency = serializers.FloatField(help_text="0-1")
    compute_time_s = serializers.FloatField()
    comm_time_s = serializers.FloatField()
    exposed_comm_time_s = serializers.FloatField()
    predicted_busbw_gbytes = serializers.FloatField(allow_null=True)
    effective_gpu_hours_per_year = _amount()
    capex = _amount()
    annual_cost = _amount()
    annual_cost_breakdown = TcoAnnualCostSerializer()
    cost_per_effective_gpu_hour = _amount()
    currency = serializers.CharField()
    value_lost_per_year = _amount()
    payback_years = _amount(allow_null=True)
    tco_n_years = _amount()
    npv = _amount()


class TcoAssumptionSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()
    value = serializers.JSONField()
    unit = serializers.CharField()
    source = serializers.CharField()


class TcoCurvePointSerializer(serializers.Serializer):
    nodes = serializers.IntegerField()
    network_efficiency = serializers.FloatField()


class TcoCurveSerializer(serializers.Serializer):
    name = serializers.CharField()
    points = TcoCurvePointSerializer(many=True)


class TcoBarSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()
    low_value = serializers.JSONField()
    high_value = serializers.JSONField()
    cost_at_low = _amount()
    cost_at_high = _amount()
    swing = _amount()


class TcoTornadoSerializer(serializers.Serializer):
    option = serializers.CharField()
    base_cost = _amount()
    bars = TcoBarSerializer(many=True)


class TcoResultSerializer(serializers.Serializer):
    currency = serializers.CharField()
    life_years = serializers.IntegerField()
    options = TcoOptionSerializer(many=True)
    assumptions = TcoAssumptionSerializer(many=True)
    efficiency_curve = TcoCurveSerializer(many=True)
    sensitivity = TcoTornadoSerializer(many=True)


# --- Shared by the API and the `tco` command ---------------------------------------------------


def flat_errors(detail: Any, path: str = "") -> dict[str, list[str]]:
    """DRF's nested errors as the engine's dotted paths: {"fabrics[1].transport": [...]}."""
    flat: dict[str, list[str]] = {}
    if isinstance(detail, Mapping):
        for key, value in detail.items():
            if key == api_settings.NON_FIELD_ERRORS_KEY:
                sub = path
            elif isinstance(key, int):  # a list's items, keyed by index
                sub = f"{path}[{key}]"
            else:
                sub = f"{path}.{key}" if path else str(key)
            for field, messages in flat_errors(value, sub).items():
                flat.setdefault(field, []).extend(messages)
    elif isinstance(detail, list) and any(isinstance(item, Mapping | list) for item in detail):
        for i, item in enumerate(detail):
            if item:  # a valid list item has an empty error dict
                flat |= flat_errors(item, f"{path}[{i}]")
    else:
        flat[path or "body"] = [str(message) for message in detail]
    return flat


def tco_body_compute(data: Any) -> dict:
    """The TCO of a JSON body as JSON-ready data; raises InvalidInput with dotted field paths."""
    serializer = TcoRequestSerializer(data=data)
    if not serializer.is_valid():
        raise InvalidInput(flat_errors(serializer.errors))
    # The engine parses the original body: one parser for the API, the CLI and the page.
    return tco_compute(data=data).as_dict()


ERROR_EXAMPLE = {
    "nodes": ["Ensure this value is greater than or equal to 1."],
    "fabrics[1].transport": ['"ethernet" is not a valid choice.'],
    "gpu": ["'B300' is not a GPU in the catalog"],
}


class TcoViewSet(viewsets.ViewSet):
    """Effective-compute TCO: network efficiency and cost per effective GPU-hour per fabric.

    A computation, not a stored resource: POST answers 200 with the result and keeps nothing.
    """

    parser_classes = [DepthLimitedJSONParser]

    @extend_schema(
        summary="Compare fabric options by effective compute and cost",
        description=(
            "Derives each fabric option's network efficiency from the cluster, the workload and "
            "the fabric (step time: compute and exposed communication), then its cost per "
            "effective GPU-hour, value lost versus the best option, payback, TCO and NPV. An "
            "option may state its leaf-to-spine oversubscription (1-16) and servers per leaf: a "
            "job wider than one leaf gets 1/r of the leaf's bandwidth for its cross-leaf "
            "traffic. network_opex_per_year (licences sold per year) is paid every year. Every "
            "assumption is returned with its source. Errors: 400 with an object mapping dotted "
            'field paths ("workload.overlap", "fabrics[1].transport", "body") to messages.'
        ),
        request=TcoRequestSerializer,
        responses={
            200: TcoResultSerializer,
            400: OpenApiResponse(
                response=OpenApiTypes.OBJECT,
                description="Field errors keyed by dotted path.",
                examples=[OpenApiExample("Field errors", value=ERROR_EXAMPLE)],
            ),
        },
    )
    def create(self, request):
        try:
            data = request.data
        except ParseError as error:
            return Response({"body": [str(error.detail)]}, status=400)
        try:
            return Response(tco_body_compute(data))
        except InvalidInput as error:
            return Response(error.errors, status=400)

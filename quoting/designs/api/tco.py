"""POST /api/v1/tco/: the effective-compute TCO of each fabric option, side by side.

The serializers are built from the engine dataclasses' field specs (types, ranges, choices, no
unknown keys) and end with the engine's own parser (unique names, a catalog GPU, a tariff
outside CNY), so the API, the TCO page and the engine refuse the same values. A 400 has one
shape, a flat object of dotted field paths to messages, the same names the engine uses:

    {"nodes": ["..."], "workload.overlap": ["..."], "fabrics[1].transport": ["..."]}

"body" names the request as a whole (not JSON, not an object).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers, viewsets
from rest_framework.exceptions import ParseError
from rest_framework.response import Response
from rest_framework.settings import api_settings

from catalog.selectors import gpu_peak_tflops
from portal.api.base import ApiViewSetMixin
from quoting.designs.api.contract import serializer_fields
from quoting.designs.services.tco import server_specs, tco_compute, tco_result_worded
from quoting.engine.errors import InvalidInput
from quoting.engine.tco.inputs import MAX_FABRICS, Costs, FabricOption, TcoRequest, Workload


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


def _fields_of(cls: type, **overrides: dict) -> type[StrictSerializer]:
    """A strict serializer with the engine dataclass's fields, built from its specs. JSON null
    is not "the default" here: the engine refuses it, so the serializer does too."""
    fields = serializer_fields(cls, null_means_default=False, **overrides)
    return type(f"_{cls.__name__}Fields", (StrictSerializer,), fields)


class TcoWorkloadSerializer(_fields_of(Workload)):
    """The training job; the presets in quoting/engine/tco/presets.py are valid bodies."""


class TcoFabricSerializer(_fields_of(FabricOption)):
    """One fabric option to compare; names are unique within a request."""


class TcoCostsSerializer(_fields_of(Costs)):
    """Money and its factors; USD takes the CNY tariff and GPU-hour value converted at the
    catalog's reference rate, another currency but CNY must give tariff_per_kwh and
    gpu_hour_value."""


class TcoRequestSerializer(
    _fields_of(
        TcoRequest,
        peak_tflops={"required": False},
        gpu={"help_text": "GPU model in the catalog."},
        server={
            "help_text": "A catalog server's part number: its typical power is the server power "
            "unless costs.server_power_kw states one; empty: 8 kW assumed."
        },
    )
):
    """A cluster, its workload, up to eight fabric options and the costs."""

    workload = TcoWorkloadSerializer()
    # A ListField, not many=True: drf-spectacular then prints the bound as maxItems.
    fabrics = serializers.ListField(
        child=TcoFabricSerializer(), min_length=1, max_length=MAX_FABRICS
    )
    costs = TcoCostsSerializer(required=False)

    def validate(self, attrs):
        # The engine's parser has the last word (unique names, a GPU or server in the catalog,
        # a tariff outside CNY), on the same dotted field names; it reads the body as sent.
        try:
            TcoRequest.from_dict(
                self.initial_data,
                gpu_catalog=gpu_peak_tflops(),
                server_catalog=server_specs(self.initial_data),
            )
        except InvalidInput as error:
            raise serializers.ValidationError(error.errors) from error
        return attrs


# --- The response, described for the schema (the engine's as_dict() is returned as it is) ----


def _amount(**kwargs) -> serializers.DecimalField:
    return serializers.DecimalField(max_digits=None, decimal_places=None, **kwargs)


class TcoAnnualCostSerializer(serializers.Serializer):
    capital = _amount()
    support = _amount()
    energy = _amount()
    space = _amount()
    licences = _amount()
    server_support = _amount()


class TcoOptionSerializer(serializers.Serializer):
    name = serializers.CharField()
    transport = serializers.CharField()
    network_efficiency = serializers.FloatField(help_text="0-1")
    compute_time_s = serializers.FloatField()
    comm_time_s = serializers.FloatField()
    exposed_comm_time_s = serializers.FloatField()
    predicted_busbw_gbytes = serializers.FloatField(
        allow_null=True,
        help_text="nccl-tests busbw of a 4 GiB AllReduce run with NCCL_ALGO=Ring, e.g. "
        "NCCL_ALGO=Ring all_reduce_perf -b 8 -e 8G -f 2 -g 8 (NCCL's default algorithms report "
        "above the network rate on two nodes). Null: one node.",
    )
    effective_gpu_hours_per_year = _amount()
    capex = _amount()
    annual_cost = _amount()
    annual_cost_breakdown = TcoAnnualCostSerializer()
    cost_per_effective_gpu_hour = _amount()
    currency = serializers.CharField()
    value_lost_per_year = _amount()
    payback_years = _amount(
        allow_null=True,
        help_text="Capex premium over the payback baseline, the cheapest option whose network "
        "is priced (payback_baseline) / (compute value gained a year - its extra energy, support "
        "and licences a year). Null: not dearer, never pays back, or its network (or every "
        "network) is not priced (network_capex empty or 0).",
    )
    never_pays_back = serializers.BooleanField(
        help_text="Dearer than the payback baseline and its net yearly gain is 0 or less."
    )
    tco_n_years = _amount()
    npv = _amount()


class TcoAssumptionSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()
    value = serializers.JSONField()
    unit = serializers.CharField()
    source = serializers.CharField()
    messages = serializers.DictField(
        required=False,
        help_text="label, unit and source as translatable messages ({template, params}), for "
        "clients that print them in another language; the plain fields above are English.",
    )


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
    payback_baseline = serializers.CharField(
        required=False,
        allow_null=True,
        help_text="The option every payback is measured against: the cheapest whose network is "
        "priced. Null when no network is priced (no payback); absent from comparisons stored "
        "before it was given.",
    )
    assumptions = TcoAssumptionSerializer(many=True)
    efficiency_curve = TcoCurveSerializer(many=True)
    sensitivity = TcoTornadoSerializer(many=True)
    warnings = serializers.ListField(
        child=serializers.CharField(),
        help_text="What the reader must know before reading the figures, in the request's "
        "language (Accept-Language): e.g. a value of a GPU-hour below its cost, which makes "
        "every NPV negative.",
    )
    warning_messages = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="The same warnings as translatable messages ({template, params}, the template "
        "English), for clients that print them in another language; absent from comparisons "
        "stored before it was given.",
    )


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


# Effective-compute TCO: network efficiency and cost per effective GPU-hour per fabric. A
# computation, not a stored resource: POST answers 200 with the result and keeps nothing.
class TcoViewSet(ApiViewSetMixin, viewsets.ViewSet):
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
            return Response(tco_result_worded(tco_body_compute(data)))
        except InvalidInput as error:
            return Response(error.errors, status=400)

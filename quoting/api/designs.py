"""POST /api/v1/designs/: compute a fabric design without saving it (saving belongs to projects)."""

from __future__ import annotations

from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from quoting.api.errors import validation_error
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import (
    DISTANCE_CLASSES,
    FAMILIES,
    SUBNET_MANAGERS,
    FabricRequirements,
    cable_schedule_csv_lines,
    distance_parse,
)
from quoting.forms.designs import NIC_GENERATIONS
from quoting.services.designs import design_compute, design_server_defaults
from quoting.svg.fabric import fabric_svg


@extend_schema_field({
    "oneOf": [{"type": "number", "minimum": 0, "maximum": 10000},
              {"type": "string", "enum": list(DISTANCE_CLASSES)}],
    "description": "Metres, or a named distance class.",
})
class DistanceField(serializers.Field):
    """Metres (a number) or a named class such as "same-row"."""

    default_error_messages = {
        "invalid": f"Use metres or one of {', '.join(DISTANCE_CLASSES)}.",
    }

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, str | int | float) or (
                isinstance(data, str) and len(data) > 20):
            self.fail("invalid")
        try:
            return distance_parse(data)
        except ValueError:
            self.fail("invalid")

    def to_representation(self, value):
        return value


class DesignRequestSerializer(serializers.Serializer):
    gpu_count = serializers.IntegerField(min_value=1, max_value=1_000_000, required=False)
    server_count = serializers.IntegerField(min_value=1, max_value=200_000, required=False)
    gpus_per_server = serializers.IntegerField(min_value=1, max_value=64, default=8)
    nics_per_server = serializers.IntegerField(min_value=1, max_value=64, required=False)
    nic_generation = serializers.ChoiceField(choices=[g for g, _label in NIC_GENERATIONS],
                                             default="NDR")
    family = serializers.ChoiceField(choices=FAMILIES, default="infiniband")
    planes = serializers.ChoiceField(choices=[1, 2], default=1)
    switch_part_number = serializers.CharField(max_length=64, required=False)
    nic_part_number = serializers.CharField(max_length=64, required=False)
    server_part_number = serializers.CharField(
        max_length=64, required=False,
        help_text="A catalog server (e.g. DGX-H100): its cages decide the host-side optics; "
                  "gpus_per_server and nic_generation default to the server's.")
    include_nics = serializers.BooleanField(default=False)
    rail_optimized = serializers.BooleanField(default=True)
    oversubscription = serializers.FloatField(min_value=1, max_value=16, default=1)
    growth_gpus = serializers.IntegerField(min_value=1, max_value=1_000_000, required=False)
    server_to_leaf = DistanceField(default="same-row")
    leaf_to_spine = DistanceField(default="same-row")
    spine_to_core = DistanceField(default="across-hall")
    subnet_manager = serializers.ChoiceField(choices=SUBNET_MANAGERS, default="auto")
    inband_management = serializers.BooleanField(default=False)
    outofband_management = serializers.BooleanField(default=False)
    spares_percent = serializers.FloatField(min_value=0, max_value=100, default=0)
    label = serializers.CharField(max_length=200, required=False, allow_blank=True)
    storage_servers = serializers.IntegerField(
        min_value=0, max_value=100_000, default=0,
        help_text="Storage servers on a separate storage fabric; 0 for none.")
    storage_ports_per_server = serializers.IntegerField(
        min_value=1, max_value=16, default=1,
        help_text="Storage NIC ports on each compute server.")
    storage_ports_per_storage_server = serializers.IntegerField(min_value=1, max_value=16,
                                                                default=2)
    storage_oversubscription = serializers.FloatField(min_value=1, max_value=16, default=1)

    def validate(self, attrs):
        unknown = set(self.initial_data) - set(self.fields)
        if unknown:
            raise serializers.ValidationError(
                {name: ["Unknown field."] for name in sorted(unknown)})
        if attrs.get("gpu_count") is None and attrs.get("server_count") is None:
            raise serializers.ValidationError(
                {"gpu_count": ["Give the number of GPUs (gpu_count) or of servers."]})
        if attrs.get("server_part_number"):
            defaults = design_server_defaults(part_number=attrs["server_part_number"],
                                              family=attrs["family"])
            attrs |= {k: v for k, v in defaults.items() if k not in self.initial_data}
        return attrs

    def requirements(self) -> FabricRequirements:
        return FabricRequirements(**self.validated_data)


class BomLineSerializer(serializers.Serializer):
    sku = serializers.CharField()
    category = serializers.CharField()
    quantity = serializers.IntegerField()
    role = serializers.CharField()
    name = serializers.CharField()


class PortsSerializer(serializers.Serializer):
    used = serializers.IntegerField()
    free = serializers.IntegerField()


class PowerSerializer(serializers.Serializer):
    typical = serializers.IntegerField()
    max = serializers.IntegerField()


class DesignSerializer(serializers.Serializer):
    """The design contract: these keys always exist; more are added freely."""

    tiers = serializers.IntegerField()
    gpu_count = serializers.IntegerField()
    node_count = serializers.IntegerField()
    endpoint_ports = serializers.IntegerField()
    switch_sku = serializers.CharField()
    nic_sku = serializers.CharField()
    server_sku = serializers.CharField(
        allow_null=True, help_text="The chosen server whose cages decide the host optics, or null.")
    leaf_count = serializers.IntegerField()
    spine_count = serializers.IntegerField()
    core_count = serializers.IntegerField()
    ports = PortsSerializer()
    ports_by_tier = serializers.DictField(child=PortsSerializer())
    links = serializers.DictField(child=serializers.IntegerField())
    links_per_leaf_per_spine = serializers.IntegerField()
    oversubscription = serializers.FloatField()
    bom = BomLineSerializer(many=True)
    power_w = PowerSerializer()
    rack_units = serializers.IntegerField()
    injection_gbps = serializers.IntegerField()
    bisection_gbps = serializers.IntegerField()
    max_hops = serializers.IntegerField()
    subnet_manager = serializers.CharField()
    ufm_appliances = serializers.JSONField(
        allow_null=True,
        help_text="UFM appliances cabled into leaf ports (links are in links['ufm-leaf'] and the "
                  "BOM's 'ufm-leaf' lines), or null.")
    headroom = serializers.DictField(child=serializers.IntegerField())
    pre_provisioned = serializers.JSONField(allow_null=True)
    next_step = serializers.JSONField(allow_null=True)
    media = serializers.JSONField()
    management = serializers.DictField(child=serializers.IntegerField())
    storage = serializers.JSONField(
        allow_null=True,
        help_text="The separate storage fabric (its parts are in bom with roles 'storage ...'), "
                  "or null.")
    warnings = serializers.ListField(child=serializers.CharField())
    advice = serializers.ListField(child=serializers.CharField())


class DesignViewSet(viewsets.ViewSet):
    """Fabric designs computed from the catalog, never stored here."""

    def _design(self, request):
        serializer = DesignRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            return design_compute(requirements=serializer.requirements())
        except InvalidInput as error:
            raise validation_error(error) from error

    @extend_schema(request=DesignRequestSerializer,
                   responses={200: DesignSerializer, 400: OpenApiResponse(
                       description="Field errors: {field: [message, ...]}")},
                   summary="Design a fabric (not saved)")
    def create(self, request):
        return Response(self._design(request).as_dict(), status=status.HTTP_200_OK)

    @extend_schema(request=DesignRequestSerializer,
                   responses={(200, "text/csv"): OpenApiTypes.STR},
                   summary="The design's cable schedule as CSV")
    @action(detail=False, methods=["post"], url_path="cable-schedule")
    def cable_schedule(self, request):
        design = self._design(request)
        response = StreamingHttpResponse(cable_schedule_csv_lines(design),
                                         content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="cable-schedule.csv"'
        return response

    @extend_schema(request=DesignRequestSerializer,
                   responses={(200, "image/svg+xml"): OpenApiTypes.STR},
                   summary="The design's drawing as SVG")
    @action(detail=False, methods=["post"])
    def drawing(self, request):
        return HttpResponse(fabric_svg(self._design(request)), content_type="image/svg+xml")

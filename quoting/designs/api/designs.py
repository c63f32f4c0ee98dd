"""POST /api/v1/designs/: compute a fabric design without saving it (saving belongs to projects)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse, StreamingHttpResponse
from django.utils import translation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from portal.api.base import ApiViewSetMixin
from portal.api.exceptions import validation_error
from quoting.designs.api.contract import serializer_fields
from quoting.designs.api.packs import DesignInstallPackSerializer, pack_accepted
from quoting.designs.services.designs import (
    MESSAGES_OF,
    design_compute,
    design_install_layout,
    design_server_defaults,
    design_worded,
    design_words_again,
    site_from_json,
)
from quoting.designs.services.packs import (
    DESIGN_PACK_WAIT_MAX_GPUS,
    design_pack_request,
    design_pack_waits,
    pack_language,
    pack_translate,
)
from quoting.designs.svg.fabric import fabric_svg
from quoting.engine.contract import specs
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, cable_schedule_csv_lines
from quoting.engine.fabric.requirements import check_requirements
from quoting.engine.install import SITE_FIELDS, SiteInputs
from quoting.engine.install.pack import pack_zip_chunks
from quoting.engine.tco.presets import DEFAULT_WORKLOAD, WORKLOAD_PRESETS


def workload_field(**kwargs) -> serializers.ChoiceField:
    """The job a TCO comparison assumes: one of the TCO engine's workload presets."""
    return serializers.ChoiceField(
        choices=[(key, preset.label) for key, preset in WORKLOAD_PRESETS.items()],
        help_text="The workload preset the TCO comparison assumes: "
        + ", ".join(WORKLOAD_PRESETS)
        + f". Default {DEFAULT_WORKLOAD}.",
        **kwargs,
    )


_RequirementFields = type(
    "_RequirementFields", (serializers.Serializer,), serializer_fields(FabricRequirements)
)
_PART_FIELDS = tuple(name for name, s in specs(FabricRequirements).items() if s.kind == "part")


class DesignRequestSerializer(_RequirementFields):
    """FabricRequirements' fields, built from its specs; the engine's check has the last word."""

    def validate(self, attrs):
        unknown = set(self.initial_data) - set(self.fields)
        if unknown:
            raise serializers.ValidationError(
                {name: ["Unknown field."] for name in sorted(unknown)}
            )
        for name in _PART_FIELDS:  # empty, as on the page: let the engine choose
            if attrs.get(name) == "":
                attrs[name] = None
        if attrs.get("server_part_number"):
            defaults = design_server_defaults(
                part_number=attrs["server_part_number"], family=attrs["family"]
            )
            attrs |= {k: v for k, v in defaults.items() if k not in self.initial_data}
        try:
            check_requirements(FabricRequirements(**self._requirement_values(attrs)))
        except InvalidInput as error:
            raise validation_error(error) from error
        return attrs

    @staticmethod
    def _requirement_values(attrs) -> dict:
        return {k: v for k, v in attrs.items() if k in FabricRequirements.__dataclass_fields__}

    def requirements(self) -> FabricRequirements:
        return FabricRequirements(**self._requirement_values(self.validated_data))


_SiteFields = type("_SiteFields", (DesignRequestSerializer,), serializer_fields(SiteInputs))


class DesignOnSiteSerializer(_SiteFields):
    """The design request's fields and the site's (SiteInputs' specs; the defaults for what it
    leaves out): the design's cables are measured on the site's rack layout. The layout checks
    the rules across them (a rack too small for one server, a design too large for the site)."""

    def site(self) -> SiteInputs:
        return site_from_json({k: v for k, v in self.validated_data.items() if k in SITE_FIELDS})


class InstallPackRequestSerializer(DesignOnSiteSerializer):
    """The design and the site it is laid out on, for its installation pack, and its language."""

    language = serializers.ChoiceField(
        choices=settings.LANGUAGES,
        required=False,
        help_text="The words of the files people read (README.txt, racks.csv's weight_unknown, "
        "the elevations, the labels); the files tools read are the same in every language. "
        "Default: the language of the request.",
    )


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


class StorageFigureSerializer(serializers.Serializer):
    delivered = serializers.FloatField(help_text="What the sized storage delivers.")
    asked = serializers.FloatField(allow_null=True, help_text="What was asked, or null.")
    headroom_percent = serializers.IntegerField(
        allow_null=True,
        help_text="Whole percent delivered above the ask, rounded down; null when not asked.",
    )


class StorageSizingSerializer(serializers.Serializer):
    """The storage sized from storage_capacity_tb, storage_read_gb_per_s and
    storage_write_gb_per_s (docs/fabric-design.md, "Storage sized from the workload")."""

    storage_servers = serializers.IntegerField(
        help_text="Storage servers designed: the largest count any input needs."
    )
    sized_by = serializers.ChoiceField(
        choices=[
            "storage_servers",
            "storage_capacity_tb",
            "storage_read_gb_per_s",
            "storage_write_gb_per_s",
        ],
        help_text="The input that set the count (storage_servers: the count given covers all).",
    )
    ports_per_storage_server = serializers.IntegerField(
        help_text="Ports per storage server: enough for its read or write rate, at least the "
        "number given."
    )
    port_gbps = serializers.IntegerField(help_text="Line rate of a storage port (Gb/s).")
    port_gb_per_s = serializers.FloatField(
        help_text="Storage throughput one port carries each way (GB/s): line rate x efficiency."
    )
    port_efficiency = serializers.FloatField(help_text="The share of line rate assumed.")
    capacity_tb = StorageFigureSerializer(help_text="Usable TB.")
    read_gb_per_s = StorageFigureSerializer(help_text="Aggregate read GB/s.")
    write_gb_per_s = StorageFigureSerializer(help_text="Aggregate write GB/s.")
    compute_gb_per_s = serializers.FloatField(
        help_text="What the GPU servers' storage ports carry each way (GB/s); a warning says "
        "when it is below the read or write asked."
    )


class DesignSerializer(serializers.Serializer):
    """The design contract: these keys always exist; more are added freely."""

    tiers = serializers.IntegerField()
    gpu_count = serializers.IntegerField()
    node_count = serializers.IntegerField()
    endpoint_ports = serializers.IntegerField()
    switch_sku = serializers.CharField()
    nic_sku = serializers.CharField()
    server_sku = serializers.CharField(
        allow_null=True, help_text="The chosen server whose cages decide the host optics, or null."
    )
    leaf_count = serializers.IntegerField()
    spine_count = serializers.IntegerField()
    core_count = serializers.IntegerField()
    ports = PortsSerializer()
    ports_by_tier = serializers.DictField(child=PortsSerializer())
    links = serializers.DictField(child=serializers.IntegerField())
    links_per_leaf_per_spine = serializers.IntegerField()
    rails_per_leaf = serializers.IntegerField(
        allow_null=True,
        help_text="Whole rails each leaf carries in a rail-optimized design (1: one rail per "
        "leaf; more when every server of the cluster fits one leaf per few rails, each rail "
        "still on one leaf), or null without rails or with one switch.",
    )
    non_rail = serializers.JSONField(
        allow_null=True,
        help_text="The same request without rail optimization when it needs fewer switches "
        "({leaf_count, spine_count, core_count}, over all planes; the warnings say so too), "
        "or null.",
    )
    rack_scale_other = serializers.JSONField(
        allow_null=True,
        help_text="Racks of a rack-scale system (NVL72) that are not whole scalable units: the "
        "build not asked (whole_units true: the scalable units of 8 racks; false: the smallest "
        "fabric for the racks asked, rack_scale_smallest), its racks, leaf_count, spine_count, "
        "core_count and leaf_spine_links, and what growing from the smallest build to whole "
        "units adds (added_switches, added_leaf_spine_links) and re-cables (moved_host_links, "
        "moved_trunk_links); null otherwise.",
    )
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
        help_text="UFM appliances, or the UFM hosts quoted with UFM licences (device, host_nic), "
        "cabled into leaf ports (links are in links['ufm-leaf'] and the BOM's 'ufm-leaf' lines), "
        "or null.",
    )
    headroom = serializers.DictField(child=serializers.IntegerField())
    pre_provisioned = serializers.JSONField(allow_null=True)
    next_step = serializers.JSONField(allow_null=True)
    media = serializers.JSONField()
    management = serializers.DictField(child=serializers.IntegerField())
    storage = serializers.JSONField(
        allow_null=True,
        help_text="The separate storage fabric (its parts are in bom with roles 'storage ...'), "
        "or null.",
    )
    storage_sizing = StorageSizingSerializer(
        allow_null=True,
        help_text="The storage sized from the capacity and rates asked, with the headroom "
        "delivered; null when none was asked.",
    )
    site = serializers.JSONField(
        allow_null=True,
        help_text="The site inputs the cables were measured on (every field, defaults filled "
        "in); media with measured=true buy each cable for its own run there.",
    )
    warnings = serializers.ListField(
        child=serializers.CharField(), help_text="In the request's language (Accept-Language)."
    )
    advice = serializers.ListField(
        child=serializers.CharField(), help_text="In the request's language (Accept-Language)."
    )
    # Not required: an idempotent replay of an answer kept before they were added has neither.
    warning_messages = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="The same warnings as translatable messages ({template, params}, the template "
        "English), for clients that print them in another language.",
    )
    advice_messages = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="The same advice as translatable messages ({template, params}).",
    )


# Fabric designs computed from the catalog, never stored here. JSON bodies only (so generated
# clients send JSON and can send null); every POST takes an Idempotency-Key (ApiViewSetMixin).
class DesignViewSet(ApiViewSetMixin, viewsets.ViewSet):
    def _design(self, request):
        serializer = DesignOnSiteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            return design_compute(requirements=serializer.requirements(), site=serializer.site())
        except InvalidInput as error:
            raise validation_error(error) from error

    @extend_schema(
        request=DesignOnSiteSerializer,
        responses={
            200: DesignSerializer,
            400: OpenApiResponse(description="Field errors: {field: [message, ...]}"),
        },
        summary="Design a fabric (not saved)",
    )
    def create(self, request):
        return Response(design_worded(self._design(request)), status=status.HTTP_200_OK)

    def idempotent_replay(self, response) -> None:
        # The same design again (kept: its figures as first computed), its warnings and advice
        # in the language of the retry, which its Content-Language then says. An answer kept
        # before it carried its messages is replayed as it was, with the language it was in.
        if (
            self.action == "create"
            and isinstance(response.data, dict)
            and any(isinstance(response.data.get(kept), list) for kept in MESSAGES_OF.values())
        ):
            response.data = design_words_again(response.data)
            response["Content-Language"] = translation.get_language()

    @extend_schema(
        request=DesignOnSiteSerializer,
        responses={(200, "text/csv"): OpenApiTypes.STR},
        summary="The design's cable schedule as CSV",
    )
    @action(detail=False, methods=["post"], url_path="cable-schedule")
    def cable_schedule(self, request):
        design = self._design(request)
        response = StreamingHttpResponse(
            cable_schedule_csv_lines(design), content_type="text/csv; charset=utf-8"
        )
        response["Content-Disposition"] = 'attachment; filename="cable-schedule.csv"'
        return response

    @extend_schema(
        request=InstallPackRequestSerializer,
        responses={
            (200, "application/zip"): OpenApiTypes.BINARY,
            202: OpenApiResponse(
                DesignInstallPackSerializer,
                description=f"More than {DESIGN_PACK_WAIT_MAX_GPUS:,} GPUs: built by a worker. "
                "The pack's state, with `Location` (the state to poll) and `Retry-After`.",
            ),
            400: OpenApiResponse(description="Field errors: {field: [message, ...]}"),
        },
        summary="The design's installation pack (zip): racks, labelled cables, "
        "elevations, Slurm, ibdiagnet, UFM NDT and NetBox files",
    )
    @action(detail=False, methods=["post"], url_path="install-pack")
    def install_pack(self, request):
        serializer = InstallPackRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        language = pack_language(serializer.validated_data.get("language"))
        try:
            design = design_compute(requirements=serializer.requirements(), site=serializer.site())
            if not design_pack_waits(design):
                # Only the site fields sent: the pack's own record of what was asked.
                site = {k: v for k, v in serializer.validated_data.items() if k in SITE_FIELDS}
                pack = design_pack_request(
                    user=request.user, design=design, site=site, language=language
                )
                pack.refresh_from_db(fields=["status", "error", "sha256", "size", "finished_at"])
                return pack_accepted(request, pack)  # built already when Celery runs eagerly
            layout = design_install_layout(design=design, site=serializer.site(), interactive=True)
        except InvalidInput as error:
            raise validation_error(error) from error
        response = StreamingHttpResponse(
            pack_zip_chunks(layout, translate=pack_translate(language)),
            content_type="application/zip",
        )
        response["Content-Disposition"] = (
            f'attachment; filename="install-pack-{design.gpu_count}-gpus.zip"'
        )
        response["Content-Language"] = language
        return response

    @extend_schema(
        request=DesignOnSiteSerializer,
        responses={(200, "image/svg+xml"): OpenApiTypes.STR},
        summary="The design's drawing as SVG",
    )
    @action(detail=False, methods=["post"])
    def drawing(self, request):
        return HttpResponse(fabric_svg(self._design(request)), content_type="image/svg+xml")

"""Projects and their saved designs: /api/v1/projects/, /api/v1/projects/{id}/designs/."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from portal.api.base import (
    IDEMPOTENCY_KEY,
    IDEMPOTENT_ERRORS,
    LIST_ERRORS,
    ServiceViewSetMixin,
    errors,
    service_viewset_schema,
)
from quoting.customers.api import (
    ExternalIdUpsertMixin,
    by_external_id_schema,
    external_id_field,
)
from quoting.customers.filters import ProjectFilter
from quoting.customers.models import PLAN_NOTE_MAX_LENGTH, Customer, Project, plan_fields
from quoting.customers.selectors import customers_visible_to, projects_visible_to
from quoting.customers.services import project_create, project_delete, project_update
from quoting.designs.api.designs import DesignOnSiteSerializer, workload_field
from quoting.designs.models import SavedDesign
from quoting.designs.services.designs import (
    RACK_SCALE_OTHER_BOM,
    messages_worded,
    saved_rack_scale_other_priced,
)
from quoting.designs.services.saved import design_save
from quoting.designs.services.snapshots import design_snapshot_current
from quoting.designs.services.tco import tco_result_worded
from quoting.engine.fabric import FabricRequirements
from quoting.engine.install import SITE_FIELDS
from quoting.engine.tco.presets import DEFAULT_WORKLOAD


def _plan_note() -> serializers.CharField:
    return serializers.CharField(
        max_length=PLAN_NOTE_MAX_LENGTH,
        required=False,
        allow_blank=True,
        help_text="What the customer said about this part (e.g. the backup system in place).",
    )


class ProjectInputSerializer(serializers.Serializer):
    customer = serializers.PrimaryKeyRelatedField(
        queryset=Customer.objects.none(),
        help_text="A customer you may see. Fixed once the project has quotes (changing it is a "
        "400); before that, only another customer of the same team.",
    )
    name = serializers.CharField(max_length=200)
    notes = serializers.CharField(max_length=5000, required=False, allow_blank=True)
    external_id = external_id_field()
    # The parts of the plan the customer asks for; left out: as stored (a new project: network
    # yes, the others no).
    needs_gpu_servers = serializers.BooleanField(
        required=False, help_text="The customer asks for GPU servers. Default false."
    )
    needs_gpu_servers_note = _plan_note()
    needs_network = serializers.BooleanField(
        required=False, help_text="The customer asks for the network (fabric). Default true."
    )
    needs_network_note = _plan_note()
    needs_cluster_management = serializers.BooleanField(
        required=False,
        help_text="The customer asks for virtualization and cluster management (Base Command "
        "Manager, AI Enterprise...). Default false.",
    )
    needs_cluster_management_note = _plan_note()
    needs_backup = serializers.BooleanField(
        required=False, help_text="The customer asks for DR and backup. Default false."
    )
    needs_backup_note = _plan_note()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "request" not in self.context:  # the schema generator
            return
        self.fields["customer"].queryset = customers_visible_to(user=self.context["request"].user)


class ProjectSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)

    class Meta:
        model = Project
        fields = [
            "id",
            "customer",
            "name",
            "notes",
            "requirements",
            *plan_fields(),
            "owner",
            "external_id",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class SavedDesignInputSerializer(DesignOnSiteSerializer):
    """The body of POST /api/v1/designs/ (requirements and site) plus the name to keep it under
    and the workload its TCO comparison assumes."""

    name = serializers.CharField(max_length=200)
    workload = workload_field(required=False, default=DEFAULT_WORKLOAD)

    def requirements(self) -> FabricRequirements:
        values = {
            name: value
            for name, value in self.validated_data.items()
            if name in FabricRequirements.__dataclass_fields__
        }
        return FabricRequirements(**values)

    def site_values(self) -> dict:
        return {k: v for k, v in self.validated_data.items() if k in SITE_FIELDS and v is not None}


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": True,
        "description": "The design as computed then (the keys of POST /designs/; "
        "a snapshot older than a key lacks it). Its warnings and advice are worded in the "
        "request's language (Accept-Language), from the messages the snapshot keeps.",
    }
)
class DesignSnapshotField(serializers.JSONField):
    """Returned as stored (a snapshot never changes after it is saved), but for its warnings and
    advice: worded in the request's language from the engine's messages the snapshot keeps
    beside it (engine_messages); a snapshot kept without them gives its stored English."""

    def get_attribute(self, design):
        return design

    def to_representation(self, design):
        result, kept = design.result, design.engine_messages
        if isinstance(result, dict) and RACK_SCALE_OTHER_BOM in result:
            # The rows the other build is priced from: rack_scale_other_priced gives them priced.
            result = {key: value for key, value in result.items() if key != RACK_SCALE_OTHER_BOM}
        if not isinstance(result, dict) or not isinstance(kept, dict):
            return result
        worded = {key: messages_worded(kept[key]) for key in ("warnings", "advice") if key in kept}
        return {**result, **worded}


@extend_schema_field(
    {
        "type": "object",
        "nullable": True,
        "additionalProperties": True,
        "description": "The bill of materials priced in the customer's currency "
        "when the design was saved: lines, totals, price sources.",
    }
)
class PricedBomField(serializers.JSONField):
    """The snapshot's priced BOM, as stored."""


@extend_schema_field(
    {
        "type": "object",
        "nullable": True,
        "additionalProperties": True,
        "description": "The TCO comparison computed with the design: its "
        "currency, request (the inputs) and result (as POST /tco/ answers: its warnings in the "
        "request's language).",
    }
)
class TcoSnapshotField(serializers.Field):
    """The snapshot's TCO comparison without its drawn charts (pages draw them), its warnings
    worded in the request's language."""

    def to_representation(self, tco):
        shown = {key: tco[key] for key in ("currency", "request", "result") if key in tco}
        if "result" in shown:  # its warnings in the request's language
            shown["result"] = tco_result_worded(shown["result"])
        return shown

    def get_attribute(self, design):
        return design.tco or None  # an empty snapshot prints null


@extend_schema_field(
    {
        "type": "object",
        "nullable": True,
        "additionalProperties": True,
        "description": "The other build of NVL72 racks that are not whole scalable units "
        "(result.rack_scale_other) at list prices in priced_bom's currency, as the design page "
        "prices it: currency, total, lines, missing, has_reference_prices (as priced_bom). "
        "Null when the design has no other build, and when its snapshot was saved before the "
        "other build's parts were kept (result.rack_scale_other is then given without a price).",
    }
)
class RackScaleOtherPricedField(serializers.Field):
    """The other build priced now, in the currency of the snapshot's priced BOM (the customer's),
    from the parts the snapshot keeps (nothing designed, nothing written)."""

    def get_attribute(self, design):
        return design

    def to_representation(self, design):
        if not isinstance(design.result, dict):
            return None
        # The currency of the design's priced BOM, so the two are read side by side.
        kept = design.priced_bom or {}
        currency = kept.get("currency") or design.project.customer.default_currency
        priced = saved_rack_scale_other_priced(result=design.result, currency=currency)
        return None if priced is None else priced.as_json()


class SavedDesignSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(source="created_by.username", read_only=True)
    result = DesignSnapshotField(read_only=True)
    priced_bom = PricedBomField(read_only=True)
    tco = TcoSnapshotField(read_only=True, allow_null=True)
    rack_scale_other_priced = RackScaleOtherPricedField(read_only=True, allow_null=True)

    class Meta:
        model = SavedDesign
        fields = [
            "id",
            "project",
            "name",
            "requirements",
            "workload",
            "result",
            "priced_bom",
            "tco",
            "rack_scale_other_priced",
            "created_by",
            "created_at",
        ]
        read_only_fields = fields


@extend_schema_view(
    **service_viewset_schema(
        output=ProjectSerializer,
        input=ProjectInputSerializer,
        list="List projects you may see",
        retrieve="One project",
        destroy="Delete a project without quotes",
        create="Create a project",
        partial_update="Rename a project, change its notes or the parts of the plan it asks for",
        partial_update_description="The customer may change only while the project has no "
        "quotes, and only to a customer of the same team: otherwise 400 naming `customer`.",
    ),
    by_external_id=by_external_id_schema(
        output=ProjectSerializer, input=ProjectInputSerializer, noun="project"
    ),
)
class ProjectViewSet(
    ExternalIdUpsertMixin,
    ServiceViewSetMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = ProjectSerializer
    input_serializer_class = ProjectInputSerializer
    filterset_class = ProjectFilter
    ordering_fields = ["name", "created_at", "updated_at"]
    ordering = ["customer", "name"]

    def get_queryset(self):
        return projects_visible_to(user=self.request.user)

    def create_service(self, data):
        return project_create(owner=self.request.user, **data)

    def update_service(self, project, data):
        return project_update(project=project, **data)

    def destroy_service(self, project):
        project_delete(project=project)

    @extend_schema(
        methods=["GET"],
        summary="The project's saved designs",
        responses={200: SavedDesignSerializer(many=True), **errors(*LIST_ERRORS)},
    )
    @extend_schema(
        methods=["POST"],
        summary="Design a fabric and save it in the project",
        request=SavedDesignInputSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: SavedDesignSerializer, **errors(*IDEMPOTENT_ERRORS)},
    )
    @action(detail=True, methods=["get", "post"], filter_backends=[], pagination_class=None)
    def designs(self, request, pk=None):
        project = self.get_object()
        if request.method == "GET":
            designs = project.designs.select_related("created_by", "project__customer")
            # Rows saved before the current snapshot are computed once here (lazy migration).
            designs = [design_snapshot_current(design=d) for d in designs.order_by("-created_at")]
            return Response(SavedDesignSerializer(designs, many=True).data)
        return self._design_save(request, project)

    def _design_save(self, request, project):
        data = SavedDesignInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        design = design_save(
            project=project,
            name=data.validated_data["name"],
            requirements=data.requirements(),
            user=request.user,
            workload=data.validated_data["workload"],
            site=data.site_values(),
        )
        return Response(SavedDesignSerializer(design).data, status=status.HTTP_201_CREATED)

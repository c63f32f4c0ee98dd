"""The as-built check through the API: POST /api/v1/quotes/{id}/revisions/{n}/as-built/ with the
file ibnetdiscover printed (multipart, field `discovered`), compared with the revision's cable
schedule and kept as the acceptance record; GET lists the revision's checks and reads one.

The rest of the API takes JSON only: this upload adds the multipart parser on its own action.
An Idempotency-Key compares the file by its SHA-256 (portal.api.idempotency), so a retried upload
gets the first check back instead of a second record.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from portal.api.base import (
    IDEMPOTENCY_KEY,
    IDEMPOTENT_ERRORS,
    LIST_ERRORS,
    READ_ERRORS,
    ApiViewSetMixin,
    errors,
)
from portal.api.exceptions import DomainError, validation_error
from quoting.engine.errors import InvalidInput
from quoting.quotes.models import AsBuiltCheck, QuoteRevision
from quoting.quotes.selectors import quotes_visible_to
from quoting.quotes.services.as_built import (
    AS_BUILT_MAX_BYTES,
    as_built_check_of,
    as_built_check_run,
    as_built_checks_of,
)

NUMBER = OpenApiParameter(
    "number", OpenApiTypes.INT, OpenApiParameter.PATH, description="The revision number (1 for R1)."
)
CHECK_ID = OpenApiParameter(
    "check_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The check's id."
)
CHECKS_LISTED = 50


class AsBuiltUploadSerializer(serializers.Serializer):
    discovered = serializers.FileField(
        help_text="What `ibnetdiscover` printed on the installed fabric (text, up to 20 MB).",
    )


class _Link(serializers.Serializer):
    """The ends of a cable as the cable schedule names them."""

    cable_id = serializers.CharField(required=False, help_text="The cable schedule's ID.")
    label_a = serializers.CharField(required=False, help_text="The label on the A end.")
    label_z = serializers.CharField(required=False, help_text="The label on the Z end.")


class AsBuiltSummarySerializer(serializers.Serializer):
    planned_links = serializers.IntegerField()
    discovered_links = serializers.IntegerField()
    ok = serializers.IntegerField()
    missing = serializers.IntegerField()
    unexpected = serializers.IntegerField()
    miswired = serializers.IntegerField()
    degraded = serializers.IntegerField()
    devices_missing = serializers.IntegerField()
    problems = serializers.IntegerField()
    passed = serializers.BooleanField()


class AsBuiltCheckSerializer(serializers.ModelSerializer):
    """One check: who uploaded which file, when, and what it showed."""

    revision = serializers.IntegerField(source="revision.number", help_text="The revision number.")
    uploaded_by = serializers.CharField(
        source="uploaded_by.username", allow_null=True, default=None
    )
    problem_count = serializers.IntegerField()
    passed = serializers.BooleanField(help_text="Every planned link as planned, nothing else.")
    url = serializers.SerializerMethodField()
    report_pdf_url = serializers.SerializerMethodField(
        help_text="The printable acceptance report (`?language=en` or `zh-hans`)."
    )

    class Meta:
        model = AsBuiltCheck
        fields = [
            "id",
            "revision",
            "filename",
            "sha256",
            "size",
            "planned_count",
            "ok_count",
            "missing_count",
            "unexpected_count",
            "miswired_count",
            "degraded_count",
            "devices_missing_count",
            "problem_count",
            "passed",
            "check_ms",
            "uploaded_by",
            "created_at",
            "url",
            "report_pdf_url",
        ]
        read_only_fields = fields

    def _url(self, name: str, check) -> str:
        args = [check.revision.quote_id, check.revision.number, check.pk]
        return self.context["request"].build_absolute_uri(reverse(name, args=args))

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, check) -> str:
        return self._url("quote-as-built-check", check)

    @extend_schema_field(OpenApiTypes.URI)
    def get_report_pdf_url(self, check) -> str:
        return self._url("quote-proposal-as-built-report-pdf", check)


class AsBuiltReportSerializer(AsBuiltCheckSerializer):
    """A check with its report: every problem by cable ID and label."""

    missing = serializers.ListField(
        child=serializers.DictField(),
        source="result.missing",
        help_text="Planned links not found: each with cable_id, label_a, label_z and its ends.",
    )
    unexpected = serializers.ListField(
        child=serializers.DictField(),
        source="result.unexpected",
        help_text="Links found that no cable of the plan makes.",
    )
    miswired = serializers.ListField(
        child=serializers.DictField(),
        source="result.miswired",
        help_text="Planned links found on other ports: which cables look swapped.",
    )
    degraded = serializers.ListField(
        child=serializers.DictField(),
        source="result.degraded",
        help_text="Links as planned but at a lower speed or width.",
    )
    devices_missing = serializers.ListField(
        child=serializers.DictField(),
        source="result.devices_missing",
        help_text="Switches and host ports of the plan the discovery never saw.",
    )
    summary = AsBuiltSummarySerializer(source="result.summary")

    class Meta(AsBuiltCheckSerializer.Meta):
        fields = [
            *AsBuiltCheckSerializer.Meta.fields,
            "missing",
            "unexpected",
            "miswired",
            "degraded",
            "devices_missing",
            "summary",
        ]
        read_only_fields = fields


class QuoteAsBuiltViewSet(ApiViewSetMixin, viewsets.GenericViewSet):
    # A quote revision's as-built checks (no docstring: it would describe every operation).

    filter_backends: list = []
    pagination_class = None

    def get_queryset(self):
        return quotes_visible_to(user=self.request.user)

    def _revision(self, number) -> QuoteRevision:
        return get_object_or_404(QuoteRevision, quote=self.get_object(), number=number)

    @extend_schema(
        methods=["GET"],
        summary="The revision's as-built checks, newest first (without their reports)",
        operation_id="v1_quotes_revisions_as_built_list",
        parameters=[NUMBER],
        responses={200: AsBuiltCheckSerializer(many=True), **errors(*LIST_ERRORS)},
    )
    @extend_schema(
        methods=["POST"],
        summary="Check the installed fabric against the revision's cable schedule",
        description="Upload what `ibnetdiscover` printed on the installed fabric (multipart, "
        "field `discovered`, up to 20 MB). It is compared with the revision's plan, laid out "
        "from its latest ready installation pack (else its design on the design's site), by "
        "node descriptions and port numbers: no GUIDs. The answer (201) is the kept check "
        "with every problem by cable ID and label; a file that is not ibnetdiscover's output "
        "is a 400 naming the line at fault on `discovered`.",
        request={"multipart/form-data": AsBuiltUploadSerializer},
        parameters=[NUMBER, IDEMPOTENCY_KEY],
        responses={201: AsBuiltReportSerializer, **errors(*IDEMPOTENT_ERRORS)},
    )
    @action(
        detail=True,
        methods=["get", "post"],
        url_path=r"revisions/(?P<number>[0-9]{1,5})/as-built",
        url_name="checks",
        parser_classes=[MultiPartParser, FormParser],
    )
    def as_built(self, request, pk=None, number=None):
        revision = self._revision(number)
        if request.method == "GET":
            checks = as_built_checks_of(revision=revision, limit=CHECKS_LISTED)
            context = {"request": request}
            return Response(AsBuiltCheckSerializer(checks, many=True, context=context).data)
        upload = AsBuiltUploadSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        discovered = upload.validated_data["discovered"]
        if discovered.size > AS_BUILT_MAX_BYTES:
            raise DomainError(
                f"The file is larger than {AS_BUILT_MAX_BYTES // (1024 * 1024)} MB: upload "
                "ibnetdiscover's text output.",
                status=413,
                code="request_too_large",
                field="discovered",
            )
        try:
            check = as_built_check_run(
                revision=revision,
                user=request.user,
                filename=discovered.name,
                content=b"".join(discovered.chunks()),
            )
        except InvalidInput as error:
            raise validation_error(error) from error
        return Response(
            AsBuiltReportSerializer(check, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(
        summary="One as-built check with its report",
        parameters=[NUMBER, CHECK_ID],
        responses={200: AsBuiltReportSerializer, **errors(*READ_ERRORS)},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"revisions/(?P<number>[0-9]{1,5})/as-built/(?P<check_id>[0-9]{1,18})",
        url_name="check",
    )
    def as_built_check(self, request, pk=None, number=None, check_id=None):
        check = as_built_check_of(revision=self._revision(number), check_id=int(check_id))
        if check is None:
            raise NotFound("This revision has no as-built check with this id.")
        return Response(AsBuiltReportSerializer(check, context={"request": request}).data)

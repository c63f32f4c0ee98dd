"""What every API viewset shares: JSON only, filters and ordering, documented errors, the
quote's version as ETag / If-Match, and create / update as one service call each."""

from __future__ import annotations

import datetime as dt
import hashlib

from django.http import HttpResponseNotModified
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.filters import BaseFilterBackend, OrderingFilter
from rest_framework.response import Response

from portal.api.idempotency import HEADER as IDEMPOTENCY_HEADER
from portal.api.idempotency import IdempotentViewMixin
from portal.api.parsers import DepthLimitedJSONParser


class ProblemSerializer(serializers.Serializer):
    """RFC 9457 problem details (application/problem+json); see docs/api.md, "Errors"."""

    type = serializers.CharField(help_text="A stable URI naming the problem (never fetched).")
    title = serializers.CharField(help_text="The HTTP status phrase.")
    status = serializers.IntegerField()
    detail = serializers.CharField(help_text="A sentence for people.")
    code = serializers.CharField(
        help_text='Machine-readable: "invalid", "not_found", "not_authenticated", "throttled"...'
    )
    request_id = serializers.CharField(required=False, help_text="The answer's X-Request-ID.")

    class Meta:
        ref_name = "Problem"


class ValidationProblemSerializer(ProblemSerializer):
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text='Messages per field; nested fields by dotted path ("lines[0].sku").',
    )

    class Meta:
        ref_name = "ValidationProblem"


ErrorSerializer = ProblemSerializer  # the name the API modules import

PROBLEM_CONTENT_TYPE = "application/problem+json"

ERROR_TEXT = {
    400: "Invalid input: `errors` maps each field to its messages (code `invalid`).",
    401: "Missing, unknown or revoked API token.",
    403: "Not allowed (a read-only token, or a role that may not do this).",
    404: "Not found, or not visible to you.",
    409: "The quote's state does not allow this, or an Idempotency-Key is still in use.",
    412: "If-Match is stale: the quote changed (`errors.version`).",
    413: "The request body is too large.",
    422: "This Idempotency-Key was used with a different body.",
    428: "If-Match is required: send the quote's ETag.",
}


def errors(*codes: int) -> dict:
    """Documented error responses, all problem details; 400, 409 and 412 may name fields."""
    return {
        (code, PROBLEM_CONTENT_TYPE): OpenApiResponse(
            ValidationProblemSerializer if code in (400, 409, 412) else ProblemSerializer,
            description=ERROR_TEXT[code],
        )
        for code in codes
    }


READ_ERRORS = (401, 403, 404)
LIST_ERRORS = (400, 401, 403, 404)  # 400: a bad filter value; 404: a page past the end
WRITE_ERRORS = (400, 401, 403, 404, 409, 413)
IDEMPOTENT_ERRORS = (*WRITE_ERRORS, 422)
QUOTE_WRITE_ERRORS = (*WRITE_ERRORS, 412, 428)

IDEMPOTENCY_KEY = OpenApiParameter(
    IDEMPOTENCY_HEADER,
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description="Any unique string (a UUID): a retry with the same key, method, path and body "
    "(compared as parsed JSON) gets the first response again; with another body 422; while the "
    "first still runs 409. Kept 24 h. Every POST, PUT, PATCH and DELETE takes it.",
)
IF_MATCH = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=True,
    description='The quote\'s ETag, e.g. "3" (from its last response).',
)


class PreconditionRequired(APIException):
    status_code = 428
    default_detail = 'Send If-Match with the quote\'s ETag (e.g. If-Match: "3").'
    default_code = "precondition_required"


class PreconditionFailed(APIException):
    status_code = 412
    default_detail = "If-Match does not name a version of this quote; reload it."
    default_code = "precondition_failed"


def if_match_version(request) -> int:
    """The version the client edited, from `If-Match: "N"` (or W/"N")."""
    header = request.headers.get("If-Match")
    if not header:
        raise PreconditionRequired()
    value = header.strip().removeprefix("W/").strip('"')
    if not value.isdigit() or len(value) > 9:
        raise PreconditionFailed()
    return int(value)


def etag(version: int) -> str:
    return f'"{version}"'


class AskedFilterBackend(DjangoFilterBackend):
    """django-filter's backend, built only when the query names one of its filters.

    Without one every filter is empty and the FilterSet filters nothing, yet building its form
    (and the querysets of its choices) cost a good share of a plain list call.
    """

    def filter_queryset(self, request, queryset, view):
        filterset_class = self.get_filterset_class(view, queryset)
        if filterset_class is not None and not any(
            name.startswith(tuple(filterset_class.base_filters)) for name in request.query_params
        ):
            return queryset
        return super().filter_queryset(request, queryset, view)


# Every write (POST, PUT, PATCH, DELETE) takes an Idempotency-Key: portal.api.idempotency.
# No docstring: drf-spectacular would show it as every subclass's description.
class UpdatedSinceFilter(BaseFilterBackend):
    """`updated_since=<RFC 3339 date-time>`: the rows changed at or after it (the view's
    `updated_field`, "updated_at" unless it says otherwise; a date-time without an offset is
    UTC)."""

    param = "updated_since"

    def filter_queryset(self, request, queryset, view):
        raw = request.query_params.get(self.param)
        if raw is None:
            return queryset
        since = updated_since_value(raw)
        return queryset.filter(**{f"{getattr(view, 'updated_field', 'updated_at')}__gte": since})

    def get_schema_operation_parameters(self, view):
        return [
            {
                "name": self.param,
                "required": False,
                "in": "query",
                "description": "Only the rows changed at or after this RFC 3339 date-time "
                "(e.g. 2026-12-06T10:00:00Z; without an offset, UTC).",
                "schema": {"type": "string", "format": "date-time"},
            }
        ]


def updated_since_value(raw: str) -> dt.datetime:
    try:
        value = parse_datetime(raw.strip().replace("z", "Z"))
    except ValueError:
        value = None
    if value is None:
        raise ValidationError(
            {"updated_since": ["Use an RFC 3339 date-time, e.g. 2026-12-06T10:00:00Z."]}
        )
    if timezone.is_naive(value):
        value = timezone.make_aware(value, dt.UTC)
    return value


# Query parameters every view reads (pages, order, format, updated_since); a view adds the
# names its own actions read as `extra_query_params`.
COMMON_QUERY_PARAMS = frozenset({"page", "page_size", "ordering", "format", "updated_since"})


def body_etag(content: bytes) -> str:
    return '"' + hashlib.sha256(content).hexdigest()[:32] + '"'


def etag_matches(header: str, tag: str) -> bool:
    if header.strip() == "*":
        return True
    bare = tag.removeprefix("W/")
    return any(part.strip().removeprefix("W/") == bare for part in header.split(","))


# On every view: JSON bodies only, filters plus `ordering=` and `updated_since=`, unknown query
# parameters refused (400) on reads, and an ETag on every detail GET with `If-None-Match` -> 304
# (a quote keeps its version as ETag). Every write (POST, PUT, PATCH, DELETE) takes an
# Idempotency-Key: portal.api.idempotency.
# No docstring: drf-spectacular would show it as every subclass's description.
class ApiViewSetMixin(IdempotentViewMixin):
    parser_classes = [DepthLimitedJSONParser]
    filter_backends = [AskedFilterBackend, OrderingFilter, UpdatedSinceFilter]
    ordering_fields: list[str] = []
    updated_field = "updated_at"
    extra_query_params: tuple[str, ...] = ()

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if request.method in ("GET", "HEAD"):
            self.check_query_params(request)

    def allowed_query_params(self) -> set[str]:
        allowed = set(COMMON_QUERY_PARAMS) | set(self.extra_query_params)
        filterset_class = getattr(self, "filterset_class", None)
        if filterset_class is not None:
            allowed |= set(filterset_class.base_filters)
        allowed |= set(getattr(self, "filterset_fields", None) or ())
        return allowed

    def check_query_params(self, request) -> None:
        unknown = sorted(set(request.query_params) - self.allowed_query_params())
        if unknown:
            raise ValidationError({name: ["Unknown query parameter."] for name in unknown})

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        if (
            request.method in ("GET", "HEAD")
            and getattr(self, "detail", False)
            and response.status_code == 200
            and isinstance(response, Response)
        ):
            if not response.has_header("ETag"):
                response.render()
                response["ETag"] = body_etag(response.content)
            asked = request.headers.get("If-None-Match")
            if asked and etag_matches(asked, response["ETag"]):
                not_modified = HttpResponseNotModified()
                not_modified["ETag"] = response["ETag"]
                return not_modified
        return response


# Writes as declarations, in the manner of NetBox's model viewsets and DRF's own mixins. A
# viewset names its `input_serializer_class` (the request's shape, with the request in its
# context so it can scope choices to the user) and its output `serializer_class`, mixes in the
# writes it has, and says which service each calls: `create_service(data)`,
# `update_service(instance, data)`, `destroy_service(instance)`. Validation, the create's
# Idempotency-Key, If-Match where the resource is versioned, status codes and response bodies are
# then the same for every resource; the subclass declares its schemas (extend_schema_view).
# No docstrings on these mixins: the API docs would show them as every subclass's description.
class ServiceInputMixin(ApiViewSetMixin):
    input_serializer_class: type[serializers.Serializer]

    def get_input_serializer_class(self) -> type[serializers.Serializer]:
        return self.input_serializer_class

    def input_data(self, *, partial: bool = False) -> dict:
        serializer = self.get_input_serializer_class()(
            data=self.request.data, partial=partial, context=self.get_serializer_context()
        )
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)

    def written(self, instance, status_code: int = status.HTTP_200_OK) -> Response:
        return Response(self.get_serializer(instance).data, status=status_code)


class ServiceCreateMixin(ServiceInputMixin):
    def create_service(self, data: dict):
        raise NotImplementedError

    def create(self, request, *args, **kwargs):
        instance = self.create_service(self.input_data())
        return self.written(instance, status.HTTP_201_CREATED)


class ServiceUpdateMixin(ServiceInputMixin):
    # A versioned resource (a quote): PATCH needs If-Match, checked before the body, and the
    # service gets it as `expected_version`.
    if_match = False

    def update_service(self, instance, data: dict):
        raise NotImplementedError

    def partial_update(self, request, *args, **kwargs):
        instance = self.get_object()
        version = {"expected_version": if_match_version(request)} if self.if_match else {}
        data = self.input_data(partial=True)
        return self.written(self.update_service(instance, data | version))


class ServiceDestroyMixin(ApiViewSetMixin):
    def destroy_service(self, instance) -> None:
        raise NotImplementedError

    def destroy(self, request, *args, **kwargs):
        self.destroy_service(self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)


class ServiceViewSetMixin(ServiceCreateMixin, ServiceUpdateMixin, ServiceDestroyMixin):
    pass


def service_viewset_schema(
    *,
    output: type[serializers.Serializer],
    input: type[serializers.Serializer],
    list: str,
    retrieve: str,
    destroy: str,
    create: str,
    partial_update: str,
    partial_update_description: str | None = None,
) -> dict:
    """The schema of a ServiceViewSetMixin viewset's five actions, given each one's summary, for
    `@extend_schema_view(**...)`: its output and input serializers, the documented errors, and
    `Idempotency-Key` on create."""
    return {
        "list": extend_schema(
            summary=list, responses={200: output(many=True), **errors(*LIST_ERRORS)}
        ),
        "retrieve": extend_schema(
            summary=retrieve, responses={200: output, **errors(*READ_ERRORS)}
        ),
        "destroy": extend_schema(summary=destroy, responses={204: None, **errors(*WRITE_ERRORS)}),
        "create": extend_schema(
            summary=create,
            request=input,
            parameters=[IDEMPOTENCY_KEY],
            responses={201: output, **errors(*IDEMPOTENT_ERRORS)},
        ),
        "partial_update": extend_schema(
            summary=partial_update,
            description=partial_update_description,
            request=input,
            responses={200: output, **errors(*WRITE_ERRORS)},
        ),
    }

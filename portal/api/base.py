"""What every API viewset shares: JSON only, filters and ordering, documented errors, the
quote's version as ETag / If-Match, and create / update as one service call each."""

from __future__ import annotations

from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import APIException
from rest_framework.filters import OrderingFilter
from rest_framework.response import Response

from portal.api.idempotency import HEADER as IDEMPOTENCY_HEADER
from portal.api.idempotency import idempotent
from portal.api.parsers import DepthLimitedJSONParser


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()


ERROR_TEXT = {
    400: "Field errors: {field: [message, ...]}.",
    401: "Missing, unknown or revoked API token.",
    403: "Not allowed (a read-only token, or a role that may not do this).",
    404: "Not found, or not visible to you.",
    409: "The quote's state does not allow this, or an Idempotency-Key is still in use.",
    412: 'If-Match is stale: the quote changed; {"version": [message]}.',
    413: "The request body is too large.",
    422: "This Idempotency-Key was used with a different body.",
    428: "If-Match is required: send the quote's ETag.",
}


def errors(*codes: int) -> dict:
    """Documented error responses; 400 is a field map, the others {"detail": ...}."""
    return {
        code: OpenApiResponse(
            OpenApiTypes.OBJECT if code in (400, 409, 412) else ErrorSerializer,
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
    description="Any unique string (a UUID): a retry with the same key and body gets the first "
    "response again; with another body 422; while the first still runs 409. Kept 24 h.",
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


class ApiViewSetMixin:
    """JSON bodies only, filters plus `ordering=`, page pagination from the settings."""

    parser_classes = [DepthLimitedJSONParser]
    filter_backends = [AskedFilterBackend, OrderingFilter]
    ordering_fields: list[str] = []


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

    @idempotent
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

"""/api/v1/install-packs/{id}/: the state of a design's installation pack built by a worker, and
its zip once ready (POST /api/v1/designs/install-pack/ answers 202 with this state past
DESIGN_PACK_WAIT_MAX_GPUS). Each caller sees only the packs they asked for."""

from __future__ import annotations

import logging

from django.http import HttpResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, NotFound
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from portal.api.base import READ_ERRORS, ApiViewSetMixin, ErrorSerializer, errors
from quoting.designs.models import DesignInstallPack, InstallPackStatus
from quoting.designs.services.packs import design_pack_of

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5  # 32,768 GPUs build in about 10 s
PACK_ID = OpenApiParameter("id", OpenApiTypes.INT, OpenApiParameter.PATH)


class PackNotReady(APIException):
    status_code = 409
    default_code = "not_ready"


class DesignInstallPackSerializer(serializers.ModelSerializer):
    status = serializers.ChoiceField(choices=InstallPackStatus.choices, read_only=True)
    url = serializers.SerializerMethodField(help_text="This state: poll it.")
    zip_url = serializers.SerializerMethodField(help_text="The zip, once ready; else null.")

    class Meta:
        model = DesignInstallPack
        fields = [
            "id",
            "status",
            "error",
            "gpu_count",
            "site",
            "language",
            "sha256",
            "size",
            "created_at",
            "finished_at",
            "url",
            "zip_url",
        ]
        read_only_fields = fields

    def _url(self, name: str, pack) -> str:
        return self.context["request"].build_absolute_uri(reverse(name, args=[pack.pk]))

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, pack) -> str:
        return self._url("install-pack-detail", pack)

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_zip_url(self, pack) -> str | None:
        if pack.status != InstallPackStatus.READY:
            return None
        return self._url("install-pack-zip", pack)


def pack_accepted(request, pack) -> Response:
    """202 with the pack's state, where to poll it and when."""
    body = DesignInstallPackSerializer(pack, context={"request": request}).data
    return Response(
        body,
        status=status.HTTP_202_ACCEPTED,
        headers={"Location": body["url"], "Retry-After": str(RETRY_AFTER_SECONDS)},
    )


class _JsonForErrors(BaseContentNegotiation):
    """The zip view answers zip bytes itself; its errors are JSON whatever Accept says."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


# A design's installation pack built by a worker: its state, then its zip.
# (A comment, not a docstring: the schema would show it as every operation's description.)
class DesignInstallPackViewSet(ApiViewSetMixin, viewsets.ViewSet):
    lookup_value_regex = "[0-9]{1,18}"

    def _pack(self, pk, *, archive: bool = False) -> DesignInstallPack:
        pack = design_pack_of(user=self.request.user, pack_id=int(pk), archive=archive)
        if pack is None:
            raise NotFound()
        return pack

    @extend_schema(
        summary="One design installation pack's state (yours only)",
        parameters=[PACK_ID],
        responses={200: DesignInstallPackSerializer, **errors(*READ_ERRORS)},
    )
    def retrieve(self, request, pk=None):
        pack = self._pack(pk)
        return Response(DesignInstallPackSerializer(pack, context={"request": request}).data)

    @extend_schema(
        summary="The pack's zip (the very bytes stored, SHA-256 in its state)",
        parameters=[PACK_ID],
        responses={
            (200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY, description="The zip."),
            **errors(*READ_ERRORS),
            202: OpenApiResponse(
                DesignInstallPackSerializer,
                description="Not ready yet (pending or building): the pack's state, with "
                "`Retry-After` (seconds) and `Location` (the state to poll).",
            ),
            409: OpenApiResponse(
                ErrorSerializer, description="No zip will come: the build failed (see `error`)."
            ),
        },
    )
    @action(
        detail=True,
        methods=["get"],
        renderer_classes=[JSONRenderer],
        content_negotiation_class=_JsonForErrors,
    )
    def zip(self, request, pk=None):
        pack = self._pack(pk, archive=True)
        if pack.status in (InstallPackStatus.PENDING, InstallPackStatus.BUILDING):
            logger.info("design install pack %s not ready yet (%s)", pack.pk, pack.status)
            return pack_accepted(request, pack)
        if pack.status != InstallPackStatus.READY:
            raise PackNotReady(f"There is no zip: the build failed ({pack.error}).")
        response = HttpResponse(bytes(pack.archive), content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="{pack.filename}"'
        response["Digest"] = f"sha-256={pack.sha256}"
        return response

"""/api/v1/webhook-endpoints/: each user (or CRM token) manages its own endpoints, reads their
delivery logs, redelivers, pings and rotates secrets; /api/v1/events/: the event feed."""

from __future__ import annotations

import datetime as dt
import json

from django.core.validators import URLValidator
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
    extend_schema_view,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, NotFound, ValidationError
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param

from integrations.models import (
    DeliveryStatus,
    Event,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from integrations.targets import WebhookTargetRefused, webhook_target_check
from integrations.webhooks import (
    EndpointNotReceiving,
    event_envelope,
    webhook_body,
    webhook_endpoint_delete,
    webhook_endpoint_enable,
    webhook_ping,
    webhook_redeliver,
    webhook_redeliver_since,
    webhook_secret_new,
    webhook_secret_rotate,
)
from portal.api.base import (
    IDEMPOTENCY_KEY,
    IDEMPOTENT_ERRORS,
    LIST_ERRORS,
    READ_ERRORS,
    WRITE_ERRORS,
    ApiViewSetMixin,
    UpdatedSinceFilter,
    errors,
)


class WebhookEndpointInputSerializer(serializers.Serializer):
    url = serializers.URLField(
        max_length=500,
        validators=[URLValidator(schemes=["http", "https"])],
        help_text="https URL that receives POSTs; its host must resolve to public addresses "
        "only (checked again before every delivery). Redirects are not followed.",
    )
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=WebhookEvent.values),
        min_length=1,
        max_length=len(WebhookEvent.values),
    )
    active = serializers.BooleanField(required=False)
    description = serializers.CharField(max_length=200, required=False, allow_blank=True)

    def validate_url(self, url):
        try:
            webhook_target_check(url)
        except WebhookTargetRefused as refused:
            raise serializers.ValidationError(refused.message) from None
        return url

    def validate_events(self, events):
        return sorted(set(events))


class WebhookEndpointSerializer(serializers.ModelSerializer):
    events = serializers.ListField(child=serializers.ChoiceField(choices=WebhookEvent.values))

    class Meta:
        model = WebhookEndpoint
        fields = [
            "id",
            "url",
            "events",
            "active",
            "description",
            "created",
            "disabled_at",
            "disabled_reason",
            "previous_secret_expires_at",
        ]
        read_only_fields = fields


class WebhookEndpointCreatedSerializer(WebhookEndpointSerializer):
    """The secret appears in this response only: keep it to verify signatures."""

    class Meta(WebhookEndpointSerializer.Meta):
        fields = [*WebhookEndpointSerializer.Meta.fields, "secret"]
        read_only_fields = fields


class EventEnvelopeSerializer(serializers.Serializer):
    """What every webhook body and every event feed item is."""

    type = serializers.CharField(help_text="The event type (docs/webhooks.md).")
    id = serializers.CharField(help_text="msg_...: the webhook-id header; the feed's cursor.")
    timestamp = serializers.CharField(help_text="RFC 3339 UTC, e.g. 2026-12-06T04:31:00Z.")
    data = serializers.DictField(help_text="The event's payload (its schema by type).")


class AttemptSerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    code = serializers.IntegerField(allow_null=True)
    error = serializers.CharField(allow_blank=True)
    duration_ms = serializers.IntegerField()


class WebhookDeliverySerializer(serializers.ModelSerializer):
    response_excerpt = serializers.CharField(source="response_body")
    attempt_log = AttemptSerializer(many=True)
    body = serializers.SerializerMethodField()

    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "event_id",
            "event_type",
            "status",
            "attempts",
            "response_code",
            "response_excerpt",
            "attempt_log",
            "next_attempt_at",
            "delivered_at",
            "created",
            "body",
        ]
        read_only_fields = fields

    @extend_schema_field(EventEnvelopeSerializer)
    def get_body(self, delivery) -> dict:
        return json.loads(webhook_body(delivery))


class RedeliveredSerializer(serializers.Serializer):
    redelivered = serializers.IntegerField(help_text="How many new deliveries were queued.")


class RotateSecretInputSerializer(serializers.Serializer):
    overlap_hours = serializers.IntegerField(
        min_value=0,
        max_value=168,
        default=24,
        help_text="How long the old secret also signs (both signatures sent); 0 ends it now.",
    )


class RotatedSecretSerializer(serializers.Serializer):
    secret = serializers.CharField(help_text="The new signing secret, shown this once.")
    previous_secret_expires_at = serializers.DateTimeField(
        allow_null=True, help_text="Until when the old secret also signs."
    )


@extend_schema_view(
    list=extend_schema(
        summary="Your webhook endpoints",
        responses={200: WebhookEndpointSerializer(many=True), **errors(*LIST_ERRORS)},
    ),
    retrieve=extend_schema(
        summary="One webhook endpoint",
        responses={200: WebhookEndpointSerializer, **errors(*READ_ERRORS)},
    ),
    destroy=extend_schema(
        summary="Delete a webhook endpoint (its delivery log stays readable until purged)",
        responses={204: None, **errors(*WRITE_ERRORS)},
    ),
)
class WebhookEndpointViewSet(
    ApiViewSetMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = WebhookEndpointSerializer
    filterset_fields = ["active"]
    ordering_fields = ["created", "url"]
    ordering = ["-created"]
    updated_field = "created"  # updated_since: endpoints have no updated_at, their creation

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no user
            return WebhookEndpoint.objects.none()
        mine = WebhookEndpoint.objects.filter(created_by=self.request.user)
        if self.action in ("deliveries", "redeliver", "redeliver_one", "ping"):
            return mine  # a deleted endpoint's log stays readable; redelivering to it is a 409
        return mine.filter(deleted_at__isnull=True)

    def allowed_query_params(self) -> set[str]:
        if self.action == "deliveries":
            return {"page", "page_size", "format", "status", "event_type"}
        return super().allowed_query_params()

    @extend_schema(
        summary="Register an endpoint; the signing secret is shown once",
        request=WebhookEndpointInputSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: WebhookEndpointCreatedSerializer, **errors(*IDEMPOTENT_ERRORS)},
    )
    def create(self, request):
        data = WebhookEndpointInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        endpoint = WebhookEndpoint.objects.create(
            created_by=request.user, secret=webhook_secret_new(), **data.validated_data
        )
        return Response(
            WebhookEndpointCreatedSerializer(endpoint).data, status=status.HTTP_201_CREATED
        )

    def perform_destroy(self, instance):
        webhook_endpoint_delete(endpoint=instance)

    @extend_schema(
        summary="Change an endpoint's URL, events or state (active=true re-enables a disabled one)",
        request=WebhookEndpointInputSerializer,
        responses={200: WebhookEndpointSerializer, **errors(*WRITE_ERRORS)},
    )
    def partial_update(self, request, pk=None):
        endpoint = self.get_object()
        data = WebhookEndpointInputSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        for name, value in data.validated_data.items():
            setattr(endpoint, name, value)
        if data.validated_data.get("active"):
            webhook_endpoint_enable(endpoint=endpoint)
        endpoint.save()
        return Response(WebhookEndpointSerializer(endpoint).data)

    @extend_schema(
        summary="The endpoint's delivery log, newest first (also after the endpoint is deleted, "
        "until the retention purge)",
        operation_id="v1_webhook_endpoints_deliveries_list",
        parameters=[
            OpenApiParameter("status", OpenApiTypes.STR, enum=DeliveryStatus.values),
            OpenApiParameter("event_type", OpenApiTypes.STR),
        ],
        responses={200: WebhookDeliverySerializer(many=True), **errors(*LIST_ERRORS)},
    )
    @action(detail=True, methods=["get"], filter_backends=[])
    def deliveries(self, request, pk=None):
        deliveries = self.get_object().deliveries.order_by("-created", "-pk")
        asked = request.query_params
        if "status" in asked:
            if asked["status"] not in DeliveryStatus.values:
                raise ValidationError({"status": [f"One of {', '.join(DeliveryStatus.values)}."]})
            deliveries = deliveries.filter(status=asked["status"])
        if "event_type" in asked:
            deliveries = deliveries.filter(event_type=asked["event_type"])
        page = self.paginate_queryset(deliveries)
        return self.get_paginated_response(WebhookDeliverySerializer(page, many=True).data)

    @extend_schema(
        summary="Send one delivery again: same webhook-id, same body, a fresh retry schedule",
        request=None,
        parameters=[
            IDEMPOTENCY_KEY,
            OpenApiParameter("delivery_id", OpenApiTypes.INT, OpenApiParameter.PATH),
        ],
        responses={202: WebhookDeliverySerializer, **errors(*IDEMPOTENT_ERRORS)},
    )
    @action(
        detail=True,
        methods=["post"],
        url_path=r"deliveries/(?P<delivery_id>[0-9]{1,18})/redeliver",
        filter_backends=[],
    )
    def redeliver_one(self, request, pk=None, delivery_id=None):
        endpoint = self.get_object()
        delivery = endpoint.deliveries.filter(pk=delivery_id).first()
        if delivery is None:
            raise NotFound("No such delivery for this endpoint.")
        with transaction.atomic():
            new = _not_receiving_is_409(webhook_redeliver, delivery=delivery)
        new.refresh_from_db()
        return Response(WebhookDeliverySerializer(new).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        summary="Send again every delivery made to this endpoint since a time, delivered or not "
        "(one per webhook-id)",
        request=None,
        parameters=[
            IDEMPOTENCY_KEY,
            OpenApiParameter(
                "since",
                OpenApiTypes.DATETIME,
                required=True,
                description="RFC 3339 date-time, e.g. 2026-12-06T10:00:00Z (no offset: UTC).",
            ),
        ],
        responses={202: RedeliveredSerializer, **errors(*IDEMPOTENT_ERRORS)},
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def redeliver(self, request, pk=None):
        endpoint = self.get_object()
        since = _rfc3339_param(request.query_params.get("since"), name="since")
        with transaction.atomic():
            n = _not_receiving_is_409(webhook_redeliver_since, endpoint=endpoint, since=since)
        return Response({"redelivered": n}, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        summary="Send a webhook.ping to this endpoint (not in the event feed)",
        request=None,
        parameters=[IDEMPOTENCY_KEY],
        responses={202: WebhookDeliverySerializer, **errors(*IDEMPOTENT_ERRORS)},
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def ping(self, request, pk=None):
        endpoint = self.get_object()
        with transaction.atomic():
            delivery = _not_receiving_is_409(webhook_ping, endpoint=endpoint)
        delivery.refresh_from_db()
        return Response(WebhookDeliverySerializer(delivery).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        summary="A new signing secret (shown once); the old one also signs during the overlap",
        request=RotateSecretInputSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: RotatedSecretSerializer, **errors(*IDEMPOTENT_ERRORS)},
    )
    @action(detail=True, methods=["post"], url_path="rotate-secret", filter_backends=[])
    def rotate_secret(self, request, pk=None):
        endpoint = self.get_object()
        data = RotateSecretInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        secret = webhook_secret_rotate(
            endpoint=endpoint, overlap_hours=data.validated_data["overlap_hours"]
        )
        return Response(
            {"secret": secret, "previous_secret_expires_at": endpoint.previous_secret_expires_at}
        )


class EndpointNotReceivingConflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "This endpoint is disabled or deleted."
    default_code = "endpoint_not_receiving"


def _not_receiving_is_409(service, **kwargs):
    try:
        return service(**kwargs)
    except EndpointNotReceiving as refused:
        raise EndpointNotReceivingConflict(str(refused)) from None


def _rfc3339_param(raw: str | None, *, name: str) -> dt.datetime:
    message = "Use an RFC 3339 date-time, e.g. 2026-12-06T10:00:00Z."
    if not raw:
        raise ValidationError({name: [message]})
    try:
        value = parse_datetime(raw.strip().replace("z", "Z"))
    except ValueError:
        value = None
    if value is None:
        raise ValidationError({name: [message]})
    return timezone.make_aware(value, dt.UTC) if timezone.is_naive(value) else value


# --- the event feed ---------------------------------------------------------------------------

FEED_PAGE_SIZE, FEED_MAX_PAGE_SIZE = 100, 500


@extend_schema_serializer(many=False)  # one page object, not a list of them
class EventPageSerializer(serializers.Serializer):
    next = serializers.URLField(
        allow_null=True,
        help_text="This feed after the page's last event (or after `after` when the page is "
        "empty): poll it to catch up. Null only when there are no events yet.",
    )
    has_more = serializers.BooleanField(help_text="True when `next` has events waiting already.")
    results = EventEnvelopeSerializer(many=True)


@extend_schema_view(
    list=extend_schema(
        summary="The event feed: events after `after`, oldest first",
        description="Every event the portal announced about customers you may see, whether or "
        "not a webhook endpoint listens, as the webhook envelope. Kept "
        "WEBHOOKS_RETENTION_DAYS (30 by default). Start without `after`, then follow `next`.",
        parameters=[
            OpenApiParameter(
                "after",
                OpenApiTypes.STR,
                description="An event id (msg_...): only events after it. Unknown (or purged) "
                "→ 400.",
            ),
            OpenApiParameter(
                "type",
                OpenApiTypes.STR,
                many=True,
                description="Only these event types (repeat it, or a comma list).",
            ),
            OpenApiParameter(
                "page_size",
                OpenApiTypes.INT,
                description=f"1 to {FEED_MAX_PAGE_SIZE}; {FEED_PAGE_SIZE} by default.",
            ),
        ],
        responses={200: EventPageSerializer, **errors(*LIST_ERRORS)},
    )
)
class EventViewSet(ApiViewSetMixin, viewsets.GenericViewSet):
    filter_backends = [UpdatedSinceFilter]
    updated_field = "timestamp"  # an event never changes
    pagination_class = None
    serializer_class = EventEnvelopeSerializer

    def allowed_query_params(self) -> set[str]:
        return {"after", "type", "page_size", "updated_since", "format"}

    def get_queryset(self):
        from quoting.customers.selectors import customers_visible_to

        if getattr(self, "swagger_fake_view", False):
            return Event.objects.none()
        return Event.objects.filter(
            customer_id__in=customers_visible_to(user=self.request.user).values("pk")
        ).order_by("pk")

    def list(self, request):
        asked = request.query_params
        events = self.filter_queryset(self.get_queryset())
        after = asked.get("after")
        if after is not None:
            known = Event.objects.filter(event_id=after).values_list("pk", flat=True).first()
            if known is None:
                raise ValidationError(
                    {"after": ["Unknown event id (never sent, or purged after the retention)."]}
                )
            events = events.filter(pk__gt=known)
        types = [t for v in asked.getlist("type") for t in v.split(",") if t.strip()]
        if types:
            unknown = sorted({t.strip() for t in types} - set(WebhookEvent.values))
            if unknown:
                raise ValidationError({"type": [f"Unknown event type: {', '.join(unknown)}."]})
            events = events.filter(type__in=[t.strip() for t in types])
        size = asked.get("page_size", str(FEED_PAGE_SIZE))
        if not size.isdigit() or not 1 <= int(size) <= FEED_MAX_PAGE_SIZE:
            raise ValidationError({"page_size": [f"1 to {FEED_MAX_PAGE_SIZE}."]})
        page = list(events[: int(size) + 1])
        has_more = len(page) > int(size)
        page = page[: int(size)]
        cursor = page[-1].event_id if page else after
        url = request.build_absolute_uri()
        return Response(
            {
                "next": replace_query_param(url, "after", cursor) if cursor else None,
                "has_more": has_more,
                "results": [
                    event_envelope(
                        event_type=e.type, event_id=e.event_id, timestamp=e.timestamp, data=e.data
                    )
                    for e in page
                ],
            }
        )

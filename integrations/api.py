"""/api/v1/webhook-endpoints/: each user (or CRM token) manages its own endpoints."""

from __future__ import annotations

from django.core.validators import URLValidator
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.response import Response

from integrations.models import WebhookEndpoint, WebhookEvent
from integrations.targets import WebhookTargetRefused, webhook_target_check
from integrations.webhooks import webhook_secret_new
from portal.api.base import (
    IDEMPOTENCY_KEY,
    IDEMPOTENT_ERRORS,
    LIST_ERRORS,
    READ_ERRORS,
    WRITE_ERRORS,
    ApiViewSetMixin,
    errors,
)
from portal.api.idempotency import idempotent


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
        fields = ["id", "url", "events", "active", "description", "created"]
        read_only_fields = fields


class WebhookEndpointCreatedSerializer(WebhookEndpointSerializer):
    """The secret appears in this response only: keep it to verify signatures."""

    class Meta(WebhookEndpointSerializer.Meta):
        fields = [*WebhookEndpointSerializer.Meta.fields, "secret"]
        read_only_fields = fields


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
        summary="Delete a webhook endpoint", responses={204: None, **errors(*WRITE_ERRORS)}
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

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no user
            return WebhookEndpoint.objects.none()
        return WebhookEndpoint.objects.filter(created_by=self.request.user)

    @extend_schema(
        summary="Register an endpoint; the signing secret is shown once",
        request=WebhookEndpointInputSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: WebhookEndpointCreatedSerializer, **errors(*IDEMPOTENT_ERRORS)},
    )
    @idempotent
    def create(self, request):
        data = WebhookEndpointInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        endpoint = WebhookEndpoint.objects.create(
            created_by=request.user, secret=webhook_secret_new(), **data.validated_data
        )
        return Response(
            WebhookEndpointCreatedSerializer(endpoint).data, status=status.HTTP_201_CREATED
        )

    @extend_schema(
        summary="Change an endpoint's URL, events or state",
        request=WebhookEndpointInputSerializer,
        responses={200: WebhookEndpointSerializer, **errors(*WRITE_ERRORS)},
    )
    def partial_update(self, request, pk=None):
        endpoint = self.get_object()
        data = WebhookEndpointInputSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        for name, value in data.validated_data.items():
            setattr(endpoint, name, value)
        endpoint.save()
        return Response(WebhookEndpointSerializer(endpoint).data)

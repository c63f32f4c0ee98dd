"""What a CRM needs to talk to the portal: API tokens, idempotent POSTs and webhooks."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class TokenScope(models.TextChoices):
    READ = "read", _("Read (GET only)")
    WRITE = "write", _("Read and write")


class ApiToken(models.Model):
    """A bearer token for a system acting as `user`. Only the SHA-256 of the token is kept."""

    name = models.CharField(_("name"), max_length=100)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="api_tokens",
        verbose_name=_("acts as"),
    )
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    # The first characters, so people can tell their tokens apart without the secret.
    prefix = models.CharField(_("prefix"), max_length=12, editable=False)
    scope = models.CharField(
        _("scope"), max_length=5, choices=TokenScope.choices, default=TokenScope.READ
    )
    created = models.DateTimeField(_("created"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class IdempotencyStatus(models.TextChoices):
    IN_PROGRESS = "in_progress", _("In progress")
    DONE = "done", _("Done")


class IdempotencyRecord(models.Model):
    """The first response to a POST with an Idempotency-Key, replayed for retries."""

    # "token:<id>" or "user:<id>": a key belongs to whoever sent it, never shared.
    owner = models.CharField(max_length=40)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    status = models.CharField(
        max_length=11, choices=IdempotencyStatus.choices, default=IdempotencyStatus.IN_PROGRESS
    )
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.TextField(blank=True)
    response_headers = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("idempotency record")
        verbose_name_plural = _("idempotency records")
        constraints = [
            models.UniqueConstraint(fields=["owner", "key"], name="one_idempotency_key_per_owner"),
        ]

    def __str__(self) -> str:
        return f"{self.owner} {self.key}"


class WebhookEvent(models.TextChoices):
    """The event catalogue (docs/webhooks.md): what an endpoint may subscribe to and what the
    event feed (/api/v1/events/) lists."""

    QUOTE_CREATED = "quote.created", "quote.created"
    # A new draft revision of a quote that had been sent.
    QUOTE_REVISED = "quote.revised", "quote.revised"
    QUOTE_SENT = "quote.sent", "quote.sent"
    APPROVAL_REQUESTED = "approval.requested", "approval.requested"
    APPROVAL_DECIDED = "approval.decided", "approval.decided"
    SHARE_LINK_CREATED = "share_link.created", "share_link.created"
    # The first real open of a share link (quote.viewed is every real open).
    SHARE_LINK_OPENED = "share_link.opened", "share_link.opened"
    QUOTE_VIEWED = "quote.viewed", "quote.viewed"
    QUOTE_ACCEPTED = "quote.accepted", "quote.accepted"
    QUOTE_DECLINED = "quote.declined", "quote.declined"
    QUOTE_EXPIRED = "quote.expired", "quote.expired"
    PROPOSAL_READY = "proposal.ready", "proposal.ready"
    # After quote.accepted (signed_* null in it): the same fields with the signed copy's.
    QUOTE_SIGNED_COPY_READY = "quote.signed_copy_ready", "quote.signed_copy_ready"
    # The seller countersigned the customer's acceptance; the signed copy is being made again
    # (quote.signed_copy_ready follows with its new hash).
    QUOTE_COUNTERSIGNED = "quote.countersigned", "quote.countersigned"
    # A booked term (support, licences) is 90, 60 or 30 days from its end (quoting's daily job).
    RENEWAL_DUE = "renewal.due", "renewal.due"


# Sent only by POST /api/v1/webhook-endpoints/{id}/ping/ to that endpoint: not subscribable.
WEBHOOK_PING = "webhook.ping"


class Event(models.Model):
    """One announced event, stored once whether or not an endpoint listens: the event feed
    (GET /api/v1/events/) a CRM catches up from. Kept WEBHOOKS_RETENTION_DAYS."""

    # The envelope's `id` and every delivery's `webhook-id` header: "msg_<uuid hex>".
    event_id = models.CharField(_("event id"), max_length=40, unique=True)
    type = models.CharField(_("type"), max_length=40, db_index=True)
    timestamp = models.DateTimeField(_("timestamp"), db_index=True)
    data = models.JSONField(_("data"))
    # For scoping the feed: only callers who may see this customer see the event.
    customer_id = models.BigIntegerField(_("customer id"), null=True, blank=True, db_index=True)

    class Meta:
        ordering = ["pk"]
        verbose_name = _("event")
        verbose_name_plural = _("events")

    def __str__(self) -> str:
        return f"{self.type} {self.event_id}"


class WebhookEndpoint(models.Model):
    url = models.URLField(_("URL"), max_length=500)
    # Standard Webhooks form: "whsec_" + base64 of the key bytes.
    secret = models.CharField(_("signing secret"), max_length=100, editable=False)
    # After a rotation the old secret also signs until previous_secret_expires_at (overlap).
    previous_secret = models.CharField(max_length=100, blank=True, editable=False)
    previous_secret_expires_at = models.DateTimeField(
        _("previous secret valid until"), null=True, blank=True
    )
    events = models.JSONField(_("events"), default=list)
    active = models.BooleanField(_("active"), default=True)
    description = models.CharField(_("description"), max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="webhook_endpoints",
        verbose_name=_("created by"),
    )
    created = models.DateTimeField(_("created"), auto_now_add=True)
    # Set when a delivery exhausted its retry schedule with no success since it was created.
    disabled_at = models.DateTimeField(_("disabled"), null=True, blank=True)
    disabled_reason = models.CharField(_("why disabled"), max_length=300, blank=True)
    # Soft delete: the endpoint is gone from the API and hears nothing, its delivery log stays
    # readable by its owner until the retention purge.
    deleted_at = models.DateTimeField(_("deleted"), null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        verbose_name = _("webhook endpoint")
        verbose_name_plural = _("webhook endpoints")

    def __str__(self) -> str:
        return self.url


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", _("Pending")
    DELIVERED = "delivered", _("Delivered")
    FAILED = "failed", _("Failed")


class WebhookDelivery(models.Model):
    """One event for one endpoint; the row is the truth, the Celery task only carries it."""

    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    event_id = models.CharField(_("event id"), max_length=40, db_index=True)
    event_type = models.CharField(_("type"), max_length=40, db_index=True)
    # The envelope {"type", "id", "timestamp", "data"}; a redelivery copies it, so its body
    # bytes are the original's (integrations.webhooks.webhook_body).
    payload = models.JSONField(_("payload"))
    status = models.CharField(
        _("status"),
        max_length=10,
        choices=DeliveryStatus.choices,
        default=DeliveryStatus.PENDING,
        db_index=True,
    )
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    response_code = models.PositiveSmallIntegerField(_("response code"), null=True, blank=True)
    response_body = models.TextField(_("response (excerpt)"), blank=True)
    duration_ms = models.PositiveIntegerField(_("duration (ms)"), null=True, blank=True)
    # Every attempt: {"at", "code", "error", "duration_ms"}.
    attempt_log = models.JSONField(_("attempts log"), default=list, blank=True)
    next_attempt_at = models.DateTimeField(_("next attempt"), null=True, blank=True)
    delivered_at = models.DateTimeField(_("delivered"), null=True, blank=True)
    created = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created", "-pk"]
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")

    def __str__(self) -> str:
        return f"{self.event_type} → {self.endpoint}"

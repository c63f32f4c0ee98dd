from django.contrib import admin, messages

from .models import ApiToken, WebhookDelivery, WebhookEndpoint
from .services import api_token_issue, api_token_revoke


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "prefix", "user", "scope", "created", "last_used_at", "revoked_at"]
    list_filter = ["scope", "revoked_at"]
    search_fields = ["name", "prefix", "user__username"]
    fields = ["name", "user", "scope", "prefix", "created", "last_used_at", "revoked_at"]
    readonly_fields = ["prefix", "created", "last_used_at", "revoked_at"]
    actions = ["revoke"]

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        token, raw = api_token_issue(user=obj.user, scope=obj.scope, name=obj.name)
        obj.pk, obj.token_hash, obj.prefix, obj.created = (
            token.pk, token.token_hash, token.prefix, token.created,
        )
        obj._state.adding = False
        # Shown once; only its hash is stored.
        self.message_user(request, f"The new token (copy it now, it is shown once): {raw}",
                          messages.WARNING)

    def get_readonly_fields(self, request, obj=None):
        return [*self.readonly_fields, "user", "scope"] if obj else self.readonly_fields

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request, queryset):
        for token in queryset:
            api_token_revoke(token=token)


class DeliveryInline(admin.TabularInline):
    model = WebhookDelivery
    extra = 0
    can_delete = False
    show_change_link = True
    fields = ["event_type", "status", "attempts", "response_code", "created", "delivered_at"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        return super().get_queryset(request).order_by("-created")


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    list_display = ["url", "created_by", "active", "created"]
    list_filter = ["active"]
    fields = ["url", "events", "active", "description", "created_by", "created"]
    readonly_fields = ["created"]
    inlines = [DeliveryInline]


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = ["event_type", "endpoint", "status", "attempts", "response_code",
                    "duration_ms", "created", "delivered_at"]
    list_filter = ["status", "event_type"]
    search_fields = ["event_id", "endpoint__url"]
    readonly_fields = [f.name for f in WebhookDelivery._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

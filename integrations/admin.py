from django import forms
from django.contrib import admin
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext_lazy as _

from integrations.models import ApiToken, Event, WebhookDelivery, WebhookEndpoint
from integrations.services import api_token_issue, api_token_revoke
from integrations.targets import WebhookTargetRefused, webhook_target_check
from integrations.webhooks import webhook_secret_new


def _shown_once(request, model_admin, obj, *, label, value) -> TemplateResponse:
    """The page answering the POST that created `obj`, the one place its secret ever appears.

    Not a message: Django's messages live in a signed but readable cookie. Nothing is stored
    either, so reloading the object's page shows no secret.
    """
    opts = model_admin.model._meta
    response = TemplateResponse(
        request,
        "admin/integrations/shown_once.html",
        {
            **model_admin.admin_site.each_context(request),
            "opts": opts,
            "title": str(obj),
            "label": label,
            "value": value,
            "object_url": reverse(
                f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk]
            ),
            "changelist_url": reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"),
        },
    )
    add_never_cache_headers(response)
    return response


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
            token.pk,
            token.token_hash,
            token.prefix,
            token.created,
        )
        obj._state.adding = False
        request.fabricquote_new_secret = raw  # shown once by response_add; only its hash is kept

    def response_add(self, request, obj, post_url_continue=None):
        return _shown_once(
            request, self, obj, label=_("The new API token"), value=request.fabricquote_new_secret
        )

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


class WebhookEndpointForm(forms.ModelForm):
    url = forms.URLField(label=_("URL"), max_length=500, assume_scheme="https")

    class Meta:
        model = WebhookEndpoint
        fields = ["url", "events", "active", "description", "created_by"]

    def clean_url(self):
        url = self.cleaned_data["url"]
        try:
            webhook_target_check(url)  # the same rule as the API, checked again at delivery
        except WebhookTargetRefused as refused:
            raise forms.ValidationError(refused.message) from None
        return url


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    form = WebhookEndpointForm
    list_display = ["url", "created_by", "active", "created", "disabled_at", "deleted_at"]
    list_filter = ["active", "disabled_at", "deleted_at"]
    fields = [
        "url",
        "events",
        "active",
        "description",
        "created_by",
        "created",
        "disabled_at",
        "disabled_reason",
        "deleted_at",
        "previous_secret_expires_at",
    ]
    readonly_fields = [
        "created",
        "disabled_at",
        "disabled_reason",
        "deleted_at",
        "previous_secret_expires_at",
    ]
    inlines = [DeliveryInline]

    def save_model(self, request, obj, form, change):
        if not obj.secret:
            obj.secret = webhook_secret_new()
            request.fabricquote_new_secret = obj.secret
        super().save_model(request, obj, form, change)

    def response_add(self, request, obj, post_url_continue=None):
        secret = getattr(request, "fabricquote_new_secret", None)
        if secret is None:
            return super().response_add(request, obj, post_url_continue)
        return _shown_once(request, self, obj, label=_("The signing secret"), value=secret)


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = [
        "event_type",
        "endpoint",
        "status",
        "attempts",
        "response_code",
        "duration_ms",
        "created",
        "delivered_at",
    ]
    list_filter = ["status", "event_type"]
    search_fields = ["event_id", "endpoint__url"]
    readonly_fields = [f.name for f in WebhookDelivery._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ["event_id", "type", "timestamp", "customer_id"]
    list_filter = ["type"]
    search_fields = ["event_id"]
    readonly_fields = [f.name for f in Event._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

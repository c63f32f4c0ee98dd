import base64

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from portal.forms import CompanyProfileForm
from portal.models import CompanyProfile, User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    fieldsets = (
        *BaseUserAdmin.fieldsets,
        (_("Preferences"), {"fields": ("language", "phone", "job_title")}),
    )
    list_display = ("username", "email", "first_name", "last_name", "is_staff", "language")


def _image_preview(data, content_type: str, *, height: int = 48):
    if not data:
        return "—"
    uri = f"data:{content_type};base64,{base64.b64encode(bytes(data)).decode()}"
    return format_html('<img src="{}" alt="" height="{}">', uri, height)


@admin.register(CompanyProfile)
class CompanyProfileAdmin(admin.ModelAdmin):
    """One row: the list opens it, or the form to create it."""

    form = CompanyProfileForm
    readonly_fields = ("logo_preview", "chop_preview")
    fieldsets = (
        (
            _("Legal entity"),
            {
                "fields": (
                    "legal_name_en",
                    "legal_name_zh",
                    "address_en",
                    "address_zh",
                    "tax_number",
                )
            },
        ),
        (_("Contact"), {"fields": ("phone", "email", "website")}),
        (_("Bank"), {"fields": ("bank_name", "bank_name_zh", "bank_account")}),
        (_("Support"), {"fields": ("service_area_en", "service_area_zh")}),
        (_("Logo"), {"fields": ("logo_preview", "logo_upload", "logo_remove")}),
        (_("Company chop"), {"fields": ("chop_preview", "chop_upload", "chop_remove")}),
    )

    @admin.display(description=_("Current logo"))
    def logo_preview(self, profile):
        return _image_preview(profile.logo, profile.logo_type)

    @admin.display(description=_("Current company chop"))
    def chop_preview(self, profile):
        return _image_preview(profile.chop, profile.chop_type, height=96)

    def has_add_permission(self, request):
        return super().has_add_permission(request) and not CompanyProfile.objects.exists()

    def has_delete_permission(self, request, obj=None):
        return False

    def changelist_view(self, request, extra_context=None):
        if CompanyProfile.objects.exists():
            return redirect(
                reverse("admin:portal_companyprofile_change", args=[CompanyProfile.SINGLETON_PK])
            )
        return redirect(reverse("admin:portal_companyprofile_add"))

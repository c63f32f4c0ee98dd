"""The seller's company profile form: the admin's and the portal page's (/settings/company/)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from portal.models import LOGO_MAX_BYTES, CompanyProfile, logo_content_type


class CompanyProfileForm(forms.ModelForm):
    logo_upload = forms.FileField(
        label=_("Logo"),
        required=False,
        help_text=_("PNG or JPEG, at most 512 KB; printed on the proposal's cover."),
    )
    logo_remove = forms.BooleanField(label=_("Remove the logo"), required=False)

    class Meta:
        model = CompanyProfile
        fields = (
            "legal_name_en",
            "legal_name_zh",
            "address_en",
            "address_zh",
            "phone",
            "email",
            "website",
            "tax_number",
            "bank_name",
            "bank_name_zh",
            "bank_account",
            "service_area_en",
            "service_area_zh",
        )

    def clean_logo_upload(self):
        upload = self.cleaned_data.get("logo_upload")
        if not upload:
            return None
        if upload.size > LOGO_MAX_BYTES:
            raise forms.ValidationError(_("The logo may take at most 512 KB."))
        data = upload.read()
        if logo_content_type(data) is None:
            raise forms.ValidationError(_("Upload a PNG or JPEG image."))
        return data

    def save(self, commit=True):
        profile = super().save(commit=False)
        if self.cleaned_data.get("logo_remove"):
            profile.logo, profile.logo_type = None, ""
        elif data := self.cleaned_data.get("logo_upload"):
            profile.logo, profile.logo_type = data, logo_content_type(data)
        if commit:
            profile.save()
        return profile

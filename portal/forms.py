"""The seller's company profile form: the admin's and the portal page's (/settings/company/)."""

from __future__ import annotations

import io

from django import forms
from django.utils.translation import gettext_lazy as _

from portal.models import CHOP_MAX_BYTES, LOGO_MAX_BYTES, CompanyProfile, logo_content_type


class CompanyProfileForm(forms.ModelForm):
    logo_upload = forms.FileField(
        label=_("Logo"),
        required=False,
        help_text=_("PNG or JPEG, at most 512 KB; printed on the proposal's cover."),
    )
    logo_remove = forms.BooleanField(label=_("Remove the logo"), required=False)
    chop_upload = forms.FileField(
        label=_("Company chop"),
        required=False,
        help_text=_(
            "The company seal as a PNG (transparent background) or JPEG, at most 512 KB; "
            "stamped on the seller's side of a countersigned copy."
        ),
    )
    chop_remove = forms.BooleanField(label=_("Remove the company chop"), required=False)

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

    def clean_chop_upload(self):
        upload = self.cleaned_data.get("chop_upload")
        if not upload:
            return None
        if upload.size > CHOP_MAX_BYTES:
            raise forms.ValidationError(_("The company chop may take at most 512 KB."))
        data = upload.read()
        # Sniffed, not taken from the name or the browser's type: an SVG could call out of the
        # PDF, anything else would not print.
        if logo_content_type(data) is None or not _decodes(data):
            raise forms.ValidationError(_("Upload a PNG or JPEG image."))
        return data

    def save(self, commit=True):
        profile = super().save(commit=False)
        if self.cleaned_data.get("logo_remove"):
            profile.logo, profile.logo_type = None, ""
        elif data := self.cleaned_data.get("logo_upload"):
            profile.logo, profile.logo_type = data, logo_content_type(data)
        if self.cleaned_data.get("chop_remove"):
            profile.chop, profile.chop_type = None, ""
        elif data := self.cleaned_data.get("chop_upload"):
            profile.chop, profile.chop_type = data, logo_content_type(data)
        if commit:
            profile.save()
        return profile


def _decodes(data: bytes) -> bool:
    """A whole image of a printable size: a file that only starts like a PNG would print
    nothing on the signed copy."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.width * image.height > 4000 * 4000:
                return False
            image.load()
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return False
    return True

"""The as-built upload on the quote page: the file ibnetdiscover printed."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from quoting.quotes.services.as_built import AS_BUILT_MAX_BYTES


class AsBuiltForm(forms.Form):
    discovered = forms.FileField(
        label=_("Discovered fabric"),
        help_text=_(
            "The text ibnetdiscover prints on the installed fabric (ibnetdiscover > fabric.txt), "
            "up to 20 MB. It is compared with this revision's cable schedule, cable by cable."
        ),
    )

    def clean_discovered(self):
        """Refused on its size before a byte is read: Django has already spooled a large upload
        to a temporary file, so it never sits in memory."""
        upload = self.cleaned_data["discovered"]
        if upload.size > AS_BUILT_MAX_BYTES:
            raise forms.ValidationError(
                _("The file is larger than %(mb)d MB: upload ibnetdiscover's text output.")
                % {"mb": AS_BUILT_MAX_BYTES // (1024 * 1024)}
            )
        return upload

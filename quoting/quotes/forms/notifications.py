"""Which notifications a user also gets by e-mail."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from quoting.quotes.models import NotificationKind


class NotificationEmailForm(forms.Form):
    email_kinds = forms.MultipleChoiceField(
        label=_("Send me an e-mail when"),
        choices=NotificationKind.choices,
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text=_("Every notification appears in your inbox; these also come by e-mail."),
    )

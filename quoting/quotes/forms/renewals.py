"""Forms of renewals: the start of a booked line's term (the services check the rule)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from portal.widgets import IsoDateInput
from quoting.quotes.forms.quotes import VersionForm


class TermStartForm(VersionForm):
    starts_on = forms.DateField(label=_("Term starts"), widget=IsoDateInput)

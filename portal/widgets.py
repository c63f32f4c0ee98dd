"""Form widgets shared by every app."""

from __future__ import annotations

from django import forms

ISO_DATE = "%Y-%m-%d"


class IsoDateInput(forms.DateInput):
    """A browser date picker. `<input type=date>` only accepts `YYYY-MM-DD` and silently drops any
    other value, so the value is written in ISO whatever the language (Chinese would render
    `2026/12/30` and an edit form would come back without its date)."""

    input_type = "date"

    def __init__(self, attrs=None, format=None):  # noqa: A002 (Django's own argument name)
        super().__init__(attrs=attrs, format=format or ISO_DATE)

"""Date pickers speak ISO in every language: `<input type=date>` drops any other value."""

from __future__ import annotations

import datetime as dt
import importlib
import inspect

import django_filters
import pytest
from django import forms
from django.utils import translation

from portal.widgets import IsoDateInput
from quoting.quotes.forms.quotes import TermsForm

# Every module that declares the portal's own forms and filter sets (the admin has its own widget).
FORM_MODULES = [
    "catalog.filters",
    "catalog.forms",
    "proposals.forms",
    "quoting.customers.filters",
    "quoting.customers.forms",
    "quoting.designs.forms.contract",
    "quoting.designs.forms.designs",
    "quoting.designs.forms.projects",
    "quoting.designs.forms.tco",
    "quoting.quotes.filters",
    "quoting.quotes.forms.quotes",
]


def _date_fields():
    for module_name in FORM_MODULES:
        module = importlib.import_module(module_name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module_name:
                continue
            if issubclass(cls, forms.BaseForm):
                fields = cls.base_fields.items()
            elif issubclass(cls, django_filters.FilterSet):
                fields = ((name, f.field) for name, f in cls.base_filters.items())
            else:
                continue
            for name, field in fields:
                if isinstance(field, forms.DateField):
                    yield f"{module_name}.{cls.__name__}.{name}", field


def test_the_project_has_date_fields_to_check():
    names = [name for name, _ in _date_fields()]
    assert "quoting.quotes.forms.quotes.TermsForm.valid_until" in names
    assert "quoting.quotes.filters.QuoteFilter.created_from" in names


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_every_date_field_renders_an_iso_date_picker_in_every_language(language):
    with translation.override(language):
        for name, field in _date_fields():
            assert isinstance(field.widget, IsoDateInput), name
            html = field.widget.render("d", dt.date(2026, 12, 30))
            assert 'type="date"' in html and 'value="2026-12-30"' in html, (name, html)


def test_chinese_quote_terms_show_the_valid_until_date_the_picker_can_read():
    form = TermsForm(
        initial={
            "expected_version": 1,
            "discount_percent": 5,
            "tax_percent": 13,
            "valid_until": dt.date(2026, 12, 30),
        }
    )
    with translation.override("zh-hans"):
        html = str(form["valid_until"])
    assert 'value="2026-12-30"' in html
    assert "2026/12/30" not in html


def test_chinese_quote_terms_accept_the_date_the_picker_sends():
    with translation.override("zh-hans"):
        form = TermsForm(
            data={
                "expected_version": 1,
                "discount_percent": "5",
                "tax_percent": "13",
                "valid_until": "2026-12-30",
            }
        )
        assert form.is_valid(), form.errors
    assert form.cleaned_data["valid_until"] == dt.date(2026, 12, 30)

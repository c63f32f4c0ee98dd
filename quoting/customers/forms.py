"""The customer and contact forms of the browser pages."""

from __future__ import annotations

from django import forms

from quoting.customers.models import Contact, Customer
from quoting.customers.permissions import teams_for_filing


class CustomerForm(forms.ModelForm):
    class Meta:
        model = Customer
        fields = [
            "company",
            "team",
            "industry",
            "region",
            "country",
            "vat_zone",
            "language",
            "default_currency",
            "notes",
            "external_id",
        ]
        widgets = {"notes": forms.Textarea(attrs={"rows": 3})}

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        teams = teams_for_filing(user=user)
        self.fields["team"].queryset = teams
        if self.instance.pk is None and len(teams) == 1:
            self.fields["team"].initial = teams[0].pk


ContactFormSet = forms.inlineformset_factory(
    Customer,
    Contact,
    fields=["name", "title", "email", "phone"],
    extra=1,
    can_delete=True,
)

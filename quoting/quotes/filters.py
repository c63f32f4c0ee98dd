"""The quote list's FilterSet, shared by the list page and the API (the same helpers as the
customer and project filters: quoting.customers.filters).
"""

from __future__ import annotations

import datetime as dt

import django_filters
from django.utils.translation import gettext_lazy as _

from portal.widgets import IsoDateInput
from quoting.customers.filters import (
    OwnerFilter,
    _day_start,
    _owners_of,
    _search,
    _visible_customers,
    external_id_filter,
)
from quoting.quotes.models import Quote, QuoteStatus
from quoting.quotes.selectors import quotes_visible_to


class QuoteFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="search", label=_("Search"), max_length=100)
    status = django_filters.ChoiceFilter(
        choices=QuoteStatus.choices, label=_("Status"), empty_label=_("All")
    )
    customer = django_filters.ModelChoiceFilter(
        queryset=_visible_customers, label=_("Customer"), empty_label=_("All")
    )
    owner = OwnerFilter(
        queryset=_owners_of(quotes_visible_to), label=_("Owner"), empty_label=_("All")
    )
    # Days in the portal's time zone, compared as a range of instants so the index on created_at
    # serves them (created_at__date would convert every row first).
    created_from = django_filters.DateFilter(
        method="created_from_filter",
        label=_("Created from"),
        widget=IsoDateInput,
    )
    created_to = django_filters.DateFilter(
        method="created_to_filter",
        label=_("Created to"),
        widget=IsoDateInput,
    )
    external_id = external_id_filter()

    class Meta:
        model = Quote
        fields = ["q", "status", "customer", "owner", "created_from", "created_to", "external_id"]

    def search(self, queryset, name, value):
        return _search(queryset, value, ("number", "customer__company", "project__name"))

    def created_from_filter(self, queryset, name, value):
        return queryset.filter(created_at__gte=_day_start(value))

    def created_to_filter(self, queryset, name, value):
        return queryset.filter(created_at__lt=_day_start(value + dt.timedelta(days=1)))

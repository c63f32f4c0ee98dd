"""One FilterSet per model, shared by the list pages and (later) the API.

Choices that name other objects (customers, owners) come from the request's user, so a filter
never offers, nor accepts, something the user may not see.
"""

from __future__ import annotations

import datetime as dt

import django_filters
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from portal.models import User
from portal.widgets import IsoDateInput

from .models import Customer, Project, Quote, QuoteStatus, VatZone
from .selectors import customers_visible_to, projects_visible_to, quotes_visible_to


def _visible_customers(request):
    return customers_visible_to(user=request.user) if request else Customer.objects.none()


def _owners_of(queryset_of):
    def owners(request):
        if request is None:
            return User.objects.none()
        visible = queryset_of(user=request.user).values("owner")
        return User.objects.filter(pk__in=visible).order_by("username")

    return owners


def _search(queryset, value: str, fields: tuple[str, ...]):
    value = value.strip()
    if not value:
        return queryset
    match = Q()
    for field in fields:
        match |= Q(**{f"{field}__icontains": value})
    return queryset.filter(match)


def _day_start(day: dt.date) -> dt.datetime:
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min))


class CustomerFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="search", label=_("Search"), max_length=100)
    vat_zone = django_filters.ChoiceFilter(
        choices=VatZone.choices, label=_("VAT zone"), empty_label=_("All")
    )
    owner = django_filters.ModelChoiceFilter(
        queryset=_owners_of(customers_visible_to), label=_("Owner"), empty_label=_("All")
    )

    class Meta:
        model = Customer
        fields = ["q", "vat_zone", "owner"]

    def search(self, queryset, name, value):
        return _search(
            queryset, value, ("company", "industry", "region", "contacts__name")
        ).distinct()


class ProjectFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="search", label=_("Search"), max_length=100)
    customer = django_filters.ModelChoiceFilter(
        queryset=_visible_customers, label=_("Customer"), empty_label=_("All")
    )
    owner = django_filters.ModelChoiceFilter(
        queryset=_owners_of(projects_visible_to), label=_("Owner"), empty_label=_("All")
    )

    class Meta:
        model = Project
        fields = ["q", "customer", "owner"]

    def search(self, queryset, name, value):
        return _search(queryset, value, ("name", "customer__company", "notes"))


class QuoteFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="search", label=_("Search"), max_length=100)
    status = django_filters.ChoiceFilter(
        choices=QuoteStatus.choices, label=_("Status"), empty_label=_("All")
    )
    customer = django_filters.ModelChoiceFilter(
        queryset=_visible_customers, label=_("Customer"), empty_label=_("All")
    )
    owner = django_filters.ModelChoiceFilter(
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

    class Meta:
        model = Quote
        fields = ["q", "status", "customer", "owner", "created_from", "created_to"]

    def search(self, queryset, name, value):
        return _search(queryset, value, ("number", "customer__company", "project__name"))

    def created_from_filter(self, queryset, name, value):
        return queryset.filter(created_at__gte=_day_start(value))

    def created_to_filter(self, queryset, name, value):
        return queryset.filter(created_at__lt=_day_start(value + dt.timedelta(days=1)))

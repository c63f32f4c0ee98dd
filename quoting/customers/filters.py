"""FilterSets of the customer and project lists, shared by the list pages and the API.

Choices that name other objects (customers, owners) come from the request's user, so a filter
never offers, nor accepts, something the user may not see.
"""

from __future__ import annotations

import datetime as dt

import django_filters
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django_filters.fields import ModelChoiceField

from portal.models import User
from quoting.customers.models import Contact, Customer, Project, VatZone
from quoting.customers.selectors import customers_visible_to, projects_visible_to


def _visible_customers(request):
    return customers_visible_to(user=request.user) if request else Customer.objects.none()


def _owners_of(queryset_of):
    def owners(request):
        if request is None:
            return User.objects.none()
        visible = queryset_of(user=request.user).values("owner")
        return User.objects.filter(pk__in=visible).order_by("username")

    return owners


class _IdOrUsernameField(ModelChoiceField):
    # The API shows an owner as a username and /api/v1/users/ lists ids: `owner=` takes either
    # (all digits: an id).
    def to_python(self, value):
        if isinstance(value, str) and value and not value.isdigit():
            user = self.queryset.filter(username=value).first()
            if user is None:
                raise ValidationError(
                    self.error_messages["invalid_choice"],
                    code="invalid_choice",
                    params={"value": value},
                )
            return user
        return super().to_python(value)


class OwnerFilter(django_filters.ModelChoiceFilter):
    """An owner by user id or username."""

    field_class = _IdOrUsernameField


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


def external_id_filter() -> django_filters.CharFilter:
    """`external_id=`: the record a CRM knows by this id (exact; surrounding spaces ignored)."""
    return django_filters.CharFilter(
        field_name="external_id", method=_external_id, label=_("External ID"), max_length=100
    )


def _external_id(queryset, name, value):
    return queryset.filter(external_id=value.strip())


class CustomerFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="search", label=_("Search"), max_length=100)
    vat_zone = django_filters.ChoiceFilter(
        choices=VatZone.choices, label=_("VAT zone"), empty_label=_("All")
    )
    owner = OwnerFilter(
        queryset=_owners_of(customers_visible_to), label=_("Owner"), empty_label=_("All")
    )
    external_id = external_id_filter()

    class Meta:
        model = Customer
        fields = ["q", "vat_zone", "owner", "external_id"]

    def search(self, queryset, name, value):
        return _search(
            queryset, value, ("company", "industry", "region", "contacts__name")
        ).distinct()


class ProjectFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="search", label=_("Search"), max_length=100)
    customer = django_filters.ModelChoiceFilter(
        queryset=_visible_customers, label=_("Customer"), empty_label=_("All")
    )
    owner = OwnerFilter(
        queryset=_owners_of(projects_visible_to), label=_("Owner"), empty_label=_("All")
    )
    external_id = external_id_filter()

    class Meta:
        model = Project
        fields = ["q", "customer", "owner", "external_id"]

    def search(self, queryset, name, value):
        return _search(queryset, value, ("name", "customer__company", "notes"))


class ContactFilter(django_filters.FilterSet):
    external_id = external_id_filter()

    class Meta:
        model = Contact
        fields = ["customer", "external_id"]

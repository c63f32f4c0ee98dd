"""One FilterSet for products, shared by the catalog page and the API."""

import django_filters
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from catalog.models import Category, Generation, Lifecycle, Product, Protocol


class ProductFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="search", label=_("Search"), max_length=100)
    category = django_filters.ChoiceFilter(
        choices=Category.choices, label=_("Category"), empty_label=_("All")
    )
    generation = django_filters.ChoiceFilter(
        choices=Generation.choices, label=_("Generation"), empty_label=_("All")
    )
    protocol = django_filters.ChoiceFilter(
        choices=Protocol.choices, label=_("Protocol"), empty_label=_("All")
    )
    lifecycle = django_filters.ChoiceFilter(
        choices=Lifecycle.choices, label=_("Lifecycle"), empty_label=_("All")
    )

    class Meta:
        model = Product
        fields = ["q", "category", "generation", "protocol", "lifecycle"]

    def search(self, queryset, name, value):
        value = value.strip()
        if not value:
            return queryset
        return queryset.filter(
            Q(part_number__icontains=value)
            | Q(name__icontains=value)
            | Q(name_zh__icontains=value)
            | Q(family__icontains=value)
            | Q(description_en__icontains=value)
            | Q(description_zh__icontains=value)
        )

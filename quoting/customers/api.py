"""Customers and their contacts: /api/v1/customers/, /api/v1/contacts/ (scoped to the user's
teams through customers_visible_to)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_view
from rest_framework import mixins, serializers, viewsets

from catalog.models import CURRENCY_VALIDATOR
from portal.api.base import (
    ServiceViewSetMixin,
    service_viewset_schema,
)
from quoting.customers.filters import CustomerFilter
from quoting.customers.models import COUNTRY_VALIDATOR, Contact, Customer, Team, VatZone
from quoting.customers.permissions import teams_for_filing
from quoting.customers.selectors import customers_visible_to
from quoting.customers.services import (
    contact_create,
    contact_delete,
    contact_update,
    customer_create,
    customer_delete,
    customer_update,
)


class CustomerInputSerializer(serializers.Serializer):
    company = serializers.CharField(max_length=200)
    industry = serializers.CharField(max_length=100, required=False, allow_blank=True)
    region = serializers.CharField(max_length=100, required=False, allow_blank=True)
    country = serializers.CharField(
        min_length=2,
        max_length=2,
        required=False,
        allow_blank=True,
        validators=[COUNTRY_VALIDATOR],
        help_text="ISO 3166 alpha-2 (which VAT rates apply); empty: CN for a Mainland China "
        "customer.",
    )
    vat_zone = serializers.ChoiceField(choices=VatZone.choices, required=False)
    language = serializers.ChoiceField(choices=["en", "zh-hans"], required=False)
    default_currency = serializers.CharField(
        min_length=3, max_length=3, required=False, validators=[CURRENCY_VALIDATOR]
    )
    notes = serializers.CharField(max_length=5000, required=False, allow_blank=True)
    team = serializers.PrimaryKeyRelatedField(
        queryset=Team.objects.none(),
        required=False,
        help_text="One of your teams; may be left out when you have only one.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "request" not in self.context:  # the schema generator
            return
        self.fields["team"].queryset = teams_for_filing(user=self.context["request"].user)


class CustomerSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    team_name = serializers.CharField(source="team.name", read_only=True)

    class Meta:
        model = Customer
        fields = [
            "id",
            "company",
            "industry",
            "region",
            "country",
            "vat_zone",
            "language",
            "default_currency",
            "team",
            "team_name",
            "owner",
            "notes",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


@extend_schema_view(
    **service_viewset_schema(
        output=CustomerSerializer,
        input=CustomerInputSerializer,
        list="List customers you may see",
        retrieve="One customer",
        destroy="Delete a customer without quotes",
        create="Create a customer",
        partial_update="Change a customer",
    )
)
class CustomerViewSet(
    ServiceViewSetMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    serializer_class = CustomerSerializer
    input_serializer_class = CustomerInputSerializer
    filterset_class = CustomerFilter
    ordering_fields = ["company", "created_at", "updated_at"]
    ordering = ["company"]

    def get_queryset(self):
        return customers_visible_to(user=self.request.user)

    def create_service(self, data):
        return customer_create(owner=self.request.user, **data)

    def update_service(self, customer, data):
        return customer_update(customer=customer, user=self.request.user, **data)

    def destroy_service(self, customer):
        customer_delete(customer=customer)


class ContactInputSerializer(serializers.Serializer):
    customer = serializers.PrimaryKeyRelatedField(queryset=Customer.objects.none())
    name = serializers.CharField(max_length=100)
    title = serializers.CharField(max_length=100, required=False, allow_blank=True)
    email = serializers.EmailField(max_length=254, required=False, allow_blank=True)
    phone = serializers.CharField(max_length=40, required=False, allow_blank=True)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "request" not in self.context:  # the schema generator
            return
        self.fields["customer"].queryset = customers_visible_to(user=self.context["request"].user)


class ContactSerializer(serializers.ModelSerializer):
    email = serializers.CharField(help_text="An e-mail address, or empty.")

    class Meta:
        model = Contact
        fields = ["id", "customer", "name", "title", "email", "phone"]
        read_only_fields = fields


@extend_schema_view(
    **service_viewset_schema(
        output=ContactSerializer,
        input=ContactInputSerializer,
        list="List contacts (filter by customer)",
        retrieve="One contact",
        destroy="Delete a contact",
        create="Add a contact to a customer",
        partial_update="Change a contact",
    )
)
class ContactViewSet(
    ServiceViewSetMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    serializer_class = ContactSerializer
    input_serializer_class = ContactInputSerializer
    filterset_fields = ["customer"]
    ordering_fields = ["name", "id"]
    ordering = ["customer", "name"]

    def get_queryset(self):
        return Contact.objects.filter(
            customer__in=customers_visible_to(user=self.request.user).values("pk")
        )

    def create_service(self, data):
        return contact_create(**data)

    def update_service(self, contact, data):
        return contact_update(contact=contact, **data)

    def destroy_service(self, contact):
        contact_delete(contact=contact)

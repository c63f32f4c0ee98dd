"""Customers and their contacts: /api/v1/customers/, /api/v1/contacts/ (scoped to the user's
teams through customers_visible_to)."""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.response import Response

from catalog.models import CURRENCY_VALIDATOR
from integrations.idempotency import idempotent
from portal.models import SALES_MANAGER
from quoting.filters import CustomerFilter
from quoting.models import Contact, Customer, Team, VatZone
from quoting.selectors import customers_visible_to
from quoting.services.customers import contact_create, customer_create
from quoting.services.errors import InvalidValue

from .base import (
    IDEMPOTENCY_KEY,
    IDEMPOTENT_ERRORS,
    LIST_ERRORS,
    READ_ERRORS,
    WRITE_ERRORS,
    ApiViewSetMixin,
    errors,
)


def teams_of(user):
    if user.is_superuser or user.has_role(SALES_MANAGER):
        return Team.objects.all()
    return user.teams.all()


def model_update(instance, values: dict):
    """Set, validate (field rules and unique constraints) and save; no business rules here."""
    for name, value in values.items():
        setattr(instance, name, value)
    instance.full_clean()
    instance.save()
    return instance


class CustomerInputSerializer(serializers.Serializer):
    company = serializers.CharField(max_length=200)
    industry = serializers.CharField(max_length=100, required=False, allow_blank=True)
    region = serializers.CharField(max_length=100, required=False, allow_blank=True)
    vat_zone = serializers.ChoiceField(choices=VatZone.choices, required=False)
    language = serializers.ChoiceField(choices=["en", "zh-hans"], required=False)
    default_currency = serializers.CharField(
        min_length=3, max_length=3, required=False, validators=[CURRENCY_VALIDATOR]
    )
    notes = serializers.CharField(max_length=5000, required=False, allow_blank=True)
    team = serializers.PrimaryKeyRelatedField(
        queryset=Team.objects.none(), required=False,
        help_text="One of your teams; may be left out when you have only one.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "request" not in self.context:  # the schema generator
            return
        self.fields["team"].queryset = teams_of(self.context["request"].user)


class CustomerSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    team_name = serializers.CharField(source="team.name", read_only=True)

    class Meta:
        model = Customer
        fields = [
            "id", "company", "industry", "region", "vat_zone", "language", "default_currency",
            "team", "team_name", "owner", "notes", "created_at", "updated_at",
        ]
        read_only_fields = fields


@extend_schema_view(
    list=extend_schema(summary="List customers you may see", responses={
        200: CustomerSerializer(many=True), **errors(*LIST_ERRORS)}),
    retrieve=extend_schema(summary="One customer", responses={
        200: CustomerSerializer, **errors(*READ_ERRORS)}),
    destroy=extend_schema(summary="Delete a customer without quotes", responses={
        204: None, **errors(*WRITE_ERRORS)}),
)
class CustomerViewSet(ApiViewSetMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin,
                      mixins.DestroyModelMixin, viewsets.GenericViewSet):
    serializer_class = CustomerSerializer
    filterset_class = CustomerFilter
    ordering_fields = ["company", "created_at", "updated_at"]
    ordering = ["company"]

    def get_queryset(self):
        return customers_visible_to(user=self.request.user)

    @extend_schema(summary="Create a customer", request=CustomerInputSerializer,
                   parameters=[IDEMPOTENCY_KEY],
                   responses={201: CustomerSerializer, **errors(*IDEMPOTENT_ERRORS)})
    @idempotent
    def create(self, request):
        data = CustomerInputSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        team = values.pop("team", None)
        if team is None:
            teams = list(teams_of(request.user)[:2])
            if len(teams) != 1:
                raise InvalidValue("Choose the team this customer belongs to.", field="team")
            team = teams[0]
        customer = customer_create(team=team, owner=request.user, **values)
        return Response(CustomerSerializer(customer).data, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Change a customer", request=CustomerInputSerializer,
                   responses={200: CustomerSerializer, **errors(*WRITE_ERRORS)})
    def partial_update(self, request, pk=None):
        customer = self.get_object()
        data = CustomerInputSerializer(data=request.data, partial=True,
                                       context={"request": request})
        data.is_valid(raise_exception=True)
        with transaction.atomic():
            model_update(customer, data.validated_data)
        return Response(CustomerSerializer(customer).data)


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
        self.fields["customer"].queryset = customers_visible_to(
            user=self.context["request"].user
        )


class ContactSerializer(serializers.ModelSerializer):
    email = serializers.CharField(help_text="An e-mail address, or empty.")

    class Meta:
        model = Contact
        fields = ["id", "customer", "name", "title", "email", "phone"]
        read_only_fields = fields


@extend_schema_view(
    list=extend_schema(summary="List contacts (filter by customer)", responses={
        200: ContactSerializer(many=True), **errors(*LIST_ERRORS)}),
    retrieve=extend_schema(summary="One contact", responses={
        200: ContactSerializer, **errors(*READ_ERRORS)}),
    destroy=extend_schema(summary="Delete a contact", responses={
        204: None, **errors(*WRITE_ERRORS)}),
)
class ContactViewSet(ApiViewSetMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin,
                     mixins.DestroyModelMixin, viewsets.GenericViewSet):
    serializer_class = ContactSerializer
    filterset_fields = ["customer"]
    ordering_fields = ["name", "id"]
    ordering = ["customer", "name"]

    def get_queryset(self):
        return Contact.objects.filter(
            customer__in=customers_visible_to(user=self.request.user).values("pk")
        )

    @extend_schema(summary="Add a contact to a customer", request=ContactInputSerializer,
                   parameters=[IDEMPOTENCY_KEY],
                   responses={201: ContactSerializer, **errors(*IDEMPOTENT_ERRORS)})
    @idempotent
    def create(self, request):
        data = ContactInputSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        contact = contact_create(**data.validated_data)
        return Response(ContactSerializer(contact).data, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Change a contact", request=ContactInputSerializer,
                   responses={200: ContactSerializer, **errors(*WRITE_ERRORS)})
    def partial_update(self, request, pk=None):
        contact = self.get_object()
        data = ContactInputSerializer(data=request.data, partial=True,
                                      context={"request": request})
        data.is_valid(raise_exception=True)
        model_update(contact, data.validated_data)
        return Response(ContactSerializer(contact).data)

"""Customers and their contacts: /api/v1/customers/, /api/v1/contacts/ (scoped to the user's
teams through customers_visible_to); the CRM's external ids, the upsert by them
(.../by-external-id/{external_id}/, projects too) and the 409 that names a duplicate."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, NotFound, ValidationError
from rest_framework.response import Response

from catalog.models import CURRENCY_VALIDATOR
from portal.api.base import (
    IDEMPOTENCY_KEY,
    READ_ERRORS,
    ServiceViewSetMixin,
    errors,
    service_viewset_schema,
)
from quoting.customers.filters import ContactFilter, CustomerFilter
from quoting.customers.models import COUNTRY_VALIDATOR, Contact, Customer, Project, Team, VatZone
from quoting.customers.permissions import teams_for_filing
from quoting.customers.selectors import (
    contacts_visible_to,
    customers_visible_to,
    projects_visible_to,
)
from quoting.customers.services import (
    EXTERNAL_ID_MAX_LENGTH,
    AlreadyExists,
    contact_create,
    contact_delete,
    contact_update,
    customer_create,
    customer_delete,
    customer_update,
    external_id_clean,
)

# --- external ids, upsert and conflicts ----------------------------------------------------------


def external_id_field() -> serializers.CharField:
    return serializers.CharField(
        max_length=EXTERNAL_ID_MAX_LENGTH,
        required=False,
        allow_null=True,
        allow_blank=True,
        help_text="Your CRM's id for this record, unique among records of its kind: up to 100 "
        "characters, no slash, trimmed; null or empty clears it. "
        "`PUT .../by-external-id/{external_id}/` creates or updates by it.",
    )


class Conflict(APIException):
    """409: another record holds a value that must be unique. `problem_extra` names it
    (`existing_id`) when the caller may see it; the problem details show it beside `code`."""

    status_code = status.HTTP_409_CONFLICT
    default_detail = "Another record already holds this value."
    default_code = "duplicate"

    def __init__(self, detail: str, *, code: str, field: str | None, existing_id: int | None):
        super().__init__(detail, code)
        self.field = field
        self.problem_extra = {} if existing_id is None else {"existing_id": existing_id}


# Where a conflicting record is looked for among those the caller sees (its id is named only
# then); the quote API adds quotes.
CONFLICT_SCOPES = {
    Customer: customers_visible_to,
    Contact: contacts_visible_to,
    Project: projects_visible_to,
}


class ConflictMixin:
    conflict_scopes = CONFLICT_SCOPES

    def handle_exception(self, exc):
        if isinstance(exc, AlreadyExists):
            exc = self.conflict(exc)
        return super().handle_exception(exc)

    def conflict(self, error: AlreadyExists) -> Conflict:
        existing = error.existing
        scope = self.conflict_scopes.get(type(existing))
        seen = scope is not None and scope(user=self.request.user).filter(pk=existing.pk).exists()
        return Conflict(
            error.message,
            code=error.code,
            field=error.field,
            existing_id=existing.pk if seen else None,
        )


EXTERNAL_ID_PARAMETER = OpenApiParameter(
    "external_id",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    description="Your CRM's id (percent-encoded; any character but a slash).",
)


def by_external_id_schema(*, output, input, noun: str) -> list:
    """The schema of ExternalIdUpsertMixin's action, for `@extend_schema_view(by_external_id=
    ...)`."""
    return [
        extend_schema(
            methods=["GET"],
            summary=f"The {noun} your CRM knows by this external id",
            parameters=[EXTERNAL_ID_PARAMETER],
            responses={200: output, **errors(*READ_ERRORS)},
        ),
        extend_schema(
            methods=["PUT"],
            summary=f"Create or update the {noun} your CRM knows by this external id",
            description=f"The body is a create's. No {noun} has this external id: it is "
            f"created (201). One you may see has it: it is updated with the body (200; fields "
            "left out keep their values). One you may not see has it: 409 with code "
            "`external_id_taken` and no id. Concurrent calls with one new external id make "
            "one record (the others update it). A body's `external_id`, if any, must be the "
            "path's. Other unique values that clash (a company its team already has, a "
            "project name its customer already has) answer 409 with code `duplicate` and "
            "`existing_id`.",
            request=input,
            parameters=[EXTERNAL_ID_PARAMETER, IDEMPOTENCY_KEY],
            responses={
                200: output,
                201: output,
                **errors(400, 401, 403, 409, 413, 422),
            },
        ),
    ]


class ExternalIdUpsertMixin(ConflictMixin):
    # An upsert that lost a race for a new external id to a concurrent one updates the row the
    # other made: at most this many turns (a row deleted in between is created again).
    upsert_attempts = 3

    @action(
        detail=False,
        methods=["get", "put"],
        url_path=r"by-external-id/(?P<external_id>[^/]+)",
        url_name="by-external-id",
        filter_backends=[],
        pagination_class=None,
    )
    def by_external_id(self, request, external_id: str, **kwargs):
        external_id = self._path_external_id(external_id)
        if request.method == "GET":
            record = self.get_queryset().filter(external_id=external_id).first()
            if record is None:
                raise NotFound()
            self.check_object_permissions(request, record)
            self.detail = True  # one record's read: an ETag, and 304 to If-None-Match, as /{id}/
            return Response(self.get_serializer(record).data)
        return self._upsert(external_id)

    def _path_external_id(self, raw: str) -> str:
        external_id = external_id_clean(raw)
        if external_id is None:
            raise ValidationError({"external_id": ["Give an external id."]})
        return external_id

    def _upsert(self, external_id: str) -> Response:
        data = self.input_data()
        if "external_id" in data and data["external_id"] != external_id:
            raise ValidationError({"external_id": ["Leave it out, or give the path's."]})
        data["external_id"] = external_id
        model = self.get_queryset().model
        for turn in range(self.upsert_attempts):
            existing = model.objects.filter(external_id=external_id).first()
            if existing is None:
                try:
                    return self.written(self.create_service(dict(data)), status.HTTP_201_CREATED)
                except AlreadyExists:
                    # A concurrent upsert created it first (its row clashes on the external id
                    # or on another unique value, whichever was checked first): update that row.
                    last = turn == self.upsert_attempts - 1
                    if last or not model.objects.filter(external_id=external_id).exists():
                        raise
                    continue
            record = self.get_queryset().filter(pk=existing.pk).first()
            if record is None:  # not leaked: no id, no detail of the holder
                raise Conflict(
                    f"Another {model._meta.verbose_name} has this external id.",
                    code="external_id_taken",
                    field="external_id",
                    existing_id=None,
                )
            self.check_object_permissions(self.request, record)
            return self.written(self.update_service(record, dict(data)))
        raise AssertionError("unreachable")  # the last turn returns or raises


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
    external_id = external_id_field()
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
            "external_id",
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
    ),
    by_external_id=by_external_id_schema(
        output=CustomerSerializer, input=CustomerInputSerializer, noun="customer"
    ),
)
class CustomerViewSet(
    ExternalIdUpsertMixin,
    ServiceViewSetMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
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
    external_id = external_id_field()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "request" not in self.context:  # the schema generator
            return
        self.fields["customer"].queryset = customers_visible_to(user=self.context["request"].user)


class ContactSerializer(serializers.ModelSerializer):
    email = serializers.CharField(help_text="An e-mail address, or empty.")

    class Meta:
        model = Contact
        fields = ["id", "customer", "name", "title", "email", "phone", "external_id"]
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
    ),
    by_external_id=by_external_id_schema(
        output=ContactSerializer, input=ContactInputSerializer, noun="contact"
    ),
)
class ContactViewSet(
    ExternalIdUpsertMixin,
    ServiceViewSetMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = ContactSerializer
    input_serializer_class = ContactInputSerializer
    filterset_class = ContactFilter
    ordering_fields = ["name", "id"]
    ordering = ["customer", "name"]

    def get_queryset(self):
        return contacts_visible_to(user=self.request.user)

    def create_service(self, data):
        return contact_create(**data)

    def update_service(self, contact, data):
        return contact_update(contact=contact, **data)

    def destroy_service(self, contact):
        contact_delete(contact=contact)

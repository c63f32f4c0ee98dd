"""The event catalogue: what each webhook's (and the event feed's) `data` holds, as serializers
the OpenAPI document publishes (one component per event, `QuoteAcceptedEvent`..., and their
`WebhookEvent` oneOf; docs/webhooks.md "Event catalogue" lists them with samples).

The payloads are built by quoting.quotes.events (the members every event starts with) and the
services that emit them; these serializers only describe them, and
tests/integrations/test_event_catalogue.py checks real deliveries against what they publish.
"""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ComponentRegistry
from rest_framework import serializers
from rest_framework.views import APIView

from integrations.models import WebhookEvent
from quoting.quotes.models import ApprovalDecision, QuoteStatus

# proposals' choices (DocumentStatus, SignatureKind), written out: integrations and proposals
# are siblings that import neither (lint-imports); the catalogue test checks them against real
# deliveries.
SIGNATURE_KINDS = [("drawn", "drawn"), ("typed", "typed")]
DOCUMENT_STATUSES = [
    (status, status) for status in ("pending", "rendering", "ready", "failed", "retired")
]


def _money(**kwargs) -> serializers.DecimalField:
    # Exact text with two places ("1234.50"), as every amount of the API.
    return serializers.DecimalField(max_digits=14, decimal_places=2, **kwargs)


def _nullable_text(**kwargs) -> serializers.CharField:
    return serializers.CharField(allow_null=True, **kwargs)


# --- the members every event starts with (quoting.quotes.events.event_subjects) ------------------


class EventQuoteSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.CharField(help_text="The quote number, e.g. Q-2026-00042.")
    external_id = _nullable_text(help_text="The CRM's id for the quote, if it set one.")
    status = serializers.ChoiceField(
        choices=QuoteStatus.choices, help_text="The status after the event."
    )
    currency = serializers.CharField(help_text="ISO 4217 code of every amount of the quote.")
    url = serializers.URLField(help_text="The quote in the API (GET with a token).")


class EventRevisionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    label = serializers.CharField(help_text="R1, R2...")


class EventCustomerSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    external_id = _nullable_text()
    company = serializers.CharField()


class EventProjectSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    external_id = _nullable_text()
    name = serializers.CharField()


class EventContactSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    external_id = _nullable_text()
    name = serializers.CharField()


class EventTotalsSerializer(serializers.Serializer):
    currency = serializers.CharField()
    subtotal = _money()
    discount = _money()
    net = _money()
    tax = _money()
    total = _money()


class EventUserSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


class EventDataSerializer(serializers.Serializer):
    quote = EventQuoteSerializer()
    revision = EventRevisionSerializer(
        allow_null=True, help_text="The revision the event is about."
    )
    customer = EventCustomerSerializer()
    project = EventProjectSerializer()
    contact = EventContactSerializer(allow_null=True, help_text="The quote's contact, if named.")


class EventMoneyDataSerializer(EventDataSerializer):
    totals = EventTotalsSerializer()


# --- each event's own members --------------------------------------------------------------------


class EventCreatedSerializer(serializers.Serializer):
    by = EventUserSerializer()
    valid_until = serializers.DateField()


class QuoteCreatedEventDataSerializer(EventDataSerializer):
    created = EventCreatedSerializer()


class EventRevisedSerializer(serializers.Serializer):
    from_revision = EventRevisionSerializer(help_text="The sent revision the new one copies.")
    by = EventUserSerializer()


class QuoteRevisedEventDataSerializer(EventMoneyDataSerializer):
    revised = EventRevisedSerializer()


class EventSentSerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    by = EventUserSerializer()
    valid_until = serializers.DateField()
    lead_time_weeks = serializers.IntegerField(
        allow_null=True,
        help_text=(
            'The delivery time the proposal prints ("about N weeks after order"); null when it '
            "prints none (a line in the totals without a lead time)."
        ),
    )


class QuoteSentEventDataSerializer(EventMoneyDataSerializer):
    sent = EventSentSerializer()


class EventApprovalSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    decision = serializers.ChoiceField(choices=ApprovalDecision.choices)
    discount_percent = _money(help_text="The largest discount asked for.")
    required_role = serializers.CharField()
    requested_by = EventUserSerializer()
    requested_at = serializers.DateTimeField()
    note = serializers.CharField(allow_blank=True)
    decided_by = EventUserSerializer(allow_null=True)
    decided_at = serializers.DateTimeField(allow_null=True)
    reason = serializers.CharField(allow_blank=True)


class ApprovalEventDataSerializer(EventMoneyDataSerializer):
    approval = EventApprovalSerializer()


class EventShareLinkSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    recipient_name = serializers.CharField(allow_blank=True)
    recipient_email = serializers.CharField(allow_blank=True)
    expires_at = serializers.DateTimeField()


class ShareLinkCreatedEventDataSerializer(EventDataSerializer):
    share_link = EventShareLinkSerializer()


class EventViewedSerializer(serializers.Serializer):
    at = serializers.DateTimeField(help_text="When the open began (it was read long enough).")


class ViewedEventDataSerializer(EventDataSerializer):
    share_link = EventShareLinkSerializer()
    viewed = EventViewedSerializer()


class EventAcceptanceLinkSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    recipient_name = serializers.CharField(allow_blank=True)


class EventInvoiceSerializer(serializers.Serializer):
    company = serializers.CharField(allow_blank=True)
    tax_id = serializers.CharField(allow_blank=True)
    address_phone = serializers.CharField(allow_blank=True)
    bank_account = serializers.CharField(allow_blank=True)


class EventChosenLineSerializer(serializers.Serializer):
    key = serializers.CharField()
    description = serializers.CharField(allow_blank=True)


class EventCountersignatureSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The countersigning user's full name, as printed.")
    title = serializers.CharField(
        allow_blank=True, help_text="Their job title, as printed (may be empty)."
    )
    countersigned_at = serializers.DateTimeField()
    user_id = serializers.IntegerField(allow_null=True)


class EventAcceptanceSerializer(serializers.Serializer):
    recorded_by = serializers.ChoiceField(
        choices=[("share_link", "share_link"), ("staff", "staff")],
        help_text="Signed on a share link, or recorded by staff (then most fields are empty).",
    )
    recorded_by_user = EventUserSerializer(allow_null=True)
    note = serializers.CharField(allow_blank=True, help_text="Staff's note.")
    signer = serializers.CharField(allow_blank=True)
    title = serializers.CharField(allow_blank=True)
    company = serializers.CharField(allow_blank=True)
    signed_at = serializers.DateTimeField()
    signer_email = serializers.CharField(
        allow_blank=True,
        help_text="The link's address the signer proved with a one-time code; empty: not "
        "verified by e-mail (a link without an address, or recorded by staff).",
    )
    signer_email_verified_at = serializers.DateTimeField(allow_null=True)
    signer_timezone = serializers.CharField(allow_blank=True)
    signature_kind = serializers.ChoiceField(choices=SIGNATURE_KINDS, allow_null=True)
    language = _nullable_text()
    share_link = EventAcceptanceLinkSerializer(allow_null=True)
    browser = serializers.CharField(allow_blank=True)
    system = serializers.CharField(allow_blank=True)
    is_mobile = serializers.BooleanField(allow_null=True)
    document_sha256 = _nullable_text(help_text="The accepted PDF (null until it is bound).")
    signed_status = serializers.ChoiceField(choices=DOCUMENT_STATUSES, allow_null=True)
    signed_pdf_url = serializers.URLField(
        allow_null=True, help_text="The signed copy in the API, once ready."
    )
    signed_sha256 = _nullable_text()
    po_number = serializers.CharField(allow_blank=True)
    invoice = EventInvoiceSerializer(allow_null=True)
    chosen_alternative = serializers.CharField(allow_blank=True, help_text='"": as quoted.')
    chosen_optional = EventChosenLineSerializer(many=True)
    as_sent_totals = EventTotalsSerializer(help_text="The revision's totals as sent.")
    countersignature = EventCountersignatureSerializer(
        allow_null=True,
        help_text="The seller's countersignature; null until given (quote.countersigned).",
    )


class AcceptedEventDataSerializer(EventMoneyDataSerializer):
    acceptance = EventAcceptanceSerializer()


class EventDeclinedSerializer(serializers.Serializer):
    reason = serializers.CharField(allow_blank=True)


class QuoteDeclinedEventDataSerializer(EventMoneyDataSerializer):
    declined = EventDeclinedSerializer()


class EventExpiredSerializer(serializers.Serializer):
    valid_until = serializers.DateField()


class QuoteExpiredEventDataSerializer(EventMoneyDataSerializer):
    expired = EventExpiredSerializer()


class EventProposalSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    language = serializers.CharField()
    draft = serializers.BooleanField()
    sha256 = serializers.CharField()
    size = serializers.IntegerField()
    pdf_url = serializers.URLField()


class ProposalReadyEventDataSerializer(EventDataSerializer):
    proposal = EventProposalSerializer()


class EventRenewalLineSerializer(serializers.Serializer):
    key = serializers.CharField()
    sku = serializers.CharField(allow_blank=True)
    description = serializers.CharField()
    quantity = serializers.IntegerField()
    term_months = serializers.IntegerField()
    starts_on = serializers.DateField()
    ends_on = serializers.DateField()
    days_left = serializers.IntegerField()


class EventRenewalSerializer(serializers.Serializer):
    days_before = serializers.IntegerField(help_text="The reminder: 90, 60 or 30.")
    ends_on = serializers.DateField()
    lines = EventRenewalLineSerializer(many=True)


class RenewalDueEventDataSerializer(EventMoneyDataSerializer):
    renewal = EventRenewalSerializer()


# --- the catalogue -------------------------------------------------------------------------------

# event type: (component name, data serializer, when it fires)
CATALOGUE: dict[str, tuple[str, type[serializers.Serializer], str]] = {
    WebhookEvent.QUOTE_CREATED: (
        "QuoteCreatedEvent",
        QuoteCreatedEventDataSerializer,
        "A quote was created (R1, empty or from a design).",
    ),
    WebhookEvent.QUOTE_REVISED: (
        "QuoteRevisedEvent",
        QuoteRevisedEventDataSerializer,
        "A sent quote was edited: a new draft revision, a copy of the sent one.",
    ),
    WebhookEvent.QUOTE_SENT: (
        "QuoteSentEvent",
        QuoteSentEventDataSerializer,
        "A revision was frozen and sent.",
    ),
    WebhookEvent.APPROVAL_REQUESTED: (
        "ApprovalRequestedEvent",
        ApprovalEventDataSerializer,
        "A discount beyond the sender's rule awaits a manager.",
    ),
    WebhookEvent.APPROVAL_DECIDED: (
        "ApprovalDecidedEvent",
        ApprovalEventDataSerializer,
        "A manager approved or rejected it.",
    ),
    WebhookEvent.SHARE_LINK_CREATED: (
        "ShareLinkCreatedEvent",
        ShareLinkCreatedEventDataSerializer,
        "A share link was made for a recipient.",
    ),
    WebhookEvent.SHARE_LINK_OPENED: (
        "ShareLinkOpenedEvent",
        ViewedEventDataSerializer,
        "A share link's first real open (read long enough, not a scanner), once per link.",
    ),
    WebhookEvent.QUOTE_VIEWED: (
        "QuoteViewedEvent",
        ViewedEventDataSerializer,
        "Every real open of a share link.",
    ),
    WebhookEvent.QUOTE_ACCEPTED: (
        "QuoteAcceptedEvent",
        AcceptedEventDataSerializer,
        "The customer accepted (on the link, or staff recorded it); totals are the accepted "
        "configuration's.",
    ),
    WebhookEvent.QUOTE_DECLINED: (
        "QuoteDeclinedEvent",
        QuoteDeclinedEventDataSerializer,
        "The customer declined the revision.",
    ),
    WebhookEvent.QUOTE_EXPIRED: (
        "QuoteExpiredEvent",
        QuoteExpiredEventDataSerializer,
        "A sent quote passed its validity date unanswered (daily job).",
    ),
    WebhookEvent.PROPOSAL_READY: (
        "ProposalReadyEvent",
        ProposalReadyEventDataSerializer,
        "A proposal PDF was rendered.",
    ),
    WebhookEvent.QUOTE_SIGNED_COPY_READY: (
        "QuoteSignedCopyReadyEvent",
        AcceptedEventDataSerializer,
        "After quote.accepted on a link: the same acceptance with its signed copy's fields.",
    ),
    WebhookEvent.QUOTE_COUNTERSIGNED: (
        "QuoteCountersignedEvent",
        AcceptedEventDataSerializer,
        "The seller countersigned the customer's acceptance: the same acceptance with its "
        "countersignature; the signed copy is made again (signed_status pending), and "
        "quote.signed_copy_ready follows with its new signed_sha256.",
    ),
    WebhookEvent.RENEWAL_DUE: (
        "RenewalDueEvent",
        RenewalDueEventDataSerializer,
        "Booked terms end in 90, 60 or 30 days (daily job); totals are those lines' at the "
        "booked prices.",
    ),
}


def _event_schema(event_type: str, data_ref: str, description: str) -> dict:
    return {
        "type": "object",
        "description": description,
        "properties": {
            "type": {"type": "string", "enum": [event_type]},
            "id": {
                "type": "string",
                "description": "The event id, also the `webhook-id` header: the same on "
                "every retry and redelivery.",
            },
            "timestamp": {"type": "string", "format": "date-time"},
            "data": {"$ref": f"#/components/schemas/{data_ref}"},
        },
        "required": ["type", "id", "timestamp", "data"],
    }


def _without_enum_ids(node):
    # drf-spectacular's own mark for its enum hook, which has already run: not for the document.
    if isinstance(node, dict):
        return {k: _without_enum_ids(v) for k, v in node.items() if k != "x-spec-enum-id"}
    if isinstance(node, list):
        return [_without_enum_ids(item) for item in node]
    return node


def catalogue_schemas() -> dict[str, dict]:
    """Every component of the catalogue: the data serializers (and what they nest) and one
    `<Name>Event` per event type, with `WebhookEvent` their oneOf on `type`."""
    registry = ComponentRegistry()
    inspector = AutoSchema()
    inspector.registry, inspector.method, inspector.path = registry, "GET", "/api/v1/events/"
    inspector.view = APIView()
    inspector.view.request = None  # drf-spectacular's serializer context; none is needed
    schemas: dict[str, dict] = {}
    for event_type, (name, serializer, description) in CATALOGUE.items():
        data = inspector.resolve_serializer(serializer, "response")
        schemas[name] = _event_schema(str(event_type), data.name, description)
    schemas |= _without_enum_ids(registry.build({})["schemas"])
    schemas["WebhookEvent"] = {
        "oneOf": [{"$ref": f"#/components/schemas/{name}"} for name, _, _ in CATALOGUE.values()],
        "discriminator": {
            "propertyName": "type",
            "mapping": {
                str(event_type): f"#/components/schemas/{name}"
                for event_type, (name, _, _) in CATALOGUE.items()
            },
        },
    }
    return schemas


def _named_enums(node, enums: dict[tuple, str]):
    """The API's own enum components (QuoteStatusEnum...) in place of the same values inline,
    so that generated clients share one type for a quote's status."""
    if isinstance(node, list):
        return [_named_enums(item, enums) for item in node]
    if not isinstance(node, dict):
        return node
    values = tuple(node.get("enum") or ())
    if values in enums and not node.get("nullable"):
        ref = {"$ref": f"#/components/schemas/{enums[values]}"}
        if "description" not in node:
            return ref
        return {"allOf": [ref], "description": node["description"]}
    return {key: _named_enums(value, enums) for key, value in node.items()}


def add_event_catalogue(result, generator, request, public):
    """drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"])."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    enums = {
        tuple(schema["enum"]): name
        for name, schema in schemas.items()
        if name.endswith("Enum") and schema.get("enum")
    }
    for name, schema in _named_enums(catalogue_schemas(), enums).items():
        # The catalogue's names are its own ("...Event..."): never replace an API model.
        if schemas.get(name, schema) != schema:
            raise ValueError(f"The event catalogue's {name} is already an API component.")
        schemas[name] = schema
    return result

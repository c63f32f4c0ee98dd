"""Quotes through the API: /api/v1/quotes/ with revisions, lines, approvals and audit events.

Every write to a quote takes its version: responses carry `ETag: "<version>"`, writes need
`If-Match` (missing: 428; stale: 412 from the services' expected_version check, race-free).
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, NotFound, PermissionDenied
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from portal.api.base import (
    IDEMPOTENCY_KEY,
    IDEMPOTENT_ERRORS,
    IF_MATCH,
    LIST_ERRORS,
    QUOTE_WRITE_ERRORS,
    READ_ERRORS,
    WRITE_ERRORS,
    ApiViewSetMixin,
    ServiceCreateMixin,
    ServiceUpdateMixin,
    errors,
    etag,
    if_match_version,
)
from portal.api.exceptions import validation_error
from portal.api.pagination import list_count_key
from portal.header_counts import quotes_counted
from quoting.customers.api import CONFLICT_SCOPES, ConflictMixin, external_id_field
from quoting.customers.models import PLAN_PARTS, Contact
from quoting.customers.selectors import contacts_visible_to, projects_visible_to
from quoting.designs.api.contract import serializer_fields
from quoting.designs.api.designs import workload_field
from quoting.designs.models import SavedDesign
from quoting.engine.errors import InvalidInput
from quoting.engine.install import SiteInputs
from quoting.engine.money import MONEY_DIGITS, MONEY_MAX
from quoting.quotes.filters import QuoteFilter
from quoting.quotes.margins import lines_margin, revision_margins
from quoting.quotes.models import (
    Approval,
    InstallPack,
    InstallPackStatus,
    Quote,
    QuoteEvent,
    QuoteLine,
    QuoteRevision,
    Section,
)
from quoting.quotes.permissions import may_view_margin
from quoting.quotes.selectors import (
    CURRENT_REVISION_SNAPSHOTS,
    REVISION_SNAPSHOTS,
    booked_choice,
    booked_data,
    line_amount,
    quote_audit_trail,
    quote_completeness,
    quotes_visible_to,
    revision_alternatives,
    revision_diff,
    revision_lead_time,
    revision_totals,
)
from quoting.quotes.services import quotes as services
from quoting.quotes.services.install import install_pack_latest, install_pack_request
from quoting.quotes.services.quotes import ADDITIONAL_TERMS_MAX, MAX_MILESTONES
from quoting.quotes.services.snapshots import revision_tco_options
from quoting.quotes.workbook import XLSX_CONTENT_TYPE, quote_xlsx


def _percent(**kwargs) -> serializers.DecimalField:
    return serializers.DecimalField(
        max_digits=5, decimal_places=2, min_value=Decimal(0), max_value=Decimal(100), **kwargs
    )


def _amount(**kwargs) -> serializers.DecimalField:
    # Output only. The services keep new amounts within NUMERIC(18, 2) (AMOUNT_MAX); no digit
    # limit here, so a quote stored before that check still reads instead of failing.
    return serializers.DecimalField(max_digits=None, decimal_places=2, **kwargs)


# --- output ---------------------------------------------------------------------------------------


class TaxRowSerializer(serializers.Serializer):
    vat_percent = serializers.DecimalField(max_digits=5, decimal_places=2)
    net = _amount()
    tax = _amount()


class TotalsSerializer(serializers.Serializer):
    subtotal = _amount()
    discount = _amount()
    net = _amount()
    tax = _amount()
    total = _amount()
    tax_breakdown = TaxRowSerializer(
        many=True,
        help_text="VAT per rate (goods and services are taxed differently), highest rate first: "
        "the net after the quote discount and the tax of each rate. Empty where it was not "
        "kept (a revision sent before rates per line existed).",
    )


class BookedSerializer(TotalsSerializer):
    revision = serializers.IntegerField(help_text="The accepted revision's number.")
    alternative = serializers.CharField(
        help_text="The alternative the customer chose; empty: the offer as quoted."
    )
    optional = serializers.ListField(
        child=serializers.UUIDField(), help_text="The keys of the optional lines included."
    )


class MilestoneSerializer(serializers.Serializer):
    label = serializers.CharField(max_length=100, help_text="When it is due, e.g. On order.")
    percent = serializers.DecimalField(
        max_digits=5,
        decimal_places=2,
        help_text="Its share of the total: above 0; the milestones add up to exactly 100.",
    )


def payment_schedule_field(**kwargs) -> MilestoneSerializer:
    return MilestoneSerializer(
        many=True,
        help_text="When the customer pays, printed in the proposal's terms with each "
        "milestone's amount of the total (the last takes the rounding). Empty: none printed.",
        **kwargs,
    )


def payment_schedule_printed(schedule) -> list[dict]:
    """MilestoneSerializer(many=True) of a stored schedule; [] for none."""
    return [
        {"label": m["label"], "percent": _decimal(_PERCENT, Decimal(m["percent"]))}
        for m in schedule or []
    ]


ADDITIONAL_TERMS_HELP = (
    "Terms of this revision beyond the standard ones, printed as written, in the quote's "
    "language (English for a bilingual seller). The Chinese documents print additional_terms_zh "
    "instead when it is given."
)
ADDITIONAL_TERMS_ZH_HELP = (
    "The additional terms in Chinese, printed as written in the Chinese proposal, share page "
    "and workbook; empty: they print additional_terms (and the English ones print this text "
    "when additional_terms is empty)."
)


class QuoteSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username")
    revision = serializers.IntegerField(source="current_revision.number")

    class Meta:
        model = Quote
        fields = [
            "id",
            "number",
            "status",
            "customer",
            "project",
            "contact",
            "external_id",
            "owner",
            "currency",
            "valid_until",
            "version",
            "revision",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


# The list prints QuoteSerializer's JSON from plain rows: building model instances and running
# the serializer's fields for fifty quotes was most of a list call. The DRF fields format the
# dates exactly as the serializer does; a test holds the two outputs equal.
_DATE = serializers.DateField()


def _datetime(value, zone) -> str:
    """serializers.DateTimeField().to_representation(value) for an aware datetime and the
    request's time zone, without its per-call setting lookups (two per listed quote)."""
    text = value.astimezone(zone).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


LISTED_VALUES = (
    "id",
    "number",
    "status",
    "customer_id",
    "project_id",
    "contact_id",
    "external_id",
    "owner__username",
    "currency",
    "valid_until",
    "version",
    "current_revision__number",
    "created_at",
    "updated_at",
)


class ListedRows:
    """A page's rows for the paginator, as LISTED_VALUES rows. The total is counted on the quotes
    alone (no joins) and kept between calls until a quote changes (quotes_counted): with 100,000
    quotes a COUNT on every call was most of it."""

    def __init__(self, quotes, *, key: str):
        self.quotes = quotes
        self.ordered = quotes.ordered
        self.key = key

    def count(self) -> int:
        return quotes_counted(self.quotes, key=self.key)

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, index):
        return self.quotes.values_list(*LISTED_VALUES)[index]


def quote_listed(row: tuple, zone=None) -> dict:
    """QuoteSerializer(quote).data, from a row of `.values_list(*LISTED_VALUES)`; `zone` is
    the current time zone (looked up once per page by the caller, else here)."""
    zone = zone or timezone.get_current_timezone()
    (
        pk,
        number,
        status_,
        customer,
        project,
        contact,
        external_id,
        owner,
        currency,
        valid_until,
        version,
        revision,
        created_at,
        updated_at,
    ) = row
    return {
        "id": pk,
        "number": number,
        "status": status_,
        "customer": customer,
        "project": project,
        "contact": contact,
        "external_id": external_id,
        "owner": owner,
        "currency": currency,
        "valid_until": None if valid_until is None else _DATE.to_representation(valid_until),
        "version": version,
        "revision": revision,
        "created_at": _datetime(created_at, zone),
        "updated_at": _datetime(updated_at, zone),
    }


class CompletenessWarningSerializer(serializers.Serializer):
    part = serializers.ChoiceField(
        choices=[part for part, _label in PLAN_PARTS],
        help_text="The part of the plan the project asks for (needs_<part> on the project); "
        "also the name of the quote section its lines go in.",
    )
    message = serializers.CharField(help_text="The warning, in the language of the request.")


class QuoteDetailSerializer(QuoteSerializer):
    tax_percent = _percent(source="current_revision.tax_percent")
    discount_percent = _percent(source="current_revision.discount_percent")
    workload = serializers.CharField(
        source="current_revision.workload",
        help_text="The workload preset the current revision's TCO assumes; empty for a TCO "
        "scenario chosen by hand.",
    )
    payment_schedule = serializers.SerializerMethodField()
    additional_terms = serializers.CharField(
        source="current_revision.additional_terms", help_text=ADDITIONAL_TERMS_HELP
    )
    additional_terms_zh = serializers.CharField(
        source="current_revision.additional_terms_zh", help_text=ADDITIONAL_TERMS_ZH_HELP
    )
    tco_options = serializers.SerializerMethodField(
        help_text="The TCO options (their names) the current revision's proposal shows: as "
        "chosen, else every option whose network is priced, the quoted one among them. Empty "
        "without a TCO comparison."
    )
    totals = serializers.SerializerMethodField()
    booked = serializers.SerializerMethodField(
        help_text="What the customer accepted and the reseller books: the accepted revision, "
        "the chosen alternative and optional lines, and their totals. Null until accepted."
    )
    completeness_warnings = serializers.SerializerMethodField(
        help_text="For staff: each part the project's plan asks for (needs_gpu_servers, "
        "needs_network, needs_cluster_management, needs_backup) that has no line of a quantity "
        "in its section of the current revision. It never blocks sending and never reaches "
        "the customer. Empty when the quote answers the whole plan."
    )

    class Meta(QuoteSerializer.Meta):
        fields = [
            *QuoteSerializer.Meta.fields,
            "tax_percent",
            "discount_percent",
            "workload",
            "payment_schedule",
            "additional_terms",
            "additional_terms_zh",
            "tco_options",
            "totals",
            "booked",
            "completeness_warnings",
        ]
        read_only_fields = fields

    @extend_schema_field(payment_schedule_field())
    def get_payment_schedule(self, quote):
        return payment_schedule_printed(quote.current_revision.payment_schedule)

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_tco_options(self, quote):
        return revision_tco_options(revision=quote.current_revision)

    @extend_schema_field(TotalsSerializer)
    def get_totals(self, quote):
        return TotalsSerializer(revision_totals(revision=quote.current_revision)).data

    @extend_schema_field(BookedSerializer(allow_null=True))
    def get_booked(self, quote):
        return booked_data(quote)

    @extend_schema_field(CompletenessWarningSerializer(many=True))
    def get_completeness_warnings(self, quote):
        return [w.as_json() for w in quote_completeness(quote=quote)]


# One quote's JSON (QuoteDetailSerializer's, a test holds them equal) without building the
# serializer's fields on every call; and the columns it reads.
_AMOUNT = _amount()
_PERCENT = _percent()
DETAILED_COLUMNS = (
    "number",
    "status",
    "customer",
    "project",
    "contact",
    "external_id",
    "owner__username",
    "currency",
    "valid_until",
    "version",
    "created_at",
    "updated_at",
    *(
        f"current_revision__{name}"
        for name in (
            "number",
            "tax_percent",
            "discount_percent",
            "frozen_at",
            "subtotal",
            "discount_amount",
            "net",
            "tax_amount",
            "total",
            "tax_breakdown",
            "workload",
            "payment_schedule",
            "additional_terms",
            "additional_terms_zh",
            "tco_options",
            "tco_snapshot",  # which options are priced: the default of tco_options
        )
    ),
    *(f"booked_{name}" for name in ("subtotal", "discount", "net", "tax", "total")),
    "booked_tax_breakdown",
    "booked_alternative",
    "booked_optional",
    "booked_revision__number",
)


BOOKED_REVISION_SNAPSHOTS = tuple(f"booked_revision__{name}" for name in REVISION_SNAPSHOTS)


def _decimal(field: serializers.DecimalField, value) -> str | None:
    return None if value is None else field.to_representation(value)


def totals_printed(totals) -> dict:
    """TotalsSerializer(totals).data."""
    return {
        **{
            name: _decimal(_AMOUNT, getattr(totals, name))
            for name in ("subtotal", "discount", "net", "tax", "total")
        },
        "tax_breakdown": [row.as_json() for row in totals.tax_breakdown],
    }


def quote_detailed(quote: Quote) -> dict:
    """QuoteDetailSerializer(quote).data, for a quote read with its owner and current revision."""
    revision = quote.current_revision
    return {
        **quote_listed(
            (
                quote.pk,
                quote.number,
                quote.status,
                quote.customer_id,
                quote.project_id,
                quote.contact_id,
                quote.external_id,
                quote.owner.username,
                quote.currency,
                quote.valid_until,
                quote.version,
                revision.number,
                quote.created_at,
                quote.updated_at,
            )
        ),
        "tax_percent": _decimal(_PERCENT, revision.tax_percent),
        "discount_percent": _decimal(_PERCENT, revision.discount_percent),
        "workload": revision.workload,
        "payment_schedule": payment_schedule_printed(revision.payment_schedule),
        "additional_terms": revision.additional_terms,
        "additional_terms_zh": revision.additional_terms_zh,
        "tco_options": revision_tco_options(revision=revision),
        "totals": totals_printed(revision_totals(revision=revision)),
        "booked": booked_data(quote),
        "completeness_warnings": [w.as_json() for w in quote_completeness(quote=quote)],
    }


class LineSerializer(serializers.ModelSerializer):
    amount = serializers.SerializerMethodField()
    optional = serializers.SerializerMethodField(
        help_text="Offered, outside the totals; the customer may include it on the share "
        'link. The same as section == "optional" (one source of truth: the section).'
    )

    class Meta:
        model = QuoteLine
        fields = [
            "id",
            "key",
            "position",
            "section",
            "optional",
            "alternative_group",
            "kind",
            "sku",
            "description",
            "quantity",
            "unit_price",
            "discount_percent",
            "amount",
            "vat_percent",
            "role",
            "price_source",
            "origin",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "vat_percent": {
                "help_text": "This line's VAT %; null: the revision's tax_percent applies."
            },
            "origin": {
                "help_text": "Where the line came from: `design` (a design's bill of materials: "
                "the chosen design's, or an alternative's in the alternatives section), "
                "`spares_kit` (sized from the chosen design, or from an alternative: then under "
                "its `alternative_group`, offered with that option only) or `node_services` "
                "(sized from the chosen design), empty (entered on the quote). A chosen "
                "alternative takes the place of the chosen design's lines, whatever their "
                "section."
            },
        }

    @extend_schema_field(serializers.BooleanField())
    def get_optional(self, line) -> bool:
        return line.section == Section.OPTIONAL

    @extend_schema_field(_amount())
    def get_amount(self, line) -> str:
        return str(
            line_amount(
                quantity=line.quantity,
                unit_price=line.unit_price,
                discount_percent=line.discount_percent,
            )
        )


class RevisionSerializer(serializers.ModelSerializer):
    label = serializers.CharField()
    payment_schedule = serializers.SerializerMethodField()
    created_by = serializers.CharField(source="created_by.username")
    totals = serializers.SerializerMethodField()
    lead_time_weeks = serializers.SerializerMethodField(
        help_text="The delivery time the proposal prints (about N weeks after order): the longest "
        "lead time among the lines in the totals, from the catalog; frozen when the revision is "
        "sent. Null when any of those lines has no lead time (the proposal then prints none), "
        "or when no line in the totals is delivered (services, support, free text)."
    )
    lead_time_unknown = serializers.SerializerMethodField(
        help_text="SKUs of the lines in the totals without a lead time (a free-text line has "
        "none to count); frozen with a sent revision, empty for one sent before lead times."
    )

    class Meta:
        model = QuoteRevision
        fields = [
            "number",
            "label",
            "created_by",
            "created_at",
            "frozen_at",
            "sent_at",
            "fx_source_currency",
            "fx_rate",
            "fx_rate_date",
            "tax_percent",
            "discount_percent",
            "workload",
            "payment_schedule",
            "additional_terms",
            "additional_terms_zh",
            "totals",
            "lead_time_weeks",
            "lead_time_unknown",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "additional_terms": {"help_text": ADDITIONAL_TERMS_HELP},
            "additional_terms_zh": {"help_text": ADDITIONAL_TERMS_ZH_HELP},
        }

    @extend_schema_field(payment_schedule_field())
    def get_payment_schedule(self, revision):
        return payment_schedule_printed(revision.payment_schedule)

    @extend_schema_field(TotalsSerializer)
    def get_totals(self, revision):
        return TotalsSerializer(revision_totals(revision=revision)).data

    def _lead_time(self, revision):
        """Read once per revision for the two fields (a draft's reads its lines)."""
        kept = self.__dict__.setdefault("_lead_times", {})
        if revision.pk not in kept:
            kept[revision.pk] = revision_lead_time(revision=revision)
        return kept[revision.pk]

    @extend_schema_field(serializers.IntegerField(allow_null=True, min_value=1))
    def get_lead_time_weeks(self, revision):
        return self._lead_time(revision).weeks

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_lead_time_unknown(self, revision):
        return list(self._lead_time(revision).totals.unknown)


class MarginSerializer(serializers.Serializer):
    cost_total = _amount()
    margin_amount = _amount()
    margin_percent = serializers.DecimalField(max_digits=9, decimal_places=2, allow_null=True)
    lines_without_cost = serializers.IntegerField(
        help_text="Lines left out of the margin: their cost is unknown."
    )


class LineMarginSerializer(MarginSerializer):
    key = serializers.UUIDField()
    unit_cost = _amount(allow_null=True)


class RevisionMarginSerializer(serializers.Serializer):
    """The reseller's cost and margin: only for users who may see margins (the
    `quoting.view_margin` permission); null for everyone else."""

    total = MarginSerializer(help_text="The offer as quoted (network, services, support).")
    sections = serializers.DictField(child=MarginSerializer())
    lines = LineMarginSerializer(many=True)
    booked = MarginSerializer(
        allow_null=True, help_text="The booked configuration; null until accepted."
    )


class AlternativeTotalsSerializer(serializers.Serializer):
    """One option of the revision, priced as the proposal, the share page and the accept price
    it (selectors.revision_alternatives)."""

    label = serializers.CharField(source="group", help_text="The option's name on the quote.")
    subtotal = _amount(help_text="Its own lines (its bill of materials), each rounded.")
    total_if_chosen = _amount(
        help_text="The quote's total with this option and no optional item: it takes the place "
        "of the chosen design's lines; support priced per switch or as a share of the hardware "
        "and the services priced per node follow it (on a revision sent before content version "
        "7, the last two stay as quoted, as its proposal printed them)."
    )
    delta_total = _amount(help_text="`total_if_chosen` less the total as quoted.")


class RevisionDetailSerializer(RevisionSerializer):
    lines = LineSerializer(many=True)
    margin = serializers.SerializerMethodField()
    alternatives = serializers.SerializerMethodField()

    class Meta(RevisionSerializer.Meta):
        fields = [*RevisionSerializer.Meta.fields, "lines", "margin", "alternatives"]
        read_only_fields = fields

    @extend_schema_field(AlternativeTotalsSerializer(many=True))
    def get_alternatives(self, revision):
        return AlternativeTotalsSerializer(revision_alternatives(revision=revision), many=True).data

    @extend_schema_field(RevisionMarginSerializer(allow_null=True))
    def get_margin(self, revision):
        request = self.context.get("request")
        if request is None or not may_view_margin(user=request.user):
            return None
        lines = list(revision.lines.all())
        margins = revision_margins(lines, discount_percent=revision.discount_percent)
        quote = revision.quote
        booked = None
        if quote.booked_revision_id == revision.pk:
            choice = booked_choice(quote=quote, lines=lines)
            booked = lines_margin(
                choice.lines, discount_percent=revision.discount_percent
            ).as_json()
        return {
            "total": margins.total.as_json(),
            "sections": {name: m.as_json() for name, m in margins.sections.items()},
            "lines": [
                {
                    "key": str(line.key),
                    "unit_cost": None if line.unit_cost is None else f"{line.unit_cost:.2f}",
                    **margins.lines[line.pk].as_json(),
                }
                for line in sorted(lines, key=lambda ln: ln.position)
            ],
            "booked": booked,
        }


class LineChangeSerializer(serializers.Serializer):
    key = serializers.UUIDField(source="new.key")
    sku = serializers.CharField(source="new.sku")
    description = serializers.CharField(source="new.description")
    changes = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField(), min_length=2, max_length=2),
        help_text="field: [before, after]",
    )


class RevisionDiffSerializer(serializers.Serializer):
    added = LineSerializer(many=True)
    removed = LineSerializer(many=True)
    changed = LineChangeSerializer(many=True)
    terms = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField(), min_length=2, max_length=2)
    )
    totals_before = TotalsSerializer()
    totals_after = TotalsSerializer()


class EventSerializer(serializers.ModelSerializer):
    actor = serializers.CharField(source="actor.username", allow_null=True, default=None)
    revision = serializers.IntegerField(source="revision.number", allow_null=True, default=None)

    class Meta:
        model = QuoteEvent
        fields = ["id", "verb", "actor", "revision", "details", "at"]
        read_only_fields = fields


class WorstChoiceKeySerializer(serializers.Serializer):
    alternative = serializers.CharField(
        help_text="The alternative's name, as the quote names it; empty: the quote as quoted."
    )
    optional = serializers.IntegerField(min_value=0, help_text="How many optional items it adds.")


class ApprovalSerializer(serializers.ModelSerializer):
    quote = serializers.IntegerField(source="revision.quote_id")
    quote_number = serializers.CharField(source="revision.quote.number")
    revision = serializers.IntegerField(source="revision.number")
    requested_by = serializers.CharField(source="requested_by.username")
    decided_by = serializers.CharField(source="decided_by.username", allow_null=True, default=None)
    # Worded in the request's language (Accept-Language), not the requester's: the key is kept.
    worst_choice = serializers.CharField(
        source="worst_choice_shown",
        read_only=True,
        help_text="The configuration furthest beyond the rule, worded in the request's language "
        "(Accept-Language: en or zh-hans; default English). A request made before "
        "2026-12-07 (worst_choice_key null) keeps the requester's words.",
    )
    worst_choice_key = WorstChoiceKeySerializer(
        read_only=True,
        allow_null=True,
        help_text="The same configuration by key, the same in every language: the alternative it "
        "takes (empty: as quoted) and how many optional items it adds. Null on a request "
        "made before 2026-12-07.",
    )

    class Meta:
        model = Approval
        fields = [
            "id",
            "quote",
            "quote_number",
            "revision",
            "requested_by",
            "requested_at",
            "discount_percent",
            "margin_percent",
            "worst_choice",
            "worst_choice_key",
            "required_role",
            "request_note",
            "decision",
            "decided_by",
            "decided_at",
            "reason",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "margin_percent": {
                "help_text": "The lowest margin of any configuration the link offers; null "
                "without a known cost, or for a user who may not see margins."
            },
            "required_role": {"help_text": "The role the gate sent the request to."},
        }

    def to_representation(self, approval):
        data = super().to_representation(approval)
        request = self.context.get("request")
        if request is None or not may_view_margin(user=request.user):
            data["margin_percent"] = None  # the reseller's own figure
        return data


# --- input ----------------------------------------------------------------------------------------


def contact_field() -> serializers.PrimaryKeyRelatedField:
    return serializers.PrimaryKeyRelatedField(
        queryset=Contact.objects.none(),
        required=False,
        allow_null=True,
        help_text="The person the quote is for: one of its customer's contacts "
        "(GET /api/v1/contacts/?customer=); another customer's is a 400. Null: none.",
    )


class QuoteCreateSerializer(serializers.Serializer):
    design = serializers.PrimaryKeyRelatedField(
        queryset=SavedDesign.objects.none(), help_text="A saved design (projects/{id}/designs)."
    )
    currency = serializers.RegexField(
        r"^[A-Za-z]{3}$", required=False, help_text="Defaults to the customer's currency."
    )
    workload = workload_field(required=False)
    contact = contact_field()
    external_id = external_id_field()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "request" not in self.context:  # the schema generator
            return
        user = self.context["request"].user
        self.fields["design"].queryset = SavedDesign.objects.filter(
            project__in=projects_visible_to(user=user).values("pk")
        ).select_related("project")
        self.fields["contact"].queryset = contacts_visible_to(user=user)


class QuoteTermsSerializer(serializers.Serializer):
    valid_until = serializers.DateField(required=False)
    tax_percent = _percent(required=False)
    discount_percent = _percent(required=False, help_text="The quote-level discount.")
    workload = workload_field(required=False)
    payment_schedule = payment_schedule_field(required=False, max_length=MAX_MILESTONES)
    additional_terms = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=ADDITIONAL_TERMS_MAX,
        trim_whitespace=True,
        help_text=ADDITIONAL_TERMS_HELP,
    )
    additional_terms_zh = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=ADDITIONAL_TERMS_MAX,
        trim_whitespace=True,
        help_text=ADDITIONAL_TERMS_ZH_HELP,
    )
    tco_options = serializers.ListField(
        child=serializers.CharField(max_length=60),
        required=False,
        allow_empty=False,
        max_length=8,
        help_text="The TCO options the proposal shows, by name (see the quote's tco_options "
        "and its revision's TCO). A name the comparison does not have is refused (400).",
    )
    contact = contact_field()
    external_id = external_id_field()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "request" in self.context:  # not the schema generator
            self.fields["contact"].queryset = contacts_visible_to(user=self.context["request"].user)


class AlternativeAddSerializer(serializers.Serializer):
    """Another saved design of the quote's project, offered beside the chosen one."""

    design = serializers.IntegerField(
        min_value=1, help_text="A saved design of the quote's project (its id)."
    )
    label = serializers.CharField(
        max_length=100, help_text='The option\'s name on the quote, e.g. "Better: Spectrum-X".'
    )


class AlternativeSerializer(serializers.Serializer):
    label = serializers.CharField()
    design = serializers.IntegerField(allow_null=True)
    lines = LineSerializer(many=True)
    spares_kit = LineSerializer(
        many=True,
        help_text="The option's spares kit, sized from its bill of materials at the catalog's "
        "ratios: optional lines under its label, offered with this option only.",
    )


class LineAddSerializer(serializers.Serializer):
    """A catalog product (`sku`) priced from the price lists, or a free-text line with its own
    `description` and `unit_price`."""

    sku = serializers.CharField(max_length=64, required=False)
    description = serializers.CharField(max_length=500, required=False)
    unit_price = serializers.DecimalField(
        max_digits=MONEY_DIGITS,
        decimal_places=2,
        min_value=Decimal(0),
        max_value=MONEY_MAX,
        required=False,
    )
    quantity = serializers.IntegerField(min_value=0, max_value=services.MAX_QUANTITY)
    section = serializers.ChoiceField(
        choices=[section for section in Section.values if section != Section.ALTERNATIVES],
        required=False,
    )
    discount_percent = _percent(required=False)
    optional = serializers.BooleanField(
        required=False,
        help_text="true puts the line in the optional section (offered, "
        "outside the totals, the customer may include it); the same as section=optional.",
    )

    def validate(self, attrs):
        optional = attrs.pop("optional", None)
        if optional is not None:
            section = attrs.get("section")
            if optional and section not in (None, Section.OPTIONAL):
                raise serializers.ValidationError(
                    {
                        "optional": [
                            "An optional line is in the optional section: leave out "
                            "section, or give section=optional."
                        ]
                    }
                )
            if not optional and section == Section.OPTIONAL:
                raise serializers.ValidationError(
                    {
                        "optional": [
                            "section=optional is an optional line: optional=false contradicts it."
                        ]
                    }
                )
            if optional:
                attrs["section"] = Section.OPTIONAL
        if "sku" in attrs and ("description" in attrs or "unit_price" in attrs):
            raise serializers.ValidationError(
                {"sku": ["Give a sku, or a description and unit_price, not both."]}
            )
        if "sku" not in attrs and not ("description" in attrs and "unit_price" in attrs):
            raise serializers.ValidationError(
                {"sku": ["Give a sku, or a description and unit_price for a free-text line."]}
            )
        return attrs


class LineUpdateSerializer(serializers.Serializer):
    quantity = serializers.IntegerField(
        min_value=0, max_value=services.MAX_QUANTITY, required=False
    )
    discount_percent = _percent(required=False)
    unit_price = serializers.DecimalField(
        max_digits=MONEY_DIGITS,
        decimal_places=2,
        min_value=Decimal(0),
        max_value=MONEY_MAX,
        required=False,
    )
    optional = serializers.BooleanField(
        required=False,
        help_text="true moves the line to the optional section; false back to "
        "the section its product belongs to (a free-text line: services).",
    )
    unit_cost = serializers.DecimalField(
        max_digits=MONEY_DIGITS,
        decimal_places=2,
        min_value=Decimal(0),
        max_value=MONEY_MAX,
        required=False,
        help_text="What one unit costs the reseller (managers and catalog managers only; "
        "others get 403).",
    )
    vat_percent = _percent(
        required=False,
        help_text="Override the line's VAT rate (managers only; give vat_reason).",
    )
    vat_reason = serializers.CharField(max_length=200, required=False, allow_blank=True)


class NoteSerializer(serializers.Serializer):
    note = serializers.CharField(max_length=2000, required=False, allow_blank=True)


class ReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000, required=False, allow_blank=True)


class RejectSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)


class EmptySerializer(serializers.Serializer):
    pass


# --- views ----------------------------------------------------------------------------------------

NUMBER = OpenApiParameter(
    "number", OpenApiTypes.INT, OpenApiParameter.PATH, description="The revision number (1 for R1)."
)
LINE_ID = OpenApiParameter("line_id", OpenApiTypes.INT, OpenApiParameter.PATH)
DIFF = [
    OpenApiParameter(name, OpenApiTypes.INT, required=True, description=description)
    for name, description in (
        ("a", "The older revision number."),
        ("b", "The newer revision number."),
    )
]


def _valid(serializer_class, request, **kwargs) -> dict:
    serializer = serializer_class(data=request.data, context={"request": request}, **kwargs)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def _quote_response(
    quote: Quote, status_code: int = status.HTTP_200_OK, *, fresh: bool = False
) -> Response:
    """`fresh`: `quote` was just read with its owner and current revision (no write since)."""
    if not fresh:
        quote = (
            Quote.objects.select_related("owner", "current_revision", "booked_revision")
            .defer(*CURRENT_REVISION_SNAPSHOTS, *BOOKED_REVISION_SNAPSHOTS)
            .get(pk=quote.pk)
        )
    return Response(
        quote_detailed(quote), status=status_code, headers={"ETag": etag(quote.version)}
    )


class InstallPackStateSerializer(serializers.ModelSerializer):
    status = serializers.ChoiceField(choices=InstallPackStatus.choices, read_only=True)

    class Meta:
        model = InstallPack
        fields = [
            "id",
            "status",
            "error",
            "sha256",
            "size",
            "site",
            "language",
            "created_at",
            "finished_at",
        ]


RevisionInstallPackSerializer = type(
    "RevisionInstallPackSerializer",
    (serializers.Serializer,),
    {
        **serializer_fields(SiteInputs),
        "language": serializers.ChoiceField(
            choices=settings.LANGUAGES,
            required=False,
            help_text="The words of the files people read (README.txt, racks.csv's "
            "weight_unknown, the elevations, the labels); the files tools read are the same in "
            "every language. Default: the customer's language. A sent revision keeps one pack "
            "per site and language.",
        ),
    },
)


class PackNotReady(APIException):
    status_code = 409
    default_code = "not_ready"


class _JsonForErrors(BaseContentNegotiation):
    """The pack view answers zip bytes itself; its errors are JSON whatever Accept says."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class PackQuery(serializers.Serializer):
    """GET .../install-pack/'s query: the pack's `language` (else the latest pack)."""

    language = serializers.ChoiceField(choices=settings.LANGUAGES, required=False)


PACK_LANGUAGE = OpenApiParameter(
    "language",
    OpenApiTypes.STR,
    OpenApiParameter.QUERY,
    enum=["en", "zh-hans"],
    description="The latest pack in this language (a sent revision keeps one per site and "
    "language). Default: the latest pack, whatever its language.",
)


class XlsxQuery(serializers.Serializer):
    """GET .../xlsx/'s query: `lang` (the share page's name; `language` as on .../proposal/)
    and `variant`."""

    lang = serializers.ChoiceField(choices=settings.LANGUAGES, required=False)
    language = serializers.ChoiceField(choices=settings.LANGUAGES, required=False)
    variant = serializers.ChoiceField(choices=["customer", "internal"], default="customer")


XLSX_PARAMETERS = [
    OpenApiParameter(
        "lang",
        OpenApiTypes.STR,
        OpenApiParameter.QUERY,
        enum=["en", "zh-hans"],
        description="The workbook's language (`language` is taken too). Default: the "
        "customer's language.",
    ),
    OpenApiParameter(
        "variant",
        OpenApiTypes.STR,
        OpenApiParameter.QUERY,
        enum=["customer", "internal"],
        description="`internal` adds unit cost, cost total, margin and margin % (403 unless "
        "you may see margins). Default: `customer`, which never holds cost or margin.",
    ),
]


def _write_schema(
    summary: str, request=EmptySerializer, response=QuoteDetailSerializer, ok: int = 200
):
    return extend_schema(
        summary=summary,
        request=request,
        parameters=[IF_MATCH],
        responses={ok: response, **errors(*QUOTE_WRITE_ERRORS)},
    )


@extend_schema_view(
    list=extend_schema(
        summary="List quotes you may see",
        responses={200: QuoteSerializer(many=True), **errors(*LIST_ERRORS)},
    ),
    create=extend_schema(
        summary="Create a draft quote from a saved design",
        request=QuoteCreateSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: QuoteDetailSerializer, **errors(*IDEMPOTENT_ERRORS)},
    ),
    partial_update=_write_schema(
        "Change the validity date, VAT, quote discount, payment schedule, additional terms, "
        "contact or external id",
        request=QuoteTermsSerializer,
    ),
)
class QuoteViewSet(
    ConflictMixin,
    ServiceCreateMixin,
    ServiceUpdateMixin,
    mixins.ListModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = QuoteSerializer
    filterset_class = QuoteFilter
    conflict_scopes = {**CONFLICT_SCOPES, Quote: quotes_visible_to}  # a taken external_id
    ordering_fields = ["number", "valid_until", "created_at", "updated_at", "status"]
    ordering = ["-year", "-seq"]
    if_match = True
    # Read by revisions/diff (a, b), xlsx (lang, language, variant) and install-pack (language);
    # others are a 400.
    extra_query_params = ("a", "b", "lang", "language", "variant")

    def get_queryset(self):
        quotes = quotes_visible_to(user=self.request.user)
        if self.action == "list":  # list() reads LISTED_VALUES only
            return quotes.select_related(None)
        if self.action == "retrieve":  # only what quote_detailed() prints
            return (
                quotes.select_related(None)
                .select_related("owner", "current_revision", "booked_revision")
                .only(*DETAILED_COLUMNS)
            )
        return quotes

    def list(self, request, *args, **kwargs):
        quotes = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(ListedRows(quotes, key=list_count_key(request, scope="api")))
        zone = timezone.get_current_timezone()
        return self.get_paginated_response([quote_listed(row, zone) for row in page])

    def get_input_serializer_class(self):
        return QuoteCreateSerializer if self.action == "create" else QuoteTermsSerializer

    def written(self, quote, status_code=status.HTTP_200_OK):
        return _quote_response(quote, status_code)

    def create_service(self, data):
        design = data["design"]
        return services.quote_create_from_design(
            project=design.project,
            design=design,
            user=self.request.user,
            currency=data.get("currency"),
            workload=data.get("workload"),
            contact=data.get("contact"),
            external_id=data.get("external_id"),
        )

    def update_service(self, quote, data):
        return services.quote_update_terms(quote=quote, user=self.request.user, **data)

    def _revision(self, quote: Quote, number) -> QuoteRevision:
        return get_object_or_404(
            QuoteRevision.objects.select_related("created_by"), quote=quote, number=number
        )

    @extend_schema(
        summary="One quote with its current totals; ETag is its version",
        responses={200: QuoteDetailSerializer, **errors(*READ_ERRORS)},
    )
    def retrieve(self, request, pk=None):
        # The list's filters have no say over one quote: building them cost a fifth of the call.
        quote = get_object_or_404(self.get_queryset(), pk=pk)
        self.check_object_permissions(request, quote)
        return _quote_response(quote, fresh=True)

    # --- revisions, events ---

    @extend_schema(
        summary="The quote's revisions",
        filters=False,
        responses={200: RevisionSerializer(many=True), **errors(*LIST_ERRORS)},
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def revisions(self, request, pk=None):
        quote = self.get_object()
        revisions = quote.revisions.select_related("created_by").order_by("number")
        return Response(RevisionSerializer(revisions, many=True).data)

    @extend_schema(
        summary="One revision with its lines",
        operation_id="v1_quotes_revision_retrieve",  # the path alone names the list's id too
        parameters=[NUMBER],
        responses={200: RevisionDetailSerializer, **errors(*READ_ERRORS)},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"revisions/(?P<number>[0-9]{1,5})",
        filter_backends=[],
        pagination_class=None,
    )
    def revision(self, request, pk=None, number=None):
        revision = self._revision(self.get_object(), number)
        return Response(RevisionDetailSerializer(revision, context={"request": request}).data)

    @extend_schema(
        summary="The revision's latest installation pack (zip), once a worker has built it",
        parameters=[NUMBER, PACK_LANGUAGE],
        responses={
            (200, "application/zip"): OpenApiResponse(
                OpenApiTypes.BINARY, description="The zip, as stored."
            ),
            **errors(400, *READ_ERRORS, 409),
        },
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"revisions/(?P<number>[0-9]{1,5})/install-pack",
        filter_backends=[],
        pagination_class=None,
        renderer_classes=[JSONRenderer],
        content_negotiation_class=_JsonForErrors,
    )
    def install_pack(self, request, pk=None, number=None):
        revision = self._revision(self.get_object(), number)
        query = PackQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        pack = install_pack_latest(revision=revision, language=query.validated_data.get("language"))
        if pack is None:
            raise NotFound(
                "No installation pack has been asked for this revision; POST to this URL first."
            )
        if pack.status != InstallPackStatus.READY:
            raise PackNotReady(f"The installation pack is {pack.status}. {pack.error}".strip())
        response = HttpResponse(bytes(pack.archive), content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="{pack.filename}"'
        response["Digest"] = f"sha-256={pack.sha256}"
        return response

    @extend_schema(
        summary="Ask for the revision's installation pack on a site (built by a worker; a sent "
        "revision keeps one pack per site; fields left out are the saved design's site)",
        parameters=[NUMBER],
        request=RevisionInstallPackSerializer,
        responses={202: InstallPackStateSerializer, **errors(*WRITE_ERRORS)},
    )
    @install_pack.mapping.post
    def install_pack_create(self, request, pk=None, number=None):
        revision = self._revision(self.get_object(), number)
        site = RevisionInstallPackSerializer(data=request.data)
        site.is_valid(raise_exception=True)
        # Only the fields sent: the others are the saved design's site, the one it was
        # measured on, so the pack buys what the quote does.
        given = {
            k: v for k, v in site.validated_data.items() if k in request.data and k != "language"
        }
        try:
            pack = install_pack_request(
                revision=revision,
                user=request.user,
                site=given,
                language=site.validated_data.get("language"),
            )
        except InvalidInput as error:
            raise validation_error(error) from error
        pack.refresh_from_db()  # built already when Celery runs eagerly
        return Response(InstallPackStateSerializer(pack).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        summary="What changed between two revisions",
        parameters=DIFF,
        responses={200: RevisionDiffSerializer, **errors(400, *READ_ERRORS)},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path="revisions/diff",
        filter_backends=[],
        pagination_class=None,
    )
    def revisions_diff(self, request, pk=None):
        quote = self.get_object()
        numbers = {}
        for name in ("a", "b"):
            value = request.query_params.get(name, "")
            if not value.isdigit() or len(value) > 5:
                raise serializers.ValidationError({name: ["Give a revision number."]})
            numbers[name] = int(value)
        diff = revision_diff(
            old=self._revision(quote, numbers["a"]), new=self._revision(quote, numbers["b"])
        )
        return Response(RevisionDiffSerializer(diff).data)

    @extend_schema(
        summary="The quote's audit trail, oldest first",
        responses={200: EventSerializer(many=True), **errors(*LIST_ERRORS)},
    )
    @action(detail=True, methods=["get"], filter_backends=[])
    def events(self, request, pk=None):
        page = self.paginate_queryset(quote_audit_trail(quote=self.get_object()))
        return self.get_paginated_response(EventSerializer(page, many=True).data)

    @extend_schema(
        summary="The quote as an Excel workbook (.xlsx): the booked configuration once "
        "accepted, else the current revision as quoted",
        description="Sheet `Quote`: seller, customer, dates, currency, the lines by section "
        "and the totals as formulas following the rounding rule (optional items and "
        "alternatives apart, outside the totals); sheet `BOM`: part numbers and quantities "
        "by part number, role and rack. Named `<number>-R<n>.xlsx`.",
        parameters=XLSX_PARAMETERS,
        responses={
            (200, XLSX_CONTENT_TYPE): OpenApiResponse(
                OpenApiTypes.BINARY, description="The workbook."
            ),
            **errors(400, *READ_ERRORS),
        },
    )
    @action(
        detail=True,
        methods=["get"],
        filter_backends=[],
        pagination_class=None,
        renderer_classes=[JSONRenderer],
        content_negotiation_class=_JsonForErrors,
    )
    def xlsx(self, request, pk=None):
        quote = self.get_object()
        query = XlsxQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        asked = query.validated_data
        internal = asked["variant"] == "internal"
        if internal and not may_view_margin(user=request.user):
            raise PermissionDenied("Cost and margin are for users who may see margins.")
        workbook = quote_xlsx(
            quote=quote,
            language=asked.get("lang") or asked.get("language") or quote.customer.language,
            internal=internal,
        )
        response = HttpResponse(workbook.content, content_type=workbook.content_type)
        response["Content-Disposition"] = f'attachment; filename="{workbook.filename}"'
        return response

    # --- lines ---

    @extend_schema(
        methods=["GET"],
        summary="Lines of the current revision",
        responses={200: LineSerializer(many=True), **errors(*LIST_ERRORS)},
    )
    @extend_schema(
        methods=["POST"],
        summary="Add a product or a free-text line",
        request=LineAddSerializer,
        parameters=[IF_MATCH],
        responses={201: LineSerializer, **errors(*QUOTE_WRITE_ERRORS)},
    )
    @action(detail=True, methods=["get", "post"], filter_backends=[], pagination_class=None)
    def lines(self, request, pk=None):
        quote = self.get_object()
        if request.method == "GET":
            lines = QuoteLine.objects.filter(revision_id=quote.current_revision_id)
            return Response(
                LineSerializer(lines.order_by("position"), many=True).data,
                headers={"ETag": etag(quote.version)},
            )
        version = if_match_version(request)
        data = _valid(LineAddSerializer, request)
        common = {
            "quote": quote,
            "user": request.user,
            "expected_version": version,
            "quantity": data["quantity"],
            "discount_percent": data.get("discount_percent", 0),
        }
        if "sku" in data:
            line = services.quote_add_product(
                sku=data["sku"], section=data.get("section"), **common
            )
        else:
            line = services.quote_add_free_text(
                description=data["description"],
                unit_price=data["unit_price"],
                section=data.get("section", Section.SERVICES),
                **common,
            )
        return Response(
            LineSerializer(line).data,
            status=status.HTTP_201_CREATED,
            headers={"ETag": etag(quote.version)},
        )

    @extend_schema(
        methods=["PATCH"],
        summary="Change a line's quantity, discount or price",
        request=LineUpdateSerializer,
        parameters=[LINE_ID, IF_MATCH],
        responses={200: LineSerializer, **errors(*QUOTE_WRITE_ERRORS)},
    )
    @extend_schema(
        methods=["DELETE"],
        summary="Remove a line",
        parameters=[LINE_ID, IF_MATCH],
        responses={204: None, **errors(*QUOTE_WRITE_ERRORS)},
    )
    @action(
        detail=True,
        methods=["patch", "delete"],
        url_path=r"lines/(?P<line_id>[0-9]{1,18})",
        filter_backends=[],
        pagination_class=None,
    )
    def line(self, request, pk=None, line_id=None):
        quote = self.get_object()
        line = get_object_or_404(QuoteLine, pk=line_id, revision__quote=quote)
        version = if_match_version(request)
        if request.method == "DELETE":
            services.quote_remove_line(
                quote=quote, line=line, user=request.user, expected_version=version
            )
            return Response(
                status=status.HTTP_204_NO_CONTENT, headers={"ETag": etag(quote.version)}
            )
        data = _valid(LineUpdateSerializer, request)
        line = services.quote_update_line(
            quote=quote, line=line, user=request.user, expected_version=version, **data
        )
        return Response(LineSerializer(line).data, headers={"ETag": etag(quote.version)})

    # --- alternatives ---

    @extend_schema(
        summary="Offer another saved design of the project as an alternative (good / better / "
        "best): its bill of materials priced now, outside the totals",
        request=AlternativeAddSerializer,
        parameters=[IF_MATCH, IDEMPOTENCY_KEY],
        responses={201: AlternativeSerializer, **errors(*QUOTE_WRITE_ERRORS, 422)},
    )
    @action(detail=True, methods=["post"], filter_backends=[], pagination_class=None)
    def alternatives(self, request, pk=None):
        quote = self.get_object()
        version = if_match_version(request)
        data = _valid(AlternativeAddSerializer, request)
        design = SavedDesign.objects.filter(
            pk=data["design"], project__in=projects_visible_to(user=request.user)
        ).first()
        if design is None:
            raise serializers.ValidationError({"design": ["No such saved design."]})
        lines = services.quote_add_alternative(
            quote=quote,
            design=design,
            label=data["label"],
            user=request.user,
            expected_version=version,
        )
        kit = [ln for ln in lines if ln.section == Section.OPTIONAL]
        body = {
            "label": data["label"].strip(),
            "design": design.pk,
            "lines": LineSerializer([ln for ln in lines if ln not in kit], many=True).data,
            "spares_kit": LineSerializer(kit, many=True).data,
        }
        return Response(body, status=status.HTTP_201_CREATED, headers={"ETag": etag(quote.version)})

    @extend_schema(
        summary="Withdraw an alternative (all its lines and its spares kit) from the current "
        "revision",
        parameters=[
            OpenApiParameter(
                "label",
                OpenApiTypes.STR,
                OpenApiParameter.PATH,
                description="The alternative's label, URL-encoded.",
            ),
            IF_MATCH,
        ],
        responses={204: None, **errors(*QUOTE_WRITE_ERRORS)},
    )
    @action(
        detail=True,
        methods=["delete"],
        url_path=r"alternatives/(?P<label>[^/]{1,300})",
        filter_backends=[],
        pagination_class=None,
    )
    def alternative(self, request, pk=None, label=None):
        quote = self.get_object()
        version = if_match_version(request)
        if not quote.revisions.filter(
            pk=quote.current_revision_id, lines__alternative_group=label
        ).exists():
            raise NotFound("This quote has no alternative with that label.")
        services.quote_remove_alternative(
            quote=quote, label=label, user=request.user, expected_version=version
        )
        return Response(status=status.HTTP_204_NO_CONTENT, headers={"ETag": etag(quote.version)})

    # --- the lifecycle ---

    @_write_schema("Ask a manager to approve the discount", request=NoteSerializer)
    @action(detail=True, methods=["post"], url_path="request-approval")
    def request_approval(self, request, pk=None):
        quote, version = self.get_object(), if_match_version(request)
        data = _valid(NoteSerializer, request)
        services.quote_request_approval(
            quote=quote, user=request.user, expected_version=version, note=data.get("note", "")
        )
        return _quote_response(quote)

    @_write_schema("Approve the pending discount (sales managers)", request=ReasonSerializer)
    @action(detail=True, methods=["post"])
    def approve(self, request, pk=None):
        quote, version = self.get_object(), if_match_version(request)
        data = _valid(ReasonSerializer, request)
        services.quote_approve(
            quote=quote, user=request.user, expected_version=version, reason=data.get("reason", "")
        )
        return _quote_response(quote)

    @_write_schema(
        "Reject the pending discount, saying why (sales managers)", request=RejectSerializer
    )
    @action(detail=True, methods=["post"])
    def reject(self, request, pk=None):
        quote, version = self.get_object(), if_match_version(request)
        data = _valid(RejectSerializer, request)
        services.quote_reject(
            quote=quote, user=request.user, expected_version=version, reason=data["reason"]
        )
        return _quote_response(quote)

    @_write_schema("Freeze the current revision and mark the quote sent")
    @action(detail=True, methods=["post"])
    def send(self, request, pk=None):
        quote, version = self.get_object(), if_match_version(request)
        services.quote_send(quote=quote, user=request.user, expected_version=version)
        return _quote_response(quote)

    @_write_schema(
        "Record that you checked the export-control note of the current revision (staff only; "
        "not legal advice): send/ answers 409 export_check_required until then"
    )
    @action(detail=True, methods=["post"], url_path="export-check")
    def export_check(self, request, pk=None):
        quote, version = self.get_object(), if_match_version(request)
        services.quote_export_check(quote=quote, user=request.user, expected_version=version)
        return _quote_response(quote)

    @_write_schema("Open the quote for editing (the next revision once sent)")
    @action(detail=True, methods=["post"])
    def revise(self, request, pk=None):
        quote, version = self.get_object(), if_match_version(request)
        services.quote_revise(quote=quote, user=request.user, expected_version=version)
        return _quote_response(quote)


@extend_schema_view(
    list=extend_schema(
        summary="Discount approvals of the quotes you may see",
        responses={200: ApprovalSerializer(many=True), **errors(*LIST_ERRORS)},
    ),
)
class ApprovalViewSet(ApiViewSetMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    serializer_class = ApprovalSerializer
    filterset_fields = ["decision"]
    ordering_fields = ["requested_at", "decided_at", "discount_percent"]
    ordering = ["-requested_at", "-pk"]

    def get_queryset(self):
        return Approval.objects.filter(
            revision__quote__in=quotes_visible_to(user=self.request.user).values("pk")
        ).select_related("revision__quote", "requested_by", "decided_by")

"""Renewals through the API: the terms due (/api/v1/renewals/), the renewal quote
(POST /api/v1/quotes/{id}/renewal/) and a term's start (PATCH /api/v1/quotes/{id}/terms/{key}/).

What a term is and when it is due: quoting.quotes.renewals.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from portal.api.base import (
    IDEMPOTENCY_KEY,
    IDEMPOTENT_ERRORS,
    IF_MATCH,
    LIST_ERRORS,
    QUOTE_WRITE_ERRORS,
    ApiViewSetMixin,
    UpdatedSinceFilter,
    errors,
    etag,
    if_match_version,
)
from quoting.quotes.api import QuoteDetailSerializer, _quote_response
from quoting.quotes.renewals import DUE_DAYS, MAX_WITHIN_DAYS, term_lines_ending
from quoting.quotes.selectors import quotes_visible_to
from quoting.quotes.services.renewals import quote_renewal_create, quote_term_start_set


class RenewalSerializer(serializers.Serializer):
    """One booked line with a term (quoting.quotes.renewals.TermLine)."""

    quote = serializers.IntegerField(source="line.revision.quote_id", help_text="The quote's id.")
    number = serializers.CharField(source="quote.number")
    customer = serializers.IntegerField(source="quote.customer_id", help_text="The customer's id.")
    company = serializers.CharField(source="quote.customer.company")
    line_key = serializers.UUIDField(
        source="line.key", help_text="The line's key (stable across revisions)."
    )
    sku = serializers.CharField(source="line.sku", help_text="Empty for a free-text line.")
    description = serializers.CharField(source="line.description")
    quantity = serializers.IntegerField(source="line.quantity")
    term_months = serializers.IntegerField(source="line.term_months")
    starts_on = serializers.DateField(source="line.starts_on")
    ends_on = serializers.DateField(
        help_text="starts_on plus term_months months: the first day the term no longer covers, "
        "and the day a renewal starts."
    )
    days_left = serializers.IntegerField(help_text="Days from today to ends_on.")
    currency = serializers.CharField(source="quote.currency")
    reminded = serializers.IntegerField(
        source="line.renewal_notified",
        allow_null=True,
        help_text="The last renewal.due sent for the line: 90, 60 or 30 days before its end; "
        "null: none yet.",
    )


class RenewalQuery(serializers.Serializer):
    within = serializers.IntegerField(min_value=0, max_value=MAX_WITHIN_DAYS, default=DUE_DAYS)


class TermStartSerializer(serializers.Serializer):
    starts_on = serializers.DateField(
        help_text="The term's new start (YYYY-MM-DD), from a year before to two years after the "
        "acceptance."
    )


WITHIN = OpenApiParameter(
    "within",
    OpenApiTypes.INT,
    OpenApiParameter.QUERY,
    description=f"Terms ending from today to this many days on (0 to {MAX_WITHIN_DAYS}; "
    f"default {DUE_DAYS}).",
)
LINE_KEY = OpenApiParameter(
    "line_key",
    OpenApiTypes.UUID,
    OpenApiParameter.PATH,
    description="The booked line's key (`line_key` of /renewals/, `key` of the lines).",
)


@extend_schema_view(
    list=extend_schema(
        summary="Support and licences due for renewal, of the quotes you may see",
        description="The booked lines with a term of accepted quotes, ending within `within` "
        "days (today included), soonest first; a quote being renewed (a renewal quote that is "
        "neither declined nor expired) is left out.",
        parameters=[WITHIN],
        responses={200: RenewalSerializer(many=True), **errors(*LIST_ERRORS)},
    ),
)
class RenewalViewSet(ApiViewSetMixin, viewsets.GenericViewSet):
    serializer_class = RenewalSerializer
    # `updated_since` on the quotes whose lines are listed (a term line changes with its quote).
    filter_backends = [UpdatedSinceFilter]
    extra_query_params = ("within",)

    def list(self, request, *args, **kwargs):
        query = RenewalQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        rows = term_lines_ending(
            quotes=self.filter_queryset(quotes_visible_to(user=request.user)),
            within=query.validated_data["within"],
        )
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


class QuoteRenewalViewSet(ApiViewSetMixin, viewsets.GenericViewSet):
    """An accepted quote's terms: its renewal quote, and when a term starts."""

    filter_backends: list = []
    pagination_class = None

    def get_queryset(self):
        return quotes_visible_to(user=self.request.user)

    @extend_schema(
        summary="Create the renewal quote of an accepted quote",
        description="A draft for the same customer and project renewing every booked line "
        "with a term: catalog products at today's prices, free-text lines at their price, each "
        "for 12 months from the day its term ends. 409 unless the quote is accepted, booked "
        "such lines and has no renewal that is neither declined nor expired.",
        request=None,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: QuoteDetailSerializer, **errors(*IDEMPOTENT_ERRORS)},
    )
    @action(detail=True, methods=["post"])
    def renewal(self, request, pk=None):
        renewal = quote_renewal_create(quote=self.get_object(), user=request.user)
        return _quote_response(renewal, status.HTTP_201_CREATED)

    @extend_schema(
        summary="Move the start of a booked line's term",
        description="The end moves with it and the line's reminders start over. 400 on "
        "`line_key` when the quote booked no line with a term under that key; 409 unless the "
        "quote is accepted.",
        request=TermStartSerializer,
        parameters=[LINE_KEY, IF_MATCH],
        responses={200: RenewalSerializer, **errors(*QUOTE_WRITE_ERRORS)},
    )
    @action(
        detail=True,
        methods=["patch"],
        url_path=r"terms/(?P<line_key>[0-9a-fA-F-]{36})",
    )
    def term(self, request, pk=None, line_key=None):
        quote = self.get_object()
        version = if_match_version(request)
        data = TermStartSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        term = quote_term_start_set(
            quote=quote,
            line_key=line_key,
            starts_on=data.validated_data["starts_on"],
            user=request.user,
            expected_version=version,
        )
        return Response(RenewalSerializer(term).data, headers={"ETag": etag(quote.version)})

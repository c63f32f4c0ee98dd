"""Proposal PDFs and share links through the API, scoped through the quote like everything else.

- POST /quotes/{id}/proposal/ asks for a PDF (202, rendered by a worker); GET on it, or on
  /proposals/{document_id}/, gives its state; /proposals/{document_id}/pdf/ the bytes when ready.
- /quotes/{id}/share-links/ lists and creates links; the token is in the create response only
  (only its SHA-256 is stored, so it can be neither shown again nor replayed).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db.models import Case, Value, When
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, NotFound, ValidationError
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from portal.api.base import (
    IDEMPOTENCY_KEY,
    IDEMPOTENT_ERRORS,
    READ_ERRORS,
    WRITE_ERRORS,
    ApiViewSetMixin,
    ErrorSerializer,
    errors,
)
from proposals.acceptance.as_built import as_built_sign_off_ask
from proposals.acceptance.selectors import acceptance_data, acceptance_for
from proposals.acceptance.services import acceptance_countersign
from proposals.documents.as_built import as_built_report_filename, as_built_report_pdf
from proposals.documents.selectors import documents_sent, documents_visible_to
from proposals.documents.services import proposal_request
from proposals.models import (
    AsBuiltSignOff,
    DocumentStatus,
    LinkView,
    ProposalDocument,
    ShareLink,
)
from proposals.share.services import share_link_create, share_link_revoke
from quoting.quotes.models import QuoteRevision
from quoting.quotes.selectors import quotes_visible_to
from quoting.quotes.services.as_built import as_built_check_of

RECENT_VIEWS = 5
RETRY_AFTER_SECONDS = 5  # a 200-line proposal renders in about 1.5 s

logger = logging.getLogger(__name__)


class NotReady(APIException):
    status_code = 409
    default_code = "not_ready"


# --- serializers ----------------------------------------------------------------------------------


class ProposalDocumentSerializer(serializers.ModelSerializer):
    quote = serializers.IntegerField(source="revision.quote_id")
    status = serializers.ChoiceField(
        choices=DocumentStatus.choices,
        help_text="pending, rendering, ready, failed (see `error`) or retired (a draft preview "
        "rendered before the revision was sent; never the offer).",
    )
    language = serializers.CharField(help_text="en or zh-hans.")
    revision = serializers.CharField(source="revision.label")
    revision_number = serializers.IntegerField(source="revision.number")
    draft = serializers.BooleanField(
        source="is_draft",
        help_text="A preview of a revision still being edited: every page "
        'says "Draft — not an offer"; never served to the customer.',
    )
    content_sha256 = serializers.CharField(
        help_text="The fingerprint of the revision content this PDF was rendered from (empty "
        "until rendered). A sent PDF's equals the fingerprint stored when the revision was sent."
    )
    created = serializers.DateTimeField(source="created_at")
    updated = serializers.DateTimeField(source="updated_at")
    url = serializers.SerializerMethodField(help_text="Poll this until `status` is final.")
    pdf_url = serializers.SerializerMethodField(help_text="Once `status` is ready, else null.")

    class Meta:
        model = ProposalDocument
        fields = [
            "id",
            "quote",
            "revision",
            "revision_number",
            "draft",
            "status",
            "language",
            "attempts",
            "error",
            "sha256",
            "content_sha256",
            "size",
            "created",
            "updated",
            "url",
            "pdf_url",
        ]
        read_only_fields = fields

    def _url(self, name: str, document) -> str:
        return self.context["request"].build_absolute_uri(reverse(name, args=[document.pk]))

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, document) -> str:
        return self._url("proposal-detail", document)

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_pdf_url(self, document) -> str | None:
        if document.status != DocumentStatus.READY:
            return None
        return self._url("proposal-pdf", document)


# A pattern, not an enum: a third `language` enum would collide with the customer's two.
@extend_schema_field({"type": "string", "pattern": "^(en|zh-hans)$"})
class LanguageField(serializers.ChoiceField):
    def __init__(self, **kwargs):
        super().__init__(choices=settings.LANGUAGES, **kwargs)


class ProposalRequestSerializer(serializers.Serializer):
    language = LanguageField(required=False, help_text="Defaults to the customer's language.")


class LanguageQuery(serializers.Serializer):
    language = LanguageField(required=False)


REVISION = OpenApiParameter(
    "revision",
    OpenApiTypes.INT,
    OpenApiParameter.QUERY,
    required=False,
    description="The revision's number (2 for R2). Default: the latest sent revision. A "
    "revision still being edited is previewed only when named here.",
)
AS_BUILT_NUMBER = OpenApiParameter(
    "number", OpenApiTypes.INT, OpenApiParameter.PATH, description="The revision number (1 for R1)."
)
AS_BUILT_CHECK_ID = OpenApiParameter(
    "check_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The as-built check's id."
)
LANGUAGE = OpenApiParameter(
    "language",
    OpenApiTypes.STR,
    OpenApiParameter.QUERY,
    required=False,
    enum=["en", "zh-hans"],
    description="Default: the customer's language.",
)


class LinkViewSerializer(serializers.ModelSerializer):
    revision = serializers.CharField(source="revision_label")
    system = serializers.CharField(source="os")

    class Meta:
        model = LinkView
        # kind: "real" opens are the customer reading; the others are scanners, previews, HEAD
        # requests, pages where no script ran or read under two seconds (issue 15).
        fields = [
            "at",
            "revision",
            "browser",
            "system",
            "is_mobile",
            "kind",
            "script_ran",
            "seconds",
            "sections",
        ]
        read_only_fields = fields


class ShareLinkSerializer(serializers.ModelSerializer):
    """Never the token nor its hash: the token exists only in the create response."""

    created = serializers.DateTimeField(source="created_at")
    active = serializers.BooleanField(source="is_active")
    recent_views = serializers.SerializerMethodField()

    class Meta:
        model = ShareLink
        fields = [
            "id",
            "recipient_name",
            "recipient_email",
            "created",
            "expires_at",
            "revoked_at",
            "active",
            "last_used_at",
            "use_count",
            "recent_views",
            "email_state",
            "emailed_at",
            "email_error",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "use_count": {
                "help_text": "Real opens: views whose page reported two seconds of reading. "
                "Counted from the customer's browser: anyone holding the link can inflate it."
            },
        }

    def get_recent_views(self, link) -> list[dict]:
        return LinkViewSerializer(link.views.all()[:RECENT_VIEWS], many=True).data


class AsBuiltSignOffSerializer(serializers.ModelSerializer):
    """The customer's sign-off of one as-built check: asked for (signed false), or signed on the
    quote's share page (who, when, their remarks; the report PDF prints the signature)."""

    check_id = serializers.IntegerField(source="as_built_check_id", read_only=True)
    asked_by = serializers.SlugRelatedField(
        source="offered_by", slug_field="username", read_only=True, allow_null=True
    )
    asked_at = serializers.DateTimeField(source="offered_at", read_only=True)
    signed = serializers.BooleanField(read_only=True)
    signature_kind = serializers.CharField(
        read_only=True, help_text='"drawn" or "typed"; empty until signed.'
    )
    language = serializers.CharField(
        read_only=True,
        help_text='The language the signer read ("en", "zh-hans"); empty until signed.',
    )

    class Meta:
        model = AsBuiltSignOff
        fields = [
            "id",
            "check_id",
            "asked_by",
            "asked_at",
            "signed",
            "signed_at",
            "signer_name",
            "signer_title",
            "signer_company",
            "remarks",
            "signature_kind",
            "language",
        ]
        read_only_fields = fields


class ShareLinkCreatedSerializer(ShareLinkSerializer):
    token = serializers.CharField(help_text="Shown in this response only; only its hash is kept.")
    link_url = serializers.URLField(help_text="The customer's page, /p/<token>. Shown once.")

    class Meta(ShareLinkSerializer.Meta):
        fields = [*ShareLinkSerializer.Meta.fields, "token", "link_url"]
        read_only_fields = fields


class ShareLinkCreateSerializer(serializers.Serializer):
    recipient_name = serializers.CharField(max_length=100, required=False, allow_blank=True)
    recipient_email = serializers.EmailField(max_length=254, required=False, allow_blank=True)
    days = serializers.IntegerField(
        min_value=1, max_value=365, required=False, help_text="Days until it expires (30)."
    )
    send_email = serializers.BooleanField(
        required=False,
        default=False,
        help_text="E-mail the link to recipient_email from the portal (Reply-To: you), after "
        "the link is made; the link's email_state says how it went.",
    )
    message = serializers.CharField(
        max_length=2000, required=False, allow_blank=True, help_text="Your message in the e-mail."
    )
    # The one language choice set of the schema (no blank: left out means the customer's).
    language = LanguageField(
        required=False, help_text="The e-mail's language (the customer's by default)."
    )


class InvoiceDetailsSerializer(serializers.Serializer):
    company = serializers.CharField()
    tax_id = serializers.CharField(help_text="Unified social credit code (18 characters).")
    address_phone = serializers.CharField()
    bank_account = serializers.CharField()


class AcceptanceTotalsSerializer(serializers.Serializer):
    subtotal = serializers.DecimalField(max_digits=16, decimal_places=2, allow_null=True)
    discount = serializers.DecimalField(max_digits=16, decimal_places=2, allow_null=True)
    net = serializers.DecimalField(max_digits=16, decimal_places=2, allow_null=True)
    tax = serializers.DecimalField(max_digits=16, decimal_places=2, allow_null=True)
    total = serializers.DecimalField(max_digits=16, decimal_places=2, allow_null=True)


class ChosenOptionalSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="The optional line's key (a UUID).")
    description = serializers.CharField()


class CountersignatureSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The countersigning user's full name, as printed.")
    title = serializers.CharField(help_text="Their job title, as printed (may be empty).")
    countersigned_at = serializers.DateTimeField()
    user_id = serializers.IntegerField(allow_null=True)


class AcceptanceSerializer(serializers.Serializer):
    """The customer's signed acceptance. The quote.accepted webhook carries the same fields
    (signed_* null: the signed copy is made after the answer), and quote.signed_copy_ready
    carries them again once the signed copy is stored."""

    signer = serializers.CharField()
    title = serializers.CharField()
    company = serializers.CharField()
    signed_at = serializers.DateTimeField()
    signer_timezone = serializers.CharField(
        help_text="IANA name from the signer's browser, or empty."
    )
    signature_kind = serializers.ChoiceField(choices=["drawn", "typed"])
    revision = serializers.CharField(help_text="The accepted revision's label, e.g. R2.")
    revision_number = serializers.IntegerField()
    language = serializers.CharField(help_text="The language of the PDF accepted.")
    link_id = serializers.IntegerField(allow_null=True, help_text="The share link used.")
    link_recipient = serializers.CharField()
    signer_email = serializers.CharField(  # not EmailField: its "" would match two schemas
        allow_blank=True,
        help_text="The link's recipient address the signer proved they read with a one-time "
        "code e-mailed there; empty when the link had no address (not verified by e-mail).",
    )
    signer_email_verified_at = serializers.DateTimeField(
        allow_null=True, help_text="When the signer's code was given back; null: not verified."
    )
    browser = serializers.CharField()
    system = serializers.CharField()
    is_mobile = serializers.BooleanField()
    document_sha256 = serializers.CharField(
        allow_null=True,
        help_text="SHA-256 of the exact PDF accepted; null until it is bound "
        "(when no PDF was ready at acceptance, the worker binds the revision's PDF once ready).",
    )
    signed_status = serializers.ChoiceField(choices=DocumentStatus.choices)
    signed_pdf_url = serializers.URLField(
        allow_null=True,
        help_text="Once signed_status is ready: the original's pages plus a certificate page.",
    )
    signed_sha256 = serializers.CharField(allow_null=True)
    po_number = serializers.CharField()
    invoice = InvoiceDetailsSerializer(allow_null=True, help_text="Fapiao details, if given.")
    chosen_alternative = serializers.CharField(help_text="Empty: as quoted.")
    chosen_optional = ChosenOptionalSerializer(
        many=True, help_text="The optional lines included, in the quote's order."
    )
    accepted_totals = AcceptanceTotalsSerializer(
        allow_null=True,
        help_text="The totals of what the customer chose (null for an acceptance recorded "
        "before choices were kept).",
    )
    as_sent_totals = AcceptanceTotalsSerializer(
        help_text="The accepted revision's totals as sent (no optional item, no alternative)."
    )
    countersignature = CountersignatureSerializer(
        allow_null=True,
        help_text="The seller's countersignature (POST .../countersign/); null until given. "
        "Giving it makes the signed copy again (signed_status back to pending, then a new "
        "signed_sha256).",
    )


# --- views ----------------------------------------------------------------------------------------


class _JsonForErrors(BaseContentNegotiation):
    """The PDF view answers PDF bytes itself; its errors are JSON whatever Accept says."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


LINK_ID = OpenApiParameter("link_id", OpenApiTypes.INT, OpenApiParameter.PATH)


# A quote's proposal PDFs and share links (the quote must be one you may see).
# (A comment, not a docstring: the schema would show it as every operation's description.)
class QuoteProposalViewSet(ApiViewSetMixin, viewsets.GenericViewSet):
    filter_backends: list = []
    extra_query_params = ("revision", "language")  # read by the actions (unknown ones: 400)
    pagination_class = None
    # A new link's token is shown once and kept only as a hash: its answer is never replayed.
    idempotency_unstored_actions = ("share_link_new",)

    def get_queryset(self):
        return quotes_visible_to(user=self.request.user)

    def _revision_asked(self, request, quote) -> QuoteRevision:
        """`?revision=N`, else the latest sent revision: a CRM that has just sent R1 gets R1's
        PDF, never another user's new draft. A draft is previewed only when named."""
        asked = (request.query_params.get("revision") or "").strip()
        if not asked:
            revision = quote.revisions.filter(sent_at__isnull=False).order_by("-number").first()
            if revision is None:
                raise ValidationError(
                    {
                        "revision": [
                            "This quote has not been sent yet: name the revision to preview as a "
                            "draft (?revision=N)."
                        ]
                    }
                )
            return revision
        if not (asked.isascii() and asked.isdigit()) or len(asked) > 5:
            raise ValidationError({"revision": ["A revision number, e.g. 2 for R2."]})
        revision = quote.revisions.filter(number=int(asked)).first()
        if revision is None:
            raise ValidationError({"revision": [f"This quote has no revision {int(asked)}."]})
        return revision

    @extend_schema(
        summary="The proposal document of a revision (default: the latest sent revision)",
        description="For a sent revision: its latest sent PDF (the one the customer reads and "
        "signs), ready or on its way. For a draft named with `?revision=N`: its latest preview. "
        "`language` narrows to one language.",
        parameters=[REVISION, LANGUAGE],
        responses={200: ProposalDocumentSerializer, **errors(400, *READ_ERRORS)},
    )
    @action(detail=True, methods=["get"])
    def proposal(self, request, pk=None):
        quote = self.get_object()
        revision = self._revision_asked(request, quote)
        asked = LanguageQuery(data=request.query_params)
        asked.is_valid(raise_exception=True)
        documents = (
            documents_sent(revision=revision)
            if revision.is_frozen
            else ProposalDocument.objects.filter(revision=revision).defer("pdf")
        )
        # A named language, else the customer's first (after a send there is one sent PDF per
        # language), else the latest of any language (a draft previewed in another).
        language = asked.validated_data.get("language")
        if language:
            documents = documents.filter(language=language)
        customers = Case(When(language=quote.customer.language, then=Value(0)), default=Value(1))
        document = (
            documents.select_related("revision").order_by(customers, "-created_at", "-pk").first()
        )
        if document is None:
            return Response(
                {
                    "detail": f"No proposal has been requested for {revision.label}"
                    + (f" in {language}." if language else ".")
                },
                status=status.HTTP_404_NOT_FOUND,
            )
        return Response(ProposalDocumentSerializer(document, context={"request": request}).data)

    @extend_schema(
        summary="Ask for the proposal PDF of a revision (default: the latest sent revision; "
        "rendered by a worker; poll `url`)",
        description="A sent revision has one PDF per language for good: asking again returns "
        'it. A draft named with `?revision=N` gets a new preview marked "Draft — not an '
        'offer" on every page.',
        request=ProposalRequestSerializer,
        parameters=[REVISION, IDEMPOTENCY_KEY],
        responses={202: ProposalDocumentSerializer, **errors(*IDEMPOTENT_ERRORS)},
    )
    @proposal.mapping.post
    def proposal_create(self, request, pk=None):
        quote = self.get_object()
        revision = self._revision_asked(request, quote)
        data = ProposalRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        document = proposal_request(
            revision=revision,
            user=request.user,
            language=data.validated_data.get("language"),
        )
        document.refresh_from_db()  # rendered already when Celery runs eagerly
        body = ProposalDocumentSerializer(document, context={"request": request}).data
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})

    def _acceptance(self, quote):
        acceptance = acceptance_for(quote=quote)
        if acceptance is None:
            raise NotFound("This quote has not been accepted through a share link.")
        return acceptance

    @extend_schema(
        summary="The customer's signed acceptance (404 until accepted)",
        responses={200: AcceptanceSerializer, **errors(*READ_ERRORS)},
    )
    @action(detail=True, methods=["get"])
    def acceptance(self, request, pk=None):
        quote = self.get_object()
        acceptance = self._acceptance(quote)
        url = request.build_absolute_uri(
            reverse("quote-proposal-acceptance-signed-pdf", args=[quote.pk])
        )
        return Response(acceptance_data(acceptance, signed_pdf_url=url))

    @extend_schema(
        summary="Countersign the customer's acceptance for the seller (sales managers and "
        "directors)",
        description="Records the countersignature once, under the calling user's name and job "
        "title, and makes the signed copy again with the seller's column of the signature "
        "block filled and the company chop: signed_status is pending until it is ready (the "
        "quote.signed_copy_ready webhook then carries the new signed_sha256). 403 for a user "
        "who may not countersign; 409 when the quote has no acceptance or it is already "
        "countersigned.",
        request=None,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: AcceptanceSerializer, **errors(*IDEMPOTENT_ERRORS)},
    )
    @action(detail=True, methods=["post"])
    def countersign(self, request, pk=None):
        quote = self.get_object()
        acceptance = acceptance_countersign(quote=quote, user=request.user)
        url = request.build_absolute_uri(
            reverse("quote-proposal-acceptance-signed-pdf", args=[quote.pk])
        )
        return Response(acceptance_data(acceptance, signed_pdf_url=url))

    @extend_schema(
        summary="The signed copy: the accepted PDF's pages unchanged, then the certificate",
        responses={
            (200, "application/pdf"): OpenApiResponse(
                OpenApiTypes.BINARY, description="The signed copy."
            ),
            **errors(*READ_ERRORS),
            409: OpenApiResponse(
                ErrorSerializer, description="Not made yet: see the acceptance's signed_status."
            ),
        },
    )
    @action(
        detail=True,
        methods=["get"],
        url_path="acceptance/signed-pdf",
        url_name="acceptance-signed-pdf",
        renderer_classes=[JSONRenderer],
        content_negotiation_class=_JsonForErrors,
    )
    def acceptance_signed_pdf(self, request, pk=None):
        acceptance = self._acceptance(self.get_object())
        if acceptance.signed_status != DocumentStatus.READY:
            raise NotReady(f"The signed copy is not ready: it is {acceptance.signed_status}.")
        acceptance.refresh_from_db(fields=["signed_pdf"])
        response = HttpResponse(bytes(acceptance.signed_pdf), content_type="application/pdf")
        response["Content-Disposition"] = (
            f'attachment; filename="{acceptance.revision.quote.number}-'
            f'{acceptance.revision.label}-signed.pdf"'
        )
        return response

    @extend_schema(
        summary="An as-built check's printable acceptance report (PDF)",
        description='The counts, the problems by cable ID and label, "cabled as planned: N of '
        'M links" and lines for the customer and the installer to sign; rendered when asked. '
        "See POST /quotes/{id}/revisions/{number}/as-built/.",
        parameters=[AS_BUILT_NUMBER, AS_BUILT_CHECK_ID, LANGUAGE],
        responses={
            (200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY, description="The PDF."),
            **errors(400, *READ_ERRORS),
        },
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"revisions/(?P<number>[0-9]{1,5})/as-built/(?P<check_id>[0-9]{1,18})/pdf",
        url_name="as-built-report-pdf",
        renderer_classes=[JSONRenderer],
        content_negotiation_class=_JsonForErrors,
    )
    def as_built_report_pdf(self, request, pk=None, number=None, check_id=None):
        quote = self.get_object()
        revision = get_object_or_404(QuoteRevision, quote=quote, number=number)
        check = as_built_check_of(revision=revision, check_id=int(check_id))
        if check is None:
            raise NotFound("This revision has no as-built check with this id.")
        asked = LanguageQuery(data=request.query_params)
        asked.is_valid(raise_exception=True)
        language = asked.validated_data.get("language") or quote.customer.language
        response = HttpResponse(
            as_built_report_pdf(check=check, language=language), content_type="application/pdf"
        )
        response["Content-Disposition"] = (
            f'attachment; filename="{as_built_report_filename(check)}"'
        )
        return response

    def _as_built_check(self, number, check_id):
        quote = self.get_object()
        revision = get_object_or_404(QuoteRevision, quote=quote, number=number)
        check = as_built_check_of(revision=revision, check_id=int(check_id))
        if check is None:
            raise NotFound("This revision has no as-built check with this id.")
        return check

    @extend_schema(
        summary="An as-built check's customer sign-off: asked for, or signed",
        description="404 until a sign-off is asked for (POST). The customer signs on the "
        "quote's share page; then `signed` is true and the report PDF prints the signature.",
        parameters=[AS_BUILT_NUMBER, AS_BUILT_CHECK_ID],
        responses={200: AsBuiltSignOffSerializer, **errors(*READ_ERRORS)},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"revisions/(?P<number>[0-9]{1,5})/as-built/(?P<check_id>[0-9]{1,18})/sign-off",
        url_name="as-built-sign-off",
    )
    def as_built_sign_off(self, request, pk=None, number=None, check_id=None):
        check = self._as_built_check(number, check_id)
        sign_off = AsBuiltSignOff.objects.filter(as_built_check=check).first()
        if sign_off is None:
            raise NotFound("No sign-off was asked for on this check.")
        return Response(AsBuiltSignOffSerializer(sign_off).data)

    @extend_schema(
        summary="Ask the customer to sign an as-built check's report on the share page",
        description="Only a check of the accepted (booked) revision: 409 otherwise, and 409 when "
        "the customer already signed this check. Replaces the quote's unsigned request, if any.",
        request=None,
        parameters=[AS_BUILT_NUMBER, AS_BUILT_CHECK_ID, IDEMPOTENCY_KEY],
        responses={201: AsBuiltSignOffSerializer, **errors(*IDEMPOTENT_ERRORS)},
    )
    @as_built_sign_off.mapping.post
    def as_built_sign_off_new(self, request, pk=None, number=None, check_id=None):
        check = self._as_built_check(number, check_id)
        sign_off = as_built_sign_off_ask(check=check, user=request.user)
        return Response(AsBuiltSignOffSerializer(sign_off).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="The quote's share links (never their tokens)",
        responses={200: ShareLinkSerializer(many=True), **errors(*READ_ERRORS)},
    )
    @action(detail=True, methods=["get"], url_path="share-links")
    def share_links(self, request, pk=None):
        links = self.get_object().share_links.all()
        return Response(ShareLinkSerializer(links, many=True).data)

    @extend_schema(
        summary="Share the quote with one recipient; the token is in this response only",
        description="Not replayable with Idempotency-Key: the token is never stored, so a retry "
        "makes another link (revoke the one you did not get). The quote must have been sent.",
        request=ShareLinkCreateSerializer,
        responses={201: ShareLinkCreatedSerializer, **errors(*WRITE_ERRORS)},
    )
    @share_links.mapping.post
    def share_link_new(self, request, pk=None):
        quote = self.get_object()
        data = ShareLinkCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        link, token = share_link_create(quote=quote, user=request.user, **data.validated_data)
        link.refresh_from_db()  # the e-mail's state, if it was sent in-process
        body = ShareLinkSerializer(link).data
        body["token"] = token
        body["link_url"] = request.build_absolute_uri(reverse("proposals:shared", args=[token]))
        # The token is in this answer only: no cache (a proxy, the client's) may keep it.
        return Response(body, status=status.HTTP_201_CREATED, headers={"Cache-Control": "no-store"})

    @extend_schema(
        summary="Revoke a share link (its page then answers 404)",
        request=None,
        parameters=[LINK_ID],
        responses={200: ShareLinkSerializer, **errors(*WRITE_ERRORS)},
    )
    @action(detail=True, methods=["post"], url_path=r"share-links/(?P<link_id>[^/.]+)/revoke")
    def share_link_cancel(self, request, pk=None, link_id=None):
        quote = self.get_object()
        # A malformed id gets the API's JSON 404, not the router's HTML one.
        if not (link_id.isascii() and link_id.isdigit()) or len(link_id) > 18:
            raise NotFound()
        link = get_object_or_404(ShareLink, pk=link_id, quote=quote)
        link = share_link_revoke(link=link, user=request.user)
        return Response(ShareLinkSerializer(link).data)


# A proposal document of a quote you may see: its state, and its PDF once ready.
# (A comment, not a docstring: the schema would show it as every operation's description.)
class ProposalDocumentViewSet(ApiViewSetMixin, viewsets.GenericViewSet):
    serializer_class = ProposalDocumentSerializer
    filter_backends: list = []
    pagination_class = None

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no user
            return ProposalDocument.objects.none()
        return documents_visible_to(user=self.request.user)

    @extend_schema(
        summary="One proposal document's state",
        responses={200: ProposalDocumentSerializer, **errors(*READ_ERRORS)},
    )
    def retrieve(self, request, pk=None):
        return Response(self.get_serializer(self.get_object()).data)

    @extend_schema(
        summary="The PDF (the very bytes stored, SHA-256 in the document's state)",
        responses={
            (200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY, description="The PDF."),
            **errors(*READ_ERRORS),
            202: OpenApiResponse(
                ProposalDocumentSerializer,
                description="Not ready yet (pending or rendering): the document's state, with "
                "`Retry-After` (seconds) and `Location` (the state to poll).",
            ),
            409: OpenApiResponse(
                ErrorSerializer,
                description="No PDF will come: the document failed (see `error`) or was "
                "retired (a draft preview of a revision since sent).",
            ),
        },
    )
    @action(
        detail=True,
        methods=["get"],
        renderer_classes=[JSONRenderer],
        content_negotiation_class=_JsonForErrors,
    )
    def pdf(self, request, pk=None):
        document = self.get_object()
        if document.status in (DocumentStatus.PENDING, DocumentStatus.RENDERING):
            # Routine: the worker is on it. Not a 5xx, and logged at INFO only.
            logger.info("proposal document %s not ready yet (%s)", document.pk, document.status)
            body = self.get_serializer(document).data
            return Response(
                body,
                status=status.HTTP_202_ACCEPTED,
                headers={"Retry-After": str(RETRY_AFTER_SECONDS), "Location": body["url"]},
            )
        if document.status != DocumentStatus.READY:
            raise NotReady(
                f"There is no PDF: the document is {document.status}"
                + (f" ({document.error})" if document.error else "")
                + "."
            )
        response = HttpResponse(bytes(document.pdf), content_type="application/pdf")
        response["Content-Disposition"] = f'attachment; filename="{document.filename}"'
        return response

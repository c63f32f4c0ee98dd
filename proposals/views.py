"""Staff views: the proposal panel on a quote (documents, share links, the acceptance)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from proposals.acceptance.as_built import as_built_sign_off_ask
from proposals.acceptance.selectors import (
    acceptance_for,
    chosen_configuration,
)
from proposals.acceptance.services import acceptance_countersign
from proposals.documents.as_built import as_built_report_filename, as_built_report_pdf
from proposals.documents.selectors import documents_visible_to
from proposals.documents.services import proposal_request
from proposals.forms import GenerateForm, ShareLinkForm
from proposals.models import Acceptance, DocumentStatus, ProposalDocument, ShareLink
from proposals.share.qr import link_qr_svg
from proposals.share.selectors import share_links_for_panel
from proposals.share.services import (
    share_link_create,
    share_link_revoke,
)
from proposals.share.views import _pdf_response, _signed_copy_response
from quoting.errors import QuoteError
from quoting.quotes.models import QuoteEvent, QuoteRevision, QuoteStatus
from quoting.quotes.permissions import may_countersign
from quoting.quotes.selectors import quotes_visible_to
from quoting.quotes.services.as_built import as_built_check_of

# --- staff ---------------------------------------------------------------------------------------


def _quote(request: HttpRequest, quote_id: int):
    return get_object_or_404(quotes_visible_to(user=request.user), pk=quote_id)


def _panel(request: HttpRequest, quote, *, new_link_url: str = "", form=None, error: str = ""):
    """The panel; `new_link_url` is a link just made, shown this once with its QR code."""
    revision = quote.current_revision
    documents = (
        ProposalDocument.objects.filter(revision=revision).select_related("revision__quote")[:4]
        if revision
        else []
    )
    acceptance = acceptance_for(quote=quote)
    answer = (
        QuoteEvent.objects.filter(
            quote=quote,
            verb="status_changed",
            details__after__in=[QuoteStatus.ACCEPTED, QuoteStatus.DECLINED],
        )
        .order_by("-at", "-pk")
        .first()
    )
    return render(
        request,
        "proposals/_panel.html",
        {
            "quote": quote,
            "documents": documents,
            "links": share_links_for_panel(quote=quote),
            "answer": answer,
            "configuration": _accepted_configuration(quote, answer),
            "generate_form": GenerateForm(initial={"language": quote.customer.language}),
            "link_form": form or ShareLinkForm(initial={"language": quote.customer.language}),
            "can_share": QuoteRevision.objects.filter(quote=quote, sent_at__isnull=False).exists(),
            "new_link_url": new_link_url,
            "new_link_qr": new_link_url and link_qr_svg(new_link_url, title=gettext("QR code")),
            "error": error,
            "acceptance": acceptance,
            # Asked only when there is an acceptance to countersign.
            "may_countersign": acceptance is not None and may_countersign(user=request.user),
        },
    )


def _accepted_configuration(quote, answer):
    """What the customer chose when they accepted through a link, beside the quote as sent."""
    if answer is None or answer.details.get("after") != QuoteStatus.ACCEPTED:
        return None
    acceptance = Acceptance.objects.filter(revision__quote=quote).select_related("revision").first()
    return None if acceptance is None else chosen_configuration(acceptance)


@login_required
@require_GET
def proposal_page(request: HttpRequest, quote_id: int) -> HttpResponse:
    """The panel on a page of its own, until the quote page hosts it."""
    return render(request, "proposals/page.html", {"quote": _quote(request, quote_id)})


@login_required
@require_GET
def proposal_panel(request: HttpRequest, quote_id: int) -> HttpResponse:
    return _panel(request, _quote(request, quote_id))


@login_required
@require_POST
def proposal_generate(request: HttpRequest, quote_id: int) -> HttpResponse:
    quote = _quote(request, quote_id)
    form = GenerateForm(request.POST)
    language = form.cleaned_data["language"] if form.is_valid() else None
    try:
        proposal_request(revision=quote.current_revision, user=request.user, language=language)
    except QuoteError as exc:
        return _panel(request, quote, error=exc.message)
    if not request.htmx:
        return redirect("proposals:page", quote_id=quote.pk)
    return _panel(request, quote)


@login_required
@require_GET
def document_status(request: HttpRequest, document_id: int) -> HttpResponse:
    document = get_object_or_404(documents_visible_to(user=request.user), pk=document_id)
    return render(request, "proposals/_document.html", {"document": document})


@login_required
@require_GET
def document_pdf(request: HttpRequest, document_id: int) -> HttpResponse:
    document = get_object_or_404(
        documents_visible_to(user=request.user), pk=document_id, status="ready"
    )
    return _pdf_response(document)


@login_required
@require_GET
def as_built_pdf(request: HttpRequest, quote_id: int, number: int, check_id: int) -> HttpResponse:
    """An as-built check's acceptance report, in `?language=` (else the customer's)."""
    quote = _quote(request, quote_id)
    revision = get_object_or_404(QuoteRevision, quote=quote, number=number)
    check = as_built_check_of(revision=revision, check_id=check_id)
    if check is None:
        raise Http404
    asked = request.GET.get("language", "")
    language = asked if asked in dict(settings.LANGUAGES) else quote.customer.language
    response = HttpResponse(
        as_built_report_pdf(check=check, language=language), content_type="application/pdf"
    )
    response["Content-Disposition"] = f'attachment; filename="{as_built_report_filename(check)}"'
    return response


@login_required
@require_POST
def as_built_sign_off_request(
    request: HttpRequest, quote_id: int, number: int, check_id: int
) -> HttpResponse:
    """Ask the customer to sign this check's report on the quote's share page."""
    quote = _quote(request, quote_id)
    revision = get_object_or_404(QuoteRevision, quote=quote, number=number)
    check = as_built_check_of(revision=revision, check_id=check_id)
    if check is None:
        raise Http404
    try:
        as_built_sign_off_ask(check=check, user=request.user)
    except QuoteError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            gettext(
                "The customer can now sign this report on the quote's share page (any live "
                "link of the quote)."
            ),
        )
    return redirect(
        reverse("quoting:quote-as-built-result", args=[quote.pk, number, check.pk]) + "#sign-off"
    )


def _staff_acceptance(request: HttpRequest, quote_id: int):
    acceptance = acceptance_for(quote=_quote(request, quote_id))
    if acceptance is None:
        raise Http404
    return acceptance


@login_required
@require_GET
def acceptance_panel(request: HttpRequest, quote_id: int) -> HttpResponse:
    """The Acceptance part of the panel, polled while the signed copy is being made."""
    acceptance = _staff_acceptance(request, quote_id)
    return render(
        request,
        "proposals/_acceptance.html",
        {
            "acceptance": acceptance,
            "quote": acceptance.revision.quote,
            "may_countersign": may_countersign(user=request.user),
        },
    )


@login_required
@require_POST
def acceptance_countersign_view(request: HttpRequest, quote_id: int) -> HttpResponse:
    """The seller's countersignature, from the Acceptance part of the panel."""
    quote = _quote(request, quote_id)
    try:
        acceptance_countersign(quote=quote, user=request.user)
    except QuoteError as exc:
        response = _panel(request, quote, error=exc.message)
        if not request.htmx:  # htmx swaps 2xx answers only: the message shows in the panel
            response.status_code = exc.status_code
        return response
    if not request.htmx:
        return redirect("proposals:page", quote_id=quote.pk)
    return _panel(request, quote)


@login_required
@require_GET
def acceptance_signed_pdf(request: HttpRequest, quote_id: int) -> HttpResponse:
    acceptance = _staff_acceptance(request, quote_id)
    if acceptance.signed_status != DocumentStatus.READY:
        raise Http404
    acceptance.refresh_from_db(fields=["signed_pdf"])
    return _signed_copy_response(acceptance)


@login_required
@require_GET
def acceptance_signature(request: HttpRequest, quote_id: int) -> HttpResponse:
    """The signature image, for the staff page (an image URL of ours, not a data: URL)."""
    acceptance = _staff_acceptance(request, quote_id)
    if not acceptance.signature_png:
        raise Http404
    response = HttpResponse(bytes(acceptance.signature_png), content_type="image/png")
    response["Cache-Control"] = "private, no-store"
    response["X-Content-Type-Options"] = "nosniff"
    return response


@login_required
@require_POST
def share_link_new(request: HttpRequest, quote_id: int) -> HttpResponse:
    quote = _quote(request, quote_id)
    form = ShareLinkForm(request.POST)
    if not form.is_valid():
        return _panel(request, quote, form=form)
    try:
        _, token = share_link_create(quote=quote, user=request.user, **form.cleaned_data)
    except QuoteError as exc:
        if exc.field in form.fields:  # at the field it is about
            form.add_error(exc.field, exc.message)
            return _panel(request, quote, form=form)
        return _panel(request, quote, form=form, error=exc.message)
    # Shown once, now: only the token's hash is stored, and no cache may keep this answer.
    url = request.build_absolute_uri(reverse("proposals:shared", args=[token]))
    response = _panel(request, quote, new_link_url=url)
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def share_link_cancel(request: HttpRequest, link_id: int) -> HttpResponse:
    link = get_object_or_404(
        ShareLink.objects.filter(quote__in=quotes_visible_to(user=request.user)), pk=link_id
    )
    share_link_revoke(link=link, user=request.user)
    return _panel(request, _quote(request, link.quote_id))

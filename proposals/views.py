"""Staff views (the proposal panel on a quote) and the customer's share-link pages."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from quoting.models import QuoteEvent, QuoteStatus
from quoting.selectors import quotes_visible_to
from quoting.services.errors import QuoteError

from .forms import AcceptForm, DeclineForm, GenerateForm, ShareLinkForm
from .guard import shared_route
from .models import ProposalDocument, ShareLink
from .pdf import shared_content_html
from .selectors import (
    document_for,
    document_ready_for,
    documents_visible_to,
    revision_shared,
    share_links_for_panel,
)
from .services import (
    link_view_record,
    proposal_request,
    share_accept,
    share_decline,
    share_link_create,
    share_link_revoke,
)

# --- staff ---------------------------------------------------------------------------------------


def _quote(request: HttpRequest, quote_id: int):
    return get_object_or_404(quotes_visible_to(user=request.user), pk=quote_id)


def _pdf_response(document: ProposalDocument) -> HttpResponse:
    response = HttpResponse(bytes(document.pdf), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{document.filename}"'
    response["Content-Length"] = str(document.size)
    return response


def _panel(request: HttpRequest, quote, *, new_link_url: str = "", form=None, error: str = ""):
    revision = quote.current_revision
    documents = (
        ProposalDocument.objects.filter(revision=revision).select_related("revision__quote")[:4]
        if revision
        else []
    )
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
            "generate_form": GenerateForm(initial={"language": quote.customer.language}),
            "link_form": form or ShareLinkForm(),
            "new_link_url": new_link_url,
            "error": error,
        },
    )


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
@require_POST
def share_link_new(request: HttpRequest, quote_id: int) -> HttpResponse:
    quote = _quote(request, quote_id)
    form = ShareLinkForm(request.POST)
    if not form.is_valid():
        return _panel(request, quote, form=form)
    try:
        _, token = share_link_create(quote=quote, user=request.user, **form.cleaned_data)
    except QuoteError as exc:
        return _panel(request, quote, form=form, error=exc.message)
    # Shown once, now: only the token's hash is stored.
    url = request.build_absolute_uri(reverse("proposals:shared", args=[token]))
    return _panel(request, quote, new_link_url=url)


@login_required
@require_POST
def share_link_cancel(request: HttpRequest, link_id: int) -> HttpResponse:
    link = get_object_or_404(
        ShareLink.objects.filter(quote__in=quotes_visible_to(user=request.user)), pk=link_id
    )
    share_link_revoke(link=link, user=request.user)
    return _panel(request, _quote(request, link.quote_id))


# --- customers -----------------------------------------------------------------------------------


def _shared_page(request, link, *, status=200, accept_form=None, decline_form=None, error="",
                 revision=None):
    revision = revision or revision_shared(link=link)
    if revision is None:  # every sent revision gone: nothing to show, same as an unknown link
        raise Http404
    language = link.quote.customer.language
    # Asked for on every view until it exists; a frozen revision is never rendered twice.
    # One query per view once a document exists (ready, or on its way).
    document = document_for(revision=revision, language=language)
    if document is None:
        document = proposal_request(revision=revision, user=None, language=language)
        document.refresh_from_db(fields=["status"])  # rendered already, when Celery runs eagerly
    quote = link.quote
    initial = {"revision": revision.number}
    if quote.status in (QuoteStatus.ACCEPTED, QuoteStatus.DECLINED, QuoteStatus.EXPIRED):
        state = quote.status
    elif quote.valid_until < timezone.localdate():
        state = QuoteStatus.EXPIRED
    elif quote.status == QuoteStatus.SENT and quote.current_revision_id == revision.pk:
        state = "open"
    else:
        state = "superseded"
    return render(
        request,
        "proposals/shared_page.html",
        {
            "revision": revision,
            # Rendered once per sent revision and language (the per-view work is the rest).
            "content": shared_content_html(revision=revision, language=language),
            "base": _base(request),
            "pdf_ready": document.status == "ready",
            "open": state == "open",
            "state": state,
            "accept_form": accept_form or AcceptForm(initial=initial),
            "decline_form": decline_form or DeclineForm(initial=initial),
            "error": error,
            "answered": request.GET.get("answered") == "1",
        },
        status=status,
    )


@require_GET
@shared_route
def shared_page(request: HttpRequest, link: ShareLink) -> HttpResponse:
    revision = revision_shared(link=link)
    if revision is not None:
        link_view_record(
            link=link, user_agent=request.headers.get("User-Agent", ""), revision=revision
        )
    return _shared_page(request, link, revision=revision)


@require_GET
@shared_route
def shared_pdf(request: HttpRequest, link: ShareLink) -> HttpResponse:
    revision = revision_shared(link=link)
    if revision is None:
        raise Http404
    language = link.quote.customer.language
    document = document_ready_for(revision=revision, language=language)
    if document is None:
        proposal_request(revision=revision, user=None, language=language)
        response = render(request, "proposals/shared_pdf_wait.html", status=503)
        response["Retry-After"] = "30"
        return response
    return _pdf_response(document)


def _base(request: HttpRequest) -> str:
    return "/".join(request.path.split("/")[:3])  # /p/<token>, whichever route was asked


def _answer(request, link, form_class, service, fields):
    form = form_class(request.POST)
    forms = {"accept_form": None, "decline_form": None}
    if not form.is_valid():
        forms["accept_form" if form_class is AcceptForm else "decline_form"] = form
        return _shared_page(request, link, status=400, **forms)
    try:
        service(link=link, revision_number=form.cleaned_data["revision"], **fields(form))
    except QuoteError as exc:
        return _shared_page(request, link, status=exc.status_code, error=exc.message)
    return redirect(_base(request) + "?answered=1")


# Referrer-Policy: no-referrer makes browsers send "Origin: null" with these forms, which Django's
# CSRF check refuses. The token in the URL is the defence instead: a forged cross-site POST would
# need it, and whoever holds it can open the link and answer anyway.
@csrf_exempt
@require_POST
@shared_route
def shared_accept(request: HttpRequest, link: ShareLink) -> HttpResponse:
    return _answer(
        request,
        link,
        AcceptForm,
        share_accept,
        fields=lambda f: {
            "name": f.cleaned_data["name"],
            "title": f.cleaned_data["title"],
            "agreed": f.cleaned_data["agreed"],
        },
    )


@csrf_exempt
@require_POST
@shared_route
def shared_decline(request: HttpRequest, link: ShareLink) -> HttpResponse:
    return _answer(
        request,
        link,
        DeclineForm,
        share_decline,
        fields=lambda f: {"reason": f.cleaned_data["reason"]},
    )

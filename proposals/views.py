"""Staff views (the proposal panel on a quote) and the customer's share-link pages."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from quoting.models import QuoteEvent, QuoteStatus, VatZone
from quoting.selectors import quotes_visible_to
from quoting.services.errors import QuoteError

from .forms import AcceptForm, DeclineForm, GenerateForm, ShareLinkForm
from .guard import shared_route
from .models import DocumentStatus, ProposalDocument, ShareLink
from .selectors import (
    acceptance_for,
    document_for,
    document_ready_for,
    documents_visible_to,
    revision_drawing,
    revision_has_drawing,
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
from .share import (
    SharedBody,
    shared_body_render,
    shared_cached,
    shared_page_remember,
    shared_pdf_ready_remember,
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
            "acceptance": acceptance_for(quote=quote),
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


def _signed_copy_response(acceptance) -> HttpResponse:
    quote = acceptance.revision.quote
    response = HttpResponse(bytes(acceptance.signed_pdf), content_type="application/pdf")
    response["Content-Disposition"] = (
        f'attachment; filename="{quote.number}-{acceptance.revision.label}-signed.pdf"')
    return response


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
    return render(request, "proposals/_acceptance.html",
                  {"acceptance": acceptance, "quote": acceptance.revision.quote})


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


def _state(quote, revision) -> str:
    """What the customer can do with the latest sent revision: answer it ("open") until a newer
    one is sent, also while sales draft the next one."""
    if quote.status in (QuoteStatus.ACCEPTED, QuoteStatus.DECLINED, QuoteStatus.EXPIRED):
        return quote.status
    if quote.valid_until < timezone.localdate():
        return QuoteStatus.EXPIRED
    if quote.status == QuoteStatus.SENT and quote.current_revision_id != revision.pk:
        return "superseded"  # not reached: the latest sent revision is the current one
    return "open"


def _pdf_ready(revision, language: str, known: bool) -> bool:
    if known:
        return True
    # Asked for on every view until it exists; a frozen revision is never rendered twice.
    document = document_for(revision=revision, language=language)
    if document is None:
        document = proposal_request(revision=revision, user=None, language=language)
        document.refresh_from_db(fields=["status"])  # rendered already, when Celery runs eagerly
    if document.status == "ready":
        shared_pdf_ready_remember(revision=revision, language=language)
        return True
    return False


def _shared_page(request, link, *, status=200, accept_form=None, decline_form=None, error="",
                 revision=None):
    revision = revision or revision_shared(link=link)
    if revision is None:  # every sent revision gone: nothing to show, same as an unknown link
        raise Http404
    language = request.share_language
    state = _state(link.quote, revision)
    answered = request.GET.get("answered") == "1"
    plain = not (status != 200 or accept_form or decline_form or error or answered)
    kept = shared_cached(revision=revision, language=language, state=state)
    if plain and kept.page is not None:
        return HttpResponse(kept.page.for_link(_base(request)))
    body = kept.body or shared_body_render(revision=revision, language=language)
    pdf_ready = _pdf_ready(revision, language, kept.pdf_ready)
    # No request context: its processors (the user, messages) have nothing for a customer.
    # The link's own path is the body's marker until the page is served (one page, any link).
    html = render_to_string(
        "proposals/shared_page.html",
        {
            "quote": link.quote,
            "revision": revision,
            "content": mark_safe(body.html),  # noqa: S308 - our template's output, autoescaped
            "base": body.marker,
            "language": language,
            "languages": SHARE_LANGUAGES,
            "pdf_ready": pdf_ready,
            "open": state == "open",
            "state": state,
            "accept_form": accept_form,
            "decline_form": decline_form,
            "error": error,
            "answered": answered,
            "show_fapiao": _asks_fapiao(link.quote, language),
        },
    )
    page = SharedBody(html=html, marker=body.marker, has_drawing=body.has_drawing)
    if plain:
        shared_page_remember(revision=revision, language=language, state=state,
                             pdf_ready=pdf_ready, page=page)
    return HttpResponse(page.for_link(_base(request)), status=status)


def _asks_fapiao(quote, language: str) -> bool:
    """Chinese readers and mainland customers are asked for fapiao details (any customer may
    give them: the service accepts them from everyone)."""
    return language == "zh-hans" or quote.customer.vat_zone == VatZone.CHINA


# Each language named in itself: a reader finds their own whatever the page's language.
SHARE_LANGUAGES = (("en", "English"), ("zh-hans", "中文"))


@require_GET
@shared_route
def shared_page(request: HttpRequest, link: ShareLink) -> HttpResponse:
    revision = link.revision_shown  # read with the link, in the same query
    link_view_record(link=link, user_agent=request.headers.get("User-Agent", ""),
                     revision=revision)
    return _shared_page(request, link, revision=revision)


@require_GET
@shared_route
def shared_pdf(request: HttpRequest, link: ShareLink) -> HttpResponse:
    revision = link.revision_shown
    language = request.share_language
    document = document_ready_for(revision=revision, language=language)
    if document is None:
        proposal_request(revision=revision, user=None, language=language)
        response = render(request, "proposals/shared_pdf_wait.html",
                          {"base": _base(request), "language": language}, status=503)
        response["Retry-After"] = "30"
        return response
    return _pdf_response(document)


@require_GET
@shared_route
def shared_signed_pdf(request: HttpRequest, link: ShareLink) -> HttpResponse:
    """The signed copy, for the customer once they accepted (any of the quote's live links)."""
    acceptance = acceptance_for(quote=link.quote)
    if acceptance is None:
        raise Http404
    if acceptance.signed_status != DocumentStatus.READY:
        response = render(request, "proposals/shared_pdf_wait.html",
                          {"base": _base(request), "language": request.share_language},
                          status=503)
        response["Retry-After"] = "30"
        return response
    acceptance.refresh_from_db(fields=["signed_pdf"])
    return _signed_copy_response(acceptance)


@require_GET
@shared_route
def shared_drawing(request: HttpRequest, link: ShareLink) -> HttpResponse:
    """The fabric drawing on a page of its own, at full size (the proposal shows it small)."""
    revision = link.revision_shown
    if not revision_has_drawing(revision=revision):
        raise Http404
    return render(request, "proposals/shared_drawing.html", {
        "revision": revision, "quote": link.quote, "base": _base(request),
        "language": request.share_language})


@require_GET
@shared_route
def shared_drawing_svg(request: HttpRequest, link: ShareLink) -> HttpResponse:
    drawing = revision_drawing(revision=link.revision_shown)
    if not drawing:
        raise Http404
    return HttpResponse(drawing, content_type="image/svg+xml; charset=utf-8")


def _base(request: HttpRequest) -> str:
    return "/".join(request.path.split("/")[:3])  # /p/<token>, whichever route was asked


def _back(request: HttpRequest, **query) -> str:
    return _base(request) + "?" + urlencode({**query, "lang": request.share_language})


def _answer(request, link, form_class, service, fields):
    form = form_class(request.POST)
    forms = {"accept_form": None, "decline_form": None}
    if not form.is_valid():
        forms["accept_form" if form_class is AcceptForm else "decline_form"] = form
        return _shared_page(request, link, status=400, **forms)
    try:
        service(link=link, revision_number=form.cleaned_data["revision"], **fields(form))
    except QuoteError as exc:
        if exc.status_code == 400:  # a value at fault: the form again, as filled, with why
            forms["accept_form" if form_class is AcceptForm else "decline_form"] = form
        return _shared_page(request, link, status=exc.status_code, error=exc.message,
                            **forms)
    return redirect(_back(request, answered=1))


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
            "user_agent": request.headers.get("User-Agent", ""),
            "language": request.share_language,
            **{name: f.cleaned_data[name] for name in AcceptForm.SIGNED_FIELDS},
        },
    )


@csrf_exempt
@require_POST
@shared_route
def shared_decline(request: HttpRequest, link: ShareLink) -> HttpResponse:
    """Declining takes two steps: the first answers a page asking to confirm (no script needed);
    only the confirmed form is recorded."""
    form = DeclineForm(request.POST)
    if form.is_valid() and not form.cleaned_data["confirmed"]:
        return render(request, "proposals/shared_decline_confirm.html", {
            "quote": link.quote, "revision": link.revision_shown, "form": form,
            "base": _base(request), "language": request.share_language})
    return _answer(
        request,
        link,
        DeclineForm,
        share_decline,
        fields=lambda f: {"reason": f.cleaned_data["reason"]},
    )

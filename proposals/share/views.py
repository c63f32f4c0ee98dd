"""The customer's share-link pages (`/p/<token>`): the proposal, its PDF and drawing, the
price of a choice, accepting and declining. Every route stands behind share.guard.
"""

from __future__ import annotations

import logging
from urllib.parse import urlencode

from django.forms.utils import ErrorDict
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST, require_safe

from proposals.acceptance.as_built import as_built_sign
from proposals.acceptance.selectors import (
    acceptance_for,
    acceptance_of,
    as_built_sign_off_shown,
    chosen_configuration,
    offer_state,
    revision_shared,
)
from proposals.acceptance.services import (
    share_accept,
    share_accept_checked,
    share_decline,
    signer_code_send,
)
from proposals.acceptance.signature import (
    TYPED_SIGNATURE_MAX,
    signature_typed_kept,
    signature_typed_png,
)
from proposals.acceptance.signer_codes import (
    CodeThrottled,
    code_minutes,
    email_masked,
    signer_code_required,
)
from proposals.documents.as_built import as_built_report_filename, as_built_report_pdf
from proposals.documents.selectors import document_for, document_ready_for
from proposals.forms import AcceptForm, AsBuiltSignForm, ChoiceForm, DeclineForm
from proposals.models import DocumentStatus, ProposalDocument, ShareLink
from proposals.share.engagement import BEACON_MAX_BYTES, BeaconRefused, beacon_parse
from proposals.share.faults import INVOICE_FIELDS, faults_of
from proposals.share.guard import link_work_over, link_work_refused, shared_route
from proposals.share.pages import (
    SharedBody,
    choice_figures,
    shared_body_render,
    shared_cached,
    shared_choice_render,
    shared_page_remember,
    shared_pdf_ready_remember,
)
from proposals.share.selectors import revision_drawing, revision_has_drawing
from proposals.share.services import (
    link_view_beacon,
    link_view_record,
)
from quoting.customers.models import VatZone
from quoting.errors import InvalidValue, QuoteError
from quoting.quotes.models import QuoteStatus
from quoting.quotes.selectors import OfferChoice, offer_choice
from quoting.quotes.workbook import quote_xlsx

logger = logging.getLogger(__name__)


def _pdf_response(document: ProposalDocument) -> HttpResponse:
    response = HttpResponse(bytes(document.pdf), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{document.filename}"'
    response["Content-Length"] = str(document.size)
    return response


def _signed_copy_response(acceptance) -> HttpResponse:
    quote = acceptance.revision.quote
    response = HttpResponse(bytes(acceptance.signed_pdf), content_type="application/pdf")
    response["Content-Disposition"] = (
        f'attachment; filename="{quote.number}-{acceptance.revision.label}-signed.pdf"'
    )
    return response


# --- customers -----------------------------------------------------------------------------------


def _pdf_ready(revision, language: str, known: bool) -> bool:
    if known:
        return True
    # The send requested it (the sweeper, for an offer sent before that): a view only looks.
    document = document_for(revision=revision, language=language)
    if document is not None and document.status == DocumentStatus.READY:
        shared_pdf_ready_remember(revision=revision, language=language)
        return True
    return False


def _shared_page(
    request,
    link,
    *,
    status=200,
    accept_form=None,
    decline_form=None,
    error="",
    revision=None,
    choice=None,
    open_key="",
    as_built_form=None,
    error_field=None,
    code_sent=False,
):
    revision = revision or revision_shared(link=link)
    if revision is None:  # every sent revision gone: nothing to show, same as an unknown link
        raise Http404
    language = request.share_language
    state = offer_state(quote=link.quote, revision=revision)
    answered = request.GET.get("answered") == "1"
    # An installed fabric to sign off (accepted quotes only): the page is not the kept one.
    sign_off = as_built_sign_off_shown(quote=link.quote) if state == QuoteStatus.ACCEPTED else None
    plain = not (
        status != 200 or accept_form or decline_form or error or answered or choice or sign_off
    )
    kept = shared_cached(revision=revision, language=language, state=state)
    if plain and kept.page is not None:
        foot = _accept_foot(link, accept_form=None, faults=None) if state == "open" else ""
        return HttpResponse(kept.page.for_link(_base(request), open_key, foot))
    body = kept.body or shared_body_render(revision=revision, language=language)
    pdf_ready = _pdf_ready(revision, language, kept.pdf_ready)
    show_fapiao = _asks_fapiao(link.quote, language)
    faults = faults_of(
        accept_form or as_built_form,
        error=error,
        error_field=error_field,
        not_shown=() if show_fapiao else INVOICE_FIELDS,
        also_shown=("signer_code",) if signer_code_required(link) else (),
    )
    # No request context: its processors (the user, messages) have nothing for a customer.
    # The link's own path is the body's marker until the page is served (one page, any link).
    html = render_to_string(
        "proposals/shared_page.html",
        {
            "quote": link.quote,
            "revision": revision,
            "content": mark_safe(body.html),  # noqa: S308 - our template's output, autoescaped
            "base": body.marker,
            "open_marker": body.open_marker,
            "foot_marker": body.foot_marker,
            "language": language,
            "languages": SHARE_LANGUAGES,
            "pdf_ready": pdf_ready,
            "open": state == "open",
            "state": state,
            "accept_form": accept_form,
            "decline_form": decline_form,
            "error": error,
            "faults": faults,
            "answered": answered,
            **_choice_shown(revision, language, body, choice, accept_form),
            **_accepted_shown(revision, state),
            "show_fapiao": show_fapiao,
            "sign_off": sign_off,
            "as_built_form": as_built_form,
            "as_built_signed": request.GET.get("signed") == "1",
        },
    )
    page = SharedBody(
        html=html, marker=body.marker, has_drawing=body.has_drawing, choice=body.choice
    )
    if plain:
        shared_page_remember(
            revision=revision, language=language, state=state, pdf_ready=pdf_ready, page=page
        )
    foot = ""
    if state == "open":
        foot = _accept_foot(link, accept_form=accept_form, faults=faults, code_sent=code_sent)
    return HttpResponse(page.for_link(_base(request), open_key, foot), status=status)


def _accept_foot(link: ShareLink, *, accept_form, faults, code_sent: bool = False) -> str:
    """The accept form's buttons, with the signing code's field first on a link that asks for
    one (signer_codes): the one part of the page that depends on the link, so the kept page
    serves every link. Accept comes before "E-mail me a code" in the form: Enter in a field
    presses the first button, and must not send a new code."""
    return render_to_string(
        "proposals/_accept_foot.html",
        {
            "code_to": email_masked(link.recipient_email) if signer_code_required(link) else "",
            "code_sent": code_sent,
            "minutes": code_minutes(),
            "accept_form": accept_form,
            "faults": faults,
        },
    )


def _accepted_shown(revision, state: str) -> dict:
    """An accepted offer restates what was accepted, by whom and when: the customer reads the
    configuration they signed, not the offer as sent. Read once: the accepted page is kept."""
    if state != QuoteStatus.ACCEPTED:
        return {}
    acceptance = acceptance_of(revision=revision)
    if acceptance is None:  # accepted before links recorded acceptances, or by sales
        return {}
    return {"acceptance": acceptance, "configuration": chosen_configuration(acceptance)}


# --- the customer's choice of alternative and optional items (#15 item 2) ------------------------


def _choice_shown(revision, language: str, body: SharedBody, choice, accept_form) -> dict:
    """The choice block: the body's own (as quoted) on a plain page; with the customer's picks
    when the page answers a recalculation or shows the accept form again."""
    if not body.choice:
        return {"choice_html": ""}
    html, total = body.choice, None
    if choice is not None or accept_form is not None:
        data = accept_form.data if accept_form is not None else {}
        alternative = choice.alternative if choice else data.get("alternative", "")
        keys = choice.optional_keys if choice else data.getlist("optional")
        errors = accept_form.errors if accept_form is not None else {}
        html = shared_choice_render(
            revision=revision,
            language=language,
            base=body.marker,
            alternative=alternative,
            optional_keys=keys,
            error=" ".join([*errors.get("alternative", []), *errors.get("optional", [])]),
        )
    if choice is not None:
        total = choice_figures(choice, currency=revision.quote.currency, language=language)["total"]
    return {
        "choice_html": mark_safe(html),  # noqa: S308 - our template's output, autoescaped
        "chosen_total": total,
    }


def _picked(request: HttpRequest, link: ShareLink, data) -> tuple[object, OfferChoice]:
    """(the revision shown, the customer's choice of it) from `data` (a query or a form);
    raises InvalidValue for a choice the revision does not offer."""
    form = ChoiceForm(data)
    if not form.is_valid():
        field, errors = next(iter(form.errors.items()))
        raise InvalidValue(" ".join(errors), field=field)
    revision = link.revision_shown
    if revision is None:
        raise Http404
    asked = (data.get("revision") or "").strip()
    if asked and asked != str(revision.number):
        raise InvalidValue(
            gettext(
                "This revision has been replaced by a newer one, so it can no longer be "
                "answered. Reload the page to read the current offer."
            ),
            field="revision",
        )
    revision.refresh_from_db(fields=["discount_percent", "tax_percent"])  # not read with the link
    return revision, offer_choice(
        revision=revision,
        alternative=form.cleaned_data["alternative"],
        optional_keys=form.cleaned_data["optional"],
    )


@require_GET
@shared_route
def shared_price(request: HttpRequest, link: ShareLink) -> HttpResponse:
    """GET /p/<token>/price?alternative=<name>&optional=<key>...: the totals of that choice,
    computed here (the page's script only shows them), formatted in the page's language."""
    try:
        revision, choice = _picked(request, link, request.GET)
    except InvalidValue as exc:
        return JsonResponse({"error": exc.message, "field": exc.field}, status=400)
    return JsonResponse(
        {
            "revision": revision.number,
            "alternative": choice.alternative,
            "optional": choice.optional_keys,
            "currency": link.quote.currency,
            "amounts": {
                name: f"{getattr(choice.totals, name):.2f}"
                for name in ("subtotal", "discount", "net", "tax", "total")
            },
            "figures": choice_figures(
                choice, currency=link.quote.currency, language=request.share_language
            ),
        }
    )


def _asks_fapiao(quote, language: str) -> bool:
    """Chinese readers and mainland customers are asked for fapiao details (any customer may
    give them: the service accepts them from everyone)."""
    return language == "zh-hans" or quote.customer.vat_zone == VatZone.CHINA


# Each language named in itself: a reader finds their own whatever the page's language.
SHARE_LANGUAGES = (("en", "English"), ("zh-hans", "中文"))


@require_safe
@shared_route
def shared_page(request: HttpRequest, link: ShareLink) -> HttpResponse:
    revision = link.revision_shown  # read with the link, in the same query
    open_key = link_view_record(
        link=link,
        user_agent=request.headers.get("User-Agent", ""),
        revision=revision,
        method=request.method,
    )
    if request.method == "HEAD":  # a link checker: counted apart, nothing to render
        return HttpResponse(content_type="text/html; charset=utf-8")
    return _shared_page(request, link, revision=revision, open_key=open_key)


# sendBeacon cannot send a CSRF token, and the page sends no cookie: the token in the URL is the
# check, as for the answers below. A beacon changes nothing but the reading time of its own open.
@csrf_exempt
@require_POST
@shared_route(quiet=True)
def shared_beacon(request: HttpRequest, link: ShareLink) -> HttpResponse:
    """Reading time from the page's script (proposals.share.engagement): 204 whatever became of it,
    400 for a malformed beacon, 413 for an oversized one, with the reason in the API's error
    shape ({"detail": ...}); nothing recorded for either."""
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > BEACON_MAX_BYTES:
        return HttpResponse(status=413)  # not read at all
    try:
        beacon = beacon_parse(request.read(BEACON_MAX_BYTES + 1))
    except BeaconRefused as exc:
        return JsonResponse({"detail": str(exc)}, status=exc.status)
    link_view_beacon(link=link, beacon=beacon)
    return HttpResponse(status=204)


@require_GET
@shared_route
def shared_pdf(request: HttpRequest, link: ShareLink) -> HttpResponse:
    revision = link.revision_shown
    language = request.share_language
    document = document_ready_for(revision=revision, language=language)
    if document is None:  # requested at the send; rendering, or queued again by the sweeper
        return _not_ready_yet(request, "proposal PDF", revision)
    return _pdf_response(document)


@require_GET
@shared_route
def shared_xlsx(request: HttpRequest, link: ShareLink) -> HttpResponse:
    """The offer as an Excel workbook, built on request: the customer's variant (never cost or
    margin) of the revision the link shows, or of the booked configuration once accepted."""
    workbook = quote_xlsx(
        quote=link.quote, revision=link.revision_shown, language=request.share_language
    )
    response = HttpResponse(workbook.content, content_type=workbook.content_type)
    response["Content-Disposition"] = f'attachment; filename="{workbook.filename}"'
    return response


# How long the wait page waits before it asks again (its meta refresh and Retry-After).
WAIT_SECONDS = 5


def _not_ready_yet(request: HttpRequest, what: str, revision) -> HttpResponse:
    """202: the PDF is on its way (routine, logged at INFO, not a 5xx an alert would count); the
    page asks again by itself. 503 stays for real outages."""
    logger.info(
        "%s of %s %s not ready yet: the wait page is served",
        what,
        revision.quote.number,
        revision.label,
    )
    response = render(
        request,
        "proposals/shared_pdf_wait.html",
        {"base": _base(request), "language": request.share_language, "wait_seconds": WAIT_SECONDS},
        status=202,
    )
    response["Retry-After"] = str(WAIT_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


@require_GET
@shared_route
def shared_signed_pdf(request: HttpRequest, link: ShareLink) -> HttpResponse:
    """The signed copy, for the customer once they accepted (any of the quote's live links)."""
    acceptance = acceptance_for(quote=link.quote)
    if acceptance is None:
        raise Http404
    if acceptance.signed_status == DocumentStatus.FAILED:  # a real failure: sales must act
        response = render(
            request,
            "proposals/shared_pdf_wait.html",
            {"base": _base(request), "language": request.share_language},
            status=503,
        )
        response["Retry-After"] = "3600"
        return response
    if acceptance.signed_status != DocumentStatus.READY:
        return _not_ready_yet(request, "signed copy", acceptance.revision)
    acceptance.refresh_from_db(fields=["signed_pdf"])
    return _signed_copy_response(acceptance)


@require_GET
@shared_route
def shared_drawing(request: HttpRequest, link: ShareLink) -> HttpResponse:
    """The fabric drawing on a page of its own, at full size (the proposal shows it small)."""
    revision = link.revision_shown
    if not revision_has_drawing(revision=revision):
        raise Http404
    return render(
        request,
        "proposals/shared_drawing.html",
        {
            "revision": revision,
            "quote": link.quote,
            "base": _base(request),
            "language": request.share_language,
        },
    )


@require_GET
@shared_route
def shared_drawing_svg(request: HttpRequest, link: ShareLink) -> HttpResponse:
    drawing = revision_drawing(revision=link.revision_shown, language=request.share_language)
    if not drawing:
        raise Http404
    return HttpResponse(drawing, content_type="image/svg+xml; charset=utf-8")


@require_GET
@shared_route(quiet=True)
def shared_signature_preview(request: HttpRequest, link: ShareLink) -> HttpResponse:
    """GET /p/<token>/signature.png?text=...: a typed signature drawn exactly as the acceptance
    will store and the certificate will print it (signature_typed_png), for the accept form's
    preview; 400 for no text or more than the form allows. Records nothing.

    A text drawn lately comes from the cache; a new one is drawn (60-130 ms for 100 Chinese
    characters) only while the link has previews left (PROPOSALS_LINK_PREVIEWS_ALLOWED), then
    429."""
    text = " ".join(request.GET.get("text", "").split())
    if not text or len(text) > TYPED_SIGNATURE_MAX:
        return HttpResponse(status=400)
    png = signature_typed_kept(text)
    if png is None:
        if link_work_over(link, "preview"):
            return link_work_refused(
                request,
                gettext(
                    "Too many signature previews were drawn for this link; wait a few minutes, "
                    "or accept with the signature as typed."
                ),
                quiet=True,
            )
        png = signature_typed_png(text)
    return HttpResponse(png, content_type="image/png")


def _base(request: HttpRequest) -> str:
    return "/".join(request.path.split("/")[:3])  # /p/<token>, whichever route was asked


def _back(request: HttpRequest, **query) -> str:
    return _base(request) + "?" + urlencode({**query, "lang": request.share_language})


def _answer(request, link, form_class, service, fields):
    form = form_class(request.POST)
    forms = {"accept_form": None, "decline_form": None}
    if not form.is_valid():
        forms["accept_form" if form_class is AcceptForm else "decline_form"] = form
        return _shared_page(request, link, status=400, **forms, **_kept_choice(request, link))
    try:
        service(link=link, revision_number=form.cleaned_data["revision"], **fields(form))
    except QuoteError as exc:
        if exc.status_code != 400:
            return _shared_page(request, link, status=exc.status_code, error=exc.message)
        # A value at fault: the form again, as filled, with why at its field.
        forms["accept_form" if form_class is AcceptForm else "decline_form"] = form
        return _shared_page(
            request,
            link,
            status=400,
            error=exc.message,
            error_field=exc.field,
            **forms,
            **_kept_choice(request, link),
        )
    return redirect(_back(request, answered=1))


def _kept_choice(request: HttpRequest, link: ShareLink) -> dict:
    """An accept form sent back keeps the reader's choice and its total, not the offer as
    quoted: {"revision", "choice"} when the choice is one the revision offers, else {}."""
    if "alternative" not in request.POST and "optional" not in request.POST:
        return {}
    try:
        revision, choice = _picked(request, link, request.POST)
    except InvalidValue:  # the choice itself is at fault: the choice block says why
        return {}
    return {"revision": revision, "choice": choice}


# Referrer-Policy: no-referrer makes browsers send "Origin: null" with these forms, which Django's
# CSRF check refuses. The token in the URL is the defence instead: a forged cross-site POST would
# need it, and whoever holds it can open the link and answer anyway.
@csrf_exempt
@require_POST
@shared_route
def shared_accept(request: HttpRequest, link: ShareLink) -> HttpResponse:
    if request.POST.get("recalculate"):  # the choice's totals without script: nothing recorded
        return _shared_recalculated(request, link)
    if link_work_over(link, "accept"):
        return link_work_refused(
            request,
            gettext(
                "Too many attempts to accept this offer were made on this link; wait a few "
                "minutes and try again."
            ),
        )
    if request.POST.get("send_code"):
        return _shared_code_sent(request, link)
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
            "alternative": f.cleaned_data["alternative"],
            "optional": f.cleaned_data["optional"],
            **{name: f.cleaned_data[name] for name in AcceptForm.SIGNED_FIELDS},
            "signer_code": f.cleaned_data["signer_code"],
        },
    )


def _shared_code_sent(request: HttpRequest, link: ShareLink) -> HttpResponse:
    """ "E-mail me a code": the form is checked as an accept would be (nothing recorded), the
    code goes to the link's recipient, and the page comes back as filled (choice, total, tick,
    signature) with the code's field focused. A fault or a refused code (too soon, too many)
    comes back at its field, the form kept."""
    form = AcceptForm(request.POST)
    kept = _kept_choice(request, link)
    if not form.is_valid():
        return _shared_page(request, link, status=400, accept_form=form, **kept)
    data = form.cleaned_data
    try:
        _picked(request, link, request.POST)  # a choice the offer has, of the revision shown
        share_accept_checked(
            name=data["name"],
            title=data["title"],
            agreed=data["agreed"],
            **{name: data[name] for name in AcceptForm.SIGNED_FIELDS},
        )
        signer_code_send(link=link, revision_number=data["revision"])
    except QuoteError as exc:
        keep = exc.status_code in (400, CodeThrottled.status_code)
        return _shared_page(
            request,
            link,
            status=exc.status_code,
            error=exc.message,
            error_field=exc.field,
            accept_form=form if keep else None,
            **(kept if keep else {}),
        )
    return _shared_page(request, link, accept_form=form, code_sent=True, **kept)


def _shared_recalculated(request: HttpRequest, link: ShareLink) -> HttpResponse:
    """The page again with the chosen totals and the accept form as it was filled in."""
    form = AcceptForm(request.POST)
    form._errors = ErrorDict()  # nothing was sent to be accepted: no "required" under the fields
    try:
        revision, choice = _picked(request, link, request.POST)
    except InvalidValue as exc:
        return _shared_page(request, link, status=400, error=exc.message, accept_form=form)
    return _shared_page(request, link, revision=revision, choice=choice, accept_form=form)


@csrf_exempt
@require_POST
@shared_route
def shared_decline(request: HttpRequest, link: ShareLink) -> HttpResponse:
    """Declining takes two steps: the first answers a page asking to confirm (no script needed);
    only the confirmed form is recorded."""
    form = DeclineForm(request.POST)
    if form.is_valid() and not form.cleaned_data["confirmed"]:
        return render(
            request,
            "proposals/shared_decline_confirm.html",
            {
                "quote": link.quote,
                "revision": link.revision_shown,
                "form": form,
                "base": _base(request),
                "language": request.share_language,
            },
        )
    return _answer(
        request,
        link,
        DeclineForm,
        share_decline,
        fields=lambda f: {"reason": f.cleaned_data["reason"]},
    )


# --- the installed fabric's sign-off (as-built check) ------------------------------------------


@csrf_exempt  # as the answers above: the token in the URL is the check
@require_POST
@shared_route
def shared_as_built_sign(request: HttpRequest, link: ShareLink) -> HttpResponse:
    if link_work_over(link, "accept"):
        return link_work_refused(
            request,
            gettext("Too many attempts were made on this link; wait a few minutes and try again."),
        )
    form = AsBuiltSignForm(request.POST)
    if not form.is_valid():
        return _shared_page(request, link, status=400, as_built_form=form)
    data = form.cleaned_data
    try:
        as_built_sign(
            link=link,
            sign_off_id=data["sign_off"],
            name=data["name"],
            title=data["title"],
            company=data["company"],
            agreed=data["agreed"],
            remarks=data["remarks"],
            signature_kind=data["signature_kind"],
            signature_text=data["signature_text"],
            signature_data=data["signature_data"],
            signer_timezone=data["signer_timezone"],
            user_agent=request.headers.get("User-Agent", ""),
            language=request.share_language,
        )
    except QuoteError as exc:
        keep = form if exc.status_code == 400 else None
        return _shared_page(
            request,
            link,
            status=exc.status_code,
            error=exc.message,
            error_field=exc.field,
            as_built_form=keep,
        )
    return redirect(_back(request, signed=1) + "#as-built")


@require_GET
@shared_route
def shared_as_built_pdf(request: HttpRequest, link: ShareLink) -> HttpResponse:
    """The acceptance report asked to be signed (or signed), in the reader's language."""
    sign_off = as_built_sign_off_shown(quote=link.quote)
    if sign_off is None:
        raise Http404
    check = sign_off.as_built_check
    response = HttpResponse(
        as_built_report_pdf(check=check, language=request.share_language),
        content_type="application/pdf",
    )
    response["Content-Disposition"] = f'attachment; filename="{as_built_report_filename(check)}"'
    return response

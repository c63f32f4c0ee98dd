"""Customers, their contacts and projects, and the project page (saved designs → quotes).

Every object comes through customers_visible_to / projects_visible_to: another team's customer
or project is a 404.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache as shared_cache
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import get_template, render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from catalog.filters import ProductFilter
from catalog.selectors import price_lookup, product_list
from portal.api.pagination import QuotesPaginator, list_count_key
from quoting.customers.selectors import projects_visible_to
from quoting.designs.services.packs import PACK_LANGUAGES
from quoting.designs.services.tco import tco_option_names, tco_presented
from quoting.designs.views.projects import _project_page
from quoting.engine.errors import InvalidInput
from quoting.errors import QuoteError, StaleVersion
from quoting.quotes.filters import QuoteFilter
from quoting.quotes.forms.quotes import (
    ActionForm,
    AddProductForm,
    AlternativeForm,
    FreeTextForm,
    LineForm,
    MilestoneFormSet,
    PaymentTermsForm,
    TcoOptionsForm,
    TermsForm,
    WorkloadForm,
    milestone_error,
    milestones_filled,
    schedule_of,
)
from quoting.quotes.margins import Margin, lines_margin
from quoting.quotes.models import (
    ApprovalDecision,
    InstallPackStatus,
    Quote,
    QuoteLine,
    QuoteRevision,
    Section,
    milestone_label,
)
from quoting.quotes.permissions import may_view_margin, quote_actions
from quoting.quotes.selectors import (
    LIST_PAGE_COLUMNS,
    OfferChoice,
    booked_choice,
    frozen_revision_key,
    quote_audit_trail,
    quote_list_rows,
    quotes_visible_to,
    revision_completeness,
    revision_diff,
    revision_export_note,
    revision_for_display,
    revision_gate,
    revision_lead_time,
)
from quoting.quotes.services import quotes as services
from quoting.quotes.services.as_built import as_built_checks_of
from quoting.quotes.services.install import install_pack_latest, install_pack_request
from quoting.quotes.services.quotes import quote_create_from_design
from quoting.quotes.services.snapshots import revision_tco_options


@login_required
@require_POST
def quote_from_design(request, pk: int, design_pk: int):
    project = get_object_or_404(projects_visible_to(user=request.user), pk=pk)
    design = get_object_or_404(project.designs, pk=design_pk)
    try:
        quote = quote_create_from_design(project=project, design=design, user=request.user)
    except QuoteError as error:
        return _project_page(request, project, error=error.message, status=error.status_code)
    messages.success(
        request, _("Quote %(number)s created from the design.") % {"number": quote.number}
    )
    return redirect("quoting:quote-detail", pk=quote.pk)


PAGE_SIZE = 25
PICKER_SIZE = 10


def _quote_or_404(request, pk: int) -> Quote:
    return get_object_or_404(quotes_visible_to(user=request.user), pk=pk)


# --- the list ------------------------------------------------------------------------------------


@login_required
@require_GET
def quote_list(request):
    filterset = QuoteFilter(
        request.GET, queryset=quotes_visible_to(user=request.user), request=request
    )
    quotes = filterset.qs.only(*LIST_PAGE_COLUMNS)
    page = QuotesPaginator(quotes, PAGE_SIZE, key=list_count_key(request, scope="page")).get_page(
        request.GET.get("page")
    )
    page.object_list = quote_list_rows(quotes=list(page.object_list))
    query = request.GET.copy()
    query.pop("page", None)
    context = {"filter": filterset, "page": page, "query": query.urlencode()}
    template = "quoting/_quote_table.html" if request.htmx else "quoting/quote_list.html"
    return render(request, template, context)


# --- the builder page ----------------------------------------------------------------------------


def _display(request, quote_id: int, number=None):
    try:
        number = int(number) if number not in (None, "") else None
        return revision_for_display(
            user=request.user,
            quote_id=quote_id,
            number=number,
            kept_with=lambda revision: [
                _frozen_lines_key(revision, show_margin=may_view_margin(user=request.user))
            ],
        )
    except (ValueError, Quote.DoesNotExist, QuoteRevision.DoesNotExist):
        raise Http404 from None


def _design_query(revision: QuoteRevision, quote: Quote) -> str | None:
    """The design page's query for this revision's design (its drawing and TCO live there)."""
    if revision.design_id is None:
        return None
    # The saved design's snapshot: the page reads it and designs nothing.
    return urlencode(
        {"design": revision.design_id, "project": quote.project_id, "currency": quote.currency}
    )


@dataclass(frozen=True)
class BookedView:
    choice: OfferChoice
    revision: QuoteRevision
    margin: Margin | None  # None unless the user may see margins


def _booked(quote: Quote, *, show_margin: bool) -> BookedView | None:
    """The booked configuration, for an accepted quote: what the reseller orders and installs."""
    if quote.booked_revision_id is None:
        return None
    choice = booked_choice(quote=quote)
    revision = quote.booked_revision
    margin = (
        lines_margin(choice.lines, discount_percent=revision.discount_percent)
        if show_margin
        else None
    )
    return BookedView(choice=choice, revision=revision, margin=margin)


def _page_context(request, display, **extra) -> dict:
    revision, quote, user = display.revision, display.quote, request.user
    is_current = revision.pk == quote.current_revision_id
    approvals = (
        list(revision.approvals.select_related("requested_by", "decided_by"))
        if revision.has_approvals
        else []
    )
    pending = next(
        (approval for approval in approvals if approval.decision == ApprovalDecision.PENDING), None
    )
    gate = (
        revision_gate(revision=revision, user=user, measures=display.measures)
        if is_current and not revision.is_frozen
        else None
    )
    needs_approval = gate is not None and gate.needs_approval
    show_margin = may_view_margin(user=user)
    allowed = quote_actions(
        user=user, quote=quote, revision=revision, needs_approval=needs_approval, pending=pending
    )
    actions = allowed.offered()
    events = list(quote_audit_trail(quote=quote))
    return {
        "display": display,
        # Row URLs are built from this prefix: one reverse() instead of two per line.
        "lines_url": reverse("quoting:quote-detail", args=[quote.pk]) + "lines/",
        # A callable, so the rows are only loaded when the line table is rendered (not when a
        # frozen revision's table comes from the cache).
        "sections": lambda: [
            (section, Section(section).label, rows) for section, rows in display.sections.items()
        ],
        "quote": quote,
        "revision": revision,
        "totals": display.totals,
        "is_current": is_current,
        "editable": allowed.editable,
        "approvals": approvals,
        "pending": pending,
        "needs_approval": needs_approval,
        # What the gate measured, shown with the request: how far below list the customer pays,
        # in the worst configuration the link offers.
        "below_list": display.largest_discount if actions["request_approval"] else None,
        "gate": gate,
        "show_margin": show_margin,
        "margins": display.margins if show_margin else None,
        "booked": _booked(quote, show_margin=show_margin),
        "actions": actions,
        "any_action": any(actions.values()),
        "events": events,
        # Staff only (this page): classified lines for a listed destination, to check before
        # sending; a sent revision's check is in the audit trail.
        "export_note": (
            revision_export_note(revision=revision)
            if is_current and not revision.is_frozen
            else None
        ),
        # Staff only (this page and the API detail): the parts the project asks for that have no
        # line here. It never blocks sending. For the revision being drafted, as the export
        # note: a sent one's table comes from the cache without reading its lines.
        "completeness": (
            revision_completeness(
                project=quote.project,
                lines=(row.line for rows in display.sections.values() for row in rows),
            )
            if is_current and not revision.is_frozen
            else []
        ),
        # Staff only: the expected lead time beside the totals, and why the proposal prints
        # none. A sent revision's is frozen with it (no line read); a draft's from its lines.
        "lead_time": revision_lead_time(
            revision=revision,
            lines=(
                None
                if revision.is_frozen
                else [row.line for rows in display.sections.values() for row in rows]
            ),
        ),
        "design": revision.design_snapshot,
        "design_query": _design_query(revision, quote),
        # The edit forms are callables, each built once, and only where the template shows them
        # (an editable revision).
        "terms_form": cache(
            lambda: TermsForm(
                initial={
                    "discount_percent": revision.discount_percent,
                    "tax_percent": revision.tax_percent,
                    "valid_until": quote.valid_until,
                }
            )
        ),
        "payment_forms": cache(lambda: _payment_forms(revision, quote)),
        "free_text_form": cache(lambda: FreeTextForm(auto_id="ft-%s")),
        "alternative_form": cache(
            lambda: AlternativeForm(auto_id="alt-%s", designs=quote.project.designs.all())
        ),
    } | extra


@dataclass
class PaymentForms:
    form: PaymentTermsForm
    milestones: MilestoneFormSet


def _payment_forms(revision: QuoteRevision, quote: Quote, data=None) -> PaymentForms:
    """The revision's payment schedule and additional terms as the page edits them (bound to
    `data` when they come back refused, so nothing typed is lost)."""
    form = PaymentTermsForm(
        data,
        auto_id="pay-%s",
        initial={
            "expected_version": quote.version,
            "additional_terms": revision.additional_terms,
            "additional_terms_zh": revision.additional_terms_zh,
        },
    )
    milestones = MilestoneFormSet(
        data,
        prefix="milestone",
        initial=[
            {"label": milestone_label(m["label"]), "percent": Decimal(m["percent"])}
            for m in revision.payment_schedule or []
        ],
    )
    return PaymentForms(form, milestones)


LINES_TEMPLATE = "quoting/_quote_lines.html"
FROZEN_LINES_SECONDS = 7 * 24 * 3600  # kept a week after its last render


@cache
def _lines_template_digest() -> str:
    """Part of the cache key: a deployment that changes the line table renders it anew."""
    source = Path(get_template(LINES_TEMPLATE).origin.name).read_bytes()
    return hashlib.sha256(source).hexdigest()[:12]


def _frozen_lines_key(revision: QuoteRevision, *, show_margin: bool) -> str:
    # With margins or without: one user's table never reaches another who may not see them.
    return (
        f"quoting:frozen-lines:{frozen_revision_key(revision)}:{translation.get_language()}:"
        f"{'m' if show_margin else 'c'}:{_lines_template_digest()}"
    )


def _frozen_lines_html(request, context: dict) -> str | None:
    """A frozen revision's line table, rendered once per language and kept in the shared cache
    (its lines never change and, not editable, it carries no form token): a 200-line quote's
    page then renders and loads no line. None for a revision that can still change."""
    revision = context["revision"]
    if not revision.is_frozen or context["editable"]:
        return None
    key = _frozen_lines_key(revision, show_margin=context["show_margin"])
    kept = context["display"].kept
    html = kept[key] if key in kept else shared_cache.get(key)
    if html is None:
        html = render_to_string(LINES_TEMPLATE, context, request=request)
        shared_cache.set(key, str(html), FROZEN_LINES_SECONDS)
    return mark_safe(html)  # noqa: S308 - our own template's output, autoescaped when rendered


@login_required
@require_GET
def quote_detail(request, pk: int):
    display = _display(request, pk, request.GET.get("r"))
    context = _page_context(request, display)
    context["lines_html"] = _frozen_lines_html(request, context)
    if display.revision.has_install_packs:
        context["install_pack"] = install_pack_latest(revision=display.revision, archive=False)
    context["pack_languages"] = settings.LANGUAGES  # names lazily in the page's language
    if display.revision.has_as_built_checks:
        context["as_built_checks"] = as_built_checks_of(revision=display.revision, limit=3)
    return render(request, "quoting/quote_detail.html", context)


@login_required
@require_POST
def quote_install_pack(request, pk: int):
    """Ask for the shown revision's installation pack (default site) in the language chosen
    (the customer's unless changed); back to the page."""
    quote = _quote_or_404(request, pk)
    number = request.POST.get("revision", "").strip()
    if not (number.isascii() and number.isdigit() and len(number) <= 5):
        raise Http404
    revision = get_object_or_404(QuoteRevision, quote=quote, number=int(number))
    language = request.POST.get("language") or None
    back = f"{reverse('quoting:quote-detail', args=[quote.pk])}?r={revision.number}"
    if language is not None and language not in PACK_LANGUAGES:
        messages.error(request, _("Choose English or Simplified Chinese for the pack."))
        return redirect(back)
    try:
        install_pack_request(revision=revision, user=request.user, site={}, language=language)
    except InvalidInput as error:
        messages.error(request, " ".join(m for ms in error.errors.values() for m in ms))
    return redirect(f"{reverse('quoting:quote-detail', args=[quote.pk])}?r={revision.number}")


@login_required
@require_GET
def quote_install_pack_zip(request, pk: int, number: int):
    quote = _quote_or_404(request, pk)
    revision = get_object_or_404(QuoteRevision, quote=quote, number=number)
    pack = install_pack_latest(revision=revision)
    if pack is None or pack.status != InstallPackStatus.READY:
        raise Http404
    response = HttpResponse(bytes(pack.archive), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{pack.filename}"'
    return response


@login_required
@require_GET
def quote_diff(request, pk: int):
    quote = _quote_or_404(request, pk)
    current = quote.current_revision.number
    try:
        newer = int(request.GET.get("b") or current)
        older = int(request.GET.get("a") or max(1, newer - 1))
    except ValueError:
        raise Http404 from None
    by_number = {
        revision.number: revision for revision in quote.revisions.filter(number__in=(older, newer))
    }
    if older not in by_number or newer not in by_number:
        raise Http404
    context = {
        "quote": quote,
        "a": by_number[older],
        "b": by_number[newer],
        "diff": revision_diff(old=by_number[older], new=by_number[newer]),
        "numbers": list(quote.revisions.values_list("number", flat=True)),
    }
    return render(request, "quoting/quote_diff.html", context)


# --- edits (htmx) --------------------------------------------------------------------------------


def _error_message(error: QuoteError) -> str:
    if isinstance(error, StaleVersion):
        return _("Someone else changed this quote: reload to see their changes.")
    return error.message


def _refused(
    request,
    quote: Quote,
    message: str,
    *,
    status: int,
    error_ids: dict,
    field=None,
    full_page: bool = False,
):
    """The message beside the field at fault when the form shows one, else in the message box;
    nothing else on the page changes, so the user's input stays as they typed it."""
    target = error_ids.get(field) or "quote-message"
    if full_page or not request.htmx:
        display = _display(request, quote.pk)
        context = _page_context(request, display, page_error=message)
        return render(request, "quoting/quote_detail.html", context, status=status)
    context = {
        "message": message,
        "target": target,
        "stale": status == StaleVersion.status_code,
        "clear": [error_id for error_id in set(error_ids.values()) if error_id != target],
        "quote": quote,
    }
    return render(request, "quoting/_quote_refused.html", context, status=status)


def _form_refused(request, quote: Quote, form, error_ids: dict):
    field, errors = next(iter(form.errors.items()))
    if field == "expected_version":
        message = _("The page is out of date: reload it.")
    else:
        label = f"{form.fields[field].label}: " if field in form.fields else ""
        message = label + " ".join(errors)
    return _refused(request, quote, message, status=400, error_ids=error_ids, field=field)


def _changed(request, quote: Quote, *, lines: bool = False, line_pk=None, error_ids=None):
    """After a successful edit: the new figures, out of band."""
    if not request.htmx:
        return redirect("quoting:quote-detail", pk=quote.pk)
    display = _display(request, quote.pk)
    amount = None
    if line_pk is not None:
        amount = next(
            (
                row.amount
                for rows in display.sections.values()
                for row in rows
                if row.line.pk == line_pk
            ),
            None,
        )
    context = _page_context(
        request,
        display,
        oob=True,
        swap_lines=lines,
        line_pk=line_pk,
        line_amount=amount,
        clear=sorted(set((error_ids or {}).values())),
    )
    response = render(request, "quoting/_quote_changed.html", context)
    response["HX-Trigger"] = "quote-changed"  # the TCO panel follows the new prices
    return response


def _edit(request, quote: Quote, form, error_ids: dict, run, **changed):
    if not form.is_valid():
        return _form_refused(request, quote, form, error_ids)
    try:
        run(form.cleaned_data["expected_version"])
    except QuoteError as error:
        return _refused(
            request,
            quote,
            _error_message(error),
            status=error.status_code,
            error_ids=error_ids,
            field=error.field,
        )
    return _changed(request, quote, error_ids=error_ids, **changed)


@login_required
@require_POST
def quote_line_update(request, pk: int, line_pk: int):
    quote = _quote_or_404(request, pk)
    line = get_object_or_404(QuoteLine, pk=line_pk, revision__quote=quote)
    form = LineForm(request.POST)
    error_id = f"err-line-{line.pk}"
    error_ids = {"quantity": error_id, "discount_percent": error_id}

    def run(version):
        data = form.cleaned_data
        # Only what the user changed: an event per real change, not per keystroke elsewhere.
        changes = {}
        if data["quantity"] != line.quantity:
            changes["quantity"] = data["quantity"]
        discount = data.get("discount_percent")
        if discount is not None and discount != line.discount_percent:
            changes["discount_percent"] = discount
        if moves:
            changes["optional"] = data["optional"]
        if changes:
            services.quote_update_line(
                quote=quote, line=line, user=request.user, expected_version=version, **changes
            )

    # Ticking "optional" moves the line to another section: the whole table is sent again.
    moves = bool(request.POST.get("optional_shown")) and (
        bool(request.POST.get("optional")) != (line.section == Section.OPTIONAL)
    )
    return _edit(request, quote, form, error_ids, run, line_pk=line.pk, lines=moves)


@login_required
@require_POST
def quote_line_remove(request, pk: int, line_pk: int):
    quote = _quote_or_404(request, pk)
    line = get_object_or_404(QuoteLine, pk=line_pk, revision__quote=quote)
    form = ActionForm(request.POST)
    return _edit(
        request,
        quote,
        form,
        {},
        lambda version: services.quote_remove_line(
            quote=quote, line=line, user=request.user, expected_version=version
        ),
        lines=True,
    )


@login_required
@require_POST
def quote_add_product(request, pk: int):
    quote = _quote_or_404(request, pk)
    form = AddProductForm(request.POST)
    sku = request.POST.get("sku", "")
    error_ids = {"quantity": f"err-add-{sku}", "sku": f"err-add-{sku}", "section": f"err-add-{sku}"}
    return _edit(
        request,
        quote,
        form,
        error_ids,
        lambda version: services.quote_add_product(
            quote=quote,
            sku=form.cleaned_data["sku"],
            quantity=form.cleaned_data["quantity"],
            user=request.user,
            expected_version=version,
        ),
        lines=True,
    )


@login_required
@require_POST
def quote_add_free_text(request, pk: int):
    quote = _quote_or_404(request, pk)
    form = FreeTextForm(request.POST)
    error_ids = {
        field: f"err-ft-{field}" for field in ("description", "quantity", "unit_price", "section")
    }

    def run(version):
        data = form.cleaned_data
        services.quote_add_free_text(
            quote=quote,
            description=data["description"],
            quantity=data["quantity"],
            unit_price=data["unit_price"],
            section=data["section"],
            user=request.user,
            expected_version=version,
        )

    return _edit(request, quote, form, error_ids, run, lines=True)


@login_required
@require_POST
def quote_add_alternative(request, pk: int):
    quote = _quote_or_404(request, pk)
    form = AlternativeForm(request.POST, designs=quote.project.designs.all())
    error_ids = {field: f"err-alt-{field}" for field in ("design", "label")}

    def run(version):
        services.quote_add_alternative(
            quote=quote,
            design=form.cleaned_data["design"],
            label=form.cleaned_data["label"],
            user=request.user,
            expected_version=version,
        )

    return _edit(request, quote, form, error_ids, run, lines=True)


@login_required
@require_POST
def quote_terms(request, pk: int):
    quote = _quote_or_404(request, pk)
    form = TermsForm(request.POST)
    error_ids = {
        field: f"err-{field}" for field in ("discount_percent", "tax_percent", "valid_until")
    }

    def run(version):
        data = form.cleaned_data
        services.quote_update_terms(
            quote=quote,
            user=request.user,
            expected_version=version,
            discount_percent=data["discount_percent"],
            tax_percent=data["tax_percent"],
            valid_until=data["valid_until"],
        )

    return _edit(request, quote, form, error_ids, run)


@login_required
@require_POST
def quote_payment_terms(request, pk: int):
    """The payment schedule and additional terms of the draft: a plain form (not htmx), so a
    refusal shows the whole form again as typed, the message at the milestone at fault."""
    quote = _quote_or_404(request, pk)
    revision = quote.current_revision
    forms = _payment_forms(revision, quote, request.POST)

    def refused(message: str, status: int = 400):
        display = _display(request, quote.pk)
        context = _page_context(request, display, payment_forms=forms, payment_error=message)
        return render(request, "quoting/quote_detail.html", context, status=status)

    if not forms.form.is_valid():
        return refused(_("The page is out of date: reload it."))
    if not forms.milestones.is_valid():
        return refused(
            " ".join(forms.milestones.non_form_errors()) or _("Check the milestones marked.")
        )
    filled = milestones_filled(forms.milestones)
    try:
        services.quote_update_terms(
            quote=quote,
            user=request.user,
            expected_version=forms.form.cleaned_data["expected_version"],
            payment_schedule=schedule_of(filled),
            additional_terms=forms.form.cleaned_data["additional_terms"],
            additional_terms_zh=forms.form.cleaned_data["additional_terms_zh"],
        )
    except QuoteError as error:
        message = _error_message(error)
        if not milestone_error(filled, error.field, message) and error.field in forms.form.fields:
            forms.form.add_error(error.field, message)
        return refused(message, status=error.status_code)
    messages.success(request, _("Payment schedule and terms saved."))
    return redirect("quoting:quote-detail", pk=quote.pk)


@login_required
@require_GET
def quote_tco(request, pk: int):
    """The revision's own TCO comparison (?r=<number>, else the current one), priced as the
    quote is, with the workload it assumes and, on an editable revision, the choice of another."""
    quote = _quote_or_404(request, pk)
    number = request.GET.get("r", "")
    which = {"number": number} if number.isdigit() else {"pk": quote.current_revision_id}
    revision = get_object_or_404(QuoteRevision.objects.filter(quote=quote), **which)
    editable = (
        revision.pk == quote.current_revision_id
        and revision.design_id is not None
        and quote_actions(
            user=request.user, quote=quote, revision=revision, needs_approval=False, pending=None
        ).editable
    )
    context = {
        "quote": quote,
        "revision": revision,
        # Every option for the staff, each saying whether the proposal shows it.
        "tco": tco_presented(revision.tco_snapshot, tco_option_names(revision.tco_snapshot)),
        "tco_shown": revision_tco_options(revision=revision),
        "editable": editable,
        "tco_options_version": quote.version,
        "workload_form": WorkloadForm(
            initial={"workload": revision.workload, "expected_version": quote.version}
        ),
    }
    return render(request, "quoting/_quote_tco.html", context)


@login_required
@require_POST
def quote_tco_options(request, pk: int):
    """Choose the TCO options the proposal shows (a sent revision keeps its own: the change
    opens the next revision)."""
    quote = _quote_or_404(request, pk)
    names = tco_option_names(quote.current_revision.tco_snapshot)
    form = TcoOptionsForm(request.POST, names=names)

    def run(version):
        services.quote_update_terms(
            quote=quote,
            user=request.user,
            expected_version=version,
            tco_options=form.cleaned_data["tco_options"],
        )

    return _edit(request, quote, form, {"tco_options": "quote-message"}, run)


@login_required
@require_POST
def quote_workload(request, pk: int):
    """Choose the workload the quote's TCO assumes: the current revision's TCO is computed again
    (a sent revision keeps its own: the change opens the next revision)."""
    quote = _quote_or_404(request, pk)
    form = WorkloadForm(request.POST)

    def run(version):
        services.quote_update_terms(
            quote=quote,
            user=request.user,
            expected_version=version,
            workload=form.cleaned_data["workload"],
        )

    return _edit(request, quote, form, {"workload": "quote-message"}, run)


@login_required
@require_GET
def quote_product_picker(request, pk: int):
    quote = _quote_or_404(request, pk)
    filterset = ProductFilter(request.GET, queryset=product_list())
    products = list(filterset.qs[:PICKER_SIZE]) if request.GET.get("q", "").strip() else []
    prices = price_lookup(
        part_numbers={product.part_number for product in products}, currency=quote.currency
    )
    for product in products:
        product.quote_price = prices.get(product.part_number)
    return render(request, "quoting/_quote_picker.html", {"quote": quote, "products": products})


# --- actions (full page posts) -------------------------------------------------------------------


def _run_action(action: str, quote: Quote, user, version: int, note: str) -> str:
    """Call the service for `action`; returns the message to show."""
    if action == "request-approval":
        services.quote_request_approval(quote=quote, user=user, expected_version=version, note=note)
        return _("Approval requested: a manager will decide on the discount.")
    if action == "approve":
        services.quote_approve(quote=quote, user=user, reason=note, expected_version=version)
        return _("Discount approved: the quote can be sent.")
    if action == "reject":
        services.quote_reject(quote=quote, user=user, reason=note, expected_version=version)
        return _("Discount rejected: the quote is a draft again.")
    if action == "send":
        services.quote_send(quote=quote, user=user, expected_version=version)
        return _("Marked as sent: this revision is now frozen.")
    if action == "export-check":
        services.quote_export_check(quote=quote, user=user, expected_version=version)
        return _("Export-control check recorded: the quote can be sent as it stands.")
    if action == "accept":
        services.quote_mark_accepted(
            quote=quote, actor=user, expected_version=version, note=note, recorded_by="staff"
        )
        return _("The customer's acceptance is recorded.")
    if action == "decline":
        services.quote_mark_declined(quote=quote, actor=user, reason=note, expected_version=version)
        return _("The customer's refusal is recorded.")
    if action == "revise":
        revision = services.quote_revise(quote=quote, user=user, expected_version=version)
        return _("Now editing %(label)s.") % {"label": revision.label}
    raise Http404


ACTIONS = (
    "request-approval",
    "approve",
    "reject",
    "send",
    "export-check",
    "accept",
    "decline",
    "revise",
)


@login_required
@require_POST
def quote_action(request, pk: int, action: str):
    if action not in ACTIONS:
        raise Http404
    quote = _quote_or_404(request, pk)
    form = ActionForm(request.POST)
    if not form.is_valid():
        return _refused(
            request,
            quote,
            _("The page is out of date: reload it."),
            status=400,
            error_ids={},
            full_page=True,
        )
    try:
        message = _run_action(
            action,
            quote,
            request.user,
            form.cleaned_data["expected_version"],
            form.cleaned_data["note"],
        )
    except QuoteError as error:
        return _refused(
            request,
            quote,
            _error_message(error),
            status=error.status_code,
            error_ids={},
            full_page=True,
        )
    messages.success(request, message)
    return redirect("quoting:quote-detail", pk=quote.pk)

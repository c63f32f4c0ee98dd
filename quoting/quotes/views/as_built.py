"""The as-built check on the quote pages: upload what ibnetdiscover printed on the installed
fabric, see it against the revision's cable schedule, print the acceptance report.

Scoped like every quote page (quotes_visible_to): another team's quote is a 404.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from quoting.designs.forms.contract import add_engine_errors
from quoting.engine.errors import InvalidInput
from quoting.quotes.as_built_display import as_built_shown
from quoting.quotes.forms.as_built import AsBuiltForm
from quoting.quotes.models import Quote, QuoteRevision, QuoteStatus
from quoting.quotes.selectors import quotes_visible_to
from quoting.quotes.services.as_built import (
    as_built_check_of,
    as_built_check_run,
    as_built_checks_of,
)

# Rows per problem table on the page: the JSON (API) and the PDF say how many more there are.
ROWS_SHOWN = 500


def _revision(request, pk: int, number: int) -> tuple[Quote, QuoteRevision]:
    quote = get_object_or_404(
        quotes_visible_to(user=request.user).select_related("customer"), pk=pk
    )
    return quote, get_object_or_404(QuoteRevision, quote=quote, number=number)


@login_required
@require_http_methods(["GET", "POST"])
def quote_as_built(request, pk: int, number: int):
    """The upload (GET: the form and the revision's earlier checks); a good file goes on to
    its result, a bad one comes back with its reason at the field."""
    quote, revision = _revision(request, pk, number)
    form = AsBuiltForm(request.POST or None, request.FILES or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            upload = form.cleaned_data["discovered"]
            try:
                check = as_built_check_run(
                    revision=revision,
                    user=request.user,
                    filename=upload.name,
                    content=b"".join(upload.chunks()),
                )
            except InvalidInput as error:
                add_engine_errors(form, error.messages)
            else:
                return redirect(
                    "quoting:quote-as-built-result", pk=quote.pk, number=number, check_id=check.pk
                )
        status = 400
    context = {
        "quote": quote,
        "revision": revision,
        "form": form,
        "checks": as_built_checks_of(revision=revision, limit=20),
    }
    return render(request, "quoting/as_built.html", context, status=status)


@login_required
@require_GET
def quote_as_built_result(request, pk: int, number: int, check_id: int):
    quote, revision = _revision(request, pk, number)
    check = as_built_check_of(revision=revision, check_id=check_id)
    if check is None:
        raise Http404
    context = {
        "quote": quote,
        "revision": revision,
        "check": check,
        "shown": as_built_shown(check, rows=ROWS_SHOWN),
        # The customer's sign-off (proposals' AsBuiltSignOff, asked and signed through the
        # share link), read by its relation: this app does not import the one above it.
        "sign_off": getattr(check, "sign_off", None),
        "can_ask": quote.status == QuoteStatus.ACCEPTED and quote.booked_revision_id == revision.pk,
    }
    return render(request, "quoting/as_built_result.html", context)

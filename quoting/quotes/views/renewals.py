"""Renewals on the pages: the quote page's card of support and licences (their terms, when each
starts and ends, the renewal quote) and its two writes, each one service call."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from quoting.errors import QuoteError
from quoting.quotes.forms.renewals import TermStartForm
from quoting.quotes.renewals import open_renewal, quote_renewals, quote_term_lines
from quoting.quotes.services.renewals import quote_renewal_create, quote_term_start_set
from quoting.quotes.views.quotes import _error_message, _quote_or_404, _refused


@login_required
@require_GET
def quote_renewals_panel(request, pk: int):
    """The quote page's card (loaded after the page): the booked terms, the start of each (a
    form), the renewals and the button that makes one. Empty for a quote with none of them."""
    quote = _quote_or_404(request, pk)
    terms = quote_term_lines(quote=quote)
    renewals = quote_renewals(quote=quote)
    context = {
        "quote": quote,
        "terms": [
            (
                term,
                TermStartForm(
                    initial={"starts_on": term.line.starts_on, "expected_version": quote.version},
                    auto_id=f"term-{term.line.key}-%s",
                ),
            )
            for term in terms
        ],
        "renewals": renewals,
        "open_renewal": open_renewal(renewals),
    }
    return render(request, "quoting/_quote_renewals.html", context)


@login_required
@require_POST
def quote_renewal_new(request, pk: int):
    """Create the renewal quote of an accepted quote (the home page's button, the quote page's)
    and open it."""
    quote = _quote_or_404(request, pk)
    try:
        renewal = quote_renewal_create(quote=quote, user=request.user)
    except QuoteError as error:
        return _refused(
            request,
            quote,
            _error_message(error),
            status=error.status_code,
            error_ids={},
            full_page=True,
        )
    messages.success(
        request,
        _("Renewal quote %(number)s created from %(old)s at today's prices.")
        % {"number": renewal.number, "old": quote.number},
    )
    return redirect("quoting:quote-detail", pk=renewal.pk)


@login_required
@require_POST
def quote_term_start(request, pk: int, key):
    quote = _quote_or_404(request, pk)
    form = TermStartForm(request.POST)
    if not form.is_valid():
        return _refused(
            request,
            quote,
            _("Enter the date the term starts, such as 2026-05-01."),
            status=400,
            error_ids={},
            full_page=True,
        )
    try:
        term = quote_term_start_set(
            quote=quote,
            line_key=key,
            starts_on=form.cleaned_data["starts_on"],
            user=request.user,
            expected_version=form.cleaned_data["expected_version"],
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
    messages.success(
        request,
        _("The term of %(line)s now runs from %(start)s to %(end)s.")
        % {
            "line": term.line.description_shown,
            "start": term.line.starts_on.isoformat(),
            "end": term.ends_on.isoformat(),
        },
    )
    return redirect("quoting:quote-detail", pk=quote.pk)

"""Customers and their contacts: the list, the form and the customer's page (its projects and
its latest quotes).

Every object comes through customers_visible_to: another team's customer is a 404.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from quoting.customers.filters import CustomerFilter
from quoting.customers.forms import ContactFormSet, CustomerForm
from quoting.customers.selectors import customer_quotes, customers_visible_to, projects_visible_to
from quoting.customers.services import (
    CONTACT_FIELDS,
    ContactEdit,
    customer_create,
    customer_update,
)
from quoting.errors import QuoteError

PAGE_SIZE = 25


def _list(request, filterset, template: str, partial: str):
    page = Paginator(filterset.qs, PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {"filter": filterset, "page": page, "query": query.urlencode()}
    return render(request, partial if request.htmx else template, context)


# --- customers -----------------------------------------------------------------------------------


@login_required
@require_GET
def customer_list(request):
    customers = (
        customers_visible_to(user=request.user)
        .annotate(project_count=Count("projects"))
        .order_by("company")  # an aggregate drops Meta.ordering
    )
    filterset = CustomerFilter(request.GET, queryset=customers, request=request)
    return _list(request, filterset, "quoting/customer_list.html", "quoting/customer_table.html")


def _customer_form_page(request, form, contacts, customer=None, status=200):
    return render(
        request,
        "quoting/customer_form.html",
        {"form": form, "contacts": contacts, "customer": customer},
        status=status,
    )


def _contact_edits(contacts) -> list[ContactEdit]:
    """The contact rows of a valid formset as the service takes them (untouched rows left out)."""
    edits = []
    for form in contacts.forms:
        existing = form.instance if form.instance.pk is not None else None
        if form.cleaned_data.get("DELETE"):
            if existing is not None:
                edits.append(ContactEdit(contact=existing, delete=True))
        elif form.has_changed():
            values = {name: form.cleaned_data[name] for name in CONTACT_FIELDS}
            edits.append(ContactEdit(contact=existing, values=values))
    return edits


def _refusal_on_form(form, error) -> None:
    """A service's refusal beside the field at fault (a QuoteError or a model's ValidationError)."""
    if isinstance(error, QuoteError):
        form.add_error(error.field if error.field in form.fields else None, error.message)
        return
    if not hasattr(error, "error_dict"):
        form.add_error(None, error.messages)
        return
    for field, errors in error.message_dict.items():
        form.add_error(field if field in form.fields else None, errors)


@login_required
@require_http_methods(["GET", "POST"])
def customer_new(request):
    form = CustomerForm(request.POST or None, user=request.user)
    contacts = ContactFormSet(request.POST or None, prefix="contacts")
    if request.method == "POST" and form.is_valid() and contacts.is_valid():
        try:
            customer = customer_create(
                owner=request.user, contacts=_contact_edits(contacts), **form.cleaned_data
            )
        except (QuoteError, ValidationError) as error:
            _refusal_on_form(form, error)
        else:
            messages.success(request, _("Customer created."))
            return redirect("quoting:customer-detail", pk=customer.pk)
    status = 400 if request.method == "POST" else 200
    return _customer_form_page(request, form, contacts, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def customer_edit(request, pk: int):
    customer = get_object_or_404(customers_visible_to(user=request.user), pk=pk)
    form = CustomerForm(request.POST or None, instance=customer, user=request.user)
    contacts = ContactFormSet(request.POST or None, instance=customer, prefix="contacts")
    if request.method != "POST":
        return _customer_form_page(request, form, contacts, customer)
    if form.is_valid() and contacts.is_valid():
        try:
            customer_update(
                customer=customer,
                user=request.user,
                contacts=_contact_edits(contacts),
                **form.cleaned_data,
            )
        except (QuoteError, ValidationError) as error:
            _refusal_on_form(form, error)
        else:
            messages.success(request, _("Customer saved."))
            return redirect("quoting:customer-detail", pk=customer.pk)
    return _customer_form_page(request, form, contacts, customer, status=400)


@login_required
@require_GET
def customer_detail(request, pk: int):
    customer = get_object_or_404(customers_visible_to(user=request.user), pk=pk)
    context = {
        "customer": customer,
        "contacts": customer.contacts.all(),
        "projects": projects_visible_to(user=request.user)
        .filter(customer=customer)
        .annotate(design_count=Count("designs", distinct=True))
        .order_by("name"),
        "quotes": customer_quotes(customer=customer)[:20],
    }
    return render(request, "quoting/customer_detail.html", context)

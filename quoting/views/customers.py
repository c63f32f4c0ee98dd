"""Customers, their contacts and projects, and the project page (saved designs → quotes).

Every object comes through customers_visible_to / projects_visible_to: another team's customer
or project is a 404.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from quoting.display import requirement_rows
from quoting.errors import QuoteError
from quoting.filters import CustomerFilter, ProjectFilter
from quoting.forms.customers import ContactFormSet, CustomerForm, ProjectForm
from quoting.selectors import customers_visible_to, projects_visible_to, quotes_visible_to
from quoting.services.customers import (
    CONTACT_FIELDS,
    ContactEdit,
    customer_create,
    customer_update,
    project_create,
)
from quoting.services.quotes import quote_create_from_design
from quoting.services.snapshots import design_priced

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
            customer_update(customer=customer, user=request.user,
                            contacts=_contact_edits(contacts), **form.cleaned_data)
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
        "quotes": quotes_visible_to(user=request.user).filter(customer=customer)[:20],
    }
    return render(request, "quoting/customer_detail.html", context)


# --- projects ------------------------------------------------------------------------------------


@login_required
@require_GET
def project_list(request):
    projects = (
        projects_visible_to(user=request.user)
        .annotate(
            design_count=Count("designs", distinct=True),
            quote_count=Count("quotes", distinct=True),
        )
        .order_by("customer__company", "name")
    )
    filterset = ProjectFilter(request.GET, queryset=projects, request=request)
    return _list(request, filterset, "quoting/project_list.html", "quoting/project_table.html")


@login_required
@require_http_methods(["GET", "POST"])
def project_new(request, customer_pk: int):
    customer = get_object_or_404(customers_visible_to(user=request.user), pk=customer_pk)
    form = ProjectForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            project = project_create(
                customer=customer,
                name=form.cleaned_data["name"],
                owner=request.user,
                requirements=form.requirements(),
                notes=form.cleaned_data["notes"],
            )
        except (QuoteError, ValidationError) as error:  # full_clean: a duplicate name...
            _refusal_on_form(form, error)
        else:
            messages.success(request, _("Project created."))
            return redirect("quoting:project-detail", pk=project.pk)
    status = 400 if request.method == "POST" else 200
    return render(
        request,
        "quoting/project_form.html",
        {"form": form, "customer": customer},
        status=status,
    )


def _designs_priced(designs, currency: str) -> None:
    """The list total of each saved design's BOM, read from its snapshot (priced when saved)."""
    for design in designs:
        priced = design_priced(design=design, currency=currency)
        design.list_total, design.missing_prices = priced.total, list(priced.missing)
        design.link = "/designs/new/?" + urlencode({"design": design.pk,
                                                     "project": design.project_id})


def _project_page(request, project, *, error: str = "", status: int = 200):
    designs = list(project.designs.defer("racks"))  # the proposal's, not this page's
    currency = project.customer.default_currency
    _designs_priced(designs, currency)
    # The design page starts from the project's requirements and offers saving to it.
    new_design = "/designs/new/?" + urlencode({"project": project.pk})
    context = {
        "project": project,
        "requirements": requirement_rows(project.requirements),
        "designs": designs,
        "currency": currency,
        "quotes": quotes_visible_to(user=request.user).filter(project=project),
        "new_design_url": new_design,
        "page_error": error,
    }
    return render(request, "quoting/project_detail.html", context, status=status)


@login_required
@require_GET
def project_detail(request, pk: int):
    project = get_object_or_404(projects_visible_to(user=request.user), pk=pk)
    return _project_page(request, project)


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

"""Projects: the list, the form and the project page (its requirements, its saved designs
priced, its quotes).

Every object comes through projects_visible_to: another team's project is a 404.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from quoting.customers.filters import ProjectFilter
from quoting.customers.models import Project
from quoting.customers.selectors import customers_visible_to, project_quotes, projects_visible_to
from quoting.customers.services import (
    project_create,
    project_update,
)
from quoting.customers.views import _list, _refusal_on_form
from quoting.designs.display import requirement_rows
from quoting.designs.forms.projects import ProjectForm, ProjectPlanForm
from quoting.designs.models import SavedDesign
from quoting.designs.services.snapshots import design_priced
from quoting.errors import QuoteError

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
                **form.plan(),
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


@dataclass(frozen=True, slots=True)
class DesignRow:
    """A saved design on its project's page: its BOM's list total (read from its snapshot,
    priced when saved), the parts without a price, and where the design page opens it."""

    design: SavedDesign
    list_total: Decimal
    missing_prices: list[str]
    link: str


def _designs_priced(designs, currency: str) -> list[DesignRow]:
    rows = []
    for design in designs:
        priced = design_priced(design=design, currency=currency)
        link = "/designs/new/?" + urlencode({"design": design.pk, "project": design.project_id})
        rows.append(DesignRow(design, priced.total, list(priced.missing), link))
    return rows


def _project_page(request, project, *, error="", status=200, plan_form=None):
    designs = project.designs.defer("racks")  # the proposal's, not this page's
    currency = project.customer.default_currency
    designs = _designs_priced(designs, currency)
    # The design page starts from the project's requirements and offers saving to it.
    new_design = "/designs/new/?" + urlencode({"project": project.pk})
    context = {
        "project": project,
        "requirements": requirement_rows(project.requirements),
        "designs": designs,
        "currency": currency,
        "quotes": project_quotes(project=project),
        "new_design_url": new_design,
        "page_error": error,
        "plan_form": plan_form or ProjectPlanForm(instance=project),
    }
    return render(request, "quoting/project_detail.html", context, status=status)


@login_required
@require_GET
def project_detail(request, pk: int):
    project = get_object_or_404(projects_visible_to(user=request.user), pk=pk)
    return _project_page(request, project)


@login_required
@require_http_methods(["POST"])
def project_plan(request, pk: int):
    """The parts of the plan the customer asks for; a bad note is shown at its field."""
    project = get_object_or_404(projects_visible_to(user=request.user), pk=pk)
    # A copy to validate: the instance the page shows keeps its stored values until saved.
    form = ProjectPlanForm(request.POST, instance=Project(pk=project.pk))
    if form.is_valid():
        try:
            project_update(project=project, **form.cleaned_data)
        except (QuoteError, ValidationError) as error:
            _refusal_on_form(form, error)
        else:
            messages.success(request, _("The plan is saved."))
            return redirect("quoting:project-detail", pk=project.pk)
    return _project_page(request, project, status=400, plan_form=form)

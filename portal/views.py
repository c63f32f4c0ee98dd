import functools
import sys
from pathlib import Path

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.staticfiles import finders
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views import defaults
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from django.views.i18n import set_language

from catalog.selectors import catalog_summary
from portal.api.exceptions import problem_response
from portal.forms import CompanyProfileForm
from portal.health import portal_health
from portal.middleware import DATABASE_DOWN, database_unavailable
from portal.models import CompanyProfile
from portal.services import may_edit_company
from portal.work import NO_WORK, work_queues
from quoting.errors import InvalidValue
from quoting.quotes.forms.quotes import (
    MilestoneFormSet,
    milestone_error,
    milestones_filled,
    schedule_of,
)
from quoting.quotes.models import milestone_label
from quoting.quotes.services.quotes import payment_schedule_clean


@require_GET
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    health = portal_health()
    return JsonResponse(health, status=200 if health["status"] == "ok" else 503)


FAVICON = "favicon.svg"


@functools.cache
def _favicon_bytes() -> bytes | None:
    path = finders.find(FAVICON)
    return None if path is None else Path(path).read_bytes()


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """/favicon.ico, which browsers ask for whatever the page links: the SVG icon itself (a
    redirect to a hashed static name could not be cached for good)."""
    icon = _favicon_bytes()
    if icon is None:
        raise Http404
    response = HttpResponse(icon, content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=86400"
    return response


@login_required
def home(request: HttpRequest):
    work = work_queues(user=request.user)
    context = {
        "catalog": catalog_summary(),
        "work_counts": work.counts,
    }
    if work.counts is not NO_WORK:
        context["work"] = work
    return render(request, "portal/home.html", context)


@require_POST
def language_set(request: HttpRequest):
    """Django's set_language, plus remembering the choice on the signed-in user."""
    response = set_language(request)
    language = request.POST.get("language", "")
    user = request.user
    if user.is_authenticated and language in dict(user._meta.get_field("language").choices):
        user.language = language
        user.save(update_fields=["language"])
    return response


def server_error(request: HttpRequest):
    """handler500: the database out of reach is a 503 (see DatabaseUnavailableMiddleware)."""
    if isinstance(sys.exc_info()[1], DATABASE_DOWN):
        return database_unavailable(request)
    if request.path.startswith("/api/"):
        return problem_response(request, 500, "Something went wrong on our side.")
    return defaults.server_error(request)


def not_found(request: HttpRequest, exception=None):
    """handler404: under /api/ a path nothing answers is a 404 problem (a client's parser
    expects JSON from every /api/ answer); elsewhere Django's page."""
    if request.path.startswith("/api/"):
        return problem_response(request, 404, "No API resource at this path.")
    return defaults.page_not_found(request, exception)


def permission_denied(request: HttpRequest, exception=None):
    """handler403: under /api/ a 403 problem, as the API's own refusals; elsewhere a page in the
    user's language that says why and leads back."""
    if request.path.startswith("/api/"):
        return problem_response(request, 403, "You do not have permission to do this.")
    return render(request, "403.html", status=403)


@login_required
def company_profile_edit(request: HttpRequest):
    """The seller's company profile (what proposals print) and the payment schedule new quotes
    start with: company admins and catalog managers (portal.services.COMPANY_PROFILE_EDITORS)."""
    if not may_edit_company(request.user):
        raise PermissionDenied
    profile = CompanyProfile.objects.filter(pk=CompanyProfile.SINGLETON_PK).first()
    data = request.POST if request.method == "POST" else None
    form = CompanyProfileForm(data, request.FILES or None, instance=profile)
    milestones = MilestoneFormSet(
        data,
        prefix="milestone",
        initial=[
            m | {"label": milestone_label(m.get("label", ""))}
            for m in (profile.payment_schedule if profile else [])
            if isinstance(m, dict)  # a schedule edited by hand in the admin may hold anything
        ],
    )
    if data is not None and form.is_valid() and milestones.is_valid():
        filled = milestones_filled(milestones)
        try:
            schedule = payment_schedule_clean(schedule_of(filled))
        except InvalidValue as error:
            if not milestone_error(filled, error.field, error.message):
                milestones._non_form_errors = milestones.error_class([error.message])
        else:
            with transaction.atomic():
                saved = form.save(commit=False)
                saved.payment_schedule = schedule
                saved.save()
            messages.success(request, _("Company profile saved."))
            return redirect("company-profile")
    return render(
        request,
        "portal/company_profile.html",
        {"form": form, "milestones": milestones, "profile": profile},
        status=400 if data is not None else 200,
    )

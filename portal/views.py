import sys

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, JsonResponse
from django.shortcuts import render
from django.views import defaults
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from django.views.i18n import set_language

from catalog.selectors import catalog_summary

from .health import portal_health
from .middleware import DATABASE_DOWN, database_unavailable


@require_GET
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    health = portal_health()
    return JsonResponse(health, status=200 if health["status"] == "ok" else 503)


@login_required
def home(request: HttpRequest):
    return render(request, "portal/home.html", {"catalog": catalog_summary()})


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
    return defaults.server_error(request)

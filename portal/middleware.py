import logging

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils import translation

logger = logging.getLogger(__name__)


class UserLanguageMiddleware:
    """A signed-in user's chosen language wins over the browser's Accept-Language.

    Runs after AuthenticationMiddleware; LocaleMiddleware has already picked the browser's
    language for anonymous visitors (and share-link pages pick the customer's own).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and user.language:
            translation.activate(user.language)
            request.LANGUAGE_CODE = user.language
        return self.get_response(request)


# --- the database out of reach -------------------------------------------------------------------

DATABASE_DOWN = (OperationalError, InterfaceError)
API_PREFIX = "/api/"


def database_unavailable(request) -> HttpResponse:
    """503 while the database cannot be reached: a small page, or the API's error shape.

    Built without the database (no request context: the user and the session live in it).
    """
    if request.path.startswith(API_PREFIX):
        response = JsonResponse(
            {"detail": "The service is temporarily unavailable (its database cannot be "
                       "reached); try again in a minute."},
            status=503,
        )
    else:
        response = HttpResponse(render_to_string("503.html"), status=503)
    response["Retry-After"] = "30"
    response["Cache-Control"] = "no-store"
    return response


class DatabaseUnavailableMiddleware:
    """A view that finds the database down answers 503, not a 500 with a traceback.

    Errors raised by other middleware (the session, the user) before any view reach
    portal.views.server_error (handler500), which answers the same.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, DATABASE_DOWN):
            logger.error("database unavailable on %s: %s: %s", request.path,
                         exception.__class__.__name__, exception)
            return database_unavailable(request)
        return None

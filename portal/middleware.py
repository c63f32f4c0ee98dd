import logging
from dataclasses import asdict

from csp import middleware as csp_middleware
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.utils import translation

from portal.api.exceptions import problem_response

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
        response = problem_response(
            request,
            503,
            "The service is temporarily unavailable (its database cannot be reached); try "
            "again in a minute.",
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
            logger.error(
                "database unavailable on %s: %s: %s",
                request.path,
                exception.__class__.__name__,
                exception,
            )
            return database_unavailable(request)
        return None


# --- the Content-Security-Policy header, built once ---------------------------------------------

# What a view or a decorator may set on a response to change or drop the policy (django-csp).
_CSP_PER_RESPONSE = (
    "_csp_config",
    "_csp_update",
    "_csp_replace",
    "_csp_exempt",
    "_csp_config_ro",
    "_csp_update_ro",
    "_csp_replace_ro",
    "_csp_exempt_ro",
)


class CSPMiddleware(csp_middleware.CSPMiddleware):
    """django-csp's middleware, without rebuilding the same header for every response.

    The policy only varies with a nonce (a page that used one) or a response's own settings
    (csp_update and the like); otherwise it is the settings' policy, built once per process,
    where django-csp builds it anew each time (a tenth of an API call's time). A response that
    already carries a policy (the share page sets its own) gets nothing built at all.
    """

    _plain: tuple[object, str] | None = None  # (the settings' policy, its header)

    def process_response(self, request, response):
        if (
            getattr(request, "_csp_nonce", None) is not None
            or any(hasattr(response, name) for name in _CSP_PER_RESPONSE)
            or _csp_has_extras()
        ):
            return super().process_response(request, response)
        if csp_middleware.HEADER not in response and not (
            settings.DEBUG and response.status_code in (404, 500)
        ):
            header = self._plain_header(request, response)
            if header:
                response[csp_middleware.HEADER] = header
        # As django-csp does: a nonce asked for after the header is written is an error.
        request.csp_nonce = csp_middleware.CheckableLazyObject(self._csp_nonce_post_response)
        return response

    def _plain_header(self, request, response) -> str:
        policy = getattr(settings, "CONTENT_SECURITY_POLICY", None)
        cached = CSPMiddleware._plain
        if cached is None or cached[0] is not policy:  # first use, or settings overridden
            parts = self.get_policy_parts(request=request, response=response)
            cached = CSPMiddleware._plain = (policy, csp_middleware.build_policy(**asdict(parts)))
        return cached[1]


def _csp_has_extras() -> bool:
    """A report-only policy or excluded paths: left to django-csp's own code."""
    report_only = getattr(settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY", None)
    policy = getattr(settings, "CONTENT_SECURITY_POLICY", None) or {}
    return bool(report_only) or bool(policy.get("EXCLUDE_URL_PREFIXES"))

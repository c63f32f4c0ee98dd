"""One error shape for everything under /api/: RFC 9457 problem details.

`application/problem+json` with `type`, `title` (the status phrase), `status`, `detail` (a
sentence), `code` (machine-readable, DRF's codes: "invalid", "not_found", "throttled"...),
`request_id` (the X-Request-ID) and, for field errors, `errors` {field: [message, ...]} where a
nested field is named by its dotted path ("fabrics[1].transport", "lines[0].sku"). An exception's
`problem_extra` dict is merged in (a 409 duplicate names `existing_id`).

The exception handler turns DRF's exceptions and the domain errors (QuoteError, InvalidInput,
Django's ValidationError, ProtectedError, a body too large) into problems; `problem_response`
builds the same for answers made outside DRF (an unknown /api/ path, a 500, the database down).
"""

from __future__ import annotations

import json
import re
from http import HTTPStatus

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import ProtectedError
from django.http import Http404, HttpResponse
from rest_framework import exceptions as drf
from rest_framework.renderers import JSONRenderer
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler

from quoting.engine.errors import InvalidInput
from quoting.errors import QuoteError

PROBLEM_CONTENT_TYPE = "application/problem+json"
# A stable name per code, documented in docs/api.md ("Errors"); never fetched by anything.
PROBLEM_TYPE_BASE = "https://fabricquote.example/problems/"

# The code of an answer whose exception gave none (a page nothing answers, a 500 page...).
STATUS_CODES = {
    400: "invalid",
    401: "not_authenticated",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    412: "precondition_failed",
    413: "request_too_large",
    415: "unsupported_media_type",
    422: "unprocessable",
    428: "precondition_required",
    429: "throttled",
    500: "server_error",
    503: "service_unavailable",
}


class ProblemRenderer(JSONRenderer):
    media_type = PROBLEM_CONTENT_TYPE


def status_title(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def problem(
    status: int,
    detail: str,
    *,
    code: str | None = None,
    errors: dict | None = None,
    extra: dict | None = None,
    request_id: str | None = None,
) -> dict:
    code = code or STATUS_CODES.get(status, "error")
    body = {
        "type": PROBLEM_TYPE_BASE + code,
        "title": status_title(status),
        "status": status,
        "detail": detail,
        "code": code,
    }
    if errors:
        body["errors"] = errors
    body.update(extra or {})
    if request_id:
        body["request_id"] = request_id
    return body


def problem_response(request, status: int, detail: str, **kwargs) -> HttpResponse:
    """A problem outside DRF (Django's handlers, middleware)."""
    body = problem(status, detail, request_id=getattr(request, "request_id", None), **kwargs)
    return HttpResponse(json.dumps(body), status=status, content_type=PROBLEM_CONTENT_TYPE)


def flatten_errors(detail, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested error detail as {dotted.path: [message, ...]}; list items as `name[i]`."""
    if isinstance(detail, dict):
        out: dict[str, list[str]] = {}
        for key, value in detail.items():
            if isinstance(key, int):
                name = f"{prefix}[{key}]"
            else:
                name = f"{prefix}.{key}" if prefix else str(key)
            for path, messages in flatten_errors(value, name).items():
                out.setdefault(path, []).extend(messages)
        return out
    if isinstance(detail, list | tuple):
        out = {}
        for index, item in enumerate(detail):
            if isinstance(item, dict | list | tuple):
                for path, messages in flatten_errors(item, f"{prefix}[{index}]").items():
                    out.setdefault(path, []).extend(messages)
            else:
                out.setdefault(prefix or api_settings.NON_FIELD_ERRORS_KEY, []).append(str(item))
        return out
    return {prefix or api_settings.NON_FIELD_ERRORS_KEY: [str(detail)]}


def validation_error(error: InvalidInput) -> drf.ValidationError:
    return drf.ValidationError(
        {
            field: [m[:1].upper() + m[1:] for m in messages]
            for field, messages in error.errors.items()
        }
    )


class DomainError(drf.APIException):
    """A QuoteError or another domain refusal as DRF sees it: its status and message."""

    def __init__(self, detail: str, *, status: int, code: str, field: str | None = None):
        super().__init__(detail, code)
        self.status_code = status
        self.field = field


def _quote_error_code(error: QuoteError) -> str:
    """A refused step (409) is named by its rule: "illegal_transition", "approval_required",
    "revision_frozen", "quote_expired"; the others by their status."""
    if error.status_code == 409 and type(error) is not QuoteError:
        return re.sub(r"(?<!^)(?=[A-Z])", "_", type(error).__name__).lower()
    return STATUS_CODES.get(error.status_code, "invalid")


def _as_api_exception(exc):
    """The domain errors as DRF exceptions; anything else as it is."""
    if isinstance(exc, QuoteError):
        code = getattr(exc, "code", None) or _quote_error_code(exc)
        converted = DomainError(exc.message, status=exc.status_code, code=code, field=exc.field)
        converted.problem_extra = getattr(exc, "problem_extra", None)
        return converted
    if isinstance(exc, Http404):
        return drf.NotFound(*exc.args)
    if isinstance(exc, PermissionDenied):
        return drf.PermissionDenied(*exc.args)
    if isinstance(exc, InvalidInput):
        return validation_error(exc)
    if isinstance(exc, DjangoValidationError):
        if hasattr(exc, "error_dict"):
            return drf.ValidationError(exc.message_dict)
        return drf.ValidationError(exc.messages)
    if isinstance(exc, ProtectedError):
        return DomainError(
            "Other records (quotes, projects) still refer to this one.",
            status=409,
            code="protected",
        )
    if isinstance(exc, RequestDataTooBig):
        return DomainError("The request body is too large.", status=413, code="request_too_large")
    return exc


def _summary(errors: dict[str, list[str]]) -> str:
    if list(errors) == [api_settings.NON_FIELD_ERRORS_KEY]:
        return " ".join(errors[api_settings.NON_FIELD_ERRORS_KEY])
    return "Invalid input: " + ", ".join(errors) + "."


def problem_of(exc: drf.APIException, request_id: str | None = None) -> dict:
    status = exc.status_code
    extra = getattr(exc, "problem_extra", None)
    if isinstance(exc, drf.ValidationError):
        errors = flatten_errors(exc.detail)
        return problem(
            status,
            _summary(errors),
            code="invalid",
            errors=errors,
            extra=extra,
            request_id=request_id,
        )
    codes = exc.get_codes()
    code = codes if isinstance(codes, str) else exc.default_code
    if isinstance(exc.detail, dict | list):
        errors = flatten_errors(exc.detail)
        return problem(
            status, _summary(errors), code=code, errors=errors, extra=extra, request_id=request_id
        )
    field = getattr(exc, "field", None)
    return problem(
        status,
        str(exc.detail),
        code=code,
        errors={field: [str(exc.detail)]} if field else None,
        extra=extra,
        request_id=request_id,
    )


def api_exception_handler(exc, context):
    exc = _as_api_exception(exc)
    response = exception_handler(exc, context)  # headers: WWW-Authenticate, Retry-After, Allow
    if response is None:
        return None  # a crash: Django's handler500 answers (a problem under /api/)
    request = context.get("request")
    request_id = getattr(getattr(request, "_request", request), "request_id", None)
    response.data = problem_of(exc, request_id)
    if request is not None:
        # A problem is JSON whatever the client asked to accept (406 included).
        request.accepted_renderer = ProblemRenderer()
        request.accepted_media_type = PROBLEM_CONTENT_TYPE
    response.content_type = PROBLEM_CONTENT_TYPE
    return response

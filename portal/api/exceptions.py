"""One error shape for the API: 400 with {"field": ["message", ...]} like DRF's own, and the
exception handler that turns domain errors (QuoteError, InvalidInput, ProtectedError, a body
too large) into it.
"""

from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import ProtectedError
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler

from quoting.engine.errors import InvalidInput
from quoting.errors import QuoteError


def validation_error(error: InvalidInput) -> ValidationError:
    return ValidationError(
        {
            field: [m[:1].upper() + m[1:] for m in messages]
            for field, messages in error.errors.items()
        }
    )


def quote_error_response(error: QuoteError) -> Response:
    body = {error.field: [error.message]} if error.field else {"detail": error.message}
    return Response(body, status=error.status_code)


def api_exception_handler(exc, context):
    if isinstance(exc, QuoteError):
        return quote_error_response(exc)
    if isinstance(exc, InvalidInput):
        exc = validation_error(exc)
    elif isinstance(exc, DjangoValidationError):
        body = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
        return Response(body, status=400)
    elif isinstance(exc, ProtectedError):
        return Response(
            {"detail": "Other records (quotes, projects) still refer to this one."}, status=409
        )
    elif isinstance(exc, RequestDataTooBig):
        return Response({"detail": "The request body is too large."}, status=413)
    return exception_handler(exc, context)

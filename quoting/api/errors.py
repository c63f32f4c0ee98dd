"""One error shape for the API: 400 with {"field": ["message", ...]} like DRF's own."""

from rest_framework.exceptions import ValidationError

from quoting.engine.errors import InvalidInput


def validation_error(error: InvalidInput) -> ValidationError:
    return ValidationError({field: [m[:1].upper() + m[1:] for m in messages]
                            for field, messages in error.errors.items()})

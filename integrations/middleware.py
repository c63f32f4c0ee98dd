from django.conf import settings
from django.core.exceptions import RequestDataTooBig

from portal.api.exceptions import problem_response


def _too_big(request):
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return problem_response(
        request,
        413,
        f"The request body is larger than {limit} bytes.",
        code="request_too_large",
    )


class ApiBodyLimitMiddleware:
    """API bodies over DATA_UPLOAD_MAX_MEMORY_SIZE get 413 before anything reads them.

    DRF parses JSON from the raw stream, which Django's own limit never checks, and Django turns
    RequestDataTooBig into a 400. Only /api/: the admin's CSV uploads have their own limits.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith("/api/") and settings.DATA_UPLOAD_MAX_MEMORY_SIZE is not None:
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = 0
            if length > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
                return _too_big(request)
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, RequestDataTooBig) and request.path.startswith("/api/"):
            return _too_big(request)
        return None

"""The quote page's Excel download: the same workbook and rules as the API's
GET /api/v1/quotes/{id}/xlsx/ (quoting.quotes.workbook)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from quoting.quotes.permissions import may_view_margin
from quoting.quotes.selectors import quotes_visible_to
from quoting.quotes.workbook import quote_xlsx


@login_required
@require_GET
def quote_xlsx_download(request, pk: int):
    """`?lang=en|zh-hans` (default: the customer's), `?variant=internal` for cost and margin
    (403 unless the user may see margins)."""
    quote = get_object_or_404(quotes_visible_to(user=request.user), pk=pk)
    internal = request.GET.get("variant") == "internal"
    if internal and not may_view_margin(user=request.user):
        raise PermissionDenied
    asked = request.GET.get("lang", "")
    language = asked if asked in dict(settings.LANGUAGES) else quote.customer.language
    workbook = quote_xlsx(quote=quote, language=language, internal=internal)
    response = HttpResponse(workbook.content, content_type=workbook.content_type)
    response["Content-Disposition"] = f'attachment; filename="{workbook.filename}"'
    return response

from rest_framework.pagination import PageNumberPagination


class PortalPagination(PageNumberPagination):
    """Page numbers with a client-chosen size, bounded so one call cannot ask for everything."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200

    def asked_rows(self, request) -> slice | None:
        """The rows of the page the request asks for (before anyone counts), or None when it
        names no plain page number (`last`, rubbish: the paginator decides)."""
        asked = request.query_params.get(self.page_query_param) or "1"
        if not asked.isdigit() or int(asked) < 1:
            return None
        size = self.get_page_size(request)
        if not size:
            return None
        first = (int(asked) - 1) * size
        return slice(first, first + size)

from django.core.paginator import Paginator
from django.utils.functional import cached_property
from rest_framework.pagination import PageNumberPagination

from portal.header_counts import quotes_counted


class PortalPagination(PageNumberPagination):
    """Page numbers with a client-chosen size, bounded so one call cannot ask for everything."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class QuotesPaginator(Paginator):
    """Django's Paginator whose total is kept between views until a quote changes
    (portal.header_counts.quotes_counted): for the quote list page."""

    @cached_property
    def count(self) -> int:
        return quotes_counted(self.object_list)

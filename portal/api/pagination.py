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
    (portal.header_counts.quotes_counted) under `key` (what decides the rows)."""

    def __init__(self, *args, key: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.key = key

    @cached_property
    def count(self) -> int:
        return quotes_counted(self.object_list, key=self.key)


# Query parameters that choose a page or its order, not which quotes are counted.
NOT_COUNTED = frozenset({"page", "page_size", "ordering", "format"})


def list_count_key(request, *, scope: str) -> str:
    """What decides a quote list's rows: who asks (their visibility) and the filters asked for."""
    params = sorted(
        (name, value)
        for name, values in request.GET.lists()
        if name not in NOT_COUNTED
        for value in values
    )
    return f"{scope}|{request.user.pk}|{params!r}"

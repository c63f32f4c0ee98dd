"""Template context every portal page gets."""

from __future__ import annotations

from django.utils.functional import SimpleLazyObject

from portal.header_counts import HeaderCounts
from portal.services import may_edit_company
from portal.work import work_counts
from quoting.quotes.selectors import notifications_unread_count


def header(request) -> dict:
    """The header's counts of a signed-in page: `work_counts` (the work queues' badges) and
    `inbox_unread` (the inbox badge), and `company_editable` (the company page's link). All lazy,
    so a page that shows no header asks nothing; the counts are read from the shared cache while
    no event changed them (portal.header_counts)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    counts = HeaderCounts(
        user_id=user.pk,
        work=lambda: work_counts(user=user),
        inbox=lambda: notifications_unread_count(user=user),
    )
    return {
        "work_counts": SimpleLazyObject(lambda: counts.work),
        "inbox_unread": lambda: counts.inbox,  # a callable: the template calls it when shown
        "company_editable": lambda: may_edit_company(user),
    }

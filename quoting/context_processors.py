"""The header's unread-notification badge, on every staff page."""

from __future__ import annotations

import functools

from quoting.selectors import notifications_unread_count


def notifications(request) -> dict:
    """`inbox_unread`: a callable the template calls, so a page that shows no header (or an
    anonymous visitor) asks nothing, and one that does asks once."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    @functools.cache
    def inbox_unread() -> int:
        return notifications_unread_count(user=user)

    return {"inbox_unread": inbox_unread}

"""Template context every portal page gets."""

from __future__ import annotations

from django.utils.functional import SimpleLazyObject

from .work import work_counts


def work(request) -> dict:
    """The header's work counts, computed only if the page shows them (a signed-in page)."""
    user = getattr(request, "user", None)
    if user is None:
        return {}
    return {"work_counts": SimpleLazyObject(lambda: work_counts(user=user))}

"""The installation pack's background job, apart from quoting.tasks so that the pack service
can queue it without importing the quote services (quoting.tasks imports it to register it)."""

from __future__ import annotations

from celery import shared_task

from quoting.services.install import install_pack_build


@shared_task(name="quoting.install_pack_build", acks_late=True, reject_on_worker_lost=True,
             soft_time_limit=120, time_limit=150)
def install_pack_build_task(pack_id: int) -> str | None:
    """Takes an id; the row says whether there is anything to do (a duplicate does nothing)."""
    return install_pack_build(pack_id=pack_id)

"""Background jobs of the designs: each takes an id and calls one service. Services queue them by
name (portal.queueing.enqueue), never by importing this module."""

from __future__ import annotations

from celery import shared_task

from quoting.designs.services.packs import design_pack_build


@shared_task(
    name="quoting.design_pack_build",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=120,
    time_limit=150,
)
def design_pack_build_task(pack_id: int) -> str | None:
    """Takes an id; the row says whether there is anything to do (a duplicate does nothing)."""
    return design_pack_build(pack_id=pack_id)

"""Queueing background work from a web request without letting a broker outage break it."""

from __future__ import annotations

import logging
import time

logger = logging.getLogger(__name__)

_paused_until = 0.0  # per process


def enqueue(name: str, *args, queue: str | None = None, argsrepr: str | None = None) -> None:
    """Queue the job registered as `name` (its `@shared_task(name=...)`) with `args`.
    `argsrepr` is how Celery's logs, events and monitors show them (for a secret argument).

    By name, so that a service queueing work never imports the module of its task: tasks import
    services, never the reverse (tests/test_import_cycles.py). In-process mode (no broker:
    `make run`, the tests) runs the job here and now, as Celery's eager mode does."""
    from portal.celery import app

    if app.conf.task_always_eager:  # every app's tasks module registered its jobs when ready
        app.tasks[name].apply_async(args, queue=queue, argsrepr=argsrepr)
    else:
        # ignore_result: otherwise send_task first subscribes to the task's result on the result
        # store, a second Redis conversation with its own retries (4 of the 6 s a publish took
        # with a Redis that accepts and never answers, ending in a RuntimeError that did not
        # pause queueing). Our tasks keep their outcome in rows (CELERY_TASK_IGNORE_RESULT).
        app.send_task(name, args=args, queue=queue, ignore_result=True, argsrepr=argsrepr)


def enqueue_or_leave_to_sweeper(
    name: str, *args, queue: str | None = None, argsrepr: str | None = None
) -> bool:
    """enqueue(name, *args), run after the commit of the row it works on; False when it was not
    queued.

    The row is committed by then, so nothing may undo or fail the request: with the broker
    unreachable (about a second, see the CELERY_BROKER_* settings) the error is logged and the
    row stays pending for its sweeper (proposals.requeue_stuck,
    integrations.webhook_deliveries_requeue). For a few seconds after that, requests do not
    try again: an outage where connecting times out costs one request its timeout, not all of
    them. An eager task failing in-process is logged too. `argsrepr`: what the logs show of
    the arguments (theirs, here too), when one of them must not be written down.
    """
    from django.conf import settings
    from kombu.exceptions import OperationalError as BrokerUnreachable

    global _paused_until
    shown = args if argsrepr is None else argsrepr
    if time.monotonic() < _paused_until:
        logger.warning("broker unreachable a moment ago: %s%s left to the sweeper", name, shown)
        return False
    try:
        enqueue(name, *args, queue=queue, **({} if argsrepr is None else {"argsrepr": argsrepr}))
    except BrokerUnreachable as exc:
        # How long requests do not wait for the broker again.
        _paused_until = time.monotonic() + settings.SERVICE_PAUSE_SECONDS
        logger.warning(
            "broker unreachable (%s): %s%s left to the sweeper",
            exc.__class__.__name__,
            name,
            shown,
        )
        return False
    except Exception:
        logger.exception("queueing %s%s failed: left to the sweeper", name, shown)
        return False
    return True

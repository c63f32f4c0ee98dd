"""Queueing background work from a web request without letting a broker outage break it."""

from __future__ import annotations

import logging
import time

logger = logging.getLogger(__name__)

PAUSE_SECONDS = 5.0  # after the broker failed, how long requests do not wait for it again
_paused_until = 0.0  # per process


def enqueue_or_leave_to_sweeper(send, *args, **kwargs) -> bool:
    """send(*args, **kwargs) (a task's delay/apply_async, or a function that calls one), run
    after the commit of the row it works on; False when it was not queued.

    The row is committed by then, so nothing may undo or fail the request: with the broker
    unreachable (a second or two, see the CELERY_BROKER_* settings) the error is logged and the
    row stays pending for its sweeper (proposals.requeue_stuck,
    integrations.webhook_deliveries_requeue). For a few seconds after that, requests do not
    try again: an outage where connecting times out costs one request its timeout, not all of
    them. An eager task failing in-process is logged too.
    """
    from kombu.exceptions import OperationalError as BrokerUnreachable

    global _paused_until
    if time.monotonic() < _paused_until:
        logger.warning("broker unreachable a moment ago: %s%r left to the sweeper",
                       _name(send), args)
        return False
    try:
        send(*args, **kwargs)
    except BrokerUnreachable as exc:
        _paused_until = time.monotonic() + PAUSE_SECONDS
        logger.warning(
            "broker unreachable (%s): %s%r left to the sweeper",
            exc.__class__.__name__, _name(send), args,
        )
        return False
    except Exception:
        logger.exception("queueing %s%r failed: left to the sweeper", _name(send), args)
        return False
    return True


def _name(send) -> str:
    task = getattr(send, "__self__", None)  # a task's bound delay / apply_async
    return getattr(task, "name", None) or getattr(send, "__qualname__", repr(send))

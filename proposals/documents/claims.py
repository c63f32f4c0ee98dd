"""Who is rendering what. A render or a signed copy is claimed by one process; a job re-sent
after that process died must take over without waiting for the sweeper, and must not take over
from a process that is still at work."""

from __future__ import annotations

import datetime as dt
import os
import socket

# The render task's hard time limit (proposals.tasks): past it, Celery has killed any render, so
# a claim this old is abandoned wherever its process ran.
RENDER_TIMEOUT = dt.timedelta(seconds=120)


def claimant() -> str:
    """This process, as a claim names it: "<host>:<pid>"."""
    return f"{socket.gethostname()[:80]}:{os.getpid()}"


def _process_gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            # A killed child its parent has not reaped yet is a zombie ("Z"): gone all the same.
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True
    except (OSError, IndexError):  # no /proc here: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False


def claim_abandoned(*, claimed_by: str, started_at: dt.datetime | None, now: dt.datetime) -> bool:
    """True when the claim's process is surely not rendering any more: the claim is older than
    the render timeout, or it names a process of this host that no longer exists.

    A process of another host, or this very process (a thread pool renders several at once), is
    taken at its word until the timeout."""
    if started_at is None or started_at <= now - RENDER_TIMEOUT:
        return True
    host, _, pid = (claimed_by or "").rpartition(":")
    if host != socket.gethostname()[:80] or not pid.isdigit() or int(pid) == os.getpid():
        return False
    return _process_gone(int(pid))


def seconds_until_abandoned(*, started_at: dt.datetime | None, now: dt.datetime) -> int:
    """When a job that found the claim alive should look again."""
    if started_at is None:
        return 1
    return max(1, int((started_at + RENDER_TIMEOUT - now).total_seconds()) + 1)

"""Real service processes for tests: a Celery worker subprocess on the real Redis."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def celery_worker(*, redis_url: str, database_url: str | None = None, concurrency: int = 1,
                  queue: str | None = None, extra_env: dict | None = None
                  ) -> Iterator[tuple[subprocess.Popen, str]]:
    """Start `celery -A portal worker` (prefork) on its own queue; stop it on exit.

    Yields the process and the queue name; send tasks with `queue=` so that no other worker on
    the machine picks them up.
    """
    queue = queue or f"test-{uuid.uuid4().hex[:10]}"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "portal.settings.base",
           "REDIS_URL": redis_url, "DEBUG": "true", **(extra_env or {})}
    if database_url:
        env["DATABASE_URL"] = database_url
    process = subprocess.Popen(  # noqa: S603 - fixed argv, our own interpreter
        [sys.executable, "-m", "celery", "-A", "portal", "worker", "--pool", "prefork",
         "--concurrency", str(concurrency), "--queues", queue, "--without-gossip",
         "--without-mingle", "--without-heartbeat", "--loglevel", "WARNING",
         "--hostname", f"{queue}@%h"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        yield process, queue
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


def wait_for(predicate, *, timeout: float, interval: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()

"""What every in-process benchmark starts with: the project importable, the base settings with
DEBUG off (query logging would be measured too), a throw-away var directory, Django set up.

A benchmark calls `django_ready()` before importing the project's modules."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def django_ready() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings.base")
    os.environ.setdefault("FABRICQUOTE_VAR_DIR", tempfile.mkdtemp(prefix="fq-bench-"))
    os.environ["DEBUG"] = "false"
    import django

    django.setup()


def sized_runs(*, world, seed, measure, sizes, empty_message: str) -> None:
    """The database-size benchmarks' main: migrate an EMPTY database, build the world once, then
    grow it to each size in turn (`seed(w, done, size)`) and measure there
    (`measure(w, size, repeats)`); repeats from the first argument (15)."""
    from django.core.management import call_command

    from quoting.quotes.models import Quote

    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    call_command("migrate", verbosity=0)
    if Quote.objects.exists():
        sys.exit(empty_message)
    w = world()
    done = 0
    for size in sizes:
        seed(w, done, size)
        done = size
        measure(w, size, repeats)


def plan_ends(captured) -> None:
    """On PostgreSQL, print the top and bottom lines of EXPLAIN ANALYZE of the last query
    `captured` (a CaptureQueriesContext) ran: the plan's shape and its execution time."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN ANALYZE " + captured.captured_queries[-1]["sql"])
        plan = [row[0] for row in cursor.fetchall()]
    print("   ", plan[0], "|", plan[-1])

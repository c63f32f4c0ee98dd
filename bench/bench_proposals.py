"""Proposal PDFs: render time (p50 / p95) and peak memory for 1, 10, 50 and 200 lines, and
proposals per minute with 1 and 2 Celery worker processes.

Run: .venv/bin/python bench/bench_proposals.py [repeats]. Uses a throw-away SQLite database
(set DATABASE_URL to an empty PostgreSQL database instead). The throughput part needs REDIS_URL:
it starts real prefork workers on their own queue, on the same database.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings.base")
os.environ.setdefault("FABRICQUOTE_VAR_DIR", tempfile.mkdtemp(prefix="fq-bench-"))
os.environ["DEBUG"] = "false"

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import Group  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import override_settings  # noqa: E402

from portal.models import SALES, User  # noqa: E402
from quoting.models import Customer, Project, QuoteLine, QuoteRevision, Team  # noqa: E402

SIZES = (1, 10, 50, 200)
THROUGHPUT_LINES, THROUGHPUT_JOBS = 50, 12


def quote_with_lines(*, user, project, count: int):
    from decimal import Decimal

    from quoting.services.quotes import quote_create

    quote = quote_create(project=project, user=user)
    QuoteLine.objects.bulk_create(
        QuoteLine(
            revision=quote.current_revision,
            position=n,
            kind="free-text",
            sku=f"SKU-{n:04d}",
            description=f"Line {n}: NVIDIA LinkX cable or transceiver, described at length",
            quantity=1 + n % 7,
            unit_price=Decimal("1234.56"),
        )
        for n in range(1, count + 1)
    )
    return quote


def render_child(revision_id: int, repeats: int) -> None:
    """In its own process, so ru_maxrss is this size's peak and nothing else's."""
    from proposals.pdf import proposal_pdf

    revision = QuoteRevision.objects.get(pk=revision_id)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    samples, size = [], 0
    for _ in range(repeats):
        start = time.perf_counter()
        size = len(proposal_pdf(revision=revision, language="en"))
        samples.append((time.perf_counter() - start) * 1000)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {"samples": samples, "rss_before_kb": before, "rss_peak_kb": peak, "pdf_bytes": size}
        )
    )


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def throughput(revision, user, workers: int) -> float:
    from portal.celery import app
    from portal.tasks import ping
    from proposals.models import ProposalDocument
    from proposals.services import proposal_request
    from tests.service_helpers import celery_worker, wait_for

    redis_url = os.environ["REDIS_URL"]
    app.conf.update(broker_url=redis_url, result_backend=redis_url, task_always_eager=False)
    database = os.environ.get("DATABASE_URL", "")
    env = {} if database else {"FABRICQUOTE_VAR_DIR": os.environ["FABRICQUOTE_VAR_DIR"]}
    with celery_worker(
        redis_url=redis_url, database_url=database or None, concurrency=workers, extra_env=env
    ) as (process, queue):
        ping.apply_async(queue=queue).get(timeout=120)  # the pool is up: time renders only
        with override_settings(PROPOSALS_QUEUE=queue):
            start = time.perf_counter()
            ids = [
                proposal_request(revision=revision, user=user, language="en").pk
                for _ in range(THROUGHPUT_JOBS)
            ]
            done = wait_for(
                lambda: (
                    ProposalDocument.objects.filter(pk__in=ids, status="ready").count() == len(ids)
                ),
                timeout=900,
                interval=0.2,
            )
            elapsed = time.perf_counter() - start
        assert done and process.poll() is None, "the renders did not finish"
    return THROUGHPUT_JOBS / elapsed * 60


def main() -> None:
    if sys.argv[1:2] == ["--render"]:
        render_child(int(sys.argv[2]), int(sys.argv[3]))
        return
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    call_command("migrate", verbosity=0)
    user = User.objects.create_user("bench", password="x")  # noqa: S106
    user.groups.add(Group.objects.get_or_create(name=SALES)[0])
    team = Team.objects.create(name="Bench")
    team.members.add(user)
    customer = Customer.objects.create(company="Bench Ltd", team=team, owner=user, language="en")
    project = Project.objects.create(customer=customer, name="Bench cluster", owner=user)

    print(f"Proposal PDF render, {repeats} runs per size (this machine, WeasyPrint in-process)")
    print(
        f"{'lines':>6} {'p50 ms':>9} {'p95 ms':>9} {'peak RSS MB':>12} {'+RSS MB':>8} {'PDF KB':>7}"
    )
    for count in SIZES:
        quote = quote_with_lines(user=user, project=project, count=count)
        result = subprocess.run(
            [sys.executable, __file__, "--render", str(quote.current_revision_id), str(repeats)],
            capture_output=True,
            text=True,
            check=True,
            env=os.environ.copy(),
        )
        data = json.loads(result.stdout.strip().splitlines()[-1])
        samples = data["samples"]
        print(
            f"{count:>6} {statistics.median(samples):>9.0f} {percentile(samples, 0.95):>9.0f} "
            f"{data['rss_peak_kb'] / 1024:>12.0f} "
            f"{(data['rss_peak_kb'] - data['rss_before_kb']) / 1024:>8.0f} "
            f"{data['pdf_bytes'] / 1024:>7.0f}"
        )

    if not os.environ.get("REDIS_URL"):
        print("Throughput: skipped, it needs REDIS_URL (real workers on a real broker).")
        return
    quote = quote_with_lines(user=user, project=project, count=THROUGHPUT_LINES)
    for workers in (1, 2):
        rate = throughput(quote.current_revision, user, workers)
        print(
            f"Throughput, {THROUGHPUT_LINES}-line proposals, {workers} worker process(es): "
            f"{rate:.0f} per minute ({THROUGHPUT_JOBS} jobs)"
        )


if __name__ == "__main__":
    main()

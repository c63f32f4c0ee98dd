"""Proposal PDFs: render time (p50 / p95, and CPU p50: the machine is shared), peak memory and size
for 1, 10, 50 and 200 lines (50 and 200 also in Chinese, and the fonts each embeds); proposals
made from a 16- and a 128-server design of the shipped catalog (drawing, TCO and the racks
appendix) in English and Chinese, each beside the same revision without its racks appendix (what
the appendix costs); and proposals per minute with 1 and 2 Celery worker processes.

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
import time

from benchsetup import django_ready  # bench/, the script's folder, is on sys.path

django_ready()

from django.contrib.auth.models import Group  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import override_settings  # noqa: E402

from portal.models import SALES, User  # noqa: E402
from quoting.customers.models import (  # noqa: E402
    Customer,
    Project,
    Team,  # noqa: E402
)
from quoting.quotes.models import QuoteLine, QuoteRevision  # noqa: E402

SIZES = (1, 10, 50, 200)
CHINESE_SIZES = (50, 200)
THROUGHPUT_LINES, THROUGHPUT_JOBS = 50, 12


def quote_with_lines(*, user, project, count: int):
    from decimal import Decimal

    from quoting.quotes.services.quotes import quote_create

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


def render_child(revision_id: int, repeats: int, language: str) -> None:
    """In its own process, so ru_maxrss is this size's peak and nothing else's."""
    from proposals.documents.pdf import proposal_pdf

    revision = QuoteRevision.objects.get(pk=revision_id)
    proposal_pdf(revision=revision, language=language)  # a revision's first read fills its snapshot
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    samples, cpu, size = [], [], 0
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        size = len(proposal_pdf(revision=revision, language=language))
        samples.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "samples": samples,
                "cpu": cpu,
                "rss_before_kb": before,
                "rss_peak_kb": peak,
                "pdf_bytes": size,
            }
        )
    )


def measure(label: str, revision_id: int, repeats: int, language: str = "en") -> None:
    result = subprocess.run(
        [sys.executable, __file__, "--render", str(revision_id), str(repeats), language],
        capture_output=True,
        text=True,
        check=True,
        env=os.environ.copy(),
    )
    data = json.loads(result.stdout.strip().splitlines()[-1])
    samples = data["samples"]
    print(
        f"{label:>22} {statistics.median(samples):>9.0f} {percentile(samples, 0.95):>9.0f} "
        f"{statistics.median(data['cpu']):>9.0f} "
        f"{data['rss_peak_kb'] / 1024:>12.0f} "
        f"{(data['rss_peak_kb'] - data['rss_before_kb']) / 1024:>8.0f} "
        f"{data['pdf_bytes'] / 1024:>7.0f}"
    )


def embedded_fonts(revision_id: int) -> tuple[list[str], list[str]]:
    """The fonts the English and the Chinese PDF embed, without subset tags (one CJK family in
    Chinese, none in English: tests/proposals/documents/test_pdf_fonts.py)."""
    import io

    from pypdf import PdfReader

    from proposals.documents.pdf import proposal_pdf

    revision = QuoteRevision.objects.get(pk=revision_id)
    found = []
    for language in ("en", "zh-hans"):
        names = set()
        for page in PdfReader(io.BytesIO(proposal_pdf(revision=revision, language=language))).pages:
            for font in (page["/Resources"].get("/Font") or {}).values():
                names.add(str(font.get_object()["/BaseFont"]).split("+", 1)[-1])
        found.append(sorted(names))
    return found[0], found[1]


def design_quotes(*, user, project, servers: int) -> tuple[int, int]:
    """A quote made from a design of `servers` 8-GPU servers, and its twin without the racks
    appendix: (revision id, twin's revision id)."""
    from quoting.designs.services.saved import design_save
    from quoting.quotes.services.quotes import quote_create_from_design

    design = design_save(
        project=project,
        name=f"{servers} servers",
        user=user,
        requirements={
            "server_count": servers,
            "gpus_per_server": 8,
            "nic_generation": "NDR",
            "switch_part_number": "MQM9790-NS2F",
            "subnet_manager": "on-switch",
        },
    )
    ids = [
        quote_create_from_design(project=project, design=design, user=user).current_revision_id
        for _ in range(2)
    ]
    QuoteRevision.objects.filter(pk=ids[1]).update(design_racks=None)
    return ids[0], ids[1]


def request_retrying(**kwargs):
    """SQLite refuses a write while a worker writes (no waiting on a lock upgrade): try again."""
    from django.db import OperationalError, connection

    from proposals.documents.services import proposal_request

    for _ in range(100):
        try:
            return proposal_request(**kwargs)
        except OperationalError:
            if connection.vendor != "sqlite":
                raise
            time.sleep(0.05)
    return proposal_request(**kwargs)


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def throughput(revision, user, workers: int) -> float:
    from portal.celery import app
    from portal.tasks import ping
    from proposals.models import ProposalDocument
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
                request_retrying(revision=revision, user=user, language="en").pk
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
        render_child(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
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
        f"{'lines':>22} {'p50 ms':>9} {'p95 ms':>9} {'CPU p50':>9} {'peak RSS MB':>12} "
        f"{'+RSS MB':>8} {'PDF KB':>7}"
    )
    fonts = {}
    for count in SIZES:
        quote = quote_with_lines(user=user, project=project, count=count)
        measure(f"{count}", quote.current_revision_id, repeats)
        if count in CHINESE_SIZES:
            measure(f"{count} zh-hans", quote.current_revision_id, repeats, "zh-hans")
            fonts[count] = embedded_fonts(quote.current_revision_id)

    from catalog.services import catalog_load_seed

    catalog_load_seed()
    for servers in (16, 128):
        with_racks, without = design_quotes(user=user, project=project, servers=servers)
        for language in ("en", "zh-hans"):
            measure(f"{servers}-server design {language}", with_racks, repeats, language)
            measure("  without racks", without, repeats, language)

    for count, (english, chinese) in fonts.items():
        print(f"Fonts, {count} lines: en {', '.join(english)}; zh-hans {', '.join(chinese)}")
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

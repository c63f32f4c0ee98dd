"""The promise of docs/proposals.md: a real prefork worker is SIGKILLed in the middle of K renders;
another worker (and the sweeper) bring every document to `ready`, with exactly one PDF each."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import signal
import threading

import pytest
from django.db import connection

from portal.celery import app
from proposals.documents.services import proposal_request, proposals_requeue_stuck
from proposals.models import DocumentStatus, ProposalDocument
from quoting.quotes.models import QuoteRevision
from quoting.quotes.services.quotes import quote_send
from tests.conftest import service_missing
from tests.proposals.conftest import quote_with_lines
from tests.service_helpers import celery_worker, wait_for

K = 4


def _database_url() -> str:
    db = connection.settings_dict
    if connection.vendor != "postgresql":
        service_missing("the worker-kill test needs PostgreSQL (DATABASE_URL)")
    password = f":{db['PASSWORD']}" if db["PASSWORD"] else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    return found


def _drain(process, sink: list[str]) -> None:
    """Read the worker's output so a full pipe never blocks it; kept for failure messages."""
    threading.Thread(target=lambda: sink.extend(process.stdout), daemon=True).start()


def _statuses() -> list[str]:
    return list(ProposalDocument.objects.order_by("pk").values_list("status", flat=True))


def _status(document: ProposalDocument) -> str:
    return ProposalDocument.objects.filter(pk=document.pk).values_list("status", flat=True).get()


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_every_proposal_ends_ready_after_its_worker_is_killed_mid_render(
    world, redis_url, settings
):
    database_url = _database_url()
    quote = quote_with_lines(world, 200)  # a few seconds per render: time to kill it mid-way
    saved = {k: app.conf[k] for k in ("broker_url", "result_backend", "task_always_eager")}
    app.conf.update(broker_url=redis_url, result_backend=redis_url, task_always_eager=False)
    output: list[str] = []
    try:
        with celery_worker(redis_url=redis_url, database_url=database_url) as (first, queue):
            _drain(first, output)
            settings.PROPOSALS_QUEUE = queue
            documents = [
                proposal_request(revision=quote.current_revision, user=world.sales, language="en")
                for _ in range(K)
            ]
            assert wait_for(lambda: DocumentStatus.RENDERING in _statuses(), timeout=90), output
            # The machine is lost: the worker and its pool processes, all at once.
            for pid in [first.pid, *_children(first.pid)]:
                os.kill(pid, signal.SIGKILL)
            first.wait(timeout=10)

        # What the beat's sweeper does once the rows have been stuck long enough.
        proposals_requeue_stuck(older_than=dt.timedelta(0))
        with celery_worker(redis_url=redis_url, database_url=database_url, queue=queue) as (
            second,
            _,
        ):
            _drain(second, output)
            assert wait_for(lambda: set(_statuses()) == {DocumentStatus.READY}, timeout=240), (
                _statuses(),
                output[-30:],
            )
    finally:
        app.conf.update(saved)

    rows = list(ProposalDocument.objects.filter(revision=quote.current_revision))
    assert sorted(d.pk for d in rows) == sorted(d.pk for d in documents)
    for document in rows:
        pdf = bytes(document.pdf)
        assert pdf.startswith(b"%PDF") and document.size == len(pdf)
        assert document.sha256 == hashlib.sha256(pdf).hexdigest()
    assert max(d.attempts for d in rows) == 2  # the one killed mid-render was rendered again
    assert all(1 <= d.attempts <= 2 for d in rows)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_sent_pdf_whose_render_process_is_killed_is_ready_within_a_minute_without_the_sweeper(
    world, redis_url, settings
):
    """Only the pool process dies (the kernel's OOM killer, a crash in Pango): Celery re-sends
    the job at once, and the re-sent job sees the claim's process is gone and takes over, instead
    of leaving customers on the wait page until the sweeper's next round."""
    database_url = _database_url()
    quote = quote_with_lines(world, 200)
    saved = {k: app.conf[k] for k in ("broker_url", "result_backend", "task_always_eager")}
    app.conf.update(broker_url=redis_url, result_backend=redis_url, task_always_eager=False)
    output: list[str] = []
    try:
        with celery_worker(redis_url=redis_url, database_url=database_url) as (worker, queue):
            _drain(worker, output)
            settings.PROPOSALS_QUEUE = queue
            # The send requests its PDFs, one per language, and queues their renders on commit.
            quote_send(quote=quote, user=world.sales, expected_version=quote.version)
            revision = QuoteRevision.objects.get(pk=quote.current_revision_id)
            documents = ProposalDocument.objects.filter(revision=revision)
            english = documents.get(language="en")
            assert wait_for(lambda: _status(english) == DocumentStatus.RENDERING, timeout=90), (
                _statuses(),
                output,
            )
            (renderer,) = _children(worker.pid)
            os.kill(renderer, signal.SIGKILL)
            assert wait_for(lambda: set(_statuses()) == {DocumentStatus.READY}, timeout=60), (
                _statuses(),
                output[-30:],
            )
    finally:
        app.conf.update(saved)
    assert documents.count() == len(settings.LANGUAGES)  # exactly one PDF each
    english.refresh_from_db()
    assert english.attempts == 2  # the one killed mid-render, taken over at once
    for document in documents:
        assert not document.is_draft and document.content_sha256 == revision.content_sha256
        assert hashlib.sha256(bytes(document.pdf)).hexdigest() == document.sha256

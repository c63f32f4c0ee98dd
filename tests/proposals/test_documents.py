"""Proposal documents: the row is the truth, from request to ready (or failed, with a reason)."""

from __future__ import annotations

import datetime as dt
import hashlib
from unittest import mock

import pytest
from django.utils import timezone

from proposals.models import DocumentStatus, ProposalDocument
from proposals.services import (
    RenderRetry,
    proposal_render,
    proposal_request,
    proposals_requeue_stuck,
)
from quoting.services.errors import InvalidValue
from quoting.services.quotes import quote_create


def test_a_request_writes_a_pending_row_and_renders_only_after_commit(
    world, sent_quote, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        document = proposal_request(revision=sent_quote.current_revision, user=world.sales)
    assert document.status == DocumentStatus.PENDING and document.pdf is None
    assert len(callbacks) == 1  # the task goes out on commit, not inside the transaction

    with mock.patch(
        "proposals.services.proposal_pdf",
        wraps=__import__("proposals.pdf", fromlist=["proposal_pdf"]).proposal_pdf,
    ) as render:
        callbacks[0]()  # eager Celery: runs the task here
    document.refresh_from_db()
    assert render.call_count == 1
    assert document.status == DocumentStatus.READY
    assert document.attempts == 1 and document.error == ""
    assert document.language == world.customer.language
    assert document.sha256 == hashlib.sha256(bytes(document.pdf)).hexdigest()
    assert document.size == len(document.pdf) and bytes(document.pdf).startswith(b"%PDF")
    assert document.render_ms is not None and document.finished_at >= document.started_at


def test_the_claim_is_one_update_so_a_second_delivery_does_nothing(world, sent_quote):
    document = ProposalDocument.objects.create(revision=sent_quote.current_revision, language="en")
    assert proposal_render(document_id=document.pk) == DocumentStatus.READY
    first = ProposalDocument.objects.get(pk=document.pk)
    assert proposal_render(document_id=document.pk) is None  # duplicate delivery
    again = ProposalDocument.objects.get(pk=document.pk)
    assert (again.sha256, again.attempts, again.finished_at) == (
        first.sha256,
        first.attempts,
        first.finished_at,
    )


def test_a_frozen_revision_pdf_is_reused_never_rendered_again(
    world, sent_quote, django_capture_on_commit_callbacks
):
    revision = sent_quote.current_revision
    with django_capture_on_commit_callbacks(execute=True):
        first = proposal_request(revision=revision, user=world.sales, language="en")
    with (
        mock.patch("proposals.services.proposal_pdf") as render,
        django_capture_on_commit_callbacks(execute=True) as callbacks,
    ):
        again = proposal_request(revision=revision, user=world.manager, language="en")
    assert again.pk == first.pk and render.call_count == 0 and callbacks == []
    assert ProposalDocument.objects.filter(revision=revision, language="en").count() == 1


def test_a_draft_is_rendered_afresh_each_time(world, django_capture_on_commit_callbacks):
    draft = quote_create(project=world.project, user=world.sales)
    with django_capture_on_commit_callbacks(execute=False):
        one = proposal_request(revision=draft.current_revision, user=world.sales, language="en")
        two = proposal_request(revision=draft.current_revision, user=world.sales, language="en")
    assert one.pk != two.pk


def test_an_unknown_language_is_refused(world, sent_quote):
    with pytest.raises(InvalidValue):
        proposal_request(revision=sent_quote.current_revision, user=world.sales, language="fr")


def test_a_poison_job_fails_after_its_attempts_with_a_readable_reason(world, sent_quote, settings):
    settings.PROPOSALS_MAX_ATTEMPTS = 3
    document = ProposalDocument.objects.create(revision=sent_quote.current_revision, language="en")
    outcomes = []
    with mock.patch("proposals.services.proposal_pdf", side_effect=MemoryError("cairo")) as render:
        for _ in range(5):  # what the task's retries (and the sweeper) would do
            try:
                outcomes.append(proposal_render(document_id=document.pk))
            except RenderRetry:
                outcomes.append("retry")
    document.refresh_from_db()
    assert outcomes == ["retry", "retry", DocumentStatus.FAILED, None, None]
    assert render.call_count == 3
    assert document.status == DocumentStatus.FAILED and document.attempts == 3
    assert document.error.startswith("The PDF could not be produced")
    assert "3 attempt" in document.error and "cairo" not in document.error
    assert document.pdf is None


def test_the_task_retries_render_failures_with_backoff_under_time_limits():
    from proposals.tasks import proposal_render_task as task

    assert RenderRetry in task.autoretry_for and task.retry_backoff and task.retry_jitter
    assert task.acks_late and task.reject_on_worker_lost
    assert 0 < task.soft_time_limit < task.time_limit


def test_a_failed_attempt_goes_back_to_pending_with_its_reason_while_attempts_remain(
    world, sent_quote
):
    document = ProposalDocument.objects.create(revision=sent_quote.current_revision, language="en")
    with (
        mock.patch("proposals.services.proposal_pdf", side_effect=RuntimeError("boom")),
        pytest.raises(RenderRetry),
    ):
        proposal_render(document_id=document.pk)
    document.refresh_from_db()
    assert (document.status, document.attempts) == (DocumentStatus.PENDING, 1)
    assert document.error


def _stuck(revision, *, status, minutes_ago, attempts=1):
    past = timezone.now() - dt.timedelta(minutes=minutes_ago)
    document = ProposalDocument.objects.create(
        revision=revision, language="en", status=status, attempts=attempts, claim="dead"
    )
    ProposalDocument.objects.filter(pk=document.pk).update(started_at=past, updated_at=past)
    return document


def test_the_sweeper_requeues_rows_stuck_rendering_or_pending_and_leaves_fresh_ones(
    world, sent_quote
):
    revision = sent_quote.current_revision
    dead = _stuck(revision, status=DocumentStatus.RENDERING, minutes_ago=30)
    lost = _stuck(revision, status=DocumentStatus.PENDING, minutes_ago=30, attempts=0)
    busy = _stuck(revision, status=DocumentStatus.RENDERING, minutes_ago=1)
    exhausted = _stuck(revision, status=DocumentStatus.RENDERING, minutes_ago=30, attempts=3)

    with mock.patch("proposals.services._enqueue") as enqueue:
        requeued = proposals_requeue_stuck(older_than=dt.timedelta(minutes=5))

    assert requeued == 2
    assert sorted(call.args[0] for call in enqueue.call_args_list) == sorted([dead.pk, lost.pk])
    statuses = dict(ProposalDocument.objects.values_list("pk", "status"))
    assert statuses[dead.pk] == statuses[lost.pk] == DocumentStatus.PENDING
    assert statuses[busy.pk] == DocumentStatus.RENDERING
    assert statuses[exhausted.pk] == DocumentStatus.FAILED
    assert "stopped 3 times" in ProposalDocument.objects.get(pk=exhausted.pk).error

    # The re-queued task renders it; a second sweep right after re-sends nothing.
    assert proposal_render(document_id=dead.pk) == DocumentStatus.READY
    with mock.patch("proposals.services._enqueue") as enqueue:
        assert proposals_requeue_stuck(older_than=dt.timedelta(minutes=5)) == 0


def test_a_renderer_whose_claim_was_taken_over_cannot_overwrite_the_result(world, sent_quote):
    from proposals.pdf import proposal_pdf

    document = ProposalDocument.objects.create(revision=sent_quote.current_revision, language="en")

    def render_while_taken_over(**kwargs):
        # Mid-render, the sweeper presumes us dead and a second render takes the row over.
        ProposalDocument.objects.filter(pk=document.pk).update(status=DocumentStatus.PENDING)
        with mock.patch("proposals.services.proposal_pdf", proposal_pdf):
            assert proposal_render(document_id=document.pk) == DocumentStatus.READY
        return b"%PDF-stale"

    with mock.patch("proposals.services.proposal_pdf", side_effect=render_while_taken_over):
        assert proposal_render(document_id=document.pk) is None
    document.refresh_from_db()
    assert document.status == DocumentStatus.READY and bytes(document.pdf) != b"%PDF-stale"
    assert document.attempts == 2

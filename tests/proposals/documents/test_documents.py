"""Proposal documents: the row is the truth, from request to ready (or failed, with a reason)."""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib
from unittest import mock

import pytest
from django.utils import timezone

from proposals.documents.selectors import document_ready_for
from proposals.documents.services import (
    RenderRetry,
    proposal_render,
    proposal_request,
    proposals_requeue_stuck,
)
from proposals.models import DocumentStatus, ProposalDocument
from quoting.errors import InvalidValue
from quoting.quotes.models import QuoteRevision
from quoting.quotes.services.quotes import quote_create, quote_send


def test_a_request_writes_a_pending_row_and_renders_only_after_commit(
    world, django_capture_on_commit_callbacks
):
    draft = quote_create(project=world.project, user=world.sales)  # a preview asked by staff
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        document = proposal_request(revision=draft.current_revision, user=world.sales)
    assert document.status == DocumentStatus.PENDING and document.pdf is None
    assert len(callbacks) == 1  # the task goes out on commit, not inside the transaction

    with mock.patch(
        "proposals.documents.services.proposal_rendered",
        wraps=importlib.import_module("proposals.documents.pdf").proposal_rendered,
    ) as render:
        callbacks[0]()  # eager Celery: runs the task here
    document.refresh_from_db()
    assert render.call_count == 1
    assert document.status == DocumentStatus.READY
    assert document.attempts == 1 and document.error == ""
    assert document.language == world.customer.language and document.is_draft
    assert document.sha256 == hashlib.sha256(bytes(document.pdf)).hexdigest()
    assert document.size == len(document.pdf) and bytes(document.pdf).startswith(b"%PDF")
    assert document.render_ms is not None and document.finished_at >= document.started_at


def test_a_send_requests_its_pdf_in_every_language_and_renders_them_only_after_commit(
    world, django_capture_on_commit_callbacks
):
    from tests.proposals.conftest import quote_with_lines

    quote = quote_with_lines(world, 3)
    with mock.patch(
        "proposals.documents.services.proposal_rendered",
        wraps=importlib.import_module("proposals.documents.pdf").proposal_rendered,
    ) as render:
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            quote_send(quote=quote, user=world.sales, expected_version=quote.version)
        revision = QuoteRevision.objects.get(pk=quote.current_revision_id)
        requested = ProposalDocument.objects.filter(revision=revision).order_by("language")
        assert [(d.language, d.status, d.is_draft, d.pdf) for d in requested] == [
            ("en", DocumentStatus.PENDING, False, None),
            ("zh-hans", DocumentStatus.PENDING, False, None),
        ]
        assert render.call_count == 0  # nothing rendered inside the send's transaction
        for callback in callbacks:
            callback()  # the commit: eager Celery renders here
    assert render.call_count == 2
    for document in ProposalDocument.objects.filter(revision=revision):
        assert (document.status, document.attempts) == (DocumentStatus.READY, 1), document.error
        assert document.content_sha256 == revision.content_sha256
        assert bytes(document.pdf).startswith(b"%PDF")
        assert document_ready_for(revision=revision, language=document.language) == document


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
    from tests.proposals.conftest import sent_pdf

    revision = sent_quote.current_revision
    first = sent_pdf(revision, "en")  # the send's, rendered
    with (
        mock.patch("proposals.documents.services.proposal_rendered") as render,
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
    with mock.patch(
        "proposals.documents.services.proposal_rendered", side_effect=MemoryError("cairo")
    ) as render:
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


def test_a_refused_fetch_fails_the_document_at_once_with_its_reason(world, sent_quote, settings):
    """The fetcher's refusal is a BaseException (as WeasyPrint's fatal fetching error is, so the
    render stops): the job still ends FAILED on the first attempt, its claim released, instead
    of leaving the document rendering for the sweeper."""
    from proposals.documents.pdf import FetchRefused

    settings.PROPOSALS_MAX_ATTEMPTS = 3
    document = ProposalDocument.objects.create(revision=sent_quote.current_revision, language="en")
    with mock.patch(
        "proposals.documents.services.proposal_rendered",
        side_effect=FetchRefused("file:///etc/passwd"),
    ):
        assert proposal_render(document_id=document.pk) == DocumentStatus.FAILED
    document.refresh_from_db()
    assert document.status == DocumentStatus.FAILED and document.attempts == 1
    assert "a resource outside the proposal template" in document.error
    assert "/etc/passwd" not in document.error


def test_a_failed_documents_reason_kept_in_english_reads_in_the_staffs_language(
    client, world, sent_quote, settings
):
    """The row keeps the reason in English (the API gives it so); the status a Chinese sales
    engineer reads is in Chinese, attempts and all (#27 item 4)."""
    settings.PROPOSALS_MAX_ATTEMPTS = 1
    document = ProposalDocument.objects.create(revision=sent_quote.current_revision, language="en")
    with mock.patch(
        "proposals.documents.services.proposal_rendered", side_effect=MemoryError("cairo")
    ):
        assert proposal_render(document_id=document.pk) == DocumentStatus.FAILED
    document.refresh_from_db()
    assert document.error == (
        "The PDF could not be produced (an internal error; the team can see the details). "
        "(1 attempt(s).)"
    )
    world.sales.language = "zh-hans"
    world.sales.save()
    client.force_login(world.sales)
    page = client.get(f"/proposals/{document.pk}/status/").content.decode()
    assert "无法生成 PDF（内部错误；技术团队可查看详情）。（已尝试 1 次。）" in page
    assert "could not be produced" not in page


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
        mock.patch(
            "proposals.documents.services.proposal_rendered", side_effect=RuntimeError("boom")
        ),
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

    with mock.patch("proposals.documents.services._enqueue") as enqueue:
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
    with mock.patch("proposals.documents.services._enqueue") as enqueue:
        assert proposals_requeue_stuck(older_than=dt.timedelta(minutes=5)) == 0


def test_a_renderer_whose_claim_was_taken_over_cannot_overwrite_the_result(world, sent_quote):
    from proposals.documents.pdf import RenderedProposal, proposal_rendered

    document = ProposalDocument.objects.create(revision=sent_quote.current_revision, language="en")

    def render_while_taken_over(**kwargs):
        # Mid-render, the sweeper presumes us dead and a second render takes the row over.
        ProposalDocument.objects.filter(pk=document.pk).update(status=DocumentStatus.PENDING)
        with mock.patch("proposals.documents.services.proposal_rendered", proposal_rendered):
            assert proposal_render(document_id=document.pk) == DocumentStatus.READY
        revision = sent_quote.current_revision
        return RenderedProposal(
            pdf=b"%PDF-stale",
            content_sha256=revision.content_sha256,
            frozen=True,
            sent_sha256=revision.content_sha256,
        )

    with mock.patch(
        "proposals.documents.services.proposal_rendered", side_effect=render_while_taken_over
    ):
        assert proposal_render(document_id=document.pk) is None
    document.refresh_from_db()
    assert document.status == DocumentStatus.READY and bytes(document.pdf) != b"%PDF-stale"
    assert document.attempts == 2


# --- a job re-sent after its worker died takes over at once ---------------------------------------


def _claimed(revision, *, by: str, seconds_ago: float, attempts: int = 1):
    started = timezone.now() - dt.timedelta(seconds=seconds_ago)
    document = ProposalDocument.objects.create(
        revision=revision,
        language="en",
        status=DocumentStatus.RENDERING,
        attempts=attempts,
        claim="theirs",
        claimed_by=by,
    )
    ProposalDocument.objects.filter(pk=document.pk).update(started_at=started, updated_at=started)
    return document


def _dead_pid() -> int:
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()  # exited and reaped: no such process any more
    return process.pid


def test_a_claim_whose_process_on_this_host_is_gone_is_taken_over_at_once(world, sent_quote):
    import socket

    from proposals.documents.claims import claimant

    document = _claimed(
        sent_quote.current_revision, by=f"{socket.gethostname()}:{_dead_pid()}", seconds_ago=1
    )
    assert proposal_render(document_id=document.pk) == DocumentStatus.READY
    document.refresh_from_db()
    assert document.attempts == 2 and document.claimed_by == claimant()
    assert bytes(document.pdf).startswith(b"%PDF")


@pytest.mark.parametrize("holder", ["live process here", "another host"])
def test_a_young_claim_of_a_renderer_that_may_be_alive_is_left_alone(world, sent_quote, holder):
    import os
    import socket

    from proposals.documents.claims import RENDER_TIMEOUT
    from proposals.documents.services import RenderBusy

    by = (
        f"{socket.gethostname()}:{os.getppid()}"
        if holder == "live process here"
        else f"worker-7.example:{_dead_pid()}"
    )
    document = _claimed(sent_quote.current_revision, by=by, seconds_ago=10)
    with pytest.raises(RenderBusy) as busy:
        proposal_render(document_id=document.pk)
    # The job looks again once the claim would be abandoned, not before.
    assert (
        RENDER_TIMEOUT.total_seconds() - 10
        <= busy.value.seconds
        <= RENDER_TIMEOUT.total_seconds() - 8
    )
    document.refresh_from_db()
    assert (document.status, document.claim, document.attempts) == ("rendering", "theirs", 1)


def test_a_claim_older_than_the_render_timeout_is_taken_over_wherever_it_ran(world, sent_quote):
    from proposals.documents.claims import RENDER_TIMEOUT

    document = _claimed(
        sent_quote.current_revision,
        by="worker-7.example:4242",
        seconds_ago=RENDER_TIMEOUT.total_seconds() + 1,
    )
    assert proposal_render(document_id=document.pk) == DocumentStatus.READY


def test_a_taken_over_claim_past_its_attempts_fails_instead_of_looping(world, sent_quote, settings):
    settings.PROPOSALS_MAX_ATTEMPTS = 3
    from proposals.documents.claims import RENDER_TIMEOUT

    document = _claimed(
        sent_quote.current_revision,
        by="worker-7.example:4242",
        seconds_ago=RENDER_TIMEOUT.total_seconds() + 1,
        attempts=3,
    )
    assert proposal_render(document_id=document.pk) is None
    document.refresh_from_db()
    assert document.status == DocumentStatus.FAILED and "stopped 3 times" in document.error


def test_the_task_looks_again_when_the_claim_would_be_abandoned(world, sent_quote):
    from proposals.documents.services import RenderBusy
    from proposals.tasks import proposal_render_task

    with (
        mock.patch("proposals.tasks.proposal_render", side_effect=RenderBusy(37)),
        mock.patch.object(
            proposal_render_task, "retry", side_effect=RuntimeError("retried")
        ) as retry,
        pytest.raises(RuntimeError, match="retried"),
    ):
        proposal_render_task.run(1)
    assert retry.call_args.kwargs["countdown"] == 37


def test_a_signed_copy_whose_maker_on_this_host_is_gone_is_made_at_once(
    world, sent_quote, django_capture_on_commit_callbacks
):
    import socket

    from proposals.acceptance.services import share_accept, signed_copy_make
    from proposals.models import Acceptance
    from proposals.share.services import share_link_create
    from tests.proposals.conftest import sent_pdf

    sent_pdf(sent_quote.current_revision, "en")  # the PDF the send requested, rendered
    with django_capture_on_commit_callbacks(execute=True):
        link, _token = share_link_create(quote=sent_quote, user=world.sales)
        share_accept(
            link=link, revision_number=1, name="Li Wei", title="CTO", agreed=True, language="en"
        )
    acceptance = Acceptance.objects.get()
    assert acceptance.signed_status == DocumentStatus.READY
    Acceptance.objects.filter(pk=acceptance.pk).update(
        signed_status=DocumentStatus.RENDERING,
        signed_pdf=None,
        signed_sha256="",
        signed_claim="theirs",
        signed_claimed_by=f"{socket.gethostname()}:{_dead_pid()}",
        signed_started_at=timezone.now(),
    )
    assert signed_copy_make(acceptance_id=acceptance.pk) == DocumentStatus.READY
    acceptance.refresh_from_db()
    assert acceptance.signed_attempts == 2 and bytes(acceptance.signed_pdf).startswith(b"%PDF")


def test_a_failed_documents_reason_is_kept_as_its_message_and_worded_from_it(
    client, world, sent_quote, no_kept_texts
):
    """#27 item 4: the row keeps the English (the API's field, unchanged) and the message; the
    page words the message, nothing matched back from the English."""
    from tests.quoting.api_world import token_client

    exhausted = _stuck(
        sent_quote.current_revision, status=DocumentStatus.RENDERING, minutes_ago=30, attempts=3
    )
    with mock.patch("proposals.documents.services._enqueue"):
        proposals_requeue_stuck(older_than=dt.timedelta(minutes=5))
    exhausted.refresh_from_db()
    english = "The renderer stopped 3 times on this document; it may be too large to render."
    assert exhausted.error == english
    assert exhausted.error_message == {
        "template": "The renderer stopped {attempts} times on this document; it may be too "
        "large to render.",
        "params": [["attempts", 3]],
    }
    world.sales.language = "zh-hans"
    world.sales.save()
    client.force_login(world.sales)
    page = client.get(f"/proposals/{exhausted.pk}/status/").content.decode()
    assert "渲染程序在此文档上已中断 3 次；文档可能过大，无法渲染。" in page
    api = token_client(world.sales, scope="read")
    got = api.get(f"/api/v1/proposals/{exhausted.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans").json()
    assert got["error"] == english


def test_a_document_failed_before_messages_still_reads_in_chinese_through_kept_texts(
    client, world, sent_quote
):
    document = ProposalDocument.objects.create(
        revision=sent_quote.current_revision,
        language="en",
        status=DocumentStatus.FAILED,
        error="Rendering took too long; the quote may be too large for one document. "
        "(2 attempt(s).)",
    )
    assert document.error_message is None
    world.sales.language = "zh-hans"
    world.sales.save()
    client.force_login(world.sales)
    page = client.get(f"/proposals/{document.pk}/status/").content.decode()
    assert "渲染耗时过长；报价单可能过大，无法生成为一份文档。（已尝试 2 次。）" in page

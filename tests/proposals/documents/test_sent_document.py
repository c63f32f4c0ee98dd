"""The PDF a customer reads, accepts and signs is always the revision that was sent.

A preview rendered while a revision is a draft says "Draft — not an offer" on every page, is
never served on a share link, and never becomes the sent document: sending retires it, and
every document records the content fingerprint it was rendered from, which serving, binding and
signing check against the one stored at the send."""

from __future__ import annotations

import datetime as dt
import hashlib
from decimal import Decimal

import pytest
from django.core.cache import cache
from django.template.defaultfilters import floatformat
from django.utils import timezone

from proposals.acceptance.services import share_accept, signed_copy_make
from proposals.documents.selectors import document_for, document_ready_for
from proposals.documents.services import proposal_render, proposal_request
from proposals.models import Acceptance, DocumentStatus, ProposalDocument
from proposals.share.services import share_link_create
from quoting.quotes.models import QuoteEvent, QuoteEventVerb, QuoteRevision
from quoting.quotes.services.quotes import quote_add_free_text, quote_revise, quote_send
from tests.api_errors import field_errors
from tests.proposals.conftest import pdf_reader, pdf_text, sent_pdf
from tests.quoting.api_world import token_client

DRAFT_MARK = "Draft — not an offer"


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def _pages(pdf: bytes) -> list[str]:
    return [" ".join((page.extract_text() or "").split()) for page in pdf_reader(pdf).pages]


def _money(amount: Decimal) -> str:
    return floatformat(amount, "2g")


def _revise(world, quote):
    quote_revise(quote=quote, user=world.sales, expected_version=quote.version)
    quote.refresh_from_db()
    return quote.current_revision


def _add_nccl_line(world, quote):
    quote_add_free_text(
        quote=quote,
        description="NCCL tuning and acceptance run",
        quantity=1,
        unit_price="65088.00",
        user=world.sales,
        expected_version=quote.version,
    )
    quote.refresh_from_db()


def _send(world, quote) -> QuoteRevision:
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    quote.refresh_from_db()
    return QuoteRevision.objects.get(pk=quote.current_revision_id)


def test_a_draft_previewed_then_edited_and_sent_reaches_the_customer_as_sent(
    client, world, sent_quote, django_capture_on_commit_callbacks
):
    """The reproduction: send R1, revise, preview the draft R2 through the API, add a line,
    send R2, ask for the proposal again: the customer's PDF, their acceptance and the signed
    copy all carry R2 as sent, with the new line and total."""
    api = token_client(world.sales)
    url = f"/api/v1/quotes/{sent_quote.pk}/proposal/"
    with django_capture_on_commit_callbacks(execute=True):
        _, token = share_link_create(quote=sent_quote, user=world.sales)
    _revise(world, sent_quote)
    with django_capture_on_commit_callbacks(execute=True):  # eager Celery renders on commit
        asked = api.post(f"{url}?revision=2", {"language": "en"}, format="json")
    assert asked.status_code == 202, asked.content
    preview = api.get(asked.json()["url"]).json()
    assert (preview["revision"], preview["draft"], preview["status"]) == ("R2", True, "ready")
    preview_pdf = api.get(preview["pdf_url"]).content
    pages = _pages(preview_pdf)
    assert len(pages) > 1 and all(DRAFT_MARK in page for page in pages)

    _add_nccl_line(world, sent_quote)
    r2 = _send(world, sent_quote)
    assert api.get(asked.json()["url"]).json()["status"] == DocumentStatus.RETIRED
    requested = sent_pdf(r2, "en")  # the worker renders the PDF the send requested

    again = api.post(url, {"language": "en"}, format="json")  # no ?revision: R2, as sent
    sent = api.get(again.json()["url"]).json()
    assert sent["id"] == requested.pk != preview["id"]
    assert (sent["revision"], sent["draft"], sent["status"]) == ("R2", False, "ready")
    assert sent["content_sha256"] == r2.content_sha256
    assert api.get(f"{url}?language=en").json() == sent

    customer_pdf = client.get(f"/p/{token}/pdf?lang=en")
    assert customer_pdf.status_code == 200
    assert hashlib.sha256(customer_pdf.content).hexdigest() == sent["sha256"]
    text = " ".join(pdf_text(customer_pdf.content).split())
    assert "NCCL tuning and acceptance run" in text and _money(r2.total) in text
    assert DRAFT_MARK not in text

    with django_capture_on_commit_callbacks(execute=True):
        answered = client.post(
            f"/p/{token}/accept?lang=en",
            {"revision": 2, "name": "Li Wei", "title": "CTO", "agreed": "on"},
        )
    assert answered.status_code == 302
    acceptance = Acceptance.objects.get(revision=r2)
    assert acceptance.document_id == sent["id"] and acceptance.document_sha256 == sent["sha256"]
    assert acceptance.total == r2.total
    assert acceptance.signed_status == DocumentStatus.READY
    signed = " ".join(pdf_text(bytes(acceptance.signed_pdf)).split())
    assert "NCCL tuning and acceptance run" in signed and _money(r2.total) in signed
    assert DRAFT_MARK not in signed


def test_a_crm_that_sent_r1_gets_r1_while_someone_else_drafts_r2(
    world, sent_quote, django_capture_on_commit_callbacks
):
    api = token_client(world.sales)
    url = f"/api/v1/quotes/{sent_quote.pk}/proposal/"
    sent_pdf(sent_quote.current_revision, "en")  # R1 as sent, rendered after its send
    _revise(world, sent_quote)
    _add_nccl_line(world, sent_quote)
    with django_capture_on_commit_callbacks(execute=True):
        first = api.post(url, {"language": "en"}, format="json").json()
        preview = api.post(f"{url}?revision=2", {"language": "en"}, format="json").json()
    assert (first["revision"], first["draft"], first["status"]) == ("R1", False, "ready")
    assert (preview["revision"], preview["draft"]) == ("R2", True)
    assert api.get(f"{url}?language=en").json()["id"] == first["id"]
    assert (api.get(url).json()["revision"], api.get(url).json()["draft"]) == ("R1", False)
    assert api.get(f"{url}?revision=2").json()["id"] == preview["id"]
    chinese = api.get(f"{url}?revision=1&language=zh-hans").json()  # the send asked for it
    assert (chinese["revision"], chinese["draft"]) == ("R1", False)
    assert "NCCL tuning" not in pdf_text(
        api.get(api.get(f"{url}?language=en").json()["pdf_url"]).content
    )


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("?revision=two", "A revision number"),
        ("?revision=9", "no revision 9"),
        ("?revision=-1", "A revision number"),
    ],
)
def test_a_revision_that_is_not_one_is_a_field_error(world, sent_quote, query, message):
    api = token_client(world.sales)
    for call in (api.get, api.post):
        response = call(f"/api/v1/quotes/{sent_quote.pk}/proposal/{query}")
        assert response.status_code == 400
        assert message in field_errors(response)["revision"][0]


def test_a_quote_never_sent_is_previewed_only_when_the_revision_is_named(world):
    from quoting.quotes.services.quotes import quote_create

    quote = quote_create(project=world.project, user=world.sales)
    api = token_client(world.sales)
    refused = api.post(f"/api/v1/quotes/{quote.pk}/proposal/")
    assert refused.status_code == 400 and "?revision=N" in field_errors(refused)["revision"][0]
    assert ProposalDocument.objects.count() == 0
    named = api.post(f"/api/v1/quotes/{quote.pk}/proposal/?revision=1")
    assert named.status_code == 202 and named.json()["draft"] is True


def test_a_draft_preview_is_never_served_on_a_share_link(
    client, world, sent_quote, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        _, token = share_link_create(quote=sent_quote, user=world.sales)
    r1_pdf = sent_pdf(sent_quote.current_revision, "en")  # R1's, as the send requested it
    draft = _revise(world, sent_quote)
    _add_nccl_line(world, sent_quote)
    with django_capture_on_commit_callbacks(execute=True):
        preview = proposal_request(revision=draft, user=world.sales, language="en")
    preview.refresh_from_db()
    assert preview.is_draft and preview.status == DocumentStatus.READY
    served = client.get(f"/p/{token}/pdf?lang=en")
    assert served.status_code == 200
    assert hashlib.sha256(served.content).hexdigest() == r1_pdf.sha256 != preview.sha256
    assert DRAFT_MARK not in pdf_text(served.content)


def test_the_draft_mark_is_on_every_page_in_both_languages_and_never_on_the_sent_pdf(
    world, django_capture_on_commit_callbacks
):
    from proposals.documents.pdf import proposal_pdf
    from tests.proposals.conftest import quote_with_lines

    quote = quote_with_lines(world, 60)
    for language, mark in (("en", DRAFT_MARK), ("zh-hans", "草稿——非正式报价")):
        pages = _pages(proposal_pdf(revision=quote.current_revision, language=language, draft=True))
        assert len(pages) >= 3 and all(
            mark.replace(" ", "") in p.replace(" ", "") for p in pages
        ), (language, pages[0][:200])
        plain = _pages(proposal_pdf(revision=quote.current_revision, language=language))
        assert not any(mark.replace(" ", "") in p.replace(" ", "") for p in plain)


def test_a_document_requested_before_the_freeze_or_of_other_content_is_never_the_sent_pdf(
    world, sent_quote
):
    revision = QuoteRevision.objects.get(pk=sent_quote.current_revision_id)
    good = sent_pdf(revision, "en")  # the one the send requested, rendered
    assert document_ready_for(revision=revision, language="en") == good
    assert good.content_sha256 == revision.content_sha256

    # Rendered before the freeze (its claim started earlier), though marked as no draft.
    ProposalDocument.objects.filter(pk=good.pk).update(
        started_at=revision.frozen_at - dt.timedelta(seconds=1)
    )
    assert document_ready_for(revision=revision, language="en") is None
    assert document_for(revision=revision, language="en") is None
    # Of other content.
    ProposalDocument.objects.filter(pk=good.pk).update(
        started_at=good.started_at, content_sha256="1:" + "0" * 64
    )
    assert document_ready_for(revision=revision, language="en") is None
    # A draft's preview, whatever else it says.
    ProposalDocument.objects.filter(pk=good.pk).update(
        content_sha256=revision.content_sha256, is_draft=True
    )
    assert document_ready_for(revision=revision, language="en") is None


def test_a_sent_document_rendered_from_content_other_than_what_was_frozen_fails(world, sent_quote):
    revision = sent_quote.current_revision
    # What the send stored no longer matches what the revision holds (a bug, a hand edit).
    QuoteRevision.objects.filter(pk=revision.pk).update(content_sha256="1:" + "f" * 64)
    document = ProposalDocument.objects.create(revision=revision, language="en")
    assert proposal_render(document_id=document.pk) == DocumentStatus.FAILED
    document.refresh_from_db()
    assert document.pdf is None and "not what was sent" in document.error


def test_an_acceptance_bound_to_a_draft_preview_is_signed_on_the_sent_pdf(
    world, django_capture_on_commit_callbacks
):
    """Acceptances bound before this release could point at a draft's preview: the signed copy
    certifies the sent PDF instead, and the quote's history says so."""
    from tests.proposals.conftest import quote_sent

    quote = quote_sent(world)
    draft = _revise(world, quote)
    with django_capture_on_commit_callbacks(execute=True):
        preview = proposal_request(revision=draft, user=world.sales, language="en")
        link, _token = share_link_create(quote=quote, user=world.sales)
    _add_nccl_line(world, quote)
    r2 = _send(world, quote)
    sent_pdf(r2, "en")
    with django_capture_on_commit_callbacks(execute=True):
        share_accept(
            link=link, revision_number=2, name="Li Wei", title="CTO", agreed=True, language="en"
        )
    sent = document_ready_for(revision=r2, language="en")
    acceptance = Acceptance.objects.get(revision=r2)
    assert acceptance.document_id == sent.pk
    # What an earlier release could have bound, its signed copy still to be made.
    Acceptance.objects.filter(pk=acceptance.pk).update(
        document=preview,
        document_sha256="stale",
        signed_status=DocumentStatus.PENDING,
        signed_pdf=None,
        signed_sha256="",
    )
    assert signed_copy_make(acceptance_id=acceptance.pk) == DocumentStatus.READY
    acceptance.refresh_from_db()
    assert acceptance.document_id == sent.pk and acceptance.document_sha256 == sent.sha256
    signed = pdf_text(bytes(acceptance.signed_pdf))
    assert "NCCL tuning" in signed and DRAFT_MARK not in signed
    event = QuoteEvent.objects.get(verb=QuoteEventVerb.ACCEPTED_DOCUMENT_REPLACED)
    assert event.details["document"] == preview.pk


def test_sending_retires_every_preview_and_a_retired_render_stores_nothing(
    world, django_capture_on_commit_callbacks
):
    from tests.proposals.conftest import quote_with_lines

    quote = quote_with_lines(world, 3)
    with django_capture_on_commit_callbacks(execute=True):
        ready = proposal_request(revision=quote.current_revision, user=world.sales, language="en")
    with django_capture_on_commit_callbacks(execute=False):
        waiting = proposal_request(revision=quote.current_revision, user=world.sales, language="en")
    _send(world, quote)
    previews = dict(ProposalDocument.objects.filter(is_draft=True).values_list("pk", "status"))
    assert previews == {ready.pk: DocumentStatus.RETIRED, waiting.pk: DocumentStatus.RETIRED}
    # What the send requested instead: the sent PDFs, one per language.
    assert sorted(
        ProposalDocument.objects.filter(is_draft=False).values_list("language", "status")
    ) == [("en", "pending"), ("zh-hans", "pending")]
    assert proposal_render(document_id=waiting.pk) is None  # its message arrives late
    assert ProposalDocument.objects.get(pk=waiting.pk).pdf is None
    assert timezone.now() >= ProposalDocument.objects.get(pk=ready.pk).finished_at


def test_the_integrity_check_finds_sent_pdfs_and_acceptances_that_are_not_the_sent_revision(
    world, django_capture_on_commit_callbacks, capsys
):
    from django.core.management import call_command

    from tests.proposals.conftest import quote_sent

    quote = quote_sent(world)
    sent_pdf(quote.current_revision, "en")
    with django_capture_on_commit_callbacks(execute=True):
        link, _token = share_link_create(quote=quote, user=world.sales)
        share_accept(
            link=link, revision_number=1, name="Li Wei", title="CTO", agreed=True, language="en"
        )
    call_command("check_sent_pdfs", "--text")
    assert "1 PDF(s) read" in capsys.readouterr().out

    # What an earlier release let happen: the PDF bound and served is a draft's rendering.
    acceptance = Acceptance.objects.get()
    ProposalDocument.objects.filter(pk=acceptance.document_id).update(
        content_sha256="1:" + "0" * 64
    )
    with pytest.raises(SystemExit) as failed:
        call_command("check_sent_pdfs")
    assert failed.value.code == 1
    errors = capsys.readouterr().err
    assert f"document {acceptance.document_id} " in errors
    assert f"acceptance {acceptance.pk} " in errors


def test_the_text_check_reads_the_total_the_pdf_prints(world, capsys):
    from django.core.management import call_command

    from tests.proposals.conftest import quote_sent

    quote = quote_sent(world)
    document = ProposalDocument.objects.create(revision=quote.current_revision, language="en")
    assert proposal_render(document_id=document.pk) == DocumentStatus.READY
    # The stored total no longer what the PDF prints (the fingerprint would catch it too; here
    # only the text tells).
    QuoteRevision.objects.filter(pk=quote.current_revision_id).update(total=Decimal("7.77"))
    with pytest.raises(SystemExit):
        call_command("check_sent_pdfs", "--text")
    assert "lacks the total 7.77" in capsys.readouterr().err


# --- the send makes the sent PDFs; reads only read ----------------------------------------------

DRAWING = '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="400"><text>leaf</text></svg>'


@pytest.mark.parametrize("documents", ["requested at the send", "missing, sent before"])
def test_no_read_of_the_link_or_the_api_creates_a_document_or_queues_anything(
    client, world, sent_quote, django_capture_on_commit_callbacks, documents
):
    from unittest import mock

    from celery import Celery
    from celery.app.task import Task

    from quoting.designs.services.snapshots import SNAPSHOT_VERSION

    revision = sent_quote.current_revision
    QuoteRevision.objects.filter(pk=revision.pk).update(
        design_drawing=DRAWING, snapshot_version=SNAPSHOT_VERSION
    )
    if documents.startswith("missing"):
        ProposalDocument.objects.all().delete()
    _, token = share_link_create(quote=sent_quote, user=world.sales)
    before = list(ProposalDocument.objects.order_by("pk").values_list("pk", "status"))
    api = token_client(world.sales)
    reads = (
        [f"/p/{token}?lang={lang}" for lang in ("en", "zh-hans")]
        + [f"/p/{token}/pdf?lang={lang}" for lang in ("en", "zh-hans")]
        + [f"/p/{token}/drawing?lang=en", f"/p/{token}/drawing.svg"]
    )
    api_reads = [
        f"/api/v1/quotes/{sent_quote.pk}/proposal/",
        f"/api/v1/quotes/{sent_quote.pk}/proposal/?language=en",
    ]

    with (
        mock.patch.object(Task, "apply_async") as applied,
        mock.patch.object(Celery, "send_task") as sent,
        django_capture_on_commit_callbacks(execute=True) as callbacks,
    ):
        codes = [client.get(path).status_code for path in reads]
        codes += [api.get(path).status_code for path in api_reads]

    pdf_code, api_code = (202, 200) if documents.startswith("requested") else (202, 404)
    assert codes == [200, 200, pdf_code, pdf_code, 200, 200, api_code, api_code]
    assert list(ProposalDocument.objects.order_by("pk").values_list("pk", "status")) == before
    assert (callbacks, applied.call_count, sent.call_count) == ([], 0, 0)


def test_the_sweeper_requests_the_sent_pdfs_an_open_offer_lacks_once(
    world, django_capture_on_commit_callbacks
):
    from proposals.documents.services import proposals_sent_missing_request
    from quoting.quotes.models import Quote, QuoteStatus
    from quoting.quotes.services.quotes import quote_create
    from tests.proposals.conftest import quote_sent

    open_offer = quote_sent(world)
    accepted = quote_sent(world)
    Quote.objects.filter(pk=accepted.pk).update(status=QuoteStatus.ACCEPTED)
    quote_create(project=world.project, user=world.sales)  # a draft: nothing to send yet
    # Sent before the send made its PDFs: none kept.
    ProposalDocument.objects.all().delete()

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert proposals_sent_missing_request() == 2
    requested = ProposalDocument.objects.order_by("language")
    assert [(d.revision_id, d.language, d.status, d.is_draft) for d in requested] == [
        (open_offer.current_revision_id, "en", DocumentStatus.PENDING, False),
        (open_offer.current_revision_id, "zh-hans", DocumentStatus.PENDING, False),
    ]
    assert len(callbacks) == 2  # their renders, queued on commit

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert proposals_sent_missing_request() == 0  # the next sweep: requested already
    assert ProposalDocument.objects.count() == 2 and callbacks == []

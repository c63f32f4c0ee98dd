"""Issue 27: the signed copy's filled signature block lands on the accepted PDF's printed block,
whatever the templates have become since. The block's place is recorded when the accepted PDF
is rendered, and the stamp is the block alone, drawn there; an accepted PDF rendered before
places were recorded is stamped as before (the proposal laid out again, and checked)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from proposals.acceptance.services import acceptance_countersign
from proposals.documents import pdf
from proposals.documents.pdf import proposal_rendered, signature_stamp
from proposals.documents.signed_copy import signed_copy_assemble, signed_copy_verify
from proposals.models import Acceptance, DocumentStatus, ProposalDocument
from proposals.share.services import share_link_create
from tests.conftest import service_missing
from tests.proposals.acceptance.test_acceptance_signature import accept
from tests.proposals.conftest import quote_sent, sent_pdf

SIGNER, COUNTERSIGNER = ("Ottoline", "Marsh"), ("Quillon", "Fenwick")
WORD = re.compile(
    r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>'
)


def _words(data: bytes, page: int, tmp_path) -> dict[str, tuple[float, float, float, float]]:
    """The words printed on `page` (from 0), each with its box in PDF points from the bottom
    left, as pdftotext reads them (the stamp's Form XObject included)."""
    if shutil.which("pdftotext") is None:
        service_missing("pdftotext (poppler-utils) is not installed")
    path = tmp_path / "copy.pdf"
    path.write_bytes(data)
    number = str(page + 1)
    done = subprocess.run(
        ["pdftotext", "-f", number, "-l", number, "-bbox", str(path), "-"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    height = float(re.search(r'<page width="[\d.]+" height="([\d.]+)"', done.stdout).group(1))
    return {
        text: (float(x0), height - float(y1), float(x1), height - float(y0))
        for x0, y0, x1, y1, text in WORD.findall(done.stdout)
    }


def _inside(box, bbox) -> bool:
    return bbox[0] <= box[0] < box[2] <= bbox[2] and bbox[1] <= box[1] < box[3] <= bbox[3]


def _accepted(world, capture, *, company=None):
    quote = quote_sent(world, company=company)
    document = sent_pdf(quote.current_revision, "en")
    link, _token = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei")
    accept(link, capture, name=" ".join(SIGNER))
    return quote, document


def _countersigned(quote, manager, capture) -> Acceptance:
    manager.first_name, manager.last_name = COUNTERSIGNER
    manager.save()
    with capture(execute=True):
        acceptance_countersign(quote=quote, user=manager)
    acceptance = Acceptance.objects.get()
    assert acceptance.signed_status == DocumentStatus.READY, acceptance.signed_error
    return acceptance


def _templates_with_a_new_section(settings, tmp_path) -> None:
    """The proposal's templates as a later release might have them: a section added before the
    signatures, which moves the block (another place, or another page)."""
    real = Path(django_settings.BASE_DIR) / "templates" / "proposals" / "_content.html"
    content = real.read_text()
    anchor = '<section class="signatures"'
    assert anchor in content
    added = (
        '<section class="later"><h2>A section added after the acceptance</h2>'
        '<p style="height: 120mm">Warranty terms, at length.</p></section>\n'
    )
    folder = tmp_path / "templates" / "proposals"
    folder.mkdir(parents=True)
    (folder / "_content.html").write_text(content.replace(anchor, added + anchor, 1))
    templates = [dict(engine) for engine in django_settings.TEMPLATES]
    templates[0]["DIRS"] = [tmp_path / "templates", *templates[0]["DIRS"]]
    settings.TEMPLATES = templates


def _templates_with_a_note_above_the_block(settings, tmp_path) -> None:
    """The proposal's templates as a later release might have them: a short note added just above
    the signature block (as the alternatives' rule was), which moves it down on its own page."""
    real = Path(django_settings.BASE_DIR) / "templates" / "proposals" / "_content.html"
    content = real.read_text()
    anchor = '{% include "proposals/_signature_block.html" %}'
    assert anchor in content
    added = '<p style="height: 12mm">A note added after the acceptance.</p>\n'
    folder = tmp_path / "templates" / "proposals"
    folder.mkdir(parents=True)
    (folder / "_content.html").write_text(content.replace(anchor, added + anchor, 1))
    templates = [dict(engine) for engine in django_settings.TEMPLATES]
    templates[0]["DIRS"] = [tmp_path / "templates", *templates[0]["DIRS"]]
    settings.TEMPLATES = templates


def test_the_accepted_pdf_records_where_it_prints_its_signature_block(world, tmp_path):
    document = sent_pdf(quote_sent(world).current_revision, "en")
    position = document.signature_block
    x0, y0, x1, y1 = position["bbox"]
    width, height = position["page_size"]
    assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height
    words = _words(bytes(document.pdf), position["page"], tmp_path)
    # The blank block's own labels are inside the recorded box, on the recorded page.
    for label in ("Signature", "seal", "Date", "Title"):
        assert label in words and _inside(words[label], position["bbox"]), (label, words)


def test_a_template_change_after_the_acceptance_does_not_move_the_countersignature(
    world, settings, tmp_path, django_capture_on_commit_callbacks
):
    quote, document = _accepted(world, django_capture_on_commit_callbacks)
    recorded = document.signature_block
    _templates_with_a_new_section(settings, tmp_path)
    moved = proposal_rendered(revision=quote.current_revision, language="en").signature_block
    assert moved["bbox"] != recorded["bbox"]  # today's templates print the block elsewhere

    acceptance = _countersigned(quote, world.manager, django_capture_on_commit_callbacks)
    signed, original = bytes(acceptance.signed_pdf), bytes(document.pdf)
    check = signed_copy_verify(
        original=original,
        signed=signed,
        sha256=acceptance.document_sha256,
        signed_sha256=acceptance.signed_sha256,
    )
    assert check.ok and check.certificate_bound, check.problems
    assert check.stamped_page == recorded["page"] + 1
    # Both signers' names are printed inside the accepted PDF's block, on its page.
    words = _words(signed, recorded["page"], tmp_path)
    for name in (*SIGNER, *COUNTERSIGNER):
        assert name in words, (name, sorted(words))
        assert _inside(words[name], recorded["bbox"]), (name, words[name], recorded["bbox"])


def test_an_acceptance_of_a_pdf_without_a_recorded_place_is_stamped_as_before(
    world, tmp_path, django_capture_on_commit_callbacks, monkeypatch
):
    """A PDF rendered before places were recorded: the proposal is laid out again, its block
    found and checked against the accepted page, and the stamp drawn there."""
    quote, document = _accepted(world, django_capture_on_commit_callbacks)
    found = document.signature_block
    ProposalDocument.objects.filter(pk=document.pk).update(signature_block=None)
    relaid, laid_out_again = [], pdf._signature_stamp_relaid

    def counted(**kwargs):
        relaid.append(kwargs)
        return laid_out_again(**kwargs)

    monkeypatch.setattr(pdf, "_signature_stamp_relaid", counted)

    acceptance = _countersigned(quote, world.manager, django_capture_on_commit_callbacks)
    assert len(relaid) == 1
    signed = bytes(acceptance.signed_pdf)
    check = signed_copy_verify(original=bytes(document.pdf), signed=signed)
    assert check.ok and check.stamped_page == found["page"] + 1, check.problems
    words = _words(signed, found["page"], tmp_path)
    for name in (*SIGNER, *COUNTERSIGNER):
        assert name in words and _inside(words[name], found["bbox"]), (name, words.get(name))


def test_a_pdf_without_a_recorded_place_whose_block_moved_down_its_page_is_stamped_on_its_own_block(
    world, settings, tmp_path, django_capture_on_commit_callbacks
):
    """Laid out again with today's templates, the block sits lower on the same page than the
    accepted PDF prints it: the stamp goes where the accepted PDF prints the block, not where
    the new layout would."""
    quote, document = _accepted(world, django_capture_on_commit_callbacks)
    printed = document.signature_block
    ProposalDocument.objects.filter(pk=document.pk).update(signature_block=None)
    _templates_with_a_note_above_the_block(settings, tmp_path)
    moved = proposal_rendered(revision=quote.current_revision, language="en").signature_block
    assert moved["page"] == printed["page"]
    assert moved["bbox"][3] < printed["bbox"][3] - 20  # lower on the same page

    acceptance = _countersigned(quote, world.manager, django_capture_on_commit_callbacks)
    signed = bytes(acceptance.signed_pdf)
    check = signed_copy_verify(original=bytes(document.pdf), signed=signed)
    assert check.ok and check.stamped_page == printed["page"] + 1, check.problems
    words = _words(signed, printed["page"], tmp_path)
    # Where a stamp at the recorded place (the block drawn alone) prints the same names.
    names = {"customer": {"name": " ".join(SIGNER)}, "seller": {"name": " ".join(COUNTERSIGNER)}}
    stamp = signature_stamp(
        revision=quote.current_revision,
        language="en",
        signatures=names,
        original=bytes(document.pdf),
        position=printed,
    )
    copy = signed_copy_assemble(
        original=bytes(document.pdf), certificate=pdf.html_to_pdf("<p>c</p>"), stamp=stamp
    )
    expected = _words(copy, printed["page"], tmp_path)
    for name in (*SIGNER, *COUNTERSIGNER):
        assert name in words and _inside(words[name], printed["bbox"]), (name, words.get(name))
        assert max(abs(a - b) for a, b in zip(words[name], expected[name], strict=True)) < 1, (
            name,
            words[name],
            expected[name],
        )


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_fallback_prints_the_values_where_the_recorded_place_does_after_a_note_above_the_block(
    world, settings, tmp_path, language
):
    quote = quote_sent(world)
    revision = quote.current_revision
    rendered = proposal_rendered(revision=revision, language=language)
    _templates_with_a_note_above_the_block(settings, tmp_path)
    moved = proposal_rendered(revision=revision, language=language).signature_block
    assert moved["page"] == rendered.signature_block["page"]
    assert moved["bbox"][3] < rendered.signature_block["bbox"][3] - 20  # lower on the same page
    signatures = {
        "customer": {"name": " ".join(SIGNER), "title": "CTO", "date": "2026-12-07"},
        "seller": {"name": " ".join(COUNTERSIGNER), "title": "Director", "date": "2026-12-08"},
    }
    certificate = pdf.html_to_pdf("<p>certificate</p>")
    printed = []
    for position in (rendered.signature_block, None):
        stamp = signature_stamp(
            revision=revision,
            language=language,
            signatures=signatures,
            original=rendered.pdf,
            position=position,
        )
        assert stamp is not None and stamp.page == rendered.signature_block["page"]
        copy = signed_copy_assemble(original=rendered.pdf, certificate=certificate, stamp=stamp)
        printed.append(_words(copy, stamp.page, tmp_path))
    recorded, relaid = printed
    for name in (*SIGNER, *COUNTERSIGNER, "Director", "2026-12-08"):
        assert max(abs(a - b) for a, b in zip(recorded[name], relaid[name], strict=True)) < 1, name


def test_a_pdf_without_a_recorded_place_whose_block_is_drawn_differently_now_gets_no_stamp(
    world, settings, tmp_path
):
    """Today's block has a row more between the name and the title: the values under it would
    land off their lines wherever the stamp went, so there is none (the certificate still
    records the signatures)."""
    quote = quote_sent(world)
    document = sent_pdf(quote.current_revision, "en")
    real = Path(django_settings.BASE_DIR) / "templates" / "proposals" / "_signature_block.html"
    block = real.read_text()
    anchor = '<tr><td><span class="field">{% if seller %}<span class="filled">{{ seller.title }}'
    assert anchor in block
    folder = tmp_path / "templates" / "proposals"
    folder.mkdir(parents=True)
    added = "<tr><td>A row added later</td><td></td></tr>"
    (folder / "_signature_block.html").write_text(block.replace(anchor, added + anchor, 1))
    templates = [dict(engine) for engine in django_settings.TEMPLATES]
    templates[0]["DIRS"] = [tmp_path / "templates", *templates[0]["DIRS"]]
    settings.TEMPLATES = templates
    signatures = {"customer": {"name": " ".join(SIGNER), "date": "2026-12-07"}, "seller": None}
    stamp = signature_stamp(
        revision=quote.current_revision,
        language="en",
        signatures=signatures,
        original=bytes(document.pdf),
        position=None,
    )
    assert stamp is None


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_block_drawn_alone_prints_the_values_where_the_whole_layout_does(
    world, tmp_path, language
):
    quote = quote_sent(world, lines=50)
    revision = quote.current_revision
    rendered = proposal_rendered(revision=revision, language=language)
    customer = {"name": " ".join(SIGNER), "title": "CTO", "company": "Fabrikam"}
    seller = {"name": " ".join(COUNTERSIGNER), "title": "Director"}
    signatures = {
        "customer": {**customer, "date": "2026-12-07"},
        "seller": {**seller, "date": "2026-12-08"},
    }
    certificate = pdf.html_to_pdf("<p>certificate</p>")
    printed = []
    for position in (rendered.signature_block, None):
        stamp = signature_stamp(
            revision=revision,
            language=language,
            signatures=signatures,
            original=rendered.pdf,
            position=position,
        )
        assert stamp is not None and stamp.page == rendered.signature_block["page"]
        copy = signed_copy_assemble(original=rendered.pdf, certificate=certificate, stamp=stamp)
        printed.append(_words(copy, stamp.page, tmp_path))
    alone, whole = printed
    assert set(alone) == set(whole)
    for name in (*SIGNER, *COUNTERSIGNER, "Director", "2026-12-08"):
        assert name in alone
    for text, box in alone.items():  # the same place, to the recorded box's rounding
        assert max(abs(a - b) for a, b in zip(box, whole[text], strict=True)) < 0.05, text


def test_a_recorded_place_the_accepted_pdf_has_no_such_page_for_gets_no_stamp(world):
    """A misplaced stamp is worse than none: the certificate still records the signatures."""
    quote = quote_sent(world)
    document = sent_pdf(quote.current_revision, "en")
    signatures = {"customer": {"name": "Li Wei", "date": "2026-12-07"}, "seller": None}
    position = document.signature_block
    for wrong in ({**position, "page": 99}, {**position, "page_size": [612.0, 792.0]}, {}):
        assert (
            signature_stamp(
                revision=quote.current_revision,
                language="en",
                signatures=signatures,
                original=bytes(document.pdf),
                position=wrong,
            )
            is None
        )

"""Issue 23, part A: a signed copy nobody can alter unnoticed.

The signed copy carries the accepted PDF byte for byte (an attachment), and its check compares
what is rendered: every page of the original against the copy's, with everything reachable from
it (content, fonts, drawings, annotations, boxes, rotation, actions); the document may run no
action; the embedded original must be the original, whose SHA-256 must be the one the portal
published; and the copy itself must be the one the portal recorded, which binds its certificate.

Each forgery below was accepted as "unchanged" before. Built with pypdf, as anyone could.
"""

from __future__ import annotations

import hashlib
import io

import pytest
from django.core.management import call_command
from django.test import TestCase
from pypdf import PdfReader, PdfWriter
from pypdf.annotations import FreeText
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    NameObject,
    NumberObject,
    RectangleObject,
    TextStringObject,
)

from proposals.documents.pdf import signed_copy_verify
from proposals.documents.signed_copy import ACCEPTED_ORIGINAL_NAME
from proposals.models import Acceptance, DocumentStatus
from proposals.share.services import share_link_create
from tests.proposals.acceptance.test_acceptance_signature import accept
from tests.proposals.conftest import quote_rich, sent_pdf


@pytest.fixture(scope="module")
def accepted_once(module_world):
    """(the accepted PDF, its signed copy, the acceptance) of a quote made from a design: its
    pages draw the fabric with Form XObjects, text inside them. Made once for the module (a
    render, an acceptance and a signature): every test only reads it and forges bytes."""
    world = module_world
    quote = quote_rich(world)
    document = sent_pdf(quote.current_revision, "en")
    link, _token = share_link_create(quote=quote, user=world.sales, recipient_name="Li Wei")
    accept(link, TestCase.captureOnCommitCallbacks, po_number="PO-2026/0042")
    acceptance = Acceptance.objects.get()
    assert acceptance.signed_status == DocumentStatus.READY, acceptance.signed_error
    return bytes(document.pdf), bytes(acceptance.signed_pdf), acceptance


@pytest.fixture
def accepted(accepted_once, db):
    return accepted_once


def _edited(signed: bytes, edit) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(signed)))
    edit(writer)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _first_form_with_text(page):
    for name, xobject in page["/Resources"]["/XObject"].items():
        form = xobject.get_object()
        if form["/Subtype"] == "/Form" and b"] TJ" in form.get_data():
            return name, form
    raise AssertionError("no Form XObject with text on page 1")


def glyph_changed_in_a_form_xobject(original: bytes, signed: bytes) -> bytes:
    """One glyph of the drawing's text, drawn in a Form XObject, becomes another ("2" → "6")."""

    def edit(writer):
        _name, form = _first_form_with_text(writer.pages[0])
        data = form.get_data()
        start = data.index(b"[<") + 2
        glyph = int(data[start : start + 4], 16)
        form.set_data(data[:start] + b"%04x" % (glyph + 4) + data[start + 4 :])

    return _edited(signed, edit)


def total_annotation_added(original: bytes, signed: bytes) -> bytes:
    """A free-text annotation "TOTAL 0.01 CNY" over page 1."""

    def edit(writer):
        box = writer.pages[0].mediabox
        writer.add_annotation(
            page_number=0,
            annotation=FreeText(
                text="TOTAL 0.01 CNY",
                rect=(40, float(box.height) / 2, 300, float(box.height) / 2 + 40),
                font_size="20pt",
            ),
        )

    return _edited(signed, edit)


def half_page_hidden_by_a_cropbox(original: bytes, signed: bytes) -> bytes:
    def edit(writer):
        page = writer.pages[0]
        width, height = float(page.mediabox.width), float(page.mediabox.height)
        page[NameObject("/CropBox")] = RectangleObject([0, height / 2, width, height])

    return _edited(signed, edit)


def fonts_swapped(original: bytes, signed: bytes) -> bytes:
    """Page 1's two fonts swapped: the same glyph numbers draw other letters."""

    def edit(writer):
        fonts = writer.pages[0]["/Resources"]["/Font"]
        first, second = list(fonts)[:2]
        fonts[NameObject(first)], fonts[NameObject(second)] = (
            fonts.raw_get(second),
            fonts.raw_get(first),
        )

    return _edited(signed, edit)


def page_rotated(original: bytes, signed: bytes) -> bytes:
    return _edited(signed, lambda writer: writer.pages[0].rotate(180))


def rotation_inherited_from_the_page_tree(original: bytes, signed: bytes) -> bytes:
    """/Rotate 180 on the page tree's root, which every page without its own inherits."""

    def edit(writer):
        writer._root_object["/Pages"][NameObject("/Rotate")] = NumberObject(180)

    return _edited(signed, edit)


def _text_page(writer, lines: list[str], *, index: int):
    """A page of plain Helvetica text, as anyone can write one, put at `index`."""
    reference = writer.pages[-1]
    writer.insert_blank_page(
        width=float(reference.mediabox.width), height=float(reference.mediabox.height), index=index
    )
    page = writer.pages[index]
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
    )
    shown = b" T* ".join(b"(" + line.encode("latin-1") + b") Tj" for line in lines)
    stream = DecodedStreamObject()
    stream.set_data(b"BT /F1 9 Tf 12 TL 40 780 Td " + shown + b" ET")
    page[NameObject("/Contents")] = writer._add_object(stream)
    return page


def forged_certificate_naming_the_original_sha256(original: bytes, signed: bytes) -> bytes:
    """The certificate replaced by one naming the original's SHA-256, with another signer and
    another PO number."""
    sha256 = hashlib.sha256(original).hexdigest()

    def edit(writer):
        writer.remove_page(len(writer.pages) - 1)
        _text_page(
            writer,
            [
                "Certificate of acceptance",
                "Signed by: Mallory, CEO",
                "PO number: PO-0000/0001",
                "Options chosen: 2x100G RoCE",
                f"Original SHA-256: {sha256}",
            ],
            index=len(writer.pages),
        )

    return _edited(signed, edit)


def _script(writer, script: str):
    action = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Action"),
            NameObject("/S"): NameObject("/JavaScript"),
            NameObject("/JS"): TextStringObject(script),
        }
    )
    return writer._add_object(action)


def open_action_script(original: bytes, signed: bytes) -> bytes:
    def edit(writer):
        writer._root_object[NameObject("/OpenAction")] = _script(writer, "app.alert('0.01');")

    return _edited(signed, edit)


def document_script_in_the_name_tree(original: bytes, signed: bytes) -> bytes:
    def edit(writer):
        names = writer._root_object.setdefault(NameObject("/Names"), DictionaryObject())
        tree = DictionaryObject(
            {
                NameObject("/Names"): ArrayObject(
                    [TextStringObject("total"), _script(writer, "app.alert('0.01');")]
                )
            }
        )
        names.get_object()[NameObject("/JavaScript")] = writer._add_object(tree)

    return _edited(signed, edit)


def page_added_after_the_original(original: bytes, signed: bytes) -> bytes:
    """An "amendment" page between the original's pages and the certificate."""

    def edit(writer):
        _text_page(writer, ["Amendment: the total is 0.01 CNY."], index=len(writer.pages) - 1)

    return _edited(signed, edit)


def embedded_original_replaced(original: bytes, signed: bytes) -> bytes:
    """The carried original swapped for another PDF (here the copy's own first page)."""

    def edit(writer):
        other = PdfWriter()
        other.add_page(writer.pages[0])
        out = io.BytesIO()
        other.write(out)
        del writer._root_object["/Names"].get_object()[NameObject("/EmbeddedFiles")]
        writer.add_attachment(ACCEPTED_ORIGINAL_NAME, out.getvalue())

    return _edited(signed, edit)


# The seven of the issue, then variants of them.
FORGERIES = {
    "1 a glyph changed inside a Form XObject": glyph_changed_in_a_form_xobject,
    "2 an annotation TOTAL 0.01 CNY over page 1": total_annotation_added,
    "3 a CropBox hiding half a page": half_page_hidden_by_a_cropbox,
    "4 fonts swapped": fonts_swapped,
    "5 /Rotate 180": page_rotated,
    "6 a forged certificate naming the original's SHA-256": (
        forged_certificate_naming_the_original_sha256
    ),
    "7 an OpenAction script": open_action_script,
    "5b /Rotate inherited from the page tree": rotation_inherited_from_the_page_tree,
    "7b a document script in the name tree": document_script_in_the_name_tree,
    "8 a page added before the certificate": page_added_after_the_original,
    "9 the embedded original replaced": embedded_original_replaced,
}

# What the check says of each, on its own (without the copy's recorded SHA-256): every forgery
# of the pages or the document is named; the forged certificate and the added page are caught by
# the copy's SHA-256 the portal recorded (below).
NAMED = {
    "1 a glyph changed inside a Form XObject": "Page 1 differs from the original's page 1: its "
    "resources (fonts, images, drawings)",
    "2 an annotation TOTAL 0.01 CNY over page 1": "Page 1 differs from the original's page 1: "
    "its annotations",
    "3 a CropBox hiding half a page": "Page 1 differs from the original's page 1: its /CropBox",
    "4 fonts swapped": "Page 1 differs from the original's page 1: its resources",
    "5 /Rotate 180": "Page 1 differs from the original's page 1: its rotation",
    "7 an OpenAction script": "runs an action when opened (/OpenAction)",
    "5b /Rotate inherited from the page tree": "Page 1 differs from the original's page 1: its "
    "rotation",
    "7b a document script in the name tree": "document scripts (/Names /JavaScript)",
    "9 the embedded original replaced": f"The attached {ACCEPTED_ORIGINAL_NAME} is not the "
    f"original",
}


def _command(tmp_path, original: bytes, signed: bytes, *options: str) -> tuple[int, str]:
    paths = tmp_path / "original.pdf", tmp_path / "signed.pdf"
    paths[0].write_bytes(original)
    paths[1].write_bytes(signed)
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("verify_signed_copy", *map(str, paths), *options, stdout=out, stderr=err)
    except SystemExit as exit_:
        return exit_.code, out.getvalue() + err.getvalue()
    return 0, out.getvalue() + err.getvalue()


def test_the_untouched_copy_carries_its_original_and_verifies(accepted, tmp_path):
    original, signed, acceptance = accepted
    attached = PdfReader(io.BytesIO(signed)).attachments
    assert list(attached) == [ACCEPTED_ORIGINAL_NAME]
    assert attached[ACCEPTED_ORIGINAL_NAME] == [original]  # byte for byte

    code, said = _command(tmp_path, original, signed)
    assert code == 0, said
    assert acceptance.document_sha256 in said and acceptance.signed_sha256 in said
    check = signed_copy_verify(
        original=original,
        signed=signed,
        sha256=acceptance.document_sha256,
        signed_sha256=acceptance.signed_sha256,
    )
    assert check.ok and check.certificate_bound, check.problems


@pytest.mark.parametrize("forgery", FORGERIES)
def test_every_forgery_exits_1(accepted, tmp_path, forgery):
    original, signed, acceptance = accepted
    forged = FORGERIES[forgery](original, signed)
    assert forged != signed

    code, said = _command(tmp_path, original, forged)
    assert code == 1, said
    assert "not the signed copy the portal recorded" in said  # the record binds the copy
    # The check on its own, with only the original's published SHA-256, names what was done.
    check = signed_copy_verify(original=original, signed=forged, sha256=acceptance.document_sha256)
    if forgery in NAMED:
        assert any(NAMED[forgery] in problem for problem in check.problems), check.problems
    # With the copy's SHA-256 as the portal published it, every forgery fails, anywhere.
    check = signed_copy_verify(
        original=original,
        signed=forged,
        sha256=acceptance.document_sha256,
        signed_sha256=acceptance.signed_sha256,
    )
    assert not check.ok and not check.certificate_bound
    code, _said = _command(
        tmp_path,
        original,
        forged,
        "--sha256",
        acceptance.document_sha256,
        "--signed-sha256",
        acceptance.signed_sha256,
    )
    assert code == 1


@pytest.mark.parametrize(
    "signed",
    [b"", b"not a pdf", b"%PDF-1.7\n" + b"x" * 100],
    ids=["empty", "not a PDF", "a PDF header and nothing"],
)
def test_what_is_not_a_pdf_is_refused_with_a_reason_not_a_crash(signed):
    writer = PdfWriter()
    writer.add_blank_page(width=595, height=842)
    original = io.BytesIO()
    writer.write(original)
    check = signed_copy_verify(original=original.getvalue(), signed=signed)
    assert not check.ok
    assert any("SIGNED is not a PDF that can be read" in p for p in check.problems)

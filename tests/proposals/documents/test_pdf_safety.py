"""The PDF renders our template only: no file, no network address, no redirect is ever read, and
user text prints as text. Chinese proposals carry a real CJK font."""

from __future__ import annotations

import pytest
from pypdf.generic import IndirectObject

from proposals.documents.pdf import (
    ASSET_DIR,
    FetchRefused,
    html_to_pdf,
    proposal_pdf,
)
from proposals.documents.renderer import ProposalURLFetcher
from tests.proposals.conftest import pdf_reader, pdf_text, quote_rich, quote_sent

# --- the fetcher ---------------------------------------------------------------------------------


def test_the_fetcher_reads_data_urls():
    response = ProposalURLFetcher().fetch("data:text/plain;base64,aGVsbG8=")
    assert response.read() == b"hello"


def test_the_fetcher_reads_files_inside_the_asset_folder():
    response = ProposalURLFetcher().fetch((ASSET_DIR / "proposal.css").as_uri())
    assert b"@page" in response.read()


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        (ASSET_DIR / ".." / ".." / "pyproject.toml").as_posix().join(["file://", ""]),
        "file://evil.example/etc/passwd",
        "ftp://127.0.0.1/x",
        "https://example.com/x.png",
        "gopher://127.0.0.1:70/",
    ],
)
def test_the_fetcher_refuses_files_outside_the_assets_and_every_other_scheme(url):
    with pytest.raises(FetchRefused):
        ProposalURLFetcher().fetch(url)


def test_the_fetcher_never_calls_a_network_address_nor_follows_a_redirect(loopback):
    base, hits = loopback
    for path in ("/x.png", "/redirect", "/style.css"):
        with pytest.raises(FetchRefused):
            ProposalURLFetcher().fetch(base + path)
    assert hits == []


def test_a_template_that_asks_for_an_outside_resource_fails_closed(loopback):
    base, hits = loopback
    with pytest.raises(FetchRefused):
        html_to_pdf(f'<html><body><img src="{base}/x.png"></body></html>')
    with pytest.raises(FetchRefused):
        html_to_pdf('<html><head><link rel="stylesheet" href="file:///etc/passwd"></head></html>')
    assert hits == []


# --- the payloads --------------------------------------------------------------------------------

FILE_IMG = '<img src="file:///etc/passwd">'
ATTACHMENT = "<link rel=attachment href=file:///etc/passwd>"


def _embedded_files(reader) -> bool:
    names = reader.trailer["/Root"].get("/Names")
    if isinstance(names, IndirectObject):
        names = names.get_object()
    in_names = bool(names and "/EmbeddedFiles" in names)
    annotations = [
        a.get_object().get("/Subtype") for page in reader.pages for a in (page.get("/Annots") or [])
    ]
    return in_names or "/FileAttachment" in annotations or bool(reader.attachments)


def test_user_text_with_file_network_import_and_attachment_payloads_prints_as_text(world, loopback):
    base, hits = loopback
    imported, image = f"@import url({base}/);", f'<img src="{base}/x.png">'
    world.project.name = f"Cluster {FILE_IMG}"
    world.project.notes = f"{ATTACHMENT} {imported}"
    world.project.save()
    world.customer.notes = f"<style>{imported}</style>"
    quote = quote_sent(
        world,
        company=f"ACME {ATTACHMENT}",
        descriptions=[FILE_IMG, ATTACHMENT, imported, image, f"<style>{imported}</style>"],
    )

    pdf = proposal_pdf(revision=quote.current_revision, language="en")

    assert hits == [], "the renderer called the loopback listener"
    assert not _embedded_files(pdf_reader(pdf))
    text = "".join(pdf_text(pdf).split())  # table cells wrap long text
    for literal in (FILE_IMG, ATTACHMENT, imported, image, f"ACME {ATTACHMENT}"):
        assert "".join(literal.split()) in text
    assert "root:x:0:0" not in text


# --- Chinese -------------------------------------------------------------------------------------


def _font_names(reader) -> set[str]:
    names = set()
    for page in reader.pages:
        fonts = page["/Resources"].get_object().get("/Font") or {}
        for ref in fonts.get_object().values():
            font = ref.get_object()
            names.add(str(font.get("/BaseFont")))
            for descendant in font.get("/DescendantFonts") or []:
                names.add(str(descendant.get_object().get("/BaseFont")))
    return names


def test_a_chinese_proposal_embeds_a_cjk_font_and_its_text_reads_back_in_chinese(world, seeded):
    world.customer.company = "鹏城实验室"
    world.customer.save()
    quote = quote_rich(world, language="zh-hans")

    pdf = proposal_pdf(revision=quote.current_revision, language="zh-hans")

    reader = pdf_reader(pdf)
    assert any("CJK" in name or "Noto" in name for name in _font_names(reader)), _font_names(reader)
    text = "".join(pdf_text(pdf).split())  # lines wrap anywhere in Chinese
    assert "鹏城实验室" in text
    assert "7×24小时，2小时内响应" in text  # the support tier's terms, in the customer's words


def test_an_english_proposal_has_every_part(world, seeded):
    quote = quote_rich(world, language="en")

    text = pdf_text(proposal_pdf(revision=quote.current_revision, language="en"))

    for part in (
        "Executive summary",
        "Fabric design",
        "Bill of materials",
        "Total cost of",
        "Assumptions",
        "Services and support",
        "2-hour response",
        "Rounding",
        "Terms",
        quote.number,
        "MQM9790-NS2F",
        "rail group 1",
    ):
        assert part in text, part

"""Issue 27: the signed copy's stamp sits on the accepted PDF's own signature block, so it is laid
out with the party names that PDF printed (the seller's legal name, the customer's company), not
with what the company profile or the customer's record say by the time the seller
countersigns. The chop, though, is the countersigner's act: the copy prints it as it is when
they countersign."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageDraw
from pypdf import PdfReader

from portal.models import CompanyProfile
from proposals.documents.selectors import parties_of
from proposals.documents.signed_copy import STAMP_NAME
from proposals.models import Acceptance, ProposalDocument
from quoting.customers.models import Customer
from tests.portal.test_company_chop import chop_png
from tests.proposals.acceptance.test_signature_stamp_position import (
    COUNTERSIGNER,
    SIGNER,
    _accepted,
    _countersigned,
    _inside,
    _words,
)
from tests.proposals.conftest import quote_sent, sent_pdf

# Long enough to take three lines of its column where the accepted PDF printed one.
RENAMED = "Fabric Networks Holdings International Trading and Technical Services Group Co., Ltd."


def test_the_accepted_pdf_records_the_party_names_it_prints(world):
    CompanyProfile.objects.create(legal_name_en="Fabric Networks", legal_name_zh="法布网络")
    quote = quote_sent(world, company="Fabrikam")
    english = sent_pdf(quote.current_revision, "en")
    assert english.parties == {
        "seller": "Fabric Networks",
        "seller_language": "en",
        "customer": "Fabrikam",
    }
    printed = parties_of(english)
    assert (printed["seller"], printed["seller"].language) == ("Fabric Networks", "en")
    # A PDF rendered before they were recorded: the stamp prints today's (nothing older kept).
    ProposalDocument.objects.filter(pk=english.pk).update(parties=None)
    assert parties_of(ProposalDocument.objects.get(pk=english.pk)) is None


def test_the_stamp_keeps_the_accepted_pdf_s_party_names_when_they_are_edited_before_countersigning(
    world, seeded, tmp_path, django_capture_on_commit_callbacks
):
    """The profile's legal name and the customer's company are edited after the acceptance, to
    names that take three lines: the countersigned copy still prints the customer's values
    where the first copy (stamped before the edits) printed them, and the seller's beside
    them, inside the accepted block."""
    CompanyProfile.objects.create(legal_name_en="Fabric Networks")
    quote, document = _accepted(world, django_capture_on_commit_callbacks, company="Fabrikam")
    recorded = document.signature_block
    first = _words(bytes(Acceptance.objects.get().signed_pdf), recorded["page"], tmp_path)

    CompanyProfile.objects.filter(pk=CompanyProfile.SINGLETON_PK).update(legal_name_en=RENAMED)
    Customer.objects.filter(pk=quote.customer_id).update(company=RENAMED.replace("Fabric", "Fab"))
    acceptance = _countersigned(quote, world.manager, django_capture_on_commit_callbacks)
    words = _words(bytes(acceptance.signed_pdf), recorded["page"], tmp_path)

    for name in SIGNER:
        assert max(abs(a - b) for a, b in zip(words[name], first[name], strict=True)) < 0.5, (
            name,
            words[name],
            first[name],
        )
    for name in (*SIGNER, *COUNTERSIGNER):
        assert name in words and _inside(words[name], recorded["bbox"]), (name, words.get(name))
    # The seller's name on the customer's name's line.
    assert abs(words[COUNTERSIGNER[0]][1] - words[SIGNER[0]][1]) < 0.5


def _chop(colour: tuple[int, int, int, int], size: int) -> bytes:
    image = Image.new("RGBA", (size, size), (255, 255, 255, 0))
    ImageDraw.Draw(image).rectangle((8, 8, size - 8, size - 8), outline=colour, width=10)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


@pytest.mark.parametrize("changed", [True, False])
def test_the_countersigned_copy_prints_the_chop_as_it_is_when_the_seller_countersigns(
    world, seeded, django_capture_on_commit_callbacks, changed
):
    """The chop is the seller's act, not the customer's: replaced between the acceptance and
    the countersignature, the copy carries the new one (and never the one of the day the
    customer signed)."""
    at_acceptance = chop_png()  # 240 × 240
    CompanyProfile.objects.create(
        legal_name_en="Fabric Networks", chop=at_acceptance, chop_type="image/png"
    )
    quote, document = _accepted(world, django_capture_on_commit_callbacks, company="Fabrikam")
    if changed:
        CompanyProfile.objects.filter(pk=CompanyProfile.SINGLETON_PK).update(
            chop=_chop((20, 40, 200, 255), 180), chop_type="image/png"
        )
    acceptance = _countersigned(quote, world.manager, django_capture_on_commit_callbacks)
    page = PdfReader(io.BytesIO(bytes(acceptance.signed_pdf))).pages[
        document.signature_block["page"]
    ]
    stamp = page["/Resources"]["/XObject"][STAMP_NAME].get_object()
    sizes = {
        (int(x.get_object()["/Width"]), int(x.get_object()["/Height"]))
        for x in stamp["/Resources"].get("/XObject", {}).values()
        if x.get_object()["/Subtype"] == "/Image"
    }
    assert ((180, 180) in sizes) is changed
    assert ((240, 240) in sizes) is not changed

"""The proposal PDF says, in the customer's language, which cable lengths were measured on the
site and which assumed from a distance class (issue 26), from the revision's frozen snapshot.

NVIDIA LinkX cables are sold by length class (MFP7E10-N0xx fibres: 3 to 50 m), so an assumed
class decides the part number quoted.
"""

from __future__ import annotations

import pytest

from proposals.documents.pdf import proposal_pdf
from quoting.designs.services.saved import design_save
from quoting.quotes.services.quotes import quote_create_from_design
from tests.proposals.conftest import pdf_text

# Server to leaf measured on the site; leaf to spine typed as "same row" (30 m), not measured.
REQUIREMENTS = {
    "gpu_count": 128,
    "nic_generation": "NDR",
    "switch_part_number": "MQM9790-NS2F",
    "subnet_manager": "on-switch",
    "leaf_to_spine": "same-row",
}


def compact(text: str) -> str:
    return "".join(text.split())  # the PDF wraps lines anywhere, Chinese between any characters


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            "en",
            (
                "Cable lengths",
                "Measured on site DC1: racks of 48 U and 12 kW",
                "Server to leaf links",
                "Measured, up to {server_leaf} m",
                "Leaf to spine links",
                "Assumed: {leaf_spine} m for every cable",
                "confirm them on site before ordering.",
            ),
        ),
        (
            "zh-hans",
            (
                "线缆长度",
                "在站点 DC1 实测：机柜 48 U、每柜 12 kW",
                "实测，最长 {server_leaf} m",
                "假定：每根线缆均为 {leaf_spine} m",
                "订货前请现场确认。",
            ),
        ),
    ],
)
def test_the_proposal_says_which_lengths_were_measured_on_the_site_and_which_assumed(
    world, seeded, language, words
):
    world.customer.language = language
    world.customer.save()
    design = design_save(
        project=world.project, name="128 GPUs", user=world.sales, requirements=REQUIREMENTS
    )
    quote = quote_create_from_design(project=world.project, design=design, user=world.sales)
    revision = quote.current_revision
    media = revision.design_snapshot["media"]
    assert media["server-leaf"]["measured"] and not media["leaf-spine"]["measured"]

    text = compact(pdf_text(proposal_pdf(revision=revision, language=language)))

    for word in words:
        expected = word.format(
            server_leaf=f"{media['server-leaf']['length_m']:g}",
            leaf_spine=f"{media['leaf-spine']['length_m']:g}",
        )
        assert compact(expected) in text, expected

"""The proposal's design section shows the storage sized from the workload, delivered against
asked, in the customer's language, from the revision's frozen snapshot (issue 26)."""

from __future__ import annotations

import pytest

from proposals.documents.pdf import proposal_pdf
from quoting.designs.services.saved import design_save
from quoting.quotes.services.quotes import quote_create_from_design
from tests.proposals.conftest import pdf_text

# 1,000 TB at 300 TB per storage server: 4 servers, 1,200 TB (+20 %).
REQUIREMENTS = {
    "server_count": 16,
    "switch_part_number": "MQM9790-NS2F",
    "subnet_manager": "on-switch",
    "storage_capacity_tb": 1000,
    "storage_server_tb": 300,
    "storage_read_gb_per_s": 150,
}


def compact(text: str) -> str:
    return "".join(text.split())  # the PDF wraps lines anywhere, Chinese between any characters


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            "en",
            (
                "4 storage servers, 2 ports each",
                "Capacity 1,200 TB for 1,000 TB asked (+20 %)",
                "Read 160 GB/s for 150 GB/s asked (+6 %)",
                "Write 80 GB/s",
            ),
        ),
        (
            "zh-hans",
            (
                "4 台存储服务器，每台 2 个端口",
                "容量 1,200 TB，需求 1,000 TB（余量 +20%）",
                "读取 160 GB/s，需求 150 GB/s（余量 +6%）",
            ),
        ),
    ],
)
def test_the_proposal_shows_the_storage_headroom_against_the_ask(world, seeded, language, words):
    world.customer.language = language
    world.customer.save()
    design = design_save(
        project=world.project, name="16 servers", user=world.sales, requirements=REQUIREMENTS
    )
    quote = quote_create_from_design(project=world.project, design=design, user=world.sales)
    revision = quote.current_revision
    assert revision.design_snapshot["storage_sizing"]["storage_servers"] == 4

    text = compact(pdf_text(proposal_pdf(revision=revision, language=language)))

    for word in words:
        assert compact(word) in text, word


def test_a_proposal_without_a_storage_workload_has_no_storage_row(world, seeded):
    design = design_save(
        project=world.project,
        name="plain",
        user=world.sales,
        requirements={"server_count": 16, "storage_servers": 4},
    )
    quote = quote_create_from_design(project=world.project, design=design, user=world.sales)
    text = compact(pdf_text(proposal_pdf(revision=quote.current_revision, language="en")))
    assert "storageservers," not in text and "Capacity" not in text

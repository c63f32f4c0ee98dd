"""The proposal groups the bill of materials by the parts of the plan (#26 item 7): GPU servers,
network, cluster management, DR and backup, then services and support, headed in the reader's
language; the staff's completeness warning is not in it."""

from __future__ import annotations

import pytest

from catalog.models import Category
from proposals.documents.pdf import proposal_html, proposal_pdf
from proposals.documents.selectors import proposal_content
from quoting.customers.models import Project
from quoting.quotes.services.quotes import quote_add_free_text, quote_add_product, quote_create
from tests.proposals.conftest import pdf_text
from tests.quoting.factories import ProductFactory, price_set, quote_reload

pytestmark = pytest.mark.django_db


@pytest.fixture
def planned(world):
    """A quote with a line in each part but cluster management, added in the wrong order, for
    a project asking for all four parts."""
    Project.objects.filter(pk=world.project.pk).update(
        needs_gpu_servers=True, needs_cluster_management=True, needs_backup=True
    )
    rows = (
        ("ARRAY-1", "Backup array (third party)", {"category": Category.STORAGE}, "300000.00"),
        ("SW-1", "Leaf switch", {}, "10000.00"),
        (
            "HGX-1",
            "8-GPU HGX server",
            {"category": Category.SERVER, "gpu_model": "H100", "gpu_count": 8},
            "2000000.00",
        ),
    )
    quote = quote_create(project=world.project, user=world.sales)
    for sku, name, fields, price in rows:
        price_set(ProductFactory(part_number=sku, name=name, **fields), "CNY", price)
        quote_add_product(
            quote=quote, sku=sku, quantity=1, user=world.sales, expected_version=quote.version
        )
    quote_add_free_text(
        quote=quote,
        description="Installation",
        quantity=1,
        unit_price="5000.00",
        user=world.sales,
        expected_version=quote.version,
    )
    return quote_reload(quote)


def test_the_bom_is_grouped_in_the_plans_order(world, planned):
    content = proposal_content(revision=planned.current_revision, language="en")
    assert [key for key, _label, _rows in content.sections] == [
        "gpu_servers",
        "network",
        "backup",
        "services",
    ]


@pytest.mark.parametrize(
    "language, headings",
    [
        ("en", ["GPU servers", "Network", "DR and backup", "Services"]),
        ("zh-hans", ["GPU 服务器", "网络", "灾备与备份"]),
    ],
)
def test_the_pdf_heads_each_part_in_the_readers_language(world, planned, language, headings):
    text = pdf_text(proposal_pdf(revision=planned.current_revision, language=language))
    at = text.find(headings[0])
    assert at >= 0
    for heading in headings[1:]:  # each after the one before
        at = text.find(heading, at + 1)
        assert at >= 0, heading


def test_the_completeness_warning_stays_off_the_proposal(world, planned):
    html = proposal_html(revision=planned.current_revision, language="en")
    assert "cluster management; this quote has no line" not in html
    assert "Virtualization and cluster management" not in html  # no line, no heading

"""The seed's whole plan on one quote (#26 item 7): sections for GPU servers, cluster management
and DR/backup beside the network, in the totals, in the plan's order; and the completeness
check, for staff only, when the project asks for a part the quote has no line for."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from catalog.models import Category, Unit
from quoting.customers.models import Project
from quoting.quotes.models import QuoteLine, QuoteStatus, Section
from quoting.quotes.selectors import revision_totals
from quoting.quotes.services.quotes import (
    quote_add_free_text,
    quote_add_product,
    quote_create,
    quote_send,
    section_of_product,
)
from tests.quoting.api_world import token_client
from tests.quoting.factories import ProductFactory, price_set, quote_reload

pytestmark = pytest.mark.django_db

BACKUP_WARNING = "The project asks for DR and backup; this quote has no line for it."


@pytest.fixture
def parts():
    """A switch, a GPU server, software per GPU per year and a third-party backup array."""
    products = {
        "SW-1": ProductFactory(part_number="SW-1", name="Leaf switch"),
        "HGX-1": ProductFactory(
            part_number="HGX-1",
            name="8-GPU HGX server",
            category=Category.SERVER,
            gpu_model="H100",
            gpu_count=8,
        ),
        "AIE-1": ProductFactory(
            part_number="AIE-1",
            name="AI Enterprise, per GPU, 1 year",
            category=Category.SOFTWARE,
            unit=Unit.GPU_YEAR,
        ),
        "ARRAY-1": ProductFactory(
            part_number="ARRAY-1",
            name="Backup array, 500 TB (third party)",
            category=Category.STORAGE,
        ),
    }
    for sku, price in (
        ("SW-1", "10000.00"),
        ("HGX-1", "2000000.00"),
        ("AIE-1", "32400.00"),
        ("ARRAY-1", "300000.00"),
    ):
        price_set(products[sku], "CNY", price)
    return products


def _add(quote, user, sku, quantity=1):
    return quote_add_product(
        quote=quote, sku=sku, quantity=quantity, user=user, expected_version=quote.version
    )


@pytest.fixture
def whole(world, parts):
    """A quote answering every part of the plan."""
    quote = quote_create(project=world.project, user=world.sales)
    for sku, quantity in (("SW-1", 2), ("HGX-1", 2), ("AIE-1", 16), ("ARRAY-1", 1)):
        _add(quote, world.sales, sku, quantity)
    return quote_reload(quote)


def test_each_product_lands_in_its_part_of_the_plan(world, whole):
    sections = dict(
        QuoteLine.objects.filter(revision=whole.current_revision).values_list("sku", "section")
    )
    assert sections == {
        "SW-1": Section.NETWORK,
        "HGX-1": Section.GPU_SERVERS,
        "AIE-1": Section.CLUSTER_MANAGEMENT,
        "ARRAY-1": Section.BACKUP,
    }
    # A server without GPUs is the fabric's own management host (a UFM host): network.
    assert section_of_product(category=Category.SERVER, gpu_count=None) == Section.NETWORK


def test_the_new_sections_are_in_the_totals_and_software_per_gpu_is_a_yearly_term(world, whole):
    totals = revision_totals(revision=whole.current_revision)
    # 2 x 10,000 + 2 x 2,000,000 + 16 x 32,400 + 300,000
    assert totals.subtotal == Decimal("4838400.00")
    licence = QuoteLine.objects.get(revision=whole.current_revision, sku="AIE-1")
    assert licence.term_months == 12


def test_a_free_text_line_can_be_filed_under_a_part_of_the_plan_by_the_api(world, whole):
    api = token_client(world.sales)
    url = f"/api/v1/quotes/{whole.pk}/lines/"
    added = api.post(
        url,
        {
            "description": "VMware vSphere Foundation, 3 years",
            "quantity": 1,
            "unit_price": "90000.00",
            "section": "cluster_management",
        },
        format="json",
        HTTP_IF_MATCH=api.get(url)["ETag"],
    )
    assert added.status_code == 201, added.json()
    assert added.json()["section"] == "cluster_management"
    unknown = api.post(
        url,
        {"description": "Tape", "quantity": 1, "unit_price": "1.00", "section": "tape"},
        format="json",
        HTTP_IF_MATCH=added["ETag"],
    )
    assert unknown.status_code == 400


def test_the_quote_page_shows_the_sections_in_the_plans_order(client, world, whole):
    client.force_login(world.sales)
    html = client.get(f"/quotes/{whole.pk}/").content.decode()
    titles = re.findall(r'<h2 class="section-title">([^<]+)</h2>', html)
    assert titles[:4] == [
        "GPU servers",
        "Network",
        "Virtualization and cluster management",
        "DR and backup",
    ]
    world.sales.language = "zh-hans"
    world.sales.save()
    html = client.get(f"/quotes/{whole.pk}/").content.decode()
    titles = re.findall(r'<h2 class="section-title">([^<]+)</h2>', html)
    assert titles[:4] == ["GPU 服务器", "网络", "虚拟化与集群管理", "灾备与备份"]


def _ask_for_backup(world):
    Project.objects.filter(pk=world.project.pk).update(needs_backup=True)


def test_a_part_asked_for_without_a_line_warns_staff_on_the_page_and_in_the_api(
    client, world, parts
):
    _ask_for_backup(world)
    quote = quote_create(project=world.project, user=world.sales)
    _add(quote, world.sales, "SW-1", 2)
    client.force_login(world.sales)
    html = client.get(f"/quotes/{quote.pk}/").content.decode()
    assert 'id="completeness-note"' in html and BACKUP_WARNING in html
    detail = token_client(world.sales).get(f"/api/v1/quotes/{quote.pk}/").json()
    assert detail["completeness_warnings"] == [{"part": "backup", "message": BACKUP_WARNING}]

    line = _add(quote_reload(quote), world.sales, "ARRAY-1")  # the backup part answered
    assert line.section == Section.BACKUP
    assert BACKUP_WARNING not in client.get(f"/quotes/{quote.pk}/").content.decode()
    detail = token_client(world.sales).get(f"/api/v1/quotes/{quote.pk}/").json()
    assert detail["completeness_warnings"] == []


def test_an_optional_line_or_a_line_of_nothing_does_not_answer_a_part(world, parts):
    from quoting.quotes.selectors import quote_completeness

    _ask_for_backup(world)
    quote = quote_create(project=world.project, user=world.sales)
    _add(quote, world.sales, "SW-1", 2)
    line = _add(quote_reload(quote), world.sales, "ARRAY-1")
    QuoteLine.objects.filter(pk=line.pk).update(section=Section.OPTIONAL)
    assert [w.part for w in quote_completeness(quote=quote_reload(quote))] == ["backup"]
    QuoteLine.objects.filter(pk=line.pk).update(section=Section.BACKUP, quantity=0)
    assert [w.part for w in quote_completeness(quote=quote_reload(quote))] == ["backup"]


def test_every_part_asked_for_and_missing_is_listed_in_the_plans_order(world, parts):
    from quoting.quotes.selectors import quote_completeness

    Project.objects.filter(pk=world.project.pk).update(
        needs_gpu_servers=True, needs_cluster_management=True, needs_backup=True
    )
    quote = quote_create(project=world.project, user=world.sales)
    assert [w.part for w in quote_completeness(quote=quote)] == [
        "gpu_servers",
        "network",
        "cluster_management",
        "backup",
    ]


def test_the_warning_is_in_chinese_for_a_chinese_reader(client, world, parts):
    _ask_for_backup(world)
    quote = quote_create(project=world.project, user=world.sales)
    world.sales.language = "zh-hans"
    world.sales.save()
    client.force_login(world.sales)
    html = client.get(f"/quotes/{quote.pk}/").content.decode()
    assert "项目要求灾备与备份；本报价尚无相应条目。" in html


def test_the_warning_never_blocks_sending_nor_reaches_the_customer(world, parts):
    from proposals.documents.pdf import proposal_html

    _ask_for_backup(world)
    quote = quote_create(project=world.project, user=world.sales)
    _add(quote, world.sales, "SW-1", 2)
    quote = quote_reload(quote)
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    quote = quote_reload(quote)
    assert quote.status == QuoteStatus.SENT
    html = proposal_html(revision=quote.current_revision, language="en")
    assert BACKUP_WARNING not in html and "completeness" not in html


def test_a_free_text_line_in_a_part_counts_for_it(world, parts):
    from quoting.quotes.selectors import quote_completeness

    _ask_for_backup(world)
    quote = quote_create(project=world.project, user=world.sales)
    _add(quote, world.sales, "SW-1", 2)
    quote = quote_reload(quote)
    quote_add_free_text(
        quote=quote,
        description="Off-site backup service, 1 year",
        quantity=1,
        unit_price="50000.00",
        section=Section.BACKUP,
        user=world.sales,
        expected_version=quote.version,
    )
    assert quote_completeness(quote=quote_reload(quote)) == []


def test_a_gpu_server_of_a_designs_bill_of_materials_goes_under_gpu_servers(world):
    # Design BOMs quote no GPU server today (only UFM hosts, without GPUs): the rule is the one
    # a design's quote goes through, given such a row.
    from quoting.quotes.services.quotes import _bom_lines, _priced

    price_set(
        ProductFactory(
            part_number="HGX-1",
            name="8-GPU HGX server",
            category=Category.SERVER,
            gpu_model="H100",
            gpu_count=8,
        ),
        "CNY",
        "2000000.00",
    )
    price_set(
        ProductFactory(
            part_number="AIE-1",
            name="AI Enterprise",
            category=Category.SOFTWARE,
            unit=Unit.GPU_YEAR,
        ),
        "CNY",
        "32400.00",
    )
    quote = quote_create(project=world.project, user=world.sales)
    revision = quote.current_revision
    bom = [
        {"sku": "HGX-1", "category": "server", "quantity": 2},
        {"sku": "AIE-1", "category": "software", "quantity": 16},
    ]
    lines = _bom_lines(revision=revision, priced=_priced(revision, bom, "CNY"), start=1)
    assert [(ln.sku, ln.section) for ln in lines] == [
        ("HGX-1", Section.GPU_SERVERS),
        ("AIE-1", Section.CLUSTER_MANAGEMENT),
    ]


def test_the_tco_prices_the_fabric_without_the_other_parts_of_the_plan(world, whole):
    from quoting.quotes.services.snapshots import revision_network_price

    price = revision_network_price(revision=whole.current_revision)
    # The two switches only: the servers (priced by the TCO itself), the per-GPU licences and
    # the backup array are the same whichever fabric the customer picks.
    assert (price.net, price.yearly, price.listed) == (
        Decimal("20000.00"),
        Decimal("0.00"),
        Decimal("20000.00"),
    )
    assert revision_totals(revision=whole.current_revision).net == Decimal("4838400.00")

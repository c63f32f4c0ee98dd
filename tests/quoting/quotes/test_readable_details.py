"""Stored JSON reads as labelled, translated, formatted values on the pages: a project's cluster
requirements and the audit trail's details, never a field name or a Python dict."""

from __future__ import annotations

import re

import pytest

from proposals.share.services import share_link_create
from quoting.designs.display import requirement_rows
from quoting.quotes.display import event_detail_rows
from quoting.quotes.services.quotes import (
    quote_add_product,
    quote_create,
    quote_send,
    quote_set_discount,
    quote_update_line,
    quote_update_terms,
)
from tests.quoting.factories import (
    ProductFactory,
    ProjectFactory,
    days_from_today,
    price_set,
    quote_reload,
)

REQUIREMENTS = {
    "gpu_count": 1024,
    "nic_generation": "NDR",
    "family": "infiniband",
    "rail_optimized": True,
    "include_nics": False,
    "server_to_leaf": "same-row",
    "leaf_to_spine": 35,
    "oversubscription": 2.0,
    "subnet_manager": "on-switch",
    "spares_percent": 5.0,
    "label": "Pengcheng phase 2",
}
SNAKE_CASE = re.compile(r"\b[a-z]+_[a-z_]+\b")


def _text(html: str) -> str:
    """What a reader sees of a piece of page: no tags, no attributes."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _between(page: str, start: str, end: str) -> str:
    at = page.index(start)
    return page[at : page.index(end, at)]


def _project_page(client, world, requirements) -> str:
    project = ProjectFactory(customer=world.customer, name="Phase 2", requirements=requirements)
    client.force_login(world.sales)
    response = client.get(f"/projects/{project.pk}/")
    assert response.status_code == 200
    return _between(response.content.decode(), '<dl class="specs">', "</dl>")


# --- project requirements ------------------------------------------------------------------------


def test_project_requirements_read_as_labelled_formatted_values(client, world):
    card = _text(_project_page(client, world, REQUIREMENTS))
    for shown in (
        "GPUs 1,024",
        "NIC generation NDR 400G",
        "Fabric InfiniBand",
        "Rail-optimized Yes",
        "Server to leaf same row (up to 30 m)",
        "Leaf to spine 35 m",
        "Oversubscription 2:1",
        "Subnet manager On a managed switch",
        "Spares (%) 5 %",
        "Drawing caption Pengcheng phase 2",
    ):
        assert shown in card, shown
    assert "{'" not in card and "True" not in card
    assert "Quote the NICs" not in card  # False: left out, as before
    assert not SNAKE_CASE.findall(card), SNAKE_CASE.findall(card)


def test_project_requirements_read_in_chinese(client, world):
    world.sales.language = "zh-hans"
    world.sales.save()
    card = _text(_project_page(client, world, REQUIREMENTS))
    for shown in ("GPU 数量 1,024", "是", "同一排（最长 30 米）", "35 米", "2:1"):
        assert shown in card, shown
    for english in ("GPUs", "Yes", "same row", "Drawing caption"):
        assert english not in card


def test_a_requirement_nobody_labelled_gets_a_humanised_label_not_its_key(client, world):
    card = _text(
        _project_page(client, world, {"gpu_count": 64, "legacy_rack_units": {"per_rack": 42}})
    )
    assert "Legacy rack units Per rack: 42" in card
    assert "legacy_rack_units" not in card and "{'" not in card


def test_requirements_that_are_not_an_object_show_nothing_rather_than_fail():
    assert requirement_rows(["gpu_count", 8]) == []


# --- the audit trail -----------------------------------------------------------------------------


@pytest.fixture
def worked_quote(world):
    price_set(ProductFactory(part_number="SW-1", name="Leaf switch"), "CNY", "10000.00")
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=quote, sku="SW-1", quantity=2, user=world.sales, expected_version=quote.version
    )
    quote = quote_reload(quote)
    line = quote.current_revision.lines.get()
    quote_update_line(
        quote=quote,
        line=line,
        quantity=1024,
        discount_percent=2,
        user=world.sales,
        expected_version=quote.version,
    )
    quote_set_discount(
        quote=quote,
        discount_percent=5,
        user=world.sales,
        expected_version=quote_reload(quote).version,
    )
    quote_set_discount(
        quote=quote,
        discount_percent="7.5",
        user=world.sales,
        expected_version=quote_reload(quote).version,
    )
    quote_update_terms(
        quote=quote,
        user=world.sales,
        expected_version=quote_reload(quote).version,
        valid_until=days_from_today(20),
    )
    quote_send(quote=quote, user=world.sales, expected_version=quote_reload(quote).version)
    share_link_create(quote=quote, user=world.sales, recipient_name="Mr Chen", days=14)
    return quote_reload(quote)


def _audit(client, user, quote) -> str:
    client.force_login(user)
    page = client.get(f"/quotes/{quote.pk}/").content.decode()
    return _text(_between(page, 'id="quote-audit"', "</section>"))


def test_the_audit_trail_reads_as_labelled_changes_not_dicts(client, world, worked_quote):
    audit = _audit(client, world.sales, worked_quote)
    for shown in (
        "Line: SW-1",
        "Quantity: 2 → 1,024",
        "Discount: 0 % → 2 %",
        "Quote discount: 0 % → 5 %",
        "Quote discount: 5 % → 7.5 %",
        "Unit price: 10,000.00",
        "Status: Draft → Sent",
        "Total: ",
        "Recipient: Mr Chen",
        "Valid for: 14 days",
        "VAT: 13 %",
    ):
        assert shown in audit, shown
    assert "{'" not in audit and "{&#x27;" not in audit
    assert not SNAKE_CASE.findall(audit), SNAKE_CASE.findall(audit)


def test_the_audit_trail_reads_in_chinese(client, world, worked_quote):
    world.sales.language = "zh-hans"
    world.sales.save()
    audit = _audit(client, world.sales, worked_quote)
    for shown in ("数量: 2 → 1,024", "整单折扣: 5 % → 7.5 %", "已发送", "14 天"):
        assert shown in audit, shown
    for english in ("Quantity", "Quote discount", "Status", "Recipient", "Valid for"):
        assert english not in audit


def test_an_unknown_detail_gets_a_humanised_label_and_nested_values_read_as_text():
    rows = event_detail_rows(
        "status_changed",
        {
            "before": "sent",
            "after": "draft",
            "reason": "edited after it was sent",
            "customer_reference": {"po_number": "PO-7", "lines_total": 1024},
            "empty_one": "",
        },
    )
    assert rows == [
        ("Status", "Sent → Draft"),
        ("Reason", "edited after it was sent"),
        ("Customer reference", "Po number: PO-7; Lines total: 1,024"),
    ]


def test_details_that_are_not_an_object_are_shown_plainly():
    assert event_detail_rows("created", None) == []
    assert event_detail_rows("created", ["a", 2]) == [("Details", "a, 2")]

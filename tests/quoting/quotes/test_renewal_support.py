"""A renewal quote prices support for what the customer owns: support per device covers the
switches of the booked choice, support as a share of the hardware is today's catalog percent of
the booked hardware at the net prices paid (each line after its own discount); the renewal
quote's own lines (no hardware) and its edits never price them again. A line booked at
quantity 0 is neither reminded of nor renewed.

Prices in CNY; support is taxed as a service (6 %), software as software (13 %).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from unittest import mock

import pytest
from django.utils import translation

from catalog.models import Category, PricingBasis, Product, Unit
from integrations.models import WebhookDelivery, WebhookEndpoint
from integrations.webhooks import webhook_secret_new
from quoting.kept_texts import kept_text
from quoting.quotes.display import event_detail_rows
from quoting.quotes.models import Quote, QuoteEventVerb, QuoteLine, Section
from quoting.quotes.renewals import quote_term_lines
from quoting.quotes.selectors import revision_totals
from quoting.quotes.services.quotes import (
    quote_add_free_text,
    quote_add_product,
    quote_create,
    quote_mark_accepted,
    quote_remove_line,
    quote_send,
    quote_update_terms,
)
from quoting.quotes.services.renewals import quote_renewal_create, renewals_remind
from tests.quoting.factories import ProductFactory, price_set, quote_reload
from tests.quoting.quotes.renewal_world import ending_on, support_priced

pytestmark = pytest.mark.django_db

PER_DEVICE = "SUP-DEV"  # 1,000.00 a switch a year when booked
SHARE = "SUP-PCT"  # 10 % of the hardware a year when booked, at least 500.00
END = dt.date(2027, 3, 15)


@pytest.fixture(name="world")
def world_with_support(world):
    """The shared world with support per device and as a share of the hardware."""
    support_priced()
    per_device = ProductFactory(
        part_number=PER_DEVICE,
        category=Category.SUPPORT,
        unit=Unit.YEAR,
        pricing_basis=PricingBasis.PER_DEVICE,
    )
    share = ProductFactory(
        part_number=SHARE,
        category=Category.SUPPORT,
        unit=Unit.YEAR,
        pricing_basis=PricingBasis.PERCENT_OF_HARDWARE,
        hardware_percent=Decimal("10.00"),
    )
    price_set(per_device, "CNY", "1000.00")
    price_set(share, "CNY", "500.00")
    return world


@pytest.fixture(name="endpoint")
def crm_endpoint(world):
    """A CRM subscribed to renewal.due (deliveries recorded, not sent)."""
    with mock.patch("integrations.webhooks.enqueue_or_leave_to_sweeper"):
        yield WebhookEndpoint.objects.create(
            url="https://crm.example/hook",
            secret=webhook_secret_new(),
            events=["renewal.due"],
            created_by=world.sales,
        )


def _add(world, quote, sku, quantity=1, **more):
    line = quote_add_product(
        quote=quote,
        sku=sku,
        quantity=quantity,
        user=world.sales,
        expected_version=quote.version,
        **more,
    )
    quote.refresh_from_db()
    return line


def _accept(world, quote, **choice) -> Quote:
    quote.refresh_from_db()
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    quote_mark_accepted(quote=quote, actor=world.sales, expected_version=quote.version, **choice)
    return quote_reload(quote)


def _price_book_changed() -> None:
    """Today's catalog: support per device 1,100.00 a switch, the share 12.5 %."""
    price_set(Product.objects.get(part_number=PER_DEVICE), "CNY", "1100.00")
    Product.objects.filter(part_number=SHARE).update(hardware_percent=Decimal("12.50"))


def _booked_three_switches(world) -> Quote:
    """3 switches at 9,999.99 less 5 % (28,499.97 paid for the hardware), support per device
    and as a share of the hardware, a quote discount of 3 %: accepted as quoted."""
    price_set(ProductFactory(part_number="SW-R", category=Category.SWITCH), "CNY", "9999.99")
    quote = quote_create(project=world.project, user=world.sales)
    _add(world, quote, "SW-R", 3, discount_percent="5")
    _add(world, quote, PER_DEVICE)
    _add(world, quote, SHARE)
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version, discount_percent="3"
    )
    return _accept(world, quote)


def _lines(quote: Quote) -> dict[str, tuple[int, Decimal]]:
    revision = quote_reload(quote).current_revision
    return {ln.sku: (ln.quantity, ln.unit_price) for ln in revision.lines.all()}


def test_support_is_renewed_for_the_switches_and_hardware_the_customer_booked(world):
    quote = _booked_three_switches(world)
    booked = {ln.sku: (ln.quantity, ln.unit_price) for ln in quote.booked_revision.lines.all()}
    # 10 % of 28,499.97 = 2,849.997, rounded to the cent.
    assert booked[PER_DEVICE] == (3, Decimal("1000.00"))
    assert booked[SHARE] == (1, Decimal("2850.00"))
    _price_book_changed()

    renewal = quote_renewal_create(quote=quote, user=world.sales)

    # 3 switches installed at today's 1,100.00; 12.5 % of 28,499.97 = 3,562.49625 -> 3,562.50.
    # The booked quote discount (3 %) is not taken off the hardware: the renewal's own applies.
    assert _lines(renewal) == {
        PER_DEVICE: (3, Decimal("1100.00")),
        SHARE: (1, Decimal("3562.50")),
    }
    totals = revision_totals(revision=quote_reload(renewal).current_revision)
    # 3,300.00 + 3,562.50 = 6,862.50; 6 % VAT 411.75.
    assert (totals.subtotal, totals.tax, totals.total) == (
        Decimal("6862.50"),
        Decimal("411.75"),
        Decimal("7274.25"),
    )


def test_the_renewal_says_what_its_support_was_priced_on_in_the_readers_language(world):
    """The line keeps its basis in English after the price list's source; the audit trail (the
    share's price changed when it followed the installed base) reads it in the reader's
    language, as kept_text words each basis."""
    quote = _booked_three_switches(world)
    _price_book_changed()
    renewal = quote_renewal_create(quote=quote, user=world.sales)
    revision = quote_reload(renewal).current_revision
    notes = [ln.price_source.split(" · ")[-1] for ln in revision.lines.order_by("position")]
    assert notes == [
        "per device: 3 switches installed",
        "12.50 % of the installed hardware, 28499.97",
    ]
    [event] = renewal.events.filter(verb=QuoteEventVerb.LINE_CHANGED, details__line=SHARE)
    assert event.details["reason"] == notes[1]
    with translation.override("zh-hans"):
        assert [kept_text(note) for note in notes] == [
            "按设备计：已安装 3 台交换机",
            "已安装硬件金额 28499.97 的 12.50 %",
        ]
        assert event_detail_rows(event.verb, event.details)[-1][1] == (
            "已安装硬件金额 28499.97 的 12.50 %"
        )


def test_editing_the_renewal_quote_keeps_its_support_on_the_installed_base(world):
    quote = _booked_three_switches(world)
    _price_book_changed()
    renewal = quote_reload(quote_renewal_create(quote=quote, user=world.sales))
    survey = quote_add_free_text(
        quote=renewal,
        description="Site survey",
        quantity=1,
        unit_price="800.00",
        user=world.sales,
        expected_version=renewal.version,
    )
    renewal.refresh_from_db()
    quote_remove_line(
        quote=renewal, line=survey, user=world.sales, expected_version=renewal.version
    )
    renewal.refresh_from_db()
    quote_update_terms(
        quote=renewal, user=world.sales, expected_version=renewal.version, discount_percent="5"
    )
    _add(world, renewal, "SUP-1")  # a flat contract added: the others still cover what is owned

    assert _lines(renewal) == {
        PER_DEVICE: (3, Decimal("1100.00")),
        SHARE: (1, Decimal("3562.50")),
        "SUP-1": (1, Decimal("12000.00")),
    }
    totals = revision_totals(revision=quote_reload(renewal).current_revision)
    # 18,862.50 less 5 % (943.125 -> 943.13) = 17,919.37; 6 % VAT 1,075.1622 -> 1,075.16.
    assert (totals.subtotal, totals.discount, totals.net, totals.tax, totals.total) == (
        Decimal("18862.50"),
        Decimal("943.13"),
        Decimal("17919.37"),
        Decimal("1075.16"),
        Decimal("18994.53"),
    )


def test_the_next_years_renewal_renews_support_for_the_same_installed_base(world):
    """The renewal, accepted, is renewed in its turn: it holds no hardware, the first quote
    does."""
    quote = _booked_three_switches(world)
    _price_book_changed()
    first = _accept(world, quote_renewal_create(quote=quote, user=world.sales))
    second = quote_renewal_create(quote=first, user=world.sales)
    assert _lines(second) == {
        PER_DEVICE: (3, Decimal("1100.00")),
        SHARE: (1, Decimal("3562.50")),
    }


def _booked_larger(world) -> Quote:
    """servers_world's quote (4 switches and 2 servers as quoted; "Larger": 6 switches and 3
    servers, 3,060,000.00 of hardware) with both kinds of support, accepted with "Larger"."""
    from tests.quoting.servers_world import quote_with_a_larger_alternative

    quote = quote_with_a_larger_alternative(world)
    _add(world, quote, PER_DEVICE)
    _add(world, quote, SHARE)
    return _accept(world, quote, alternative="Larger")


def test_with_an_alternative_booked_support_is_renewed_for_the_alternatives_equipment(world):
    quote = _booked_larger(world)
    renewal = quote_renewal_create(quote=quote, user=world.sales)
    assert _lines(renewal) == {
        "BCM-GPU": (24, Decimal("500.00")),
        "UFM-EP": (24, Decimal("100.00")),
        PER_DEVICE: (6, Decimal("1000.00")),
        # 10 % of the 6 switches and 3 servers installed, 3,060,000.00 (as the booked option
        # carried it, from content version 7: docs ALTERNATIVES_RULE_FOLLOWS).
        SHARE: (1, Decimal("306000.00")),
    }
    totals = revision_totals(revision=quote_reload(renewal).current_revision)
    # 14,400.00 of software at 13 % (1,872.00) and 312,000.00 of support at 6 % (18,720.00).
    assert (totals.subtotal, totals.tax, totals.total) == (
        Decimal("326400.00"),
        Decimal("20592.00"),
        Decimal("346992.00"),
    )


def test_the_reminder_and_the_renewal_quote_agree_on_the_support_renewed(world, endpoint):
    quote = _booked_larger(world)
    ending_on(quote, END)
    assert renewals_remind(today=END - dt.timedelta(days=90)) == 1
    [delivery] = WebhookDelivery.objects.filter(event_type="renewal.due")
    reminded = {ln["sku"]: ln["quantity"] for ln in delivery.payload["data"]["renewal"]["lines"]}
    renewal = quote_renewal_create(quote=quote, user=world.sales)
    assert {sku: n for sku, (n, _price) in _lines(renewal).items()} == reminded
    assert reminded[PER_DEVICE] == 6


def test_a_term_booked_at_quantity_0_is_neither_reminded_nor_renewed(world, endpoint):
    quote = quote_create(project=world.project, user=world.sales)
    _add(world, quote, "SW-1")
    _add(world, quote, "SUP-1", 2)
    on_site = ProductFactory(part_number="SUP-ONSITE", category=Category.SUPPORT, unit=Unit.YEAR)
    price_set(on_site, "CNY", "2000.00")
    _add(world, quote, "SUP-ONSITE", 0)
    quote = _accept(world, quote)
    zero = QuoteLine.objects.get(revision=quote.booked_revision, sku="SUP-ONSITE")
    assert (zero.quantity, zero.term_months) == (0, 12)
    ending_on(quote, END)

    assert [t.line.sku for t in quote_term_lines(quote=quote)] == ["SUP-1"]
    assert renewals_remind(today=END - dt.timedelta(days=30)) == 1
    [delivery] = WebhookDelivery.objects.filter(event_type="renewal.due")
    assert [ln["sku"] for ln in delivery.payload["data"]["renewal"]["lines"]] == ["SUP-1"]
    renewal = quote_renewal_create(quote=quote, user=world.sales)
    assert list(_lines(renewal)) == ["SUP-1"]
    assert renewal.current_revision.lines.get().section == Section.SUPPORT

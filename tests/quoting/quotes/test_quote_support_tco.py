"""Support and licences that agree with the TCO (issue 22 item 6, tco-model §6).

The quote's TCO pays the support the quote sells: its support lines per year after every
discount, not an assumed share of the hardware; the other designed fabrics pay the same share of
their own hardware. Without a support line the TCO keeps its assumption and says so. Support
priced per device or as a share of the hardware (the catalog says which) follows the quote's
lines, in Decimal rounded to the cent.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from catalog.models import HARDWARE_CATEGORIES, Product
from proposals.documents.pdf import proposal_html
from quoting.designs.selectors import bom_priced
from quoting.designs.services.saved import design_save
from quoting.designs.services.tco import tco_presented
from quoting.engine.money import round_money
from quoting.quotes.models import QuoteEventVerb, QuoteRevision, Section
from quoting.quotes.selectors import revision_totals
from quoting.quotes.services.quotes import (
    quote_add_product,
    quote_create,
    quote_create_from_design,
    quote_remove_line,
    quote_send,
    quote_update_line,
    quote_update_terms,
)
from quoting.quotes.services.snapshots import revision_network_price

# 4 QM9790 leaves of two whole rails each and 2 QM9700 spines, optics and cables: 3,621,888.00
# CNY at list.
REQUIREMENTS = {
    "gpu_count": 128,
    "nic_generation": "NDR",
    "switch_part_number": "MQM9790-NS2F",
    "subnet_manager": "on-switch",
}
HARDWARE = Decimal("3621888.00")
SWITCHES = 6
FLAT = "SUP-STD-1Y"  # 43,200.00 CNY a year, as sold
FLAT_PRICE = Decimal("43200.00")
PER_DEVICE = "SUP-DEV-NBD-1Y"  # 6,480.00 CNY per switch a year
DEVICE_PRICE = Decimal("6480.00")
SHARE = "SUP-HW-PCT-1Y"  # 10 % of the quoted hardware a year, at least 43,200.00 CNY


@pytest.fixture(name="world")
def world_on_the_catalog(seeded, world):
    return world


def _quote(world, **requirements):
    design = design_save(
        project=world.project,
        name="128 GPUs",
        user=world.sales,
        requirements=REQUIREMENTS | requirements,
        site={"rack_power_kw": 40},  # the cables HARDWARE prices were measured on 40 kW racks
    )
    return quote_create_from_design(project=world.project, design=design, user=world.sales)


def _revision(quote) -> QuoteRevision:
    return QuoteRevision.objects.get(pk=quote.current_revision_id)


def _add(world, quote, sku: str, quantity: int = 1):
    return quote_add_product(
        quote=quote, sku=sku, quantity=quantity, user=world.sales, expected_version=quote.version
    )


def _this(revision: QuoteRevision) -> dict:
    """The quoted fabric's option in the revision's TCO."""
    option = revision.tco_snapshot["options"][0]
    assert option["pricing"] == "quoted"
    return option


def _support(revision: QuoteRevision) -> Decimal:
    return Decimal(_this(revision)["annual_cost_breakdown"]["support"])


def _assumption(revision: QuoteRevision, key: str) -> dict:
    return next(a for a in revision.tco_snapshot["assumptions"] if a["key"] == key)


def _line(quote, sku: str):
    return _revision(quote).lines.get(sku=sku)


# --- the quote's support is the TCO's ------------------------------------------------------------


def test_a_support_line_of_x_a_year_is_the_tcos_network_support_not_a_share_of_hardware(world):
    quote = _quote(world)
    line = _add(world, quote, FLAT)
    revision = _revision(quote)
    this = _this(revision)

    assert line.term_months == 12 and line.section == Section.SUPPORT
    assert _support(revision) == FLAT_PRICE
    assert _support(revision) != round_money(HARDWARE * Decimal("0.20"))
    assert Decimal(this["support_per_year"]) == FLAT_PRICE
    assert Decimal(this["network_opex_per_year"]) == 0, "support is not counted as a licence"
    assert Decimal(this["network_capex"]) == HARDWARE, "nor as capex"
    net = revision_totals(revision=revision).net
    assert Decimal(this["network_capex"]) + Decimal(this["support_per_year"]) == net


def test_changing_the_support_line_changes_the_tco(world):
    quote = _quote(world)
    line = _add(world, quote, FLAT)
    quote_update_line(
        quote=quote, line=line, user=world.sales, expected_version=quote.version, quantity=2
    )
    assert _support(_revision(quote)) == 2 * FLAT_PRICE

    quote_update_line(
        quote=quote,
        line=line,
        user=world.sales,
        expected_version=quote.version,
        discount_percent=10,
    )
    assert _support(_revision(quote)) == Decimal("77760.00")  # 86,400 less 10 %

    # The quote discount applies to support as to every line: 77,760.00 x 0.96, to the cent.
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version, discount_percent=4
    )
    revision = _revision(quote)
    assert _support(revision) == Decimal("74649.60")
    assert revision_network_price(revision=revision).support == Decimal("74649.60")


def test_the_tco_says_its_support_is_the_offers_and_the_servers_is_assumed(world):
    quote = _quote(world)
    _add(world, quote, FLAT)
    revision = _revision(quote)
    this = _this(revision)
    stated = _assumption(revision, f"fabric.{this['name']}.support_per_year")
    assumed = _assumption(revision, "costs.support_percent")

    assert stated["label"].endswith("network support per year, as priced")
    assert (Decimal(stated["value"]), stated["basis"]) == (FLAT_PRICE, "Prices of this comparison")
    assert assumed["label"] == "Server support per year, assumed"
    assert assumed["unit"] == "% of server capex"
    servers = Decimal(revision.tco.request["costs"]["server_capex"])
    assert Decimal(this["annual_cost_breakdown"]["server_support"]) == servers / 5


def test_the_other_designs_pay_the_same_share_of_their_hardware(world):
    """This offer's support is 43,200.00 of 3,621,888.00 of hardware: 1.19 % (to 0.01 %); the
    other family's design pays 1.19 % of its own hardware, rounded to the cent."""
    quote = _quote(world)
    _add(world, quote, FLAT)
    revision = _revision(quote)
    assert revision.tco_snapshot["support_share_percent"] == "1.19"

    other_bom = bom_priced(bom=revision.design.tco_inputs["designs"][1]["bom"], currency="CNY")
    other_hardware = sum(ln.amount for ln in other_bom.lines if ln.category in HARDWARE_CATEGORIES)
    other = revision.tco_snapshot["options"][1]
    assert other["pricing"] == "list"
    assert Decimal(other["support_per_year"]) == round_money(other_hardware * Decimal("1.19") / 100)
    assert Decimal(other["annual_cost_breakdown"]["support"]) == Decimal(other["support_per_year"])


# --- no support line: the assumption, said to be one ------------------------------------------


def test_without_a_support_line_the_tco_assumes_its_percentage_and_says_so(world):
    revision = _revision(_quote(world))
    this = _this(revision)
    assumed = _assumption(revision, "costs.support_percent")

    assert this["support_per_year"] is None
    assert _support(revision) == round_money(HARDWARE * Decimal("0.20"))  # 724,377.60
    assert assumed["label"] == "Support per year, assumed"
    assert (assumed["value"], assumed["unit"]) == ("20", "% of hardware")
    assert not [a for a in revision.tco_snapshot["assumptions"] if "support_per_year" in a["key"]]
    view = tco_presented(revision.tco_snapshot)
    assert view["support_quoted"] is None and view["support_percent"] == 20


def test_removing_the_support_line_brings_the_assumption_back(world):
    quote = _quote(world)
    line = _add(world, quote, FLAT)
    quote_remove_line(quote=quote, line=line, user=world.sales, expected_version=quote.version)
    revision = _revision(quote)
    assert _support(revision) == Decimal("724377.60")
    assert _assumption(revision, "costs.support_percent")["label"] == "Support per year, assumed"


def test_an_optional_support_line_is_not_the_offers_support(world):
    """Outside the totals until the customer picks it: the TCO keeps its assumption."""
    quote = _quote(world)
    line = _add(world, quote, FLAT)
    quote_update_line(
        quote=quote, line=line, user=world.sales, expected_version=quote.version, optional=True
    )
    assert _support(_revision(quote)) == Decimal("724377.60")


# --- per device and share of hardware: priced by the quote --------------------------------------


def test_support_per_device_is_sold_once_per_switch_spares_not_counted(world):
    quote = _quote(world, spares_percent=10)
    revision = _revision(quote)
    spares = revision.lines.filter(role="spare", product__category="switch")
    assert sum(ln.quantity for ln in spares) == 2

    line = _add(world, quote, PER_DEVICE)  # asked for 1: the quote counts its switches
    assert (line.quantity, line.unit_price) == (SWITCHES, DEVICE_PRICE)
    assert "per device: 6 switches on this offer" in line.price_source
    assert _support(_revision(quote)) == SWITCHES * DEVICE_PRICE  # 38,880.00
    changed = quote.events.filter(verb=QuoteEventVerb.LINE_CHANGED).last()
    assert changed.details["line"] == PER_DEVICE
    assert changed.details["before"]["quantity"] == 1
    assert changed.details["after"]["quantity"] == SWITCHES


def test_the_audit_trail_reads_why_support_was_repriced_in_the_readers_language(world):
    """The event keeps the reason in English with its figures (the API's audit trail gives it
    so); an event kept before messages (its details alone, as here) is shown in the reader's
    language through kept_texts (#27 item 4)."""
    from django.utils import translation

    from quoting.quotes.display import event_detail_rows

    quote = _quote(world)
    _add(world, quote, PER_DEVICE)
    _add(world, quote, SHARE)
    events = list(quote.events.filter(verb=QuoteEventVerb.LINE_CHANGED).order_by("pk"))
    kept = [e.details["reason"] for e in events]
    assert kept == [
        f"per device: {SWITCHES} switches on this offer",
        "10.00 % of the hardware on this offer, 3621888.00",
    ]
    with translation.override("zh-hans"):
        shown = [event_detail_rows(e.verb, e.details)[-1][1] for e in events]
    assert shown == [
        f"按设备计：本报价共 {SWITCHES} 台交换机",
        "本报价硬件金额 3621888.00 的 10.00 %",
    ]


def test_support_per_device_follows_the_switches_and_the_tco_follows_it(world):
    quote = _quote(world)
    _add(world, quote, PER_DEVICE)
    leaves = _revision(quote).lines.get(role="leaf", product__category="switch")
    quote_update_line(
        quote=quote, line=leaves, user=world.sales, expected_version=quote.version, quantity=3
    )
    assert _line(quote, PER_DEVICE).quantity == 5
    assert _support(_revision(quote)) == 5 * DEVICE_PRICE  # 32,400.00


def test_support_as_a_share_of_hardware_is_that_share_of_the_hardware_lines(world):
    quote = _quote(world)
    line = _add(world, quote, SHARE)
    assert Product.objects.get(part_number=SHARE).hardware_percent == Decimal("10.00")
    assert line.unit_price == line.list_price == Decimal("362188.80")  # 10 % of 3,621,888.00
    assert _support(_revision(quote)) == Decimal("362188.80")


def test_support_as_a_share_follows_line_discounts_then_takes_the_quote_discount(world):
    """The spines' 460,800.00 less 5 % takes 23,040.00 off the hardware: 3,598,848.00, whose
    10 % is 359,884.80; the 4 % quote discount then makes it 345,489.41 (345,489.408 rounded
    half up), the TCO's support a year."""
    quote = _quote(world)
    _add(world, quote, SHARE)
    spines = _revision(quote).lines.get(role="spine")
    quote_update_line(
        quote=quote, line=spines, user=world.sales, expected_version=quote.version,
        discount_percent=5,
    )  # fmt: skip
    assert _line(quote, SHARE).unit_price == Decimal("359884.80")
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version, discount_percent=4
    )
    revision = _revision(quote)
    assert _line(quote, SHARE).unit_price == Decimal("359884.80"), "priced before the discount"
    assert _support(revision) == Decimal("345489.41")
    assert revision.tco_snapshot["support_share_percent"] == "10.00"


def test_support_as_a_share_costs_at_least_its_list_price(world):
    quote = quote_create(project=world.project, user=world.sales, currency="CNY")
    _add(world, quote, "MMA4Z00-NS", quantity=2)  # 15,840.00 of optics: 10 % is 1,584.00
    line = _add(world, quote, SHARE)
    assert line.unit_price == Decimal("43200.00")


def test_a_support_price_set_by_hand_stops_following(world):
    quote = _quote(world)
    line = _add(world, quote, SHARE)
    quote_update_line(
        quote=quote, line=line, user=world.sales, expected_version=quote.version,
        unit_price="400000.00",
    )  # fmt: skip
    spines = _revision(quote).lines.get(role="spine")
    quote_update_line(
        quote=quote, line=spines, user=world.sales, expected_version=quote.version, quantity=1
    )
    assert _line(quote, SHARE).unit_price == Decimal("400000.00")
    assert _support(_revision(quote)) == Decimal("400000.00")


# --- what the customer reads --------------------------------------------------------------------


def test_the_proposal_says_the_support_is_the_offers_and_the_servers_is_assumed(world):
    quote = _quote(world)
    _add(world, quote, FLAT)
    sent = quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    revision = QuoteRevision.objects.get(pk=sent.pk)
    english = proposal_html(revision=revision, language="en")
    assert "Network support: this offer's own support lines, 43,200.00 CNY a year" in english
    assert "(1.19 % of its hardware)" in english
    assert "Server support is an assumption: 20 % of the servers a year." in english
    start = english.index('<section class="tco"')
    tco = english[start : english.index("</section>", start)]
    assert "as priced" in tco and "tco-model" not in tco, "the basis, never our own note"
    chinese = proposal_html(revision=revision, language="zh-hans")
    assert "本报价自身的维保行" in chinese


def test_the_proposal_without_a_support_line_says_support_is_assumed(world):
    quote = _quote(world)
    sent = quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    html = proposal_html(revision=QuoteRevision.objects.get(pk=sent.pk), language="en")
    assert (
        "No support is priced in this offer: support is an assumption, 20 % of the hardware "
        "a year." in html
    )


def test_the_quote_page_and_the_share_page_say_it_too(
    world, client, django_capture_on_commit_callbacks
):
    from proposals.share.services import share_link_create

    quote = _quote(world)
    _add(world, quote, FLAT)
    client.force_login(world.sales)
    panel = client.get(f"/quotes/{quote.pk}/tco/").content.decode()
    assert "Network support: this offer's own support lines, 43,200.00 CNY a year" in panel
    assert "Server support per year, assumed" in panel

    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    with django_capture_on_commit_callbacks(execute=True):
        _link, token = share_link_create(quote=quote, user=world.sales)
    client.logout()
    body = client.get(f"/p/{token}").content.decode()  # the customer reads Chinese
    start = body.index('<section class="tco"')
    tco = body[start : body.index("</section>", start)]
    assert "网络维保：本报价自身的维保行，每年 43,200.00 CNY" in tco
    assert "服务器维保为假设值" in tco


def test_the_audit_trail_words_a_repricing_reason_from_the_message_the_event_kept(
    world, no_kept_texts
):
    """#27 item 4: beside the English reason (the API's, unchanged) the event keeps its message;
    the trail (its page's filter) words that, nothing matched back from the English."""
    from django.utils import translation

    from quoting.templatetags.quoting_display import event_details

    quote = _quote(world)
    _add(world, quote, PER_DEVICE)
    _add(world, quote, SHARE)
    events = list(quote.events.filter(verb=QuoteEventVerb.LINE_CHANGED).order_by("pk"))
    assert [e.reason_message for e in events] == [
        {
            "template": "per device: {devices} switches on this offer",
            "params": [["devices", SWITCHES]],
        },
        {
            "template": "{percent} % of the hardware on this offer, {hardware}",
            "params": [["percent", "10.00"], ["hardware", "3621888.00"]],
        },
    ]
    assert events[1].details["reason"] == "10.00 % of the hardware on this offer, 3621888.00"
    with translation.override("zh-hans"):
        shown = [event_details(e)[-1][1] for e in events]
    assert shown == [
        f"按设备计：本报价共 {SWITCHES} 台交换机",
        "本报价硬件金额 3621888.00 的 10.00 %",
    ]


# --- the quote's licences are the TCO's -------------------------------------------------------

LICENCE = "UFM-ENT-LIC-EP"  # 2,160.00 CNY per endpoint a year


def test_the_quotes_ufm_licences_are_the_tcos_yearly_opex_after_the_quote_discount(world):
    """384 GPUs need UFM (above 300 endpoints, rule 8) and leave leaf ports for its two hosts:
    384 licences at 2,160.00 CNY a year, 829,440.00. The TCO pays what the quote sells for them
    every year, less the quote's 4 % discount (796,262.40), apart from the flat support line
    (43,200.00 less 4 %: 41,472.00) and not as capex (issue 26 item 1: "support and licences
    from the quote")."""
    quote = _quote(world, gpu_count=384, switch_part_number="MQM9700-NS2F", subnet_manager="auto")
    _add(world, quote, FLAT)
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version, discount_percent=4
    )
    revision = _revision(quote)
    licences = revision.lines.get(sku=LICENCE)
    this = _this(revision)

    assert (licences.quantity, licences.unit_price) == (384, Decimal("2160.00"))
    assert Decimal(this["network_opex_per_year"]) == Decimal("796262.40")
    assert Decimal(this["support_per_year"]) == Decimal("41472.00")
    net = revision_totals(revision=revision).net
    assert (
        Decimal(this["network_capex"])
        + Decimal(this["network_opex_per_year"])
        + Decimal(this["support_per_year"])
        == net
    )

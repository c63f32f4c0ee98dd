"""Good / better / best (#26): an alternative is another saved design, so chosen it takes the
place of every line the chosen design put on the quote, whatever section it sits in (GPU
servers, cluster management, the network), and keeps the lines entered on the quote; support
priced per switch follows the alternative's lines. The quote page, the share link, the accept
and the workbook read one pricing (offer_choice, revision_alternatives)."""

from __future__ import annotations

import importlib
from decimal import Decimal

import pytest
from django.apps import apps

from catalog.models import Category, PricingBasis, Unit
from quoting.quotes.models import LineOrigin, QuoteLine, Section
from quoting.quotes.selectors import offer_choice, revision_alternatives, revision_totals
from quoting.quotes.services.quotes import quote_add_product
from tests.quoting.factories import ProductFactory, price_set
from tests.quoting.servers_world import (
    ALTERNATIVE_SUBTOTAL,
    AS_QUOTED_SUBTOTAL,
    AS_QUOTED_TOTAL,
    LARGER_SUBTOTAL,
    LARGER_TOTAL,
    quote_with_a_larger_alternative,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def quote(world):
    return quote_with_a_larger_alternative(world)


def test_the_design_s_lines_are_marked_as_the_design_s_and_the_lines_added_by_hand_are_not(quote):
    lines = quote.current_revision.lines.all()
    origins = {(ln.sku or ln.description, ln.section, ln.origin) for ln in lines}
    assert origins == {
        ("SW-A", Section.NETWORK, LineOrigin.DESIGN),
        ("UFM-EP", Section.NETWORK, LineOrigin.DESIGN),
        ("SRV-8", Section.GPU_SERVERS, LineOrigin.DESIGN),
        ("BCM-GPU", Section.CLUSTER_MANAGEMENT, LineOrigin.DESIGN),
        ("Rack cabling kit", Section.NETWORK, LineOrigin.ENTERED),
        ("Installation", Section.SERVICES, LineOrigin.ENTERED),
        *(
            (sku, Section.ALTERNATIVES, LineOrigin.DESIGN)
            for sku in ("SW-A", "UFM-EP", "SRV-8", "BCM-GPU")
        ),
    }


def test_an_alternative_with_servers_and_licences_replaces_all_the_chosen_design_s_lines(quote):
    revision = quote.current_revision
    as_quoted = revision_totals(revision=revision)
    assert (as_quoted.subtotal, as_quoted.total) == (AS_QUOTED_SUBTOTAL, AS_QUOTED_TOTAL)

    [larger] = revision_alternatives(revision=revision)
    assert larger.group == "Larger"
    assert larger.subtotal == ALTERNATIVE_SUBTOTAL
    # Against the chosen design's 2,049,600.00, not its network section's 41,600.00.
    assert larger.delta_subtotal == Decimal("1024800.00")
    # Not 5,087,400.00 of subtotal, as the servers and licences counted twice made it when the
    # alternative replaced the network section only.
    assert larger.total_if_chosen == LARGER_TOTAL
    assert larger.delta_total == LARGER_TOTAL - AS_QUOTED_TOTAL == Decimal("1158024.00")


def test_the_customer_s_choice_keeps_the_lines_added_by_hand_and_drops_the_chosen_design(quote):
    choice = offer_choice(revision=quote.current_revision, alternative="Larger")
    assert (choice.totals.subtotal, choice.totals.total) == (LARGER_SUBTOTAL, LARGER_TOTAL)
    kept = [ln for ln in choice.lines if ln.section != Section.ALTERNATIVES]
    assert {ln.description for ln in kept} == {"Rack cabling kit", "Installation"}
    assert {(ln.sku, ln.quantity) for ln in choice.lines if ln.sku} == {
        ("SW-A", 6),
        ("SRV-8", 3),
        ("BCM-GPU", 24),
        ("UFM-EP", 24),
    }
    # As quoted, the revision's own totals.
    assert offer_choice(revision=quote.current_revision).totals.total == AS_QUOTED_TOTAL


def test_support_per_switch_and_a_share_of_hardware_follow_the_alternative(quote, world):
    """Per switch: 4 on the offer, 6 on the alternative, at 1,000.00. A share of 10 % of the
    hardware (switches and servers): 204,000.00 of 2,040,000.00 as quoted, 306,000.00 of the
    alternative's 3,060,000.00 (content version 7; the percent and least price a sent offer
    prices it at are frozen at the send). Support is taxed as a service (6 %)."""
    per_device = ProductFactory(
        part_number="SUP-DEV",
        category=Category.SUPPORT,
        unit=Unit.YEAR,
        pricing_basis=PricingBasis.PER_DEVICE,
    )
    share = ProductFactory(
        part_number="SUP-PCT",
        category=Category.SUPPORT,
        unit=Unit.YEAR,
        pricing_basis=PricingBasis.PERCENT_OF_HARDWARE,
        hardware_percent=Decimal("10.00"),
    )
    price_set(per_device, "CNY", "1000.00")
    price_set(share, "CNY", "100.00")
    for sku in ("SUP-DEV", "SUP-PCT"):
        quote_add_product(
            quote=quote, sku=sku, quantity=1, user=world.sales, expected_version=quote.version
        )
        quote.refresh_from_db()
    revision = quote.current_revision
    stored = {
        ln.sku: (ln.quantity, ln.unit_price) for ln in revision.lines.filter(section="support")
    }
    assert stored == {"SUP-DEV": (4, Decimal("1000.00")), "SUP-PCT": (1, Decimal("204000.00"))}

    choice = offer_choice(revision=revision, alternative="Larger")
    support = {
        ln.sku: (ln.quantity, ln.unit_price) for ln in choice.lines if ln.sku.startswith("SUP")
    }
    assert support == {"SUP-DEV": (6, Decimal("1000.00")), "SUP-PCT": (1, Decimal("306000.00"))}
    assert choice.totals.subtotal == LARGER_SUBTOTAL + Decimal("312000.00")
    # 312,000.00 of support at 6 %: 18,720.00 of VAT.
    assert choice.totals.total == LARGER_TOTAL + Decimal("312000.00") + Decimal("18720.00")
    [larger] = revision_alternatives(revision=revision)
    assert larger.total_if_chosen == choice.totals.total
    # Reading a choice writes nothing: the offer as quoted keeps its own support.
    assert {
        ln.sku: (ln.quantity, ln.unit_price) for ln in revision.lines.filter(section="support")
    } == stored


def test_a_quote_made_by_hand_has_its_network_section_replaced(quote):
    """No line from a design: the hand-built network is the chosen fabric."""
    revision = quote.current_revision
    QuoteLine.objects.filter(revision=revision).exclude(section=Section.ALTERNATIVES).update(
        origin=LineOrigin.ENTERED
    )
    choice = offer_choice(revision=revision, alternative="Larger")
    # The network (switches, UFM, the cabling kit: 41,600.00 + 1,000.00) goes; servers, licences
    # and installation stay beside the alternative.
    assert choice.totals.subtotal == AS_QUOTED_SUBTOTAL - Decimal("42600.00") + ALTERNATIVE_SUBTOTAL


def test_lines_made_before_the_mark_are_told_by_their_role(quote):
    """Migration 0027: only a design's bill of materials ever gave a line a role."""
    revision = quote.current_revision
    kit = QuoteLine.objects.create(
        revision=revision,
        position=90,
        section=Section.OPTIONAL,
        description="Spares kit",
        quantity=1,
        unit_price=Decimal("1.00"),
        role="spares-kit:switch:10:10",
    )
    QuoteLine.objects.filter(revision=revision).update(origin="")
    migration = importlib.import_module("quoting.migrations.0027_line_origin")
    migration.origins_of_old_lines(apps, None)
    assert dict(revision.lines.values_list("pk", "origin")) == {
        **{ln.pk: LineOrigin.DESIGN for ln in revision.lines.exclude(pk=kit.pk).exclude(role="")},
        **{ln.pk: LineOrigin.ENTERED for ln in revision.lines.filter(role="")},
        kit.pk: LineOrigin.SPARES_KIT,
    }


def test_the_quote_page_shows_the_option_s_total_and_says_what_it_replaces(client, quote, world):
    client.force_login(world.sales)
    page = client.get(f"/quotes/{quote.pk}/").content.decode()
    alternatives = page[page.index('id="quote-alternatives"') :]
    assert f"{LARGER_TOTAL:,.2f}" in alternatives  # 3,480,502.00
    assert "+1,158,024.00" in alternatives
    assert "takes the place of the proposed design's equipment and licences" in alternatives


def test_the_api_says_where_each_line_came_from(quote, world):
    from tests.quoting.api_world import token_client

    api = token_client(world.sales, scope="read")
    lines = api.get(f"/api/v1/quotes/{quote.pk}/lines/").json()
    assert {(ln["section"], ln["sku"] or ln["description"], ln["origin"]) for ln in lines} >= {
        ("gpu_servers", "SRV-8", "design"),
        ("alternatives", "SRV-8", "design"),
        ("services", "Installation", ""),
    }


def test_renewals_count_a_booked_alternative_s_lines_not_the_chosen_design_s(quote):
    """Renewals read the booked choice (booked_term_lines): with "Larger" booked, the chosen
    design's per-GPU licences are not booked (whatever their section), the alternative's are,
    and the lines entered on the quote stay booked."""
    import datetime as dt

    from quoting.quotes.renewals import booked_term_lines

    revision = quote.current_revision
    revision.lines.update(term_months=12, starts_on=dt.date(2026, 1, 15))
    quote.booked_revision, quote.booked_alternative = revision, "Larger"
    booked = {
        (t.line.sku or t.line.description, t.line.section) for t in booked_term_lines(quote=quote)
    }
    assert ("BCM-GPU", Section.CLUSTER_MANAGEMENT) not in booked
    assert ("SRV-8", Section.GPU_SERVERS) not in booked
    assert ("BCM-GPU", Section.ALTERNATIVES) in booked
    assert ("Installation", Section.SERVICES) in booked
    assert ("Rack cabling kit", Section.NETWORK) in booked


# --- offers sent before the rule ----------------------------------------------------------------


def _sent(quote, world):
    from quoting.quotes.services.quotes import quote_send

    quote.refresh_from_db()
    return quote_send(quote=quote, user=world.sales, expected_version=quote.version)


def test_an_offer_sent_before_version_5_is_chosen_at_the_figures_it_printed(client, quote, world):
    """A revision sent under content version 4 printed "Total if chosen" with the network
    section replaced; the customer accepts, and the reseller books, that figure, not one priced
    by today's rule."""
    from quoting.quotes.selectors import revision_content_fingerprint, whole_design_replaced

    revision = _sent(quote, world)
    assert whole_design_replaced(revision)
    assert offer_choice(revision=revision, alternative="Larger").totals.subtotal == LARGER_SUBTOTAL

    version_4 = revision_content_fingerprint(revision=revision, version=4)
    type(revision).objects.filter(pk=revision.pk).update(content_sha256=version_4)
    revision.refresh_from_db()
    assert not whole_design_replaced(revision)
    choice = offer_choice(revision=revision, alternative="Larger")
    # The network section (switches, UFM, the cabling kit: 41,600.00 + 1,000.00) replaced;
    # servers, licences and installation kept beside the alternative, as version 4 priced it.
    old_rule = AS_QUOTED_SUBTOTAL - Decimal("42600.00") + ALTERNATIVE_SUBTOTAL
    assert choice.totals.subtotal == old_rule
    [larger] = revision_alternatives(revision=revision)
    assert larger.total_if_chosen == choice.totals.total
    # Nor does its page say today's rule under its options: it was printed without it.
    client.force_login(world.sales)
    page = client.get(f"/quotes/{quote.pk}/").content.decode()
    alternatives = page[page.index('id="quote-alternatives"') :]
    assert f"{choice.totals.total:,.2f}" in alternatives
    assert "takes the place of the proposed design's equipment" not in alternatives


def test_a_sent_offer_s_figures_do_not_follow_a_later_catalog(quote, world):
    """Sent, an offer's figures are what its PDF printed: a later percent or least price of a
    share-of-hardware support product changes no option's total."""
    per_device = ProductFactory(
        part_number="SUP-DEV",
        category=Category.SUPPORT,
        unit=Unit.YEAR,
        pricing_basis=PricingBasis.PER_DEVICE,
    )
    share = ProductFactory(
        part_number="SUP-PCT",
        category=Category.SUPPORT,
        unit=Unit.YEAR,
        pricing_basis=PricingBasis.PERCENT_OF_HARDWARE,
        hardware_percent=Decimal("10.00"),
    )
    price_set(per_device, "CNY", "1000.00")
    price_set(share, "CNY", "100.00")
    for sku in ("SUP-DEV", "SUP-PCT"):
        quote.refresh_from_db()
        quote_add_product(
            quote=quote, sku=sku, quantity=1, user=world.sales, expected_version=quote.version
        )
    revision = _sent(quote, world)
    sent = offer_choice(revision=revision, alternative="Larger")
    support = {
        ln.sku: (ln.quantity, ln.unit_price) for ln in sent.lines if ln.sku.startswith("SUP")
    }
    # 10 % of the alternative's 3,060,000.00 of hardware, at the percent frozen at the send.
    assert support == {"SUP-DEV": (6, Decimal("1000.00")), "SUP-PCT": (1, Decimal("306000.00"))}
    assert revision.option_basis["support"] == {"SUP-PCT": {"percent": "10.00", "least": "100.00"}}

    share.hardware_percent = Decimal("20.00")
    share.save()
    price_set(share, "CNY", "900000.00")
    revision.refresh_from_db()
    assert offer_choice(revision=revision, alternative="Larger").totals == sent.totals

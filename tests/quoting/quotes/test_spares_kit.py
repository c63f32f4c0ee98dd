"""A spares kit by class beside a design's quote (issue 26 item 8, docs/fabric-design.md "Spares
kit").

The brief sells spares with the fabric (next-day spares are the premium support's promise). A
quote made from a design offers, per class, the catalog's ratio of the design's quantity of each
part, rounded up per part, as optional lines: offered, not ordered, so the required lines and
the totals stay the design's. The ratios are catalog data (catalog.SparesRatio): optics and
cables 2 %, NICs 1 %, switches 0 % until the catalog manager sets one.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from decimal import Decimal

import pytest
from django.utils import translation

from catalog.models import (
    SPARES_CLASS_OF_CATEGORY,
    PriceListItem,
    Product,
    ReplaceableUnit,
    SparesRatio,
)
from catalog.selectors import spares_ratios
from quoting.designs.services.saved import design_save
from quoting.engine.spares import kit_of, spares_kit
from quoting.quotes.models import QuoteEventVerb, Section
from quoting.quotes.services.quotes import (
    quote_add_product,
    quote_create,
    quote_create_from_design,
)
from quoting.templatetags.quoting_messages import bom_role

REQUIREMENTS = {"gpu_count": 256, "nic_generation": "NDR", "subnet_manager": "on-switch"}
RATIOS = {"optics": Decimal("2"), "cables": Decimal("2"), "nics": Decimal("1")}


@pytest.fixture(name="world")
def world_on_the_catalog(seeded, world):
    return world


def _quote(world, **requirements):
    design = design_save(
        project=world.project,
        name="256 GPUs",
        user=world.sales,
        requirements=REQUIREMENTS | requirements,
    )
    quote = quote_create_from_design(project=world.project, design=design, user=world.sales)
    return design, quote.current_revision


def _kit(revision):
    return [ln for ln in revision.lines.order_by("position") if kit_of(ln.role)]


def _designed(design, category):
    """The design's quantity of each part of a category, spares excluded."""
    counts = Counter()
    for row in design.bom:
        if row["category"] == category and row["role"] != "spare":
            counts[row["sku"]] += row["quantity"]
    return counts


# --- the count, from a known bill of materials ---------------------------------------------------


def test_each_part_of_a_class_gets_its_ratio_of_the_designed_quantity_rounded_up():
    bom = [
        {"sku": "OSFP-A", "name": "A", "category": "transceiver", "quantity": 300, "role": "leaf"},
        {"sku": "OSFP-A", "name": "A", "category": "transceiver", "quantity": 84, "role": "spine"},
        {"sku": "MPO-3M", "name": "M", "category": "cable", "quantity": 10, "role": "leaf"},
        {"sku": "CX7", "name": "N", "category": "adapter", "quantity": 256, "role": "server NIC"},
        {"sku": "QM9700", "name": "S", "category": "switch", "quantity": 12, "role": "leaf"},
        {"sku": "SRV", "name": "H", "category": "server", "quantity": 32, "role": "server"},
    ]
    kit = spares_kit(
        bom,
        ratios=RATIOS | {"switches": Decimal(0)},
        class_of_category={
            "transceiver": "optics",
            "cable": "cables",
            "adapter": "nics",
            "switch": "switches",
        },
    )

    # 384 x 2 % = 7.68 -> 8; 10 x 2 % = 0.2 -> 1 (a class present gets one); 256 x 1 % -> 3.
    assert [(k.spare_class, k.sku, k.quantity, k.base) for k in kit] == [
        ("optics", "OSFP-A", 8, 384),
        ("cables", "MPO-3M", 1, 10),
        ("nics", "CX7", 3, 256),
    ]


def test_a_design_that_buys_spares_by_its_percentage_gets_no_kit():
    bom = [
        {"sku": "OSFP-A", "category": "transceiver", "quantity": 384, "role": "leaf"},
        {"sku": "OSFP-A", "category": "transceiver", "quantity": 20, "role": "spare"},
    ]
    assert spares_kit(bom, ratios=RATIOS, class_of_category=SPARES_CLASS_OF_CATEGORY) == ()


# --- on the quote --------------------------------------------------------------------------------


def test_the_catalog_starts_with_the_stated_ratios_and_no_spare_switches(db):
    assert spares_ratios() == RATIOS | {
        "psus_fans": Decimal("5.00"),
        "switches": Decimal("0.00"),
    }


def test_a_256_gpu_quote_offers_the_kit_as_optional_lines_per_part_of_each_class(world):
    design, revision = _quote(world)
    kit = _kit(revision)

    assert kit and {ln.section for ln in kit} == {Section.OPTIONAL}
    expected = {}
    for category, spare_class in (
        ("transceiver", "optics"),
        ("cable", "cables"),
        ("adapter", "nics"),
    ):
        for sku, quantity in _designed(design, category).items():
            expected[sku] = math.ceil(quantity * RATIOS[spare_class] / 100)
    # PSUs inside its 12 MQM9700-NS2F: 24 x 5 % -> 2 (below, "PSUs and fans").
    expected["MTEF-PSF-AC-K"] = 2
    assert {ln.sku: ln.quantity for ln in kit} == expected
    assert not any(ln.product.category == "switch" for ln in kit), "switches are at 0 %"
    for ln in kit:
        product = Product.objects.get(part_number=ln.sku)
        assert (
            ln.unit_price
            == ln.list_price
            == product.prices.get(
                price_list__currency=revision.quote.currency, price_list__is_default=True
            ).list_price
        )


def test_the_required_lines_and_the_totals_stay_the_designs(world):
    design, revision = _quote(world)
    required = [ln for ln in revision.lines.all() if ln.section != Section.OPTIONAL]

    assert sorted((ln.sku, ln.role, ln.quantity) for ln in required) == sorted(
        (row["sku"], row["role"], row["quantity"]) for row in design.bom
    )
    assert revision.design_list_value == sum(ln.quantity * ln.list_price for ln in required)
    event = revision.quote.events.get(verb=QuoteEventVerb.LINES_FROM_DESIGN)
    assert event.details["spares_kit_lines"] == len(_kit(revision))


def test_a_kit_line_names_its_class_and_ratio_in_english_and_chinese(world):
    design, revision = _quote(world)
    optics = next(ln for ln in _kit(revision) if ln.product.category == "transceiver")
    base = _designed(design, "transceiver")[optics.sku]

    with translation.override("en"):
        assert optics.description_shown == (
            f"Spares kit: optics (2 % of {base}) — {optics.product.name}"
        )
    with translation.override("zh-hans"):
        assert optics.description_shown == (
            f"备件包：光模块（{base} 的 2 %）— {optics.product.name_zh}"
        )
    assert optics.description.startswith("Spares kit: optics"), "the line keeps English words"
    # The role beside the part number on the quote page and in the workbook: words, not a code.
    with translation.override("en"):
        assert bom_role(optics.role) == "spares kit"
    with translation.override("zh-hans"):
        assert bom_role(optics.role) == "备件包"


def test_the_catalog_managers_ratio_is_the_one_used(world):
    SparesRatio.objects.filter(spare_class="switches").update(percent=Decimal("5"))
    SparesRatio.objects.filter(spare_class="optics").update(percent=Decimal("0"))
    design, revision = _quote(world)
    kit = _kit(revision)

    switches = {ln.sku: ln.quantity for ln in kit if ln.product.category == "switch"}
    assert switches == {
        sku: math.ceil(n * 5 / 100) for sku, n in _designed(design, "switch").items()
    }
    assert not any(ln.product.category == "transceiver" for ln in kit)


def test_a_design_with_a_spares_percentage_keeps_its_spares_and_gets_no_kit(world):
    _, revision = _quote(world, spares_percent=5)

    assert revision.lines.filter(role="spare").exclude(section=Section.OPTIONAL).exists()
    assert _kit(revision) == []


def test_a_quote_without_a_design_gets_no_kit_when_parts_are_added(world):
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=quote,
        sku="MMA4Z00-NS",
        quantity=384,
        user=world.sales,
        expected_version=quote.version,
    )
    lines = list(quote.current_revision.lines.all())

    assert [(ln.sku, ln.quantity, ln.section) for ln in lines] == [
        ("MMA4Z00-NS", 384, Section.NETWORK)
    ]


# --- the design page says what its quote will offer ----------------------------------------------

DESIGN_PAGE = (
    "/designs/new/?gpu_count=256&gpus_per_server=8&nic_generation=NDR"
    "&family=infiniband&planes=1&oversubscription=1&switch_part_number=MQM9700-NS2F"
    "&subnet_manager=auto&rail_optimized=on&currency=CNY&spares_percent="
)


def _kit_note(body: str) -> str:
    found = re.search(r'<p class="muted" id="spares-kit">([^<]*)</p>', body)
    return found.group(1) if found else ""


def test_the_design_page_shows_the_ratios_its_quote_offers_in_english_and_chinese(
    sales_client, seeded
):
    english = _kit_note(sales_client.get(DESIGN_PAGE + "0").content.decode())
    chinese = _kit_note(
        sales_client.get(DESIGN_PAGE + "0", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    )

    # The 256-GPU BOM holds optics, cables and QM9700s (their PSUs), no NICs: only the classes
    # it holds are named.
    assert english.endswith("optics 2 %, cables 2 %, PSUs and fans 5 %")
    assert chinese.endswith("光模块 2 %, 线缆 2 %, 电源与风扇 5 %")


def test_the_design_page_names_no_kit_when_the_design_buys_its_spares(sales_client, seeded):
    assert _kit_note(sales_client.get(DESIGN_PAGE + "5").content.decode()) == ""


# --- PSUs and fans, counted from the design's switches -------------------------------------------
# The QM8790's PSU (catalog/data/SOURCES.md, "PSUs and fans"): an MQM8790-HS2F reports two power
# supplies of NVIDIA P/N MTEF-PSF-AC-C (stanford-rc/ibswinfo's README shows a switch's own
# readout), a forward-airflow PSU in NVIDIA's hw-mgmt (hw-management-helpers.sh). NVIDIA
# publishes no price for it: the seed gives it our reference price, as the other switches' PSUs,
# 3 % of the switch's list price (USD 480.00, 3,456.00 CNY), marked "Reference price: verify".

PSU = "MTEF-PSF-AC-C"
HDR_SWITCH = "MQM8790-HS2F"
HDR = {"nic_generation": "HDR", "subnet_manager": "opensm-host"}  # 26 x MQM8790-HS2F


def test_psus_and_fans_are_the_units_in_each_switch_times_the_switches_at_their_ratio():
    bom = [
        {"sku": "SW-A", "name": "A", "category": "switch", "quantity": 16, "role": "leaf"},
        {"sku": "SW-A", "name": "A", "category": "switch", "quantity": 10, "role": "spine"},
        {"sku": "SW-B", "name": "B", "category": "switch", "quantity": 3, "role": "management"},
    ]
    units_of = {
        "SW-A": [
            {"sku": "PSU-A", "name": "P", "category": "psu_fan", "per_switch": 2},
            {"sku": "FAN-A", "name": "F", "category": "psu_fan", "per_switch": 7},
        ],
    }
    kit = spares_kit(
        bom,
        ratios={"psus_fans": Decimal(5), "switches": Decimal(0)},
        class_of_category=SPARES_CLASS_OF_CATEGORY,
        units_of=units_of,
    )

    # 26 switches x 2 PSUs = 52, 5 % = 2.6 -> 3; 26 x 7 fans = 182 -> 9.1 -> 10. SW-B lists
    # no units: none.
    assert [(k.spare_class, k.sku, k.quantity, k.base) for k in kit] == [
        ("psus_fans", "PSU-A", 3, 52),
        ("psus_fans", "FAN-A", 10, 182),
    ]


def test_the_seed_says_an_mqm8790_holds_two_mtef_psf_ac_c_at_a_reference_price(seeded):
    unit = ReplaceableUnit.objects.get(switch__part_number=HDR_SWITCH)

    assert (unit.unit.part_number, unit.unit.category, unit.per_switch) == (PSU, "psu_fan", 2)
    assert unit.source.startswith("verify")
    price = PriceListItem.objects.get(product__part_number=PSU, price_list__currency="CNY")
    assert price.price_list.is_reference and price.list_price == Decimal("3456.00")


def test_an_hdr_quote_offers_the_psus_of_its_switches_at_the_reference_price(world):
    design, revision = _quote(world, **HDR)
    switches = sum(_designed(design, "switch").values())
    psus = [ln for ln in _kit(revision) if ln.sku == PSU]

    assert switches == 26
    # 26 switches x 2 PSUs = 52; 5 % = 2.6 -> 3, at 3 % of the QM8790's 115,200.00 CNY.
    assert [(ln.quantity, ln.section, ln.list_price) for ln in psus] == [
        (math.ceil(switches * 2 * 5 / 100), Section.OPTIONAL, Decimal("3456.00"))
    ]
    assert psus[0].quantity == 3
    assert kit_of(psus[0].role) == ("psus_fans", Decimal("5"), switches * 2)
    with translation.override("en"):
        assert psus[0].description_shown.startswith("Spares kit: PSUs and fans (5 % of 52) — ")
    with translation.override("zh-hans"):
        assert psus[0].description_shown.startswith("备件包：电源与风扇（52 的 5 %）— ")
    event = revision.quote.events.get(verb=QuoteEventVerb.LINES_FROM_DESIGN)
    assert "spares_kit_unpriced" not in event.details
    # Offered, not ordered: the design's lines and list value are as before.
    required = [ln for ln in revision.lines.all() if ln.section != Section.OPTIONAL]
    assert not any(ln.sku == PSU for ln in required)


def test_a_catalog_managers_price_for_the_psu_is_the_one_offered(world):
    PriceListItem.objects.filter(product__part_number=PSU, price_list__currency="CNY").update(
        list_price=Decimal("3600.00"), cost=Decimal("2808.00")
    )
    _, revision = _quote(world, **HDR)

    assert [(ln.quantity, ln.list_price) for ln in _kit(revision) if ln.sku == PSU] == [
        (3, Decimal("3600.00"))
    ]


def test_an_unpriced_psu_is_left_out_of_the_kit_and_named_and_the_quote_is_made(world):
    PriceListItem.objects.filter(product__part_number=PSU).delete()
    design, revision = _quote(world, **HDR)

    assert not any(ln.sku == PSU for ln in revision.lines.all())
    assert _kit(revision), "the other classes are still offered"
    event = revision.quote.events.get(verb=QuoteEventVerb.LINES_FROM_DESIGN)
    assert event.details["spares_kit_unpriced"] == PSU


def test_a_quote_whose_switches_hold_no_listed_units_gets_no_psu_line(world):
    ReplaceableUnit.objects.filter(switch__part_number="MQM9700-NS2F").delete()
    _, revision = _quote(world)  # NDR: MQM9700 leaves and spines, their units unlisted here

    assert not any(ln.product.category == "psu_fan" for ln in _kit(revision))
    event = revision.quote.events.get(verb=QuoteEventVerb.LINES_FROM_DESIGN)
    assert "spares_kit_unpriced" not in event.details


# The QM9700's and SN5600's PSUs (catalog/data/SOURCES.md, "PSUs and fans", marked "verify"):
# two MTEF-PSF-AC-K in an MQM9700-NS2F (NVIDIA hw-mgmt's MQM9700 PSU record, HI130), two
# 930-9SPSU-00RA-00B in an SN5600 920-9N42F-00RI-7C0 (the switch's own inventory in NVIDIA's
# nv-config-manager test data). Priced at the seed's reference price (ours, 3 % of the switch's
# list price), they are offered at the PSU/fan class's 5 %. No fan part number was found for
# either switch: the seed lists no fan module, so the kit offers none.

SPECTRUM_X = {"family": "ethernet", "nic_generation": "400GbE", "subnet_manager": "auto"}


def _psu_lines(revision):
    return [ln for ln in _kit(revision) if ln.product.category == "psu_fan"]


def test_a_256_gpu_ndr_quote_offers_the_qm9700s_psus_at_5_percent_rounded_up(world):
    design, revision = _quote(world)
    switches = _designed(design, "switch")
    psus = _psu_lines(revision)

    assert switches == {"MQM9700-NS2F": 12}  # 8 leaves, 4 spines
    # 12 switches x 2 PSUs = 24; 5 % = 1.2 -> 2, at the reference 6,912.00 CNY.
    assert [(ln.sku, ln.quantity, ln.section, ln.list_price) for ln in psus] == [
        ("MTEF-PSF-AC-K", 2, Section.OPTIONAL, Decimal("6912.00"))
    ]
    assert kit_of(psus[0].role) == ("psus_fans", Decimal("5"), 24)
    event = revision.quote.events.get(verb=QuoteEventVerb.LINES_FROM_DESIGN)
    assert "spares_kit_unpriced" not in event.details


def test_a_spectrum_x_quote_offers_the_sn5600s_psus_at_5_percent_rounded_up(world):
    design, revision = _quote(world, **SPECTRUM_X)
    switches = _designed(design, "switch")
    psus = _psu_lines(revision)

    assert switches == {"920-9N42F-00RI-7C0": 6}  # 4 leaves, 2 spines
    # 6 switches x 2 PSUs = 12; 5 % = 0.6 -> 1, at the reference 11,880.00 CNY.
    assert [(ln.sku, ln.quantity, ln.list_price) for ln in psus] == [
        ("930-9SPSU-00RA-00B", 1, Decimal("11880.00"))
    ]
    assert kit_of(psus[0].role) == ("psus_fans", Decimal("5"), 12)


def test_a_psu_the_quotes_currency_has_no_price_for_is_named_not_offered(world):
    PriceListItem.objects.filter(
        product__part_number="MTEF-PSF-AC-K", price_list__currency="CNY"
    ).delete()
    _, revision = _quote(world)

    assert not _psu_lines(revision)
    assert _kit(revision), "the optics and cables are still offered"
    event = revision.quote.events.get(verb=QuoteEventVerb.LINES_FROM_DESIGN)
    assert event.details["spares_kit_unpriced"] == "MTEF-PSF-AC-K"


HDR_PAGE = (
    "/designs/new/?gpu_count=256&gpus_per_server=8&nic_generation=HDR"
    "&family=infiniband&planes=1&oversubscription=1&switch_part_number=MQM8790-HS2F"
    "&subnet_manager=opensm-host&rail_optimized=on&currency=CNY&spares_percent=0"
)


def test_the_design_page_names_psus_and_fans_only_when_its_quote_will_offer_them(
    sales_client, seeded
):
    # Unpriced, the QM8790's PSU is left out of the quote's kit: the page does not promise it.
    prices = list(PriceListItem.objects.filter(product__part_number=PSU))
    PriceListItem.objects.filter(product__part_number=PSU).delete()
    assert "PSUs and fans" not in _kit_note(sales_client.get(HDR_PAGE).content.decode())

    PriceListItem.objects.bulk_create(prices)  # at the seed's reference price again
    english = _kit_note(sales_client.get(HDR_PAGE).content.decode())
    chinese = _kit_note(sales_client.get(HDR_PAGE, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode())

    assert "PSUs and fans 5 %" in english
    assert "电源与风扇 5 %" in chinese

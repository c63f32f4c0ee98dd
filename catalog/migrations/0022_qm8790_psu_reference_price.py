# The QM8790's PSU (MTEF-PSF-AC-C, two in an MQM8790-HS2F, added unpriced by 0016) priced by
# the rule 0020 gave the other sourced PSUs: ours, 3 % of the list price of the switch it fits
# (NVIDIA publishes none), marked "Reference price: verify"; catalog/data/SOURCES.md, "PSUs and
# fans". Until now an HDR quote named it in its history and left it out of its spares kit, while
# the NDR and Spectrum-X kits offered theirs. Done to a database seeded before, as 0020 does: a
# database never seeded is left alone (load_catalog brings the priced row), a price already in
# the reference list is kept as the catalog manager left it, and the description's old "ask the
# partner price" sentence is replaced only where the PSU is still as 0016 wrote it and a
# reference price was added here. Migrating back leaves the prices (as 0020 leaves its PSUs): by
# then quotes may carry them and the catalog manager may have edited them.

from decimal import Decimal

from django.db import migrations

UNIT = "MTEF-PSF-AC-C"
# {currency: (list price, cost)}, as the CSV's row: 3 % of the MQM8790-HS2F's USD 16,000, cost
# at 78 % of list, CNY at 7.2 to the dollar, as 0020's rows.
PRICES = {
    "USD": (Decimal("480.00"), Decimal("374.40")),
    "CNY": (Decimal("3456.00"), Decimal("2695.68")),
}
# field: (as 0016 wrote it, as the CSV has it now)
DESCRIPTIONS = {
    "description_en": (
        "The AC power supply an MQM8790-HS2F holds two of, as the switch reports its PSUs; "
        "forward (P2C) airflow, matching the switch's. Spared by the quote's spares kit "
        "(PSU/fan class). NVIDIA publishes no list price: ask the NVIDIA partner price and "
        "enter it in the price list before it is offered (catalog/data/SOURCES.md).",
        "The AC power supply an MQM8790-HS2F holds two of, as the switch reports its PSUs; "
        "forward (P2C) airflow, matching the switch's. Spared by the quote's spares kit "
        "(PSU/fan class). Reference price: verify (ours, 3 % of the QM8790's list price; "
        "catalog/data/SOURCES.md).",
    ),
    "description_zh": (
        "MQM8790-HS2F 装有两块的交流电源模块（据交换机自身上报的电源部件号）；前后风道（P2C），"
        "与交换机一致。报价的备件包（电源/风扇类）按此备货。NVIDIA 未公布目录价：请向 NVIDIA "
        "合作伙伴询价并录入价目表后方可提供（见 catalog/data/SOURCES.md）。",
        "MQM8790-HS2F 装有两块的交流电源模块（据交换机自身上报的电源部件号）；前后风道（P2C），"
        "与交换机一致。报价的备件包（电源/风扇类）按此备货。参考价格，请核实（按 QM8790 目录价的 "
        "3 % 推算，见 catalog/data/SOURCES.md）。",
    ),
}


def price_qm8790_psu(apps, schema_editor):
    Product = apps.get_model("catalog", "Product")
    PriceList = apps.get_model("catalog", "PriceList")
    PriceListItem = apps.get_model("catalog", "PriceListItem")
    product = Product.objects.filter(part_number=UNIT).first()
    if product is None:  # never seeded: load_catalog brings the row with its prices
        return
    added = False
    for currency, (list_price, cost) in PRICES.items():
        price_list = PriceList.objects.filter(
            currency=currency, is_default=True, is_reference=True
        ).first()
        if price_list is not None:
            _, created = PriceListItem.objects.get_or_create(
                price_list=price_list,
                product=product,
                defaults={"list_price": list_price, "cost": cost},
            )
            added = added or created
    if not added:
        return
    for field, (seeded, now) in DESCRIPTIONS.items():
        Product.objects.filter(pk=product.pk, **{field: seeded}).update(**{field: now})


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0021_inband_optics"),
    ]

    operations = [
        migrations.RunPython(price_qm8790_psu, migrations.RunPython.noop),
    ]

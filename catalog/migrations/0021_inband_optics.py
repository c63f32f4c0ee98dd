# NVIDIA LinkX MMS1C10-CM, the 100GbE QSFP28 PSM4 single-mode transceiver, for in-band management
# runs beyond the longest 100GbE AOC: one at each end, joined by a catalog MFP7E30 single-mode
# MPO-12/APC fibre of the run's length class (NVIDIA's Cable Management Guidelines put PSM4
# modules with its DR4 optics on female MPO/APC single-mode patch cables). Sources and the
# reference price's rule: catalog/data/SOURCES.md, "100GbE in-band optics". Added to a database
# seeded before it, as 0017 added the in-band cables: a database never seeded is left alone
# (load_catalog brings it), and a row already there is kept as its catalog manager left it.
# Migrating back leaves it (as 0017 does): by then quotes may name it.

from decimal import Decimal

from django.db import migrations

SEEDED_BY = "920-9N302-00F7-0C2"  # a database holding the seed's SN4600C in-band switch
# part number: (product, {currency: (list price, cost)}), as the CSV's rows.
MODULES = {
    "MMS1C10-CM": (
        {
            "name": "NVIDIA 100GbE QSFP28 transceiver, PSM4 single-mode 500 m, MPO/APC (in-band management)",
            "name_zh": "NVIDIA 100GbE QSFP28 光模块，PSM4 单模 500 m，MPO/APC（带内管理）",
            "category": "transceiver",
            "family": "LinkX",
            "generation": "100GbE",
            "protocol": "ethernet",
            "port_speed_gbps": 100,
            "cage_type": "QSFP28",
            "media": "singlemode",
            "reach_m": Decimal("500"),
            "form_factor": "flat-top",
            "ports_per_module": 1,
            "power_typical_w": Decimal("3.5"),
            "power_max_w": Decimal("3.5"),
            "description_en": (
                "100GbE PSM4 single-mode transceiver, 500 m, for an in-band management run beyond the longest 100GbE AOC: one at each end (the SN4600C's QSFP28 port; a server's QSFP112 in-band port takes it), joined by an MFP7E30 single-mode MPO-12/APC fibre, the female MPO/APC single-mode patch cable NVIDIA pairs PSM4 modules with, as its DR4 optics. Power figure approximate (QSFP28 power class 4): verify. Reference price: verify."
            ),
            "description_zh": "100GbE PSM4 单模光模块，500 米，用于超出最长 100GbE AOC 的带内管理线路：两端各一个（SN4600C 的 QSFP28 端口；服务器的 QSFP112 带内管理口兼容），以 MFP7E30 单模 MPO-12/APC 光纤连接，即 NVIDIA 为 PSM4 模块（与其 DR4 模块相同）配套的母头 MPO/APC 单模跳线。功耗为近似值（QSFP28 功耗等级 4），请核实。参考价格，请核实。",
        },
        {
            "USD": (Decimal("410.00"), Decimal("319.80")),
            "CNY": (Decimal("2952.00"), Decimal("2302.56")),
        },
    ),
}


def add_inband_optics(apps, schema_editor):
    Product = apps.get_model("catalog", "Product")
    PriceList = apps.get_model("catalog", "PriceList")
    PriceListItem = apps.get_model("catalog", "PriceListItem")
    if not Product.objects.filter(part_number=SEEDED_BY).exists():
        return
    for part_number, (fields, prices) in MODULES.items():
        product, created = Product.objects.get_or_create(
            part_number=part_number,
            defaults={**fields, "lifecycle": "active", "unit": "each"},
        )
        if not created:
            continue
        for currency, (list_price, cost) in prices.items():
            price_list = PriceList.objects.filter(
                currency=currency, is_default=True, is_reference=True
            ).first()
            if price_list is not None:
                PriceListItem.objects.get_or_create(
                    price_list=price_list,
                    product=product,
                    defaults={"list_price": list_price, "cost": cost},
                )


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0020_sourced_switch_psus"),
    ]

    operations = [
        migrations.RunPython(add_inband_optics, migrations.RunPython.noop),
    ]

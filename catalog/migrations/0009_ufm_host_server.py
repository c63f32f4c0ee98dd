# The seed catalog's UFM host server (UFM-HOST-1U) added on databases loaded before it joined
# the CSV: UFM licences are quoted with the HA pair of hosts UFM Enterprise runs on, each with an
# InfiniBand NIC of the fabric's generation already in the catalog, cabled into leaf ports as the
# UFM appliances are (catalog/data/SOURCES.md, "UFM-HOST-1U"). A database never seeded is left
# alone (load_catalog brings the row with the rest), and one that has the row keeps it as its
# catalog manager left it. Prices go to the default list of each currency when it holds reference
# prices, as the seed's do.

from decimal import Decimal

from django.db import migrations

PART_NUMBER = "UFM-HOST-1U"
SEEDED_BY = "UFM-ENT-LIC-EP"  # a database holding the seed's UFM licence was seeded
PRODUCT = {
    "name": "x86 server for UFM Enterprise on bare metal, 1U (InfiniBand NIC quoted separately)",
    "name_zh": "用于裸机部署 UFM Enterprise 的 x86 服务器，1U（InfiniBand 网卡另行报价）",
    "category": "server",
    "family": "UFM",
    "lifecycle": "active",
    "unit": "each",
    "rack_units": 1,
    "power_typical_w": Decimal("350"),
    "power_max_w": Decimal("600"),
    "description_en": (
        "One UFM Enterprise host (quote two: master and standby). Reference configuration: "
        "x86_64, 16 cores, 64 GB RAM, 2 x 960 GB SSD (RAID 1), a PCIe x16 slot for one ConnectX "
        "InfiniBand NIC of the fabric's generation (quoted as its own line), a 1GbE BMC port. "
        "Reference price and power: brand and configuration vary; size CPU, RAM and disk to the "
        "UFM Enterprise User Manual's requirements for the fabric (catalog/data/SOURCES.md)."
    ),
    "description_zh": (
        "一台 UFM Enterprise 主机（需报两台：主用与备用）。参考配置：x86_64，16 核，64 GB 内存，"
        "2 × 960 GB SSD（RAID 1），一个 PCIe x16 插槽安装一块与网络同代的 ConnectX InfiniBand "
        "网卡（单独报价），1GbE BMC 管理口。参考价与功耗：品牌与配置不同而不同；CPU、内存与磁盘"
        "请按 UFM Enterprise 用户手册对该规模网络的要求选配（见 catalog/data/SOURCES.md）。"
    ),
}
# currency: (list price, cost), as the CSV's reference prices.
PRICES = {
    "USD": (Decimal("12000.00"), Decimal("9360.00")),
    "CNY": (Decimal("86400.00"), Decimal("67392.00")),
}


def add_ufm_host(apps, schema_editor):
    Product = apps.get_model("catalog", "Product")
    PriceList = apps.get_model("catalog", "PriceList")
    PriceListItem = apps.get_model("catalog", "PriceListItem")
    if not Product.objects.filter(part_number=SEEDED_BY).exists():
        return
    product, created = Product.objects.get_or_create(part_number=PART_NUMBER, defaults=PRODUCT)
    if not created:
        return
    for currency, (list_price, cost) in PRICES.items():
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
        ("catalog", "0008_retire_mc2609130_hdr_fibre"),
    ]

    operations = [
        migrations.RunPython(add_ufm_host, migrations.RunPython.noop),
    ]

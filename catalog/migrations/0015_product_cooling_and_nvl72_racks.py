# A product's cooling (air, liquid, or a liquid-cooled rack-scale system that takes a rack of its
# own), and the DGX GB200 and GB300 NVL72 racks added on databases seeded before them, as 0009
# added the UFM host: a database never seeded is left alone (load_catalog brings the rows), and a
# row already there is kept as its catalog manager left it. Reference prices (the GB300 carries
# the GB200's: no public GB300 price at hand) go to the default reference list of each
# currency. Figures and their sources: catalog/data/SOURCES.md, "Rack-scale systems".

from decimal import Decimal

from django.db import migrations, models

SEEDED_BY = "DGX-B200"  # a database holding the seed's DGX B200 was seeded
# part number: (product, {currency: (list price, cost)}), as the CSV's rows.
RACKS = {
    "DGX-GB200-NVL72": (
        {
            "name": "NVIDIA DGX GB200 NVL72 rack system, 72 x B200, 36 x Grace, liquid-cooled",
            "name_zh": "NVIDIA DGX GB200 NVL72 机柜级系统，72 × B200，36 × Grace，液冷",
            "category": "server",
            "family": "DGX",
            "generation": "NDR",
            "lifecycle": "active",
            "unit": "each",
            "port_count": 72,
            "port_speed_gbps": 400,
            "cage_type": "OSFP",
            "cage_count": 72,
            "power_max_w": Decimal("120000"),
            "gpu_model": "B200",
            "gpu_count": 72,
            "gpu_peak_tflops": Decimal("2500"),
            "cooling": "liquid-rack",
            "description_en": "One DGX GB200 rack: 18 compute trays (2 Grace CPUs, 4 B200 GPUs each) and 9 NVLink switch trays; NVLink joins all 72 GPUs inside the rack, outside the InfiniBand fabric. Compute fabric: 4 single-port ConnectX-7 400G OSFP NICs per tray, 72 NDR ports per rack; 2 BlueField-3 per tray for storage and in-band management. Liquid-cooled with its own power shelves: a rack of its own. Rack power (about 120 kW), BF16 figure and reference price: verify.",
            "description_zh": "一个 DGX GB200 机柜：18 个计算托盘（每个含 2 颗 Grace CPU、4 颗 B200 GPU）和 9 个 NVLink 交换托盘；机柜内 72 颗 GPU 由 NVLink 互联，不经 InfiniBand 网络。计算网络：每个托盘 4 个单端口 ConnectX-7 400G OSFP 网卡，每柜 72 个 NDR 端口；每个托盘另有 2 个 BlueField-3 用于存储与带内管理。液冷，自带电源架，独占一个机柜。机柜功耗（约 120 kW）、BF16 算力与参考价格：请核实。",
        },
        {
            "USD": (Decimal("3000000.00"), Decimal("2340000.00")),
            "CNY": (Decimal("21600000.00"), Decimal("16848000.00")),
        },
    ),
    "DGX-GB300-NVL72": (
        {
            "name": "NVIDIA DGX GB300 NVL72 rack system, 72 x B300, 36 x Grace, liquid-cooled",
            "name_zh": "NVIDIA DGX GB300 NVL72 机柜级系统，72 × B300，36 × Grace，液冷",
            "category": "server",
            "family": "DGX",
            "generation": "XDR",
            "lifecycle": "preview",
            "unit": "each",
            "port_count": 72,
            "port_speed_gbps": 800,
            "cage_type": "OSFP",
            "cage_count": 72,
            "power_max_w": Decimal("142000"),
            "gpu_model": "B300",
            "gpu_count": 72,
            "gpu_peak_tflops": Decimal("2500"),
            "cooling": "liquid-rack",
            "description_en": "One GB300 NVL72 rack: 18 compute trays (2 Grace CPUs, 4 Blackwell Ultra GPUs each) and 9 NVLink switch trays; 4 ConnectX-8 per tray, 72 compute ports per rack (XDR 800G, or 2 x 400GbE). Liquid-cooled, 8 power shelves of 33 kW, up to 142 kW per rack: a rack of its own. Cage type and BF16 figure: verify. Reference price: the GB200 rack's, carried over (no public GB300 price at hand): verify.",
            "description_zh": "一个 GB300 NVL72 机柜：18 个计算托盘（每个含 2 颗 Grace CPU、4 颗 Blackwell Ultra GPU）和 9 个 NVLink 交换托盘；每个托盘 4 个 ConnectX-8，每柜 72 个计算端口（XDR 800G，或 2 × 400GbE）。液冷，8 个 33 kW 电源架，每柜最高 142 kW，独占一个机柜。端口笼类型与 BF16 算力：请核实。参考价格沿用 GB200 机柜的价格（暂无公开的 GB300 价格）：请核实。",
        },
        # No public GB300 price at hand: the GB200 rack's reference price, carried over.
        {
            "USD": (Decimal("3000000.00"), Decimal("2340000.00")),
            "CNY": (Decimal("21600000.00"), Decimal("16848000.00")),
        },
    ),
}


def add_nvl72_racks(apps, schema_editor):
    Product = apps.get_model("catalog", "Product")
    PriceList = apps.get_model("catalog", "PriceList")
    PriceListItem = apps.get_model("catalog", "PriceListItem")
    if not Product.objects.filter(part_number=SEEDED_BY).exists():
        return
    for part_number, (fields, prices) in RACKS.items():
        product, created = Product.objects.get_or_create(part_number=part_number, defaults=fields)
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
        ("catalog", "0014_per_gpu_software_and_storage"),
    ]

    operations = [
        migrations.AddField(
            model_name="product",
            name="cooling",
            field=models.CharField(
                blank=True,
                choices=[
                    ("air", "Air-cooled"),
                    ("liquid", "Liquid-cooled"),
                    ("liquid-rack", "Liquid-cooled rack-scale system (a rack of its own)"),
                ],
                help_text="Rack-scale (GB200 NVL72): one item is a whole liquid-cooled rack with "
                "its own power shelves. Empty: not stated (air).",
                max_length=12,
                verbose_name="cooling",
            ),
        ),
        migrations.RunPython(add_nvl72_racks, migrations.RunPython.noop),
    ]

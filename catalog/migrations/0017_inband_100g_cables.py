# NVIDIA LinkX 100GbE QSFP28 cables for the in-band management network (#26): passive copper
# (MCP1600-C, to its 5 m reach) and active optical (MFA1A00-C), so a design quotes one per in-band
# run (docs/fabric-design.md, "Beside the compute fabric"; sources and the reference prices'
# rule in catalog/data/SOURCES.md, "100GbE in-band cables"). Added to databases seeded before
# them, as 0009 added the UFM host: a database never seeded is left alone (load_catalog brings
# them), and a row already there is kept as its catalog manager left it. Prices go to the
# default reference list of each currency.

from decimal import Decimal

from django.db import migrations

SEEDED_BY = "920-9N302-00F7-0C2"  # a database holding the seed's SN4600C in-band switch
# part number: (product, {currency: (list price, cost)}), as the CSV's rows.
CABLES = {
    "MCP1600-C00A": (
        {
            "name": "NVIDIA 100GbE QSFP28 passive copper cable (DAC), 0.5 m (in-band management)",
            "name_zh": "NVIDIA 100GbE QSFP28 无源铜缆（DAC），0.5 m（带内管理）",
            "media": "dac",
            "reach_m": Decimal("0.5"),
            "length_m": Decimal("0.5"),
            "description_en": (
                "100GbE DAC between two QSFP28 ports, 0.5 m: an in-band management port (a server's QSFP112 port takes it) to its SN4600C, or an MLAG peer link. Passive copper reaches 5 m. Reference price: verify."
            ),
            "description_zh": "两个 QSFP28 端口之间的 100GbE 无源铜缆，0.5 米：带内管理口（服务器的 QSFP112 端口兼容）至 SN4600C，或 MLAG 对等链路。无源铜缆最长 5 米。参考价格，请核实。",
        },
        {
            "USD": (Decimal("70.00"), Decimal("54.60")),
            "CNY": (Decimal("504.00"), Decimal("393.12")),
        },
    ),
    "MCP1600-C001": (
        {
            "name": "NVIDIA 100GbE QSFP28 passive copper cable (DAC), 1 m (in-band management)",
            "name_zh": "NVIDIA 100GbE QSFP28 无源铜缆（DAC），1 m（带内管理）",
            "media": "dac",
            "reach_m": Decimal("1"),
            "length_m": Decimal("1"),
            "description_en": (
                "100GbE DAC between two QSFP28 ports, 1 m: an in-band management port (a server's QSFP112 port takes it) to its SN4600C, or an MLAG peer link. Passive copper reaches 5 m. Reference price: verify."
            ),
            "description_zh": "两个 QSFP28 端口之间的 100GbE 无源铜缆，1 米：带内管理口（服务器的 QSFP112 端口兼容）至 SN4600C，或 MLAG 对等链路。无源铜缆最长 5 米。参考价格，请核实。",
        },
        {
            "USD": (Decimal("80.00"), Decimal("62.40")),
            "CNY": (Decimal("576.00"), Decimal("449.28")),
        },
    ),
    "MCP1600-C01A": (
        {
            "name": "NVIDIA 100GbE QSFP28 passive copper cable (DAC), 1.5 m (in-band management)",
            "name_zh": "NVIDIA 100GbE QSFP28 无源铜缆（DAC），1.5 m（带内管理）",
            "media": "dac",
            "reach_m": Decimal("1.5"),
            "length_m": Decimal("1.5"),
            "description_en": (
                "100GbE DAC between two QSFP28 ports, 1.5 m: an in-band management port (a server's QSFP112 port takes it) to its SN4600C, or an MLAG peer link. Passive copper reaches 5 m. Reference price: verify."
            ),
            "description_zh": "两个 QSFP28 端口之间的 100GbE 无源铜缆，1.5 米：带内管理口（服务器的 QSFP112 端口兼容）至 SN4600C，或 MLAG 对等链路。无源铜缆最长 5 米。参考价格，请核实。",
        },
        {
            "USD": (Decimal("90.00"), Decimal("70.20")),
            "CNY": (Decimal("648.00"), Decimal("505.44")),
        },
    ),
    "MCP1600-C002": (
        {
            "name": "NVIDIA 100GbE QSFP28 passive copper cable (DAC), 2 m (in-band management)",
            "name_zh": "NVIDIA 100GbE QSFP28 无源铜缆（DAC），2 m（带内管理）",
            "media": "dac",
            "reach_m": Decimal("2"),
            "length_m": Decimal("2"),
            "description_en": (
                "100GbE DAC between two QSFP28 ports, 2 m: an in-band management port (a server's QSFP112 port takes it) to its SN4600C, or an MLAG peer link. Passive copper reaches 5 m. Reference price: verify."
            ),
            "description_zh": "两个 QSFP28 端口之间的 100GbE 无源铜缆，2 米：带内管理口（服务器的 QSFP112 端口兼容）至 SN4600C，或 MLAG 对等链路。无源铜缆最长 5 米。参考价格，请核实。",
        },
        {
            "USD": (Decimal("100.00"), Decimal("78.00")),
            "CNY": (Decimal("720.00"), Decimal("561.60")),
        },
    ),
    "MCP1600-C02A": (
        {
            "name": "NVIDIA 100GbE QSFP28 passive copper cable (DAC), 2.5 m (in-band management)",
            "name_zh": "NVIDIA 100GbE QSFP28 无源铜缆（DAC），2.5 m（带内管理）",
            "media": "dac",
            "reach_m": Decimal("2.5"),
            "length_m": Decimal("2.5"),
            "description_en": (
                "100GbE DAC between two QSFP28 ports, 2.5 m: an in-band management port (a server's QSFP112 port takes it) to its SN4600C, or an MLAG peer link. Passive copper reaches 5 m. Reference price: verify."
            ),
            "description_zh": "两个 QSFP28 端口之间的 100GbE 无源铜缆，2.5 米：带内管理口（服务器的 QSFP112 端口兼容）至 SN4600C，或 MLAG 对等链路。无源铜缆最长 5 米。参考价格，请核实。",
        },
        {
            "USD": (Decimal("110.00"), Decimal("85.80")),
            "CNY": (Decimal("792.00"), Decimal("617.76")),
        },
    ),
    "MCP1600-C003": (
        {
            "name": "NVIDIA 100GbE QSFP28 passive copper cable (DAC), 3 m (in-band management)",
            "name_zh": "NVIDIA 100GbE QSFP28 无源铜缆（DAC），3 m（带内管理）",
            "media": "dac",
            "reach_m": Decimal("3"),
            "length_m": Decimal("3"),
            "description_en": (
                "100GbE DAC between two QSFP28 ports, 3 m: an in-band management port (a server's QSFP112 port takes it) to its SN4600C, or an MLAG peer link. Passive copper reaches 5 m. Reference price: verify."
            ),
            "description_zh": "两个 QSFP28 端口之间的 100GbE 无源铜缆，3 米：带内管理口（服务器的 QSFP112 端口兼容）至 SN4600C，或 MLAG 对等链路。无源铜缆最长 5 米。参考价格，请核实。",
        },
        {
            "USD": (Decimal("120.00"), Decimal("93.60")),
            "CNY": (Decimal("864.00"), Decimal("673.92")),
        },
    ),
    "MCP1600-C005": (
        {
            "name": "NVIDIA 100GbE QSFP28 passive copper cable (DAC), 5 m (in-band management)",
            "name_zh": "NVIDIA 100GbE QSFP28 无源铜缆（DAC），5 m（带内管理）",
            "media": "dac",
            "reach_m": Decimal("5"),
            "length_m": Decimal("5"),
            "description_en": (
                "100GbE DAC between two QSFP28 ports, 5 m: an in-band management port (a server's QSFP112 port takes it) to its SN4600C, or an MLAG peer link. Passive copper reaches 5 m. Reference price: verify."
            ),
            "description_zh": "两个 QSFP28 端口之间的 100GbE 无源铜缆，5 米：带内管理口（服务器的 QSFP112 端口兼容）至 SN4600C，或 MLAG 对等链路。无源铜缆最长 5 米。参考价格，请核实。",
        },
        {
            "USD": (Decimal("160.00"), Decimal("124.80")),
            "CNY": (Decimal("1152.00"), Decimal("898.56")),
        },
    ),
    "MFA1A00-C003": (
        {
            "name": "NVIDIA 100GbE QSFP28 active optical cable (AOC), 3 m (in-band management)",
            "name_zh": "NVIDIA 100GbE QSFP28 有源光缆（AOC），3 m（带内管理）",
            "media": "aoc",
            "reach_m": Decimal("3"),
            "length_m": Decimal("3"),
            "description_en": (
                "100GbE AOC with both QSFP28 ends built in, 3 m: an in-band management run beyond the 5 m passive copper reaches. Reference price: verify."
            ),
            "description_zh": "100GbE 有源光缆（两端 QSFP28 模块一体），3 米：用于无源铜缆（5 米）够不到的带内管理线路。参考价格，请核实。",
        },
        {
            "USD": (Decimal("208.00"), Decimal("162.24")),
            "CNY": (Decimal("1497.60"), Decimal("1168.13")),
        },
    ),
    "MFA1A00-C005": (
        {
            "name": "NVIDIA 100GbE QSFP28 active optical cable (AOC), 5 m (in-band management)",
            "name_zh": "NVIDIA 100GbE QSFP28 有源光缆（AOC），5 m（带内管理）",
            "media": "aoc",
            "reach_m": Decimal("5"),
            "length_m": Decimal("5"),
            "description_en": (
                "100GbE AOC with both QSFP28 ends built in, 5 m: an in-band management run beyond the 5 m passive copper reaches. Reference price: verify."
            ),
            "description_zh": "100GbE 有源光缆（两端 QSFP28 模块一体），5 米：用于无源铜缆（5 米）够不到的带内管理线路。参考价格，请核实。",
        },
        {
            "USD": (Decimal("220.00"), Decimal("171.60")),
            "CNY": (Decimal("1584.00"), Decimal("1235.52")),
        },
    ),
    "MFA1A00-C010": (
        {
            "name": "NVIDIA 100GbE QSFP28 active optical cable (AOC), 10 m (in-band management)",
            "name_zh": "NVIDIA 100GbE QSFP28 有源光缆（AOC），10 m（带内管理）",
            "media": "aoc",
            "reach_m": Decimal("10"),
            "length_m": Decimal("10"),
            "description_en": (
                "100GbE AOC with both QSFP28 ends built in, 10 m: an in-band management run beyond the 5 m passive copper reaches. Reference price: verify."
            ),
            "description_zh": "100GbE 有源光缆（两端 QSFP28 模块一体），10 米：用于无源铜缆（5 米）够不到的带内管理线路。参考价格，请核实。",
        },
        {
            "USD": (Decimal("250.00"), Decimal("195.00")),
            "CNY": (Decimal("1800.00"), Decimal("1404.00")),
        },
    ),
    "MFA1A00-C015": (
        {
            "name": "NVIDIA 100GbE QSFP28 active optical cable (AOC), 15 m (in-band management)",
            "name_zh": "NVIDIA 100GbE QSFP28 有源光缆（AOC），15 m（带内管理）",
            "media": "aoc",
            "reach_m": Decimal("15"),
            "length_m": Decimal("15"),
            "description_en": (
                "100GbE AOC with both QSFP28 ends built in, 15 m: an in-band management run beyond the 5 m passive copper reaches. Reference price: verify."
            ),
            "description_zh": "100GbE 有源光缆（两端 QSFP28 模块一体），15 米：用于无源铜缆（5 米）够不到的带内管理线路。参考价格，请核实。",
        },
        {
            "USD": (Decimal("280.00"), Decimal("218.40")),
            "CNY": (Decimal("2016.00"), Decimal("1572.48")),
        },
    ),
    "MFA1A00-C020": (
        {
            "name": "NVIDIA 100GbE QSFP28 active optical cable (AOC), 20 m (in-band management)",
            "name_zh": "NVIDIA 100GbE QSFP28 有源光缆（AOC），20 m（带内管理）",
            "media": "aoc",
            "reach_m": Decimal("20"),
            "length_m": Decimal("20"),
            "description_en": (
                "100GbE AOC with both QSFP28 ends built in, 20 m: an in-band management run beyond the 5 m passive copper reaches. Reference price: verify."
            ),
            "description_zh": "100GbE 有源光缆（两端 QSFP28 模块一体），20 米：用于无源铜缆（5 米）够不到的带内管理线路。参考价格，请核实。",
        },
        {
            "USD": (Decimal("310.00"), Decimal("241.80")),
            "CNY": (Decimal("2232.00"), Decimal("1740.96")),
        },
    ),
    "MFA1A00-C030": (
        {
            "name": "NVIDIA 100GbE QSFP28 active optical cable (AOC), 30 m (in-band management)",
            "name_zh": "NVIDIA 100GbE QSFP28 有源光缆（AOC），30 m（带内管理）",
            "media": "aoc",
            "reach_m": Decimal("30"),
            "length_m": Decimal("30"),
            "description_en": (
                "100GbE AOC with both QSFP28 ends built in, 30 m: an in-band management run beyond the 5 m passive copper reaches. Reference price: verify."
            ),
            "description_zh": "100GbE 有源光缆（两端 QSFP28 模块一体），30 米：用于无源铜缆（5 米）够不到的带内管理线路。参考价格，请核实。",
        },
        {
            "USD": (Decimal("370.00"), Decimal("288.60")),
            "CNY": (Decimal("2664.00"), Decimal("2077.92")),
        },
    ),
    "MFA1A00-C050": (
        {
            "name": "NVIDIA 100GbE QSFP28 active optical cable (AOC), 50 m (in-band management)",
            "name_zh": "NVIDIA 100GbE QSFP28 有源光缆（AOC），50 m（带内管理）",
            "media": "aoc",
            "reach_m": Decimal("50"),
            "length_m": Decimal("50"),
            "description_en": (
                "100GbE AOC with both QSFP28 ends built in, 50 m: an in-band management run beyond the 5 m passive copper reaches. Reference price: verify."
            ),
            "description_zh": "100GbE 有源光缆（两端 QSFP28 模块一体），50 米：用于无源铜缆（5 米）够不到的带内管理线路。参考价格，请核实。",
        },
        {
            "USD": (Decimal("490.00"), Decimal("382.20")),
            "CNY": (Decimal("3528.00"), Decimal("2751.84")),
        },
    ),
}


def add_inband_cables(apps, schema_editor):
    Product = apps.get_model("catalog", "Product")
    PriceList = apps.get_model("catalog", "PriceList")
    PriceListItem = apps.get_model("catalog", "PriceListItem")
    if not Product.objects.filter(part_number=SEEDED_BY).exists():
        return
    for part_number, (fields, prices) in CABLES.items():
        product, created = Product.objects.get_or_create(
            part_number=part_number,
            defaults={
                **fields,
                "category": "cable",
                "family": "LinkX",
                "generation": "100GbE",
                "protocol": "ethernet",
                "lifecycle": "active",
                "unit": "each",
                "port_speed_gbps": 100,
                "cage_type": "QSFP28",
                "breakout": 1,
            },
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
        ("catalog", "0016_psu_fan_spares"),
    ]

    operations = [
        migrations.RunPython(add_inband_cables, migrations.RunPython.noop),
    ]

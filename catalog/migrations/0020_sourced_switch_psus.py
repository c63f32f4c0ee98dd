# Sourced PSUs for the switches the engine designs with (the spares kit's PSU/fan class): the
# QM9700/QM9790's MTEF-PSF-AC-K (P2C) and MTEF-PSR-AC-K (C2P), and the SN5600's
# 930-9SPSU-00RA-00B, two per switch, with the reference prices the seed gives them (ours, 3 % of
# the switch's list price: NVIDIA publishes none). Sources and the price rule:
# catalog/data/SOURCES.md, "PSUs and fans". Added to a database seeded before them, as 0017 added
# the in-band cables: a database never seeded is left alone (load_catalog brings them), a unit
# already there is kept as the catalog manager left it, and a pair is added only where both parts
# are in the catalog. Migrating back leaves them (as 0017 does): by then quotes may name them and
# the catalog manager may have edited them.

from decimal import Decimal

from django.db import migrations

SEEDED_BY = "MQM9700-NS2F"  # a database holding the seed's NDR switch
# part number: (product, {currency: (list price, cost)}), as the CSV's rows.
UNITS = {
    "MTEF-PSF-AC-K": (
        {
            "name": "NVIDIA switch power supply unit, AC, P2C airflow, for QM9700/QM9790 (field-replaceable)",
            "name_zh": "NVIDIA 交换机电源模块，交流，前后风道（P2C），适用于 QM9700/QM9790（现场可更换）",
            "family": "Quantum-2",
            "description_en": (
                "The AC power supply a QM9700 or QM9790 with P2C airflow (MQM9700-NS2F, MQM9790-NS2F) holds two of, as NVIDIA's hw-mgmt describes the QM9700's PSU; forward (P2C) airflow, matching the switch's. Spared by the quote's spares kit (PSU/fan class). Reference price: verify (ours, 3 % of the QM9700's list price; catalog/data/SOURCES.md)."
            ),
            "description_zh": "P2C 风道的 QM9700 或 QM9790（MQM9700-NS2F、MQM9790-NS2F）装有两块的交流电源模块（据 NVIDIA hw-mgmt 对 QM9700 电源的描述）；前后风道（P2C），与交换机一致。报价的备件包（电源/风扇类）按此备货。参考价格，请核实（按 QM9700 目录价的 3 % 推算，见 catalog/data/SOURCES.md）。",
        },
        {
            "USD": (Decimal("960.00"), Decimal("748.80")),
            "CNY": (Decimal("6912.00"), Decimal("5391.36")),
        },
    ),
    "MTEF-PSR-AC-K": (
        {
            "name": "NVIDIA switch power supply unit, AC, C2P airflow, for QM9700/QM9790 (field-replaceable)",
            "name_zh": "NVIDIA 交换机电源模块，交流，后前风道（C2P），适用于 QM9700/QM9790（现场可更换）",
            "family": "Quantum-2",
            "description_en": (
                "The reverse-airflow (C2P) twin of MTEF-PSF-AC-K, for a QM9700 or QM9790 with C2P airflow (MQM9700-NS2R, MQM9790-NS2R), two per switch. Spared by the quote's spares kit (PSU/fan class). Reference price: verify (ours, as MTEF-PSF-AC-K; catalog/data/SOURCES.md)."
            ),
            "description_zh": "MTEF-PSF-AC-K 的反向风道（C2P）型号，用于 C2P 风道的 QM9700 或 QM9790（MQM9700-NS2R、MQM9790-NS2R），每台两块。报价的备件包（电源/风扇类）按此备货。参考价格，请核实（与 MTEF-PSF-AC-K 相同，见 catalog/data/SOURCES.md）。",
        },
        {
            "USD": (Decimal("960.00"), Decimal("748.80")),
            "CNY": (Decimal("6912.00"), Decimal("5391.36")),
        },
    ),
    "930-9SPSU-00RA-00B": (
        {
            "name": "NVIDIA switch power supply unit, AC, 3300 W, for SN5600 (field-replaceable)",
            "name_zh": "NVIDIA 交换机电源模块，交流，3300 W，适用于 SN5600（现场可更换）",
            "family": "Spectrum-4",
            "description_en": (
                "The AC power supply an SN5600 (920-9N42F-00RI-7C0) holds two of, as the switch reports its PSUs (3300 W each). Spared by the quote's spares kit (PSU/fan class). Reference price: verify (ours, 3 % of the SN5600's list price; catalog/data/SOURCES.md)."
            ),
            "description_zh": "SN5600（920-9N42F-00RI-7C0）装有两块的交流电源模块（据交换机自身上报的电源部件号，每块 3300 W）。报价的备件包（电源/风扇类）按此备货。参考价格，请核实（按 SN5600 目录价的 3 % 推算，见 catalog/data/SOURCES.md）。",
        },
        {
            "USD": (Decimal("1650.00"), Decimal("1287.00")),
            "CNY": (Decimal("11880.00"), Decimal("9266.40")),
        },
    ),
}
# (switch, unit, per switch, source), as replaceable_units.csv's rows.
PAIRS = [
    (
        "MQM9700-NS2F",
        "MTEF-PSF-AC-K",
        2,
        (
            "verify: NVIDIA hw-mgmt (github.com/Mellanox/hw-mgmt, read 2026-12-07): usr/etc/hw-management-virtual/HI130 (MQM9700) psu_vpd, PN MTEF-PSF-AC-K; commit f0af2344 lists it forward airflow (F); hw-management.sh psu_count=2. QM9790: the QM9700's chassis, assumed"
        ),
    ),
    (
        "MQM9790-NS2F",
        "MTEF-PSF-AC-K",
        2,
        (
            "verify: NVIDIA hw-mgmt (github.com/Mellanox/hw-mgmt, read 2026-12-07): usr/etc/hw-management-virtual/HI130 (MQM9700) psu_vpd, PN MTEF-PSF-AC-K; commit f0af2344 lists it forward airflow (F); hw-management.sh psu_count=2. QM9790: the QM9700's chassis, assumed"
        ),
    ),
    (
        "MQM9700-NS2R",
        "MTEF-PSR-AC-K",
        2,
        (
            "verify: NVIDIA hw-mgmt (github.com/Mellanox/hw-mgmt, read 2026-12-07) commit f0af2344 lists MTEF-PSR-AC-K reverse airflow (R) beside the QM9700's MTEF-PSF-AC-K (F): its C2P twin by the naming, assumed; two per switch as the P2C model"
        ),
    ),
    (
        "MQM9790-NS2R",
        "MTEF-PSR-AC-K",
        2,
        (
            "verify: NVIDIA hw-mgmt (github.com/Mellanox/hw-mgmt, read 2026-12-07) commit f0af2344 lists MTEF-PSR-AC-K reverse airflow (R) beside the QM9700's MTEF-PSF-AC-K (F): its C2P twin by the naming, assumed; two per switch as the P2C model"
        ),
    ),
    (
        "920-9N42F-00RI-7C0",
        "930-9SPSU-00RA-00B",
        2,
        (
            "verify: an SN5600 920-9N42F-00RI-7C0 reports PSU1 and PSU2 of model 930-9SPSU-00RA-00B, 3300 W (NVIDIA/nv-config-manager, Cumulus hardware endpoint test data); NVIDIA hw-mgmt HI144 (SN5600) psu_vpd, same P/N (read 2026-12-07)"
        ),
    ),
]


def add_sourced_switch_psus(apps, schema_editor):
    Product = apps.get_model("catalog", "Product")
    PriceList = apps.get_model("catalog", "PriceList")
    PriceListItem = apps.get_model("catalog", "PriceListItem")
    ReplaceableUnit = apps.get_model("catalog", "ReplaceableUnit")
    if not Product.objects.filter(part_number=SEEDED_BY).exists():
        return
    for part_number, (fields, prices) in UNITS.items():
        product, created = Product.objects.get_or_create(
            part_number=part_number,
            defaults={**fields, "category": "psu_fan", "lifecycle": "active", "unit": "each"},
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
    products = Product.objects.in_bulk(
        {p[0] for p in PAIRS} | {p[1] for p in PAIRS}, field_name="part_number"
    )
    for switch, unit, per_switch, source in PAIRS:
        if switch in products and unit in products:
            ReplaceableUnit.objects.get_or_create(
                switch=products[switch],
                unit=products[unit],
                defaults={"per_switch": per_switch, "source": source},
            )


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0019_product_lead_time_weeks"),
    ]

    operations = [
        migrations.RunPython(add_sourced_switch_psus, migrations.RunPython.noop),
    ]

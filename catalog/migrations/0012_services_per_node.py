# The services the seed brief sells with every cluster (NCCL tuning, a firmware compatibility
# audit, an RDMA bandwidth test with an nccl-tests acceptance report), priced per GPU node so
# that a quote made from a design sells them by the cluster's size (unit "node"; sources in
# catalog/data/SOURCES.md). Added to databases seeded before them, as 0009 added the UFM host: a
# database never seeded is left alone (load_catalog brings them), and a row already there is kept
# as its catalog manager left it. Prices go to the default reference list of each currency.

from decimal import Decimal

from django.db import migrations, models

SEEDED_BY = "SVC-NCCL-TUNING"  # a database holding the seed's per-project tuning was seeded
# part number: (product, {currency: (list price, cost)}), as the CSV's reference rows.
SERVICES = {
    "SVC-NCCL-TUNING-1N": (
        {
            "name": "NCCL communication tuning, per GPU node",
            "name_zh": "NCCL 通信调优，按 GPU 节点计",
            "description_en": (
                "NCCL communication tuning for the whole cluster, priced per GPU node: NIC firmware, CUDA and NCCL versions and parameters tuned until nccl-tests reach the fabric's bandwidth. Reference price: verify."
            ),
            "description_zh": "整个集群的 NCCL 通信调优，按 GPU 节点计价：调优网卡固件、CUDA 与 NCCL 版本及参数，直至 nccl-tests 达到网络带宽。参考价格，请核实。",
        },
        {
            "USD": (Decimal("250.00"), Decimal("195.00")),
            "CNY": (Decimal("1800.00"), Decimal("1404.00")),
        },
    ),
    "SVC-FW-AUDIT-1N": (
        {
            "name": "Firmware compatibility audit (switches, NICs, optics, drivers), per GPU node",
            "name_zh": "固件兼容性审核（交换机、网卡、光模块、驱动），按 GPU 节点计",
            "description_en": (
                "Firmware compatibility audit of the switches, NICs, optics and drivers the cluster runs, priced per GPU node. Reference price: verify."
            ),
            "description_zh": "对集群所用交换机、网卡、光模块与驱动进行固件兼容性排查，按 GPU 节点计价。参考价格，请核实。",
        },
        {
            "USD": (Decimal("125.00"), Decimal("97.50")),
            "CNY": (Decimal("900.00"), Decimal("702.00")),
        },
    ),
    "SVC-RDMA-TEST-1N": (
        {
            "name": "RDMA bandwidth test and nccl-tests acceptance report, per GPU node",
            "name_zh": "RDMA 带宽测试及 nccl-tests 验收报告，按 GPU 节点计",
            "description_en": (
                "RDMA bandwidth stress test between every GPU node and an nccl-tests acceptance report, priced per GPU node. Reference price: verify."
            ),
            "description_zh": "对每个 GPU 节点进行 RDMA 带宽压测并出具 nccl-tests 验收报告，按 GPU 节点计价。参考价格，请核实。",
        },
        {
            "USD": (Decimal("160.00"), Decimal("124.80")),
            "CNY": (Decimal("1152.00"), Decimal("898.56")),
        },
    ),
}


def add_services(apps, schema_editor):
    Product = apps.get_model("catalog", "Product")
    PriceList = apps.get_model("catalog", "PriceList")
    PriceListItem = apps.get_model("catalog", "PriceListItem")
    if not Product.objects.filter(part_number=SEEDED_BY).exists():
        return
    for part_number, (fields, prices) in SERVICES.items():
        product, created = Product.objects.get_or_create(
            part_number=part_number,
            defaults={
                **fields,
                "category": "service",
                "family": "Services",
                "lifecycle": "active",
                "unit": "node",
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
        ("catalog", "0011_spares_ratio"),
    ]

    operations = [
        migrations.AlterField(
            model_name="product",
            name="unit",
            field=models.CharField(
                choices=[
                    ("each", "each"),
                    ("endpoint", "per endpoint"),
                    ("day", "per day"),
                    ("year", "per year"),
                    ("project", "per project"),
                    ("node", "per node"),
                ],
                default="each",
                max_length=10,
                verbose_name="unit",
            ),
        ),
        migrations.RunPython(add_services, migrations.RunPython.noop),
    ]

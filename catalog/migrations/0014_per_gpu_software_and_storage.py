# NVIDIA's software sold per GPU per year (unit "gpu_year", paid yearly): NVIDIA AI Enterprise at
# NVIDIA's public reference price, and Base Command Manager, which has no published price (its row
# comes without one: the catalog manager enters the partner price). And the category for the
# third-party storage and backup items the catalog manager adds. Added to databases seeded before
# them, as 0012 added the per-node services: a database never seeded is left alone (load_catalog
# brings them), and a row already there is kept as its catalog manager left it. Sources in
# catalog/data/SOURCES.md.

from decimal import Decimal

from django.db import migrations, models

SEEDED_BY = "MQM9700-NS2F"  # a database holding the seed's first switch was seeded
# part number: (product, {currency: (list price, cost)}), as the CSV's reference rows.
ROWS = {
    "NVAIE-SUB-1Y-GPU": (
        {
            "name": "NVIDIA AI Enterprise subscription, per GPU, 1 year (Business Standard support)",
            "name_zh": "NVIDIA AI Enterprise 订阅，按 GPU 计，1 年（含 Business Standard 支持）",
            "family": "AI Enterprise",
            "description_en": (
                "NVIDIA's AI software platform (drivers, GPU and network operators, NIM, NeMo, Triton), licensed per GPU per year; a multi-GPU card needs one licence per GPU. Some GPUs (H100 PCIe/NVL, H200 NVL) include a 5-year subscription: check before quoting. Reference price: NVIDIA's public USD 4,500 per GPU per year (catalog/data/SOURCES.md)."
            ),
            "description_zh": "NVIDIA AI 软件平台（驱动、GPU 与网络 Operator、NIM、NeMo、Triton），按 GPU 按年授权；多 GPU 卡每个 GPU 需一个许可证。部分 GPU（H100 PCIe/NVL、H200 NVL）已含 5 年订阅：报价前请核实。参考价格：NVIDIA 公开价每 GPU 每年 4,500 美元（见 catalog/data/SOURCES.md）。",
        },
        {
            "USD": (Decimal("4500.00"), Decimal("3510.00")),
            "CNY": (Decimal("32400.00"), Decimal("25272.00")),
        },
    ),
    "BCM-LIC-1Y-GPU": (
        {
            "name": "NVIDIA Base Command Manager licence, per GPU, 1 year",
            "name_zh": "NVIDIA Base Command Manager 许可证，按 GPU 计，1 年",
            "family": "Base Command Manager",
            "description_en": (
                "Cluster management for the GPU servers: provisioning, monitoring, Slurm and Kubernetes, licensed per GPU per year. NVIDIA publishes no list price: ask the NVIDIA partner price and enter it in the price list before quoting (catalog/data/SOURCES.md)."
            ),
            "description_zh": "GPU 服务器集群管理：部署、监控、Slurm 与 Kubernetes，按 GPU 按年授权。NVIDIA 未公布目录价：报价前请向 NVIDIA 合作伙伴询价并录入价目表（见 catalog/data/SOURCES.md）。",
        },
        {},
    ),
}


def add_software(apps, schema_editor):
    Product = apps.get_model("catalog", "Product")
    PriceList = apps.get_model("catalog", "PriceList")
    PriceListItem = apps.get_model("catalog", "PriceListItem")
    if not Product.objects.filter(part_number=SEEDED_BY).exists():
        return
    for part_number, (fields, prices) in ROWS.items():
        product, created = Product.objects.get_or_create(
            part_number=part_number,
            defaults={**fields, "category": "software", "lifecycle": "active", "unit": "gpu_year"},
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
        ("catalog", "0013_support_response_terms"),
    ]

    operations = [
        migrations.AlterField(
            model_name="product",
            name="category",
            field=models.CharField(
                choices=[
                    ("switch", "Switch"),
                    ("adapter", "Adapter (NIC)"),
                    ("dpu", "DPU"),
                    ("transceiver", "Transceiver"),
                    ("cable", "Cable"),
                    ("server", "Server"),
                    ("software", "Software / licence"),
                    ("service", "Service"),
                    ("support", "Support"),
                    ("storage", "Storage and backup (third party)"),
                ],
                max_length=16,
                verbose_name="category",
            ),
        ),
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
                    ("gpu_year", "per GPU per year"),
                ],
                default="each",
                max_length=10,
                verbose_name="unit",
            ),
        ),
        migrations.RunPython(add_software, migrations.RunPython.noop),
    ]

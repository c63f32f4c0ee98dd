# The spares kit's PSU/fan class (#26 item 8): a catalog category for a switch's field-replaceable
# PSUs and fans, which switch holds how many of each (ReplaceableUnit), and the class's ratio,
# seeded at 5 % of the units inside the design's switches (ours: PSUs and fans are the parts of a
# switch that fail in the field and are swapped on site; docs/fabric-design.md, "Spares kit").
# On a database seeded before, the seed's one sourced unit (MTEF-PSF-AC-C, two in an
# MQM8790-HS2F: catalog/data/SOURCES.md, "PSUs and fans") is added without a price, as NVIDIA
# publishes none; a database never seeded gets it from load_catalog.

import django.core.validators
import django.db.models.deletion
from decimal import Decimal

from django.db import migrations, models

RATIO = ("psus_fans", Decimal("5"))
SWITCH = "MQM8790-HS2F"
UNIT = "MTEF-PSF-AC-C"
PER_SWITCH = 2
SOURCE = (
    "verify: an MQM8790-HS2F reports two PSUs of P/N MTEF-PSF-AC-C (stanford-rc/ibswinfo "
    "README, default output); NVIDIA hw-mgmt hw-management-helpers.sh lists MTEF-PSF-AC-C as a "
    "forward-airflow PSU. Check against the QM87xx user manual's replacement parts"
)
PRODUCT = {
    "name": "NVIDIA switch power supply unit, AC, P2C airflow (field-replaceable)",
    "name_zh": "NVIDIA 交换机电源模块，交流，前后风道（P2C，现场可更换）",
    "category": "psu_fan",
    "family": "Quantum",
    "lifecycle": "active",
    "unit": "each",
    "description_en": (
        "The AC power supply an MQM8790-HS2F holds two of, as the switch reports its PSUs; "
        "forward (P2C) airflow, matching the switch's. Spared by the quote's spares kit "
        "(PSU/fan class). NVIDIA publishes no list price: ask the NVIDIA partner price and "
        "enter it in the price list before it is offered (catalog/data/SOURCES.md)."
    ),
    "description_zh": (
        "MQM8790-HS2F 装有两块的交流电源模块（据交换机自身上报的电源部件号）；前后风道（P2C），"
        "与交换机一致。报价的备件包（电源/风扇类）按此备货。NVIDIA 未公布目录价：请向 NVIDIA "
        "合作伙伴询价并录入价目表后方可提供（见 catalog/data/SOURCES.md）。"
    ),
}


def seed_psu_fan_spares(apps, schema_editor):
    SparesRatio = apps.get_model("catalog", "SparesRatio")
    Product = apps.get_model("catalog", "Product")
    ReplaceableUnit = apps.get_model("catalog", "ReplaceableUnit")
    SparesRatio.objects.get_or_create(spare_class=RATIO[0], defaults={"percent": RATIO[1]})
    switch = Product.objects.filter(part_number=SWITCH).first()
    if switch is None:  # never seeded: load_catalog brings the row and its switch
        return
    unit, _ = Product.objects.get_or_create(part_number=UNIT, defaults=PRODUCT)
    ReplaceableUnit.objects.get_or_create(
        switch=switch, unit=unit, defaults={"per_switch": PER_SWITCH, "source": SOURCE}
    )


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0015_product_cooling_and_nvl72_racks'),
    ]

    operations = [
        migrations.AlterField(
            model_name='product',
            name='category',
            field=models.CharField(choices=[('switch', 'Switch'), ('adapter', 'Adapter (NIC)'), ('dpu', 'DPU'), ('transceiver', 'Transceiver'), ('cable', 'Cable'), ('server', 'Server'), ('software', 'Software / licence'), ('service', 'Service'), ('support', 'Support'), ('storage', 'Storage and backup (third party)'), ('psu_fan', 'PSU or fan module')], max_length=16, verbose_name='category'),
        ),
        migrations.AlterField(
            model_name='sparesratio',
            name='spare_class',
            field=models.CharField(choices=[('optics', 'optics'), ('cables', 'cables'), ('nics', 'NICs'), ('psus_fans', 'PSUs and fans'), ('switches', 'switches')], max_length=20, unique=True, verbose_name='class'),
        ),
        migrations.CreateModel(
            name='ReplaceableUnit',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('per_switch', models.PositiveSmallIntegerField(validators=[django.core.validators.MinValueValidator(1)], verbose_name='per switch')),
                ('source', models.CharField(help_text="Where the part number and count come from, or 'verify' until checked.", max_length=300, verbose_name='source')),
                ('switch', models.ForeignKey(limit_choices_to={'category': 'switch'}, on_delete=django.db.models.deletion.CASCADE, related_name='replaceable_units', to='catalog.product', verbose_name='switch')),
                ('unit', models.ForeignKey(limit_choices_to={'category': 'psu_fan'}, on_delete=django.db.models.deletion.PROTECT, related_name='fits_switches', to='catalog.product', verbose_name='PSU or fan module')),
            ],
            options={
                'verbose_name': 'replaceable unit',
                'verbose_name_plural': 'replaceable units',
                'ordering': ['switch__part_number', 'unit__part_number'],
                'constraints': [models.UniqueConstraint(fields=('switch', 'unit'), name='one_count_per_switch_unit'), models.CheckConstraint(condition=models.Q(('per_switch__gte', 1)), name='per_switch_at_least_1')],
            },
        ),
        migrations.RunPython(seed_psu_fan_spares, migrations.RunPython.noop),
    ]

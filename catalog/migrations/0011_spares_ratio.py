# The spares ratios a quote made from a design offers its spares kit at (catalog.SparesRatio),
# seeded with the defaults the catalog manager starts from: optics and cables 2 %, NICs 1 %
# (the parts that fail or get damaged in handling most), switches 0 % (a whole spare switch is
# offered only when asked for: set its ratio). See docs/fabric-design.md, "Spares kit".

import django.core.validators
from decimal import Decimal

from django.db import migrations, models

DEFAULT_RATIOS = {
    "optics": Decimal("2"),
    "cables": Decimal("2"),
    "nics": Decimal("1"),
    "switches": Decimal("0"),
}


def seed_ratios(apps, schema_editor):
    SparesRatio = apps.get_model("catalog", "SparesRatio")
    for spare_class, percent in DEFAULT_RATIOS.items():
        SparesRatio.objects.get_or_create(spare_class=spare_class, defaults={"percent": percent})


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0010_product_export_classification'),
    ]

    operations = [
        migrations.CreateModel(
            name='SparesRatio',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('spare_class', models.CharField(choices=[('optics', 'optics'), ('cables', 'cables'), ('nics', 'NICs'), ('switches', 'switches')], max_length=20, unique=True, verbose_name='class')),
                ('percent', models.DecimalField(decimal_places=2, help_text="Of the design's quantity of each part of the class, rounded up per part.", max_digits=5, validators=[django.core.validators.MinValueValidator(0), django.core.validators.MaxValueValidator(100)], verbose_name='spares %')),
            ],
            options={
                'verbose_name': 'spares ratio',
                'verbose_name_plural': 'spares ratios',
                'ordering': ['spare_class'],
                'constraints': [models.CheckConstraint(condition=models.Q(('percent__gte', 0), ('percent__lte', 100)), name='spares_percent_0_to_100')],
            },
        ),
        migrations.RunPython(seed_ratios, migrations.RunPython.noop),
    ]

# A support tier's response terms as columns (Product.response_hours, onsite_hours,
# spares_days), printed in the proposal beside the tier. A database seeded before them gets the
# seed's terms on the seed's tiers (catalog/data/nvidia_catalog.csv): the premium tier's 2 h
# response, 4 h on site within the service area and next-day spares, as the brief promises (the
# other tiers' descriptions say what they promise); a tier whose terms were set is left alone.

import django.core.validators
from django.db import migrations, models

# part number: (response hours, on-site hours, spares days), as the seed's rows.
SEED_TERMS = {
    "SUP-PREM-1Y": (2, 4, 1),
}


def seed_terms(apps, schema_editor):
    Product = apps.get_model("catalog", "Product")
    for part_number, (response, onsite, spares) in SEED_TERMS.items():
        Product.objects.filter(
            part_number=part_number,
            category="support",
            response_hours=None,
            onsite_hours=None,
            spares_days=None,
        ).update(response_hours=response, onsite_hours=onsite, spares_days=spares)


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0012_services_per_node'),
    ]

    operations = [
        migrations.AddField(
            model_name='product',
            name='onsite_hours',
            field=models.PositiveSmallIntegerField(blank=True, help_text="Support: hours to be on site within the service area (the company profile's).", null=True, validators=[django.core.validators.MinValueValidator(1)], verbose_name='on site within (hours)'),
        ),
        migrations.AddField(
            model_name='product',
            name='response_hours',
            field=models.PositiveSmallIntegerField(blank=True, help_text='Support: hours to respond, around the clock. Empty: no such promise.', null=True, validators=[django.core.validators.MinValueValidator(1)], verbose_name='response within (hours)'),
        ),
        migrations.AddField(
            model_name='product',
            name='spares_days',
            field=models.PositiveSmallIntegerField(blank=True, help_text='Support: days to deliver a spare part; 1 is the next day.', null=True, validators=[django.core.validators.MinValueValidator(1)], verbose_name='spare parts within (days)'),
        ),
        migrations.RunPython(seed_terms, migrations.RunPython.noop),
    ]

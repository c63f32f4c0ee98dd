# A product's export classification and where it comes from, and the seed's networking and GPU
# server rows filled in on databases loaded before the columns existed (catalog/data/SOURCES.md:
# every seeded classification is marked "verify", none is confirmed).

import django.core.validators
from django.db import migrations, models

SEED_CLASSIFICATIONS = {
    "5A992.c": (
        "MQM9700-NS2F",
        "MQM9700-NS2R",
        "MQM9790-NS2F",
        "MQM9790-NS2R",
        "MQM8700-HS2F",
        "MQM8790-HS2F",
        "920-9B36F-00RX-8S0",
        "920-9N42F-00RI-7C0",
        "920-9N302-00F7-0C2",
        "920-9N110-00F1-0C0",
        "MCX75310AAS-NEAT",
        "MCX75310AAS-HEAT",
        "MCX755106AS-HEAT",
        "MCX653105A-HDAT",
        "MCX653106A-HDAT",
        "MCX623106AN-CDAT",
        "900-9X81E-00EX-ST0",
        "900-9D3B6-00CV-AA0",
        "900-9D3B6-00CN-AB0",
        "900-9D3D4-00EN-HA0",
    ),
    "4A090.a": (
        "HGX-H100-8GPU-SRV",
        "HGX-H200-8GPU-SRV",
        "DGX-H100",
        "DGX-H200",
        "DGX-B200",
        "HGX-B300-8GPU-SRV",
        "DGX-B300",
    ),
}


def fill_seed_classifications(apps, schema_editor):
    Product = apps.get_model("catalog", "Product")
    for classification, part_numbers in SEED_CLASSIFICATIONS.items():
        Product.objects.filter(part_number__in=part_numbers, export_classification="").update(
            export_classification=classification, export_classification_source="verify"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0009_ufm_host_server"),
    ]

    operations = [
        migrations.AddField(
            model_name="product",
            name="export_classification",
            field=models.CharField(
                blank=True,
                help_text="The ECCN the manufacturer states (e.g. 5A992.c), or EAR99; empty when unknown.",
                max_length=20,
                validators=[
                    django.core.validators.RegexValidator(
                        "^(EAR99|[0-9][A-E][0-9]{3}(\\.[A-Za-z0-9]+)*)$",
                        "Use an ECCN such as 5A992.c or 4A090.a, or EAR99.",
                    )
                ],
                verbose_name="export classification",
            ),
        ),
        migrations.AddField(
            model_name="product",
            name="export_classification_source",
            field=models.CharField(
                blank=True,
                help_text='Where the classification comes from (a document, a date), or "verify" while nobody has confirmed it.',
                max_length=200,
                verbose_name="export classification source",
            ),
        ),
        migrations.RunPython(fill_seed_classifications, migrations.RunPython.noop),
    ]

# An alternative carries its own spares kit (issue 26 item 8): optional lines sized from its bill
# of materials, under its group, so the offer lets the customer include the kit of the
# configuration they order only. Existing rows are unchanged (no kit line has a group yet).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0018_premium_support_name_without_a_city"),
        ("quoting", "0031_revision_lead_time"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="quoteline",
            name="only_alternatives_have_a_group",
        ),
        migrations.AlterField(
            model_name="quoteline",
            name="alternative_group",
            field=models.CharField(
                blank=True,
                help_text="Alternatives and their spares kits only: the option this line belongs to, e.g. 'Better'.",
                max_length=100,
                verbose_name="alternative",
            ),
        ),
        migrations.AddConstraint(
            model_name="quoteline",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("section", "alternatives"),
                    ("alternative_group", ""),
                    models.Q(("origin", "spares_kit"), ("section", "optional")),
                    _connector="OR",
                ),
                name="only_alternatives_have_a_group",
            ),
        ),
    ]

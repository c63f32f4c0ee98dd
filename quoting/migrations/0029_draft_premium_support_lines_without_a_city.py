# A quote line keeps the English catalog name it was made with. Draft lines of the premium support
# tier made before catalog/0017 read "4-hour on-site in Shenzhen" whatever the seller's service
# area (issue 26): they take the tier's new name, which names no place (the page adds the company
# profile's). Lines of sent revisions keep what was sent.

from django.db import migrations

OLD = "Premium support, 1 year: 2-hour response, 4-hour on-site in Shenzhen, next-day spares"
NEW = "Premium support, 1 year: 2-hour response, 4-hour on-site, next-day spares"


def rename_draft_lines(apps, schema_editor):
    QuoteLine = apps.get_model("quoting", "QuoteLine")
    QuoteLine.objects.filter(
        sku="SUP-PREM-1Y", description=OLD, revision__frozen_at__isnull=True
    ).update(description=NEW)


class Migration(migrations.Migration):
    dependencies = [
        ("quoting", "0028_install_pack_language"),
        ("catalog", "0018_premium_support_name_without_a_city"),
    ]

    operations = [
        migrations.RunPython(rename_draft_lines, migrations.RunPython.noop),
    ]

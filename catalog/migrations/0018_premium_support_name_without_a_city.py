# The premium support tier's name and description named Shenzhen, so every quote printed "4-hour
# on-site in Shenzhen" whatever the seller's service area (issue 26). The place is the company
# profile's (portal.CompanyProfile.service_area_en/_zh), added where the tier is printed
# (quoting.quotes.models.quotes.with_service_area); the catalog row names none. load_catalog
# updates the row from the CSV; this brings a database seeded before to the same text, where the
# row still reads as seeded (a catalog manager's own wording is left alone).

from django.db import migrations

PART_NUMBER = "SUP-PREM-1Y"
OLD = {
    "name": "Premium support, 1 year: 2-hour response, 4-hour on-site in Shenzhen, next-day spares",
    "name_zh": "高级支持服务，1 年：2 小时响应，深圳 4 小时上门，次日备件到达",
    "description_en": (
        "2-hour response around the clock; on site within 4 hours in Shenzhen; spare parts the "
        "next day."
    ),
    "description_zh": "7×24 小时 2 小时响应；深圳范围内 4 小时到场；1 天内提供备品。",
}
NEW = {
    "name": "Premium support, 1 year: 2-hour response, 4-hour on-site, next-day spares",
    "name_zh": "高级支持服务，1 年：2 小时响应，4 小时上门，次日备件到达",
    "description_en": (
        "2-hour response around the clock; on site within 4 hours in the service area; spare "
        "parts the next day."
    ),
    "description_zh": "7×24 小时 2 小时响应；服务区域内 4 小时到场；1 天内提供备品。",
}


def name_no_city(apps, schema_editor):
    Product = apps.get_model("catalog", "Product")
    for field, old in OLD.items():
        Product.objects.filter(part_number=PART_NUMBER, **{field: old}).update(
            **{field: NEW[field]}
        )


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0017_inband_100g_cables"),
    ]

    operations = [
        migrations.RunPython(name_no_city, migrations.RunPython.noop),
    ]

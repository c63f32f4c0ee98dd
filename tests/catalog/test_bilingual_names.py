"""Catalog names are bilingual data: a Chinese name beside the English one, shown in Chinese."""

import csv
import io

from django.utils import translation

from catalog.models import Product
from catalog.services import SEED_CATALOG, catalog_export_csv, catalog_import_csv


def test_every_shipped_product_has_a_chinese_name_and_description():
    rows = list(csv.DictReader(SEED_CATALOG.read_text(encoding="utf-8").splitlines()))

    assert rows and all(row["name_zh"].strip() for row in rows)
    assert all(row["description_zh"].strip() for row in rows if row["description_en"].strip())


def test_a_product_shows_its_chinese_name_only_in_chinese(seeded):
    switch = Product.objects.get(part_number="MQM9790-NS2F")

    with translation.override("zh-hans"):
        chinese = (switch.display_name, switch.description)
    with translation.override("en"):
        english = (switch.display_name, switch.description)

    assert "交换机" in chinese[0] and chinese[1] == switch.description_zh
    assert english == (switch.name, switch.description_en)


def test_a_product_without_a_chinese_name_shows_its_english_name_in_chinese(db):
    product = Product.objects.create(part_number="X-1", name="Plain cable", category="cable")

    with translation.override("zh-hans"):
        assert product.display_name == "Plain cable"


def test_the_chinese_name_column_is_optional_on_import_and_kept_when_absent(seeded):
    switch = Product.objects.get(part_number="MQM9790-NS2F")
    chinese = switch.name_zh

    catalog_import_csv(text=f'part_number,name,category\nMQM9790-NS2F,"{switch.name}",switch\n')
    switch.refresh_from_db()
    assert switch.name_zh == chinese  # a file without the column leaves it alone

    catalog_import_csv(
        text=f'part_number,name,name_zh,category\nMQM9790-NS2F,"{switch.name}",新名称,switch\n'
    )
    switch.refresh_from_db()
    assert switch.name_zh == "新名称"


def test_the_export_carries_the_chinese_name(seeded):
    text = catalog_export_csv()
    rows = {row["part_number"]: row for row in csv.DictReader(io.StringIO(text.lstrip("\ufeff")))}

    assert (
        rows["MQM9790-NS2F"]["name_zh"] == Product.objects.get(part_number="MQM9790-NS2F").name_zh
    )


def test_the_catalog_page_in_chinese_lists_chinese_names(client, make_user, seeded):
    user = make_user("lin", language="zh-hans")
    client.force_login(user)

    body = client.get("/catalog/?q=MQM9790").content.decode()

    assert Product.objects.get(part_number="MQM9790-NS2F").name_zh in body

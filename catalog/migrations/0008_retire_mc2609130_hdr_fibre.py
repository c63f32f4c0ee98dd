# The seed catalog's "HDR multimode fibres" MC2609130-050/-100 retired on databases loaded before
# they left the CSV (load_catalog adds and updates rows, it never removes one): MC2609130 is
# known as a 40GbE QSFP to 4 x SFP+ copper breakout, not an MPO-12/UPC fibre for the HDR SR4
# module MMA1T00-HS, and no NVIDIA part number for that fibre was found in NVIDIA's public
# documents (catalog/data/SOURCES.md, "HDR multimode fibre"). The rows stay, so quotes and price
# lists that name them keep their product, but end of life (the engine never picks an end-of-life
# part) and with no optics class (no reach: no module takes them as its fibre even if they are
# made active again). An HDR run beyond the catalog's AOCs is then refused, naming the catalog's
# missing fibre, until a catalog manager adds one.

from django.db import migrations

RETIRED = ("MC2609130-050", "MC2609130-100")
NAME = "Retired: {pn} is not an HDR fibre (known as a 40GbE QSFP to 4 x SFP+ copper breakout)"
NAME_ZH = "已停用：{pn} 不是 HDR 光纤（该料号为 40GbE QSFP 转 4 × SFP+ 铜缆分支线）"
DESCRIPTION = (
    "Never quoted. This row was seeded as an OM4 MPO-12 fibre for HDR SR4 optics (MMA1T00-HS), "
    "but MC2609130 is known as a 40GbE QSFP to 4 x SFP+ passive copper breakout cable. Add the "
    "NVIDIA MPO-12/UPC multimode fibre for MMA1T00-HS as a new row when its part number is "
    "confirmed."
)
DESCRIPTION_ZH = (
    "不会被报价。此行曾作为 HDR SR4 模块（MMA1T00-HS）配套的 OM4 MPO-12 光纤导入，但 MC2609130 "
    "是 40GbE QSFP 转 4 × SFP+ 无源铜缆分支线。确认 MMA1T00-HS 配套的 NVIDIA MPO-12/UPC 多模光纤"
    "料号后，请另行添加新行。"
)


def retire_mc2609130(apps, schema_editor):
    Product = apps.get_model("catalog", "Product")
    for row in Product.objects.filter(part_number__in=RETIRED):
        row.lifecycle = "eol"
        row.reach_m = None
        row.name = NAME.format(pn=row.part_number)
        row.name_zh = NAME_ZH.format(pn=row.part_number)
        row.description_en = DESCRIPTION
        row.description_zh = DESCRIPTION_ZH
        row.save()


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0007_product_port_names"),
    ]

    operations = [
        migrations.RunPython(retire_mc2609130, migrations.RunPython.noop),
    ]

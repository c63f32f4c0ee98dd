# A server's OS port names (DGX H100: mlx5_11, mlx5_6 ... in cage order), and the seed's DGX
# rows filled in on databases loaded before the column existed.

from django.db import migrations, models

# The DGX H100 user guide's network-port table, in cage and port order; the H200 and B200 share
# the H100's four twin-port OSFP cages and ConnectX-7 devices (catalog/data/SOURCES.md).
DGX_PORT_NAMES = "mlx5_11 mlx5_6 mlx5_10 mlx5_9 mlx5_4 mlx5_3 mlx5_5 mlx5_0"
DGX_MODELS = ("DGX-H100", "DGX-H200", "DGX-B200")


def fill_dgx_port_names(apps, schema_editor):
    Product = apps.get_model("catalog", "Product")
    Product.objects.filter(part_number__in=DGX_MODELS, port_names="").update(
        port_names=DGX_PORT_NAMES
    )


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0006_product_pricing_basis"),
    ]

    operations = [
        migrations.AddField(
            model_name="product",
            name="port_names",
            field=models.CharField(
                blank=True,
                help_text="A server's compute ports as its operating system names them, in cage "
                "and port order, separated by spaces (DGX H100: mlx5_11 mlx5_6 mlx5_10 ...). "
                "Empty: mlx5_0, mlx5_1, ... in order.",
                max_length=255,
                verbose_name="OS port names",
            ),
        ),
        migrations.RunPython(fill_dgx_port_names, migrations.RunPython.noop),
    ]

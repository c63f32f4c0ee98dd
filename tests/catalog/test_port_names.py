"""A server's OS port names: carried by the seed, the CSV and the engine's specs, one distinct
name per port, on servers only."""

import pytest

from catalog.models import Product
from catalog.selectors import product_specs
from catalog.services import CatalogImportError, catalog_import_csv

DGX_H100_NAMES = "mlx5_11 mlx5_6 mlx5_10 mlx5_9 mlx5_4 mlx5_3 mlx5_5 mlx5_0"


def test_the_seed_names_a_dgx_h100s_compute_ports_as_its_user_guide_does(seeded):
    assert Product.objects.get(part_number="DGX-H100").port_names == DGX_H100_NAMES
    spec = next(s for s in product_specs() if s.part_number == "DGX-H100")
    assert spec.os_port_names == tuple(DGX_H100_NAMES.split())
    # The usual NCCL_IB_HCA set: the names are the DGX's, only the order is the cages'.
    assert sorted(int(n[5:]) for n in spec.os_port_names) == [0, 3, 4, 5, 6, 9, 10, 11]
    assert Product.objects.get(part_number="HGX-H100-8GPU-SRV").port_names == ""


@pytest.mark.parametrize(
    ("part", "category", "names", "message"),
    [
        ("DGX-H100", "server", "mlx5_0 mlx5_1", "one name per port: 8 ports, 2 names"),
        ("DGX-H100", "server", "mlx5_0 " * 8, "its own name"),
        ("DGX-H100", "server", " ".join(["a/b", *(f"x{k}" for k in range(7))]), "letters, digits"),
        ("MQM9700-NS2F", "switch", "mlx5_0", "Only a server"),
    ],
)
def test_wrong_port_names_are_refused_at_their_line(seeded, part, category, names, message):
    name = Product.objects.get(part_number=part).name
    text = f'part_number,name,category,port_names\n{part},"{name}",{category},{names.strip()}\n'
    with pytest.raises(CatalogImportError) as error:
        catalog_import_csv(text=text)
    assert [(e.line, e.field) for e in error.value.errors] == [(2, "port_names")]
    assert message in str(error.value)
    assert Product.objects.get(part_number="DGX-H100").port_names == DGX_H100_NAMES

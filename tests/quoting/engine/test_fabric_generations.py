"""Which NIC generations can be designed: the pages offer only those the catalog can build."""

from __future__ import annotations

from dataclasses import replace

import pytest

from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, design_fabric, designable_generations
from quoting.engine.fabric.parts import find_part
from quoting.engine.fabric.requirements import NIC_GENERATIONS

ALL_GENERATIONS = [value for value, _label in NIC_GENERATIONS]


def _family(generation: str) -> str:
    return "ethernet" if generation.endswith("GbE") else "infiniband"


def test_generations_the_seed_catalog_cannot_build_are_not_offered(catalog):
    offered = designable_generations(catalog, ALL_GENERATIONS)
    assert offered == ("HDR", "NDR200", "NDR", "XDR", "400GbE")


@pytest.mark.parametrize(
    ("generation", "field"),
    [
        # Spectrum-4 runs its 800G cages as 2 x 400GbE: nothing in the catalog runs 800GbE.
        ("800GbE", "nic_generation"),
        ("200GbE", "nic_generation"),
        # The SN4600C serves management and storage; no 100GbE cable exists for compute links.
        ("100GbE", "server_to_leaf"),
    ],
)
def test_a_generation_not_offered_fails_at_any_distance(catalog, generation, field):
    with pytest.raises(InvalidInput) as caught:
        design_fabric(
            FabricRequirements(
                gpu_count=8,
                nic_generation=generation,
                family="ethernet",
                server_to_leaf=0.5,
                leaf_to_spine=0.5,
                spine_to_core=0.5,
            ),
            catalog,
        )
    assert list(caught.value.errors) == [field]


@pytest.mark.parametrize("generation", ["HDR", "NDR200", "NDR", "XDR", "400GbE"])
def test_every_offered_generation_designs_a_fabric_on_its_own_family(catalog, generation):
    design = design_fabric(
        FabricRequirements(
            gpu_count=64,
            nic_generation=generation,
            family=_family(generation),
            server_to_leaf="same-rack",
            leaf_to_spine="same-rack",
            spine_to_core="same-rack",
        ),
        catalog,
    )
    assert design.as_dict()["gpu_count"] == 64


def test_a_catalog_that_gains_800gbe_parts_offers_800gbe(catalog):
    """The choice follows the catalog: 800GbE parts (switch, NIC, optics and fibre at 800G)
    make it designable without a code change."""

    def at_800(part_number: str, **changes):
        return replace(
            find_part(catalog, part_number),
            part_number=f"{part_number}-800GBE",
            generation="800GbE",
            **changes,
        )

    parts = [
        at_800("920-9N42F-00RI-7C0", port_count=64, port_speed_gbps=800),  # SN5600
        at_800("900-9X81E-00EX-ST0"),  # ConnectX-8, one 800G port
        at_800("MMS4A00-XM"),
        at_800("MMS4A00-XM800"),  # XDR optics, switch and host side
        *(
            at_800(p.part_number)
            for p in catalog
            if p.category == "cable" and p.generation == "XDR"
        ),
    ]
    assert "800GbE" in designable_generations([*catalog, *parts], ALL_GENERATIONS)

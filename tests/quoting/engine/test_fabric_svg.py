"""The drawing: well-formed, grouped, counted, escaped, and readable at any size."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from quoting.designs.svg.fabric import fabric_svg
from quoting.engine.fabric import FabricRequirements, design_fabric

SVG = "{http://www.w3.org/2000/svg}"


def drawing(catalog, **fields) -> ET.Element:
    return ET.fromstring(fabric_svg(design_fabric(FabricRequirements(**fields), catalog)))  # noqa: S314 (our own output)


def texts(root: ET.Element) -> str:
    return " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))


def test_a_small_fabric_draws_every_spine_and_its_rail_group_with_bundle_counts(catalog):
    root = drawing(catalog, gpu_count=256)
    words = texts(root)
    assert all(f"spine-0{n}" in words for n in range(1, 5))
    assert "rail group 1" in words and "8 leaves (one per rail)" in words
    assert "32 servers" in words and "node-001 … node-032" in words
    assert "256 links" in words and "8 per leaf per spine" in words


def test_a_500_switch_fabric_elides_boxes_but_keeps_the_counts(catalog):
    root = drawing(catalog, gpu_count=16384)  # 16 pods, 256 leaves, 512 spines, 256 core
    words = texts(root)
    assert "pod 1" in words and "pod 16" in words and "×9 more" in words
    assert "256 core" in words
    assert len(list(root.iter(f"{SVG}rect"))) < 40
    assert float(root.get("width")) < 2000


def test_one_switch_draws_without_spines(catalog):
    words = texts(drawing(catalog, gpu_count=32))
    assert "switch-01" in words and "spines" not in words


def test_a_16_dgx_basepod_at_ndr200_draws_one_switch_of_64_ports_and_128_links(catalog):
    """NVIDIA's DGX BasePOD with an NDR200 compute fabric (test_fabric_basepod.py): 16 DGX x 8
    NDR200 ports on the 64 ports of one QM9700, two to a port."""
    words = texts(
        drawing(catalog, server_count=16, nic_generation="NDR200", server_part_number="DGX-H100")
    )
    assert "1 switch" in words and "16 × DGX-H100" in words
    assert "128 endpoint ports" in words and "128 links" in words and "64 ports" in words
    assert "spines" not in words


def test_free_text_is_escaped(catalog):
    label = 'Lab <script>alert("x")</script> & "Co" ]]>'
    svg = fabric_svg(design_fabric(FabricRequirements(gpu_count=64, label=label), catalog))
    assert "<script>" not in svg
    assert label in texts(ET.fromstring(svg))  # noqa: S314 (our own output)


def test_a_design_with_storage_draws_the_storage_fabric_and_its_servers(catalog):
    design = design_fabric(FabricRequirements(gpu_count=256, storage_servers=8), catalog)
    root = ET.fromstring(fabric_svg(design))  # noqa: S314 (our own output)
    words = texts(root)
    switches = design.storage.leaf_count + design.storage.spine_count + design.storage.core_count
    assert "storage fabric" in words
    assert f"{switches} × {design.storage.switch.part_number}" in words
    assert "8 storage servers" in words and "storage-01 … storage-08" in words
    assert "32 links" in words  # one storage port on each of the 32 servers
    assert "16 links" in words  # two on each storage server
    assert [r for r in root.iter(f"{SVG}rect") if r.get("class") == "storage"]
    # Without storage nothing of it is drawn.
    assert "storage" not in texts(drawing(catalog, gpu_count=256))


def test_the_storage_drawing_is_translated(catalog):
    design = design_fabric(FabricRequirements(gpu_count=256, storage_servers=8), catalog)
    words = {"storage fabric": "存储网络", "{n} storage servers": "{n} 台存储服务器"}
    svg = fabric_svg(design, lambda text: words.get(text, text))
    assert "存储网络" in svg and "8 台存储服务器" in svg


def test_a_drawing_stored_with_the_bare_family_reads_in_todays_fonts_and_only_its_style():
    from quoting.engine.drawing import SVG_FONT_FAMILY, drawing_fonts_current

    fabric = "<svg><style>text{font:12px sans-serif;fill:#1b1f24}</style><text>a</text></svg>"
    racks = "<svg><style>text{font:10px sans-serif;fill:#1b1f24}</style></svg>"
    chart = '<svg width="640" font-family="sans-serif"><text>font-family="sans-serif"</text></svg>'
    assert drawing_fonts_current(fabric) == fabric.replace("sans-serif", SVG_FONT_FAMILY)
    assert drawing_fonts_current(racks) == racks.replace("sans-serif", SVG_FONT_FAMILY)
    assert drawing_fonts_current(chart) == chart.replace("sans-serif", SVG_FONT_FAMILY, 1)
    today = drawing_fonts_current(fabric)
    assert drawing_fonts_current(today) == today  # a drawing drawn today is left as it is

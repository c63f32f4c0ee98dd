"""The installation pack in the reader's language (issue 27, item 4): a Chinese pack's README,
racks.csv words, elevations and labels are Chinese; every file a tool reads is the English
pack's very bytes; its PDFs draw Chinese in an embedded Noto Sans CJK SC subset."""

from __future__ import annotations

import io
import re
import zipfile

import pypdf
import pytest

from quoting.designs.services.packs import pack_translate
from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.install import SiteInputs, cjk, plan_layout
from quoting.engine.install.pack import LANGUAGE_FILES, pack_zip_chunks
from quoting.engine.install.pdf import labels_pdf
from tests.conftest import service_missing

# Each on the site its servers fit (a B300 needs more than the default 12 kW rack).
RACK_KW = {"Spectrum-X, two planes": 40}
DESIGNS = {
    # UFM appliances, storage, both management networks, servers of unknown weight, warnings
    "everything": dict(
        gpu_count=496,
        subnet_manager="ufm-appliance",
        storage_servers=4,
        inband_management=True,
        outofband_management=True,
    ),
    "DGX H100, split ports": dict(
        gpu_count=256, server_part_number="DGX-H100", nic_generation="NDR200"
    ),
    "Spectrum-X, two planes": dict(
        gpu_count=512,
        family="ethernet",
        nic_generation="400GbE",
        planes=2,
        server_part_number="DGX-B300",
    ),
}

# Latin words a Chinese reader still meets: names of products, tools and their own words, units,
# network roles as Chinese engineers write them, and what the files' names and columns are.
# fmt: off
ALLOWED_WORDS = {
    # ours, products, tools
    "FabricQuote", "NVIDIA", "InfiniBand", "GPU", "GPUs", "DGX", "HGX", "UFM", "NDT", "NetBox",
    "Slurm", "ibdiagnet", "ibdm", "ibdmchk", "ibnl", "BMC", "RJ", "GbE", "BOM", "Avery",
    "MLAG",  # the in-band switches' protocol (a pair joined by a peer link)
    # NetBox's import pages and objects (its menus name them so), UFM NDT's column keys
    "Organization", "Racks", "Devices", "Connections", "sites", "locations", "racks",
    "manufacturers", "interfaces", "cables", "devices", "planned", "label", "StartDevice",
    "StartPort", "EndDevice", "EndPort", "LinkType", "Port",
    # the columns and input names the README says stay English, a file format
    "tier", "colour", "kind", "cooling", "category", "rows", "CSV",
    # site input values and tier names the README quotes, network roles as Chinese engineers
    # write them, units and signs
    "overhead", "storage", "leaf", "Leaf", "spine", "core", "kW", "kg", "mm", "pt", "m", "x", "s",
}
# fmt: on


def _pack_pair(name: str, catalog) -> tuple[zipfile.ZipFile, zipfile.ZipFile]:
    design = design_fabric(FabricRequirements(**DESIGNS[name]), catalog)
    layout = plan_layout(design, SiteInputs(rack_power_kw=RACK_KW.get(name, 12)), catalog)
    english = b"".join(pack_zip_chunks(layout, revision="Q-2026-00001 R1"))
    chinese = b"".join(
        pack_zip_chunks(layout, revision="Q-2026-00001 R1", translate=pack_translate("zh-hans"))
    )
    return zipfile.ZipFile(io.BytesIO(english)), zipfile.ZipFile(io.BytesIO(chinese))


_PAIRS: dict[str, tuple[zipfile.ZipFile, zipfile.ZipFile]] = {}


@pytest.fixture(params=list(DESIGNS))
def packs(request, catalog):
    if not cjk.CJK_FONT_PATH.exists():
        service_missing(f"the Chinese PDFs' font is not installed: {cjk.CJK_FONT_PATH}")
    if request.param not in _PAIRS:
        _PAIRS[request.param] = _pack_pair(request.param, catalog)
    return _PAIRS[request.param]


def _english_words(text: str) -> set[str]:
    """Latin words that are words, not codes: a token with a digit, _, -, /, ., : or # in it
    is a name (su1-r01-node01, MQM9790-NS2F, racks_per_row, cable-schedule.csv, mlx5_11); a
    capital alone is a row's name (B 排) or a cable's end (A, Z)."""
    words = set()
    for token in re.findall(r"[A-Za-z0-9_\-./:#<>*'\\]+", text):
        token = token.strip(".'")
        if re.fullmatch(r"[A-Za-z][A-Za-z]+|[a-z]", token) and token not in ALLOWED_WORDS:
            words.add(token)
    return words


def _readme_prose(text: str) -> str:
    """The README without its input lists (`name = value`: the inputs as the API names them)."""
    return "\n".join(line for line in text.splitlines() if not re.match(r"^\w+ = ", line))


def _pdf_text(data: bytes) -> str:
    reader = pypdf.PdfReader(io.BytesIO(data))
    return "\n".join(page.extract_text() for page in reader.pages[:3]) + (
        reader.metadata.title or ""
    )


def _svg_text(svg: str) -> str:
    return " ".join(re.findall(r">([^<>]+)<", re.sub(r"<style>.*?</style>", "", svg)))


def test_the_files_tools_read_are_the_english_packs_very_bytes(packs):
    english, chinese = packs
    assert english.namelist() == chinese.namelist()
    differ = [n for n in english.namelist() if english.read(n) != chinese.read(n)]
    assert set(differ) <= set(LANGUAGE_FILES)
    assert {"README.txt", "rack-elevations.svg", "rack-elevations.pdf", "labels.pdf"} <= set(differ)
    for name in ("cable-schedule.csv", "port-map.csv", "bom-by-rack.csv", "slurm-topology.conf"):
        assert chinese.read(name) == english.read(name)


def test_a_chinese_readme_is_chinese_but_for_names_codes_and_inputs(packs):
    english, chinese = packs
    readme = chinese.read("README.txt").decode()
    assert readme.startswith("FabricQuote 安装包\n==================\n")  # a rule its width
    assert "版本：Q-2026-00001 R1" in readme and "文件\n----\n" in readme
    assert "以下内容保留英文，供读取它们的工具使用" in readme  # why the headers are English
    assert _english_words(_readme_prose(readme)) == set()
    # The inputs keep the names the API and the CLI give them.
    assert "rack_units = 48" in readme and "rack_units = 48" in english.read("README.txt").decode()


def test_chinese_elevations_and_labels_are_chinese_but_for_names_and_part_numbers(packs):
    _, chinese = packs
    svg = _svg_text(chinese.read("rack-elevations.svg").decode())
    elevations = _pdf_text(chinese.read("rack-elevations.pdf"))
    labels = _pdf_text(chinese.read("labels.pdf"))
    assert "机柜立面图" in svg and "排" in svg
    assert "机柜立面图，第 1-6 个机柜" in elevations and "（计算）" in elevations
    assert "线缆标签" in labels and "C000001" in labels
    assert re.search(r"\d m  ?[蓝橙绿红紫棕粉青黄白灰]", labels)  # the colour's name
    for text in (svg, elevations, labels):
        assert _english_words(text) == set(), text[:300]


def test_the_racks_words_are_chinese_and_their_codes_and_headers_english(packs):
    english, chinese = packs
    header = english.read("racks.csv").decode().splitlines()[0]
    rows = chinese.read("racks.csv").decode().splitlines()
    assert rows[0] == header  # columns a spreadsheet, a script or NetBox reads
    for row in rows[1:]:
        assert re.search(r",(compute|network|storage),(air|liquid),", row)
        assert "not in the catalog" not in row


def test_a_chinese_pdf_embeds_only_the_glyphs_it_draws_and_an_english_one_no_chinese_font(
    packs,
):
    english, chinese = packs
    embedded = chinese.read("labels.pdf")
    assert b"/Subtype /CIDFontType0C" in embedded and b"NotoSansCJKsc-Regular" in embedded
    assert b"/ToUnicode" in embedded  # copy and search read the Chinese back
    # A subset: the font file is a few kilobytes, not the face's 65,000 glyphs (16 MB).
    reader = pypdf.PdfReader(io.BytesIO(embedded))
    font = reader.pages[0]["/Resources"]["/Font"]["/F3"].get_object()
    descriptor = font["/DescendantFonts"][0].get_object()["/FontDescriptor"].get_object()
    assert len(descriptor["/FontFile3"].get_object().get_data()) < 200_000
    assert b"NotoSansCJK" not in english.read("labels.pdf")
    assert b"NotoSansCJK" not in english.read("rack-elevations.pdf")


def test_the_same_design_gives_the_same_chinese_bytes(packs, catalog):
    _, chinese = packs
    name = next(n for n, pair in _PAIRS.items() if pair[1] is chinese)
    again = _pack_pair(name, catalog)[1]
    for member in LANGUAGE_FILES:
        assert again.read(member) == chinese.read(member)


def test_without_the_font_a_chinese_pdf_fails_naming_the_font(catalog, monkeypatch, tmp_path):
    design = design_fabric(FabricRequirements(gpu_count=16), catalog)
    layout = plan_layout(design, SiteInputs(), catalog)
    monkeypatch.setattr(cjk, "CJK_FONT_PATH", tmp_path / "NotoSansCJK-Regular.ttc")
    cjk._face.cache_clear()
    try:
        with pytest.raises(cjk.CjkFontMissing, match="Noto Sans CJK SC font at .*fonts-noto-cjk"):
            b"".join(labels_pdf(layout, pack_translate("zh-hans")))
        assert b"".join(labels_pdf(layout)).startswith(b"%PDF")  # English needs no such font
    finally:
        cjk._face.cache_clear()


def test_a_chinese_readme_lists_with_the_enumeration_comma(packs):
    # "a、b" in Chinese, as the elevations and the portal list; the English pack keeps "a, b".
    english, chinese = packs
    readme = chinese.read("README.txt").decode()
    assert ", " not in readme, [line for line in readme.splitlines() if ", " in line]
    assert "、" in readme
    assert "、" not in english.read("README.txt").decode()

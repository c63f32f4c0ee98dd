"""Chart labels that read in both languages (issue 27 item 6, tco-model §7): wrapped, never cut
mid-name when they fit, never wider than their room by the same width estimate that wrapped
them, and never on top of each other; an option whose network is not priced says so."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

import pytest

from quoting.designs.services.tco import tco_charts
from quoting.designs.svg.tco import LEGEND_ROOM, WIDTH, char_width, text_width, wrap
from quoting.engine.tco import TcoRequest, compute_tco
from quoting.engine.tco.names import COMMODITY, OTHER_FAMILY, THIS_DESIGN, UNTUNED

SVG = "{http://www.w3.org/2000/svg}"
THIS = THIS_DESIGN.format(family="Quantum-2 NDR InfiniBand")
OTHER = OTHER_FAMILY.format(transport="RoCE", family="Spectrum-X Ethernet")


@pytest.fixture(scope="module")
def charts():
    def option(name, transport, nics, gbps, capex=None):
        body = {"name": name, "transport": transport, "nics_per_node": nics, "nic_gbps": gbps}
        return body | ({"network_capex": capex} if capex else {})

    body = {
        "peak_tflops": 989,
        "nodes": 32,
        "gpus_per_node": 8,
        "workload": {"params_billion": 70, "tokens_per_node_per_step": 131072, "overlap": 0.7},
        "fabrics": [
            option(THIS, "infiniband", 8, 400, 9_000_000),
            option(OTHER, "roce", 8, 400, 7_000_000),
            option(UNTUNED.format(name=OTHER), "roce_untuned", 8, 400, 7_000_000),
            option(COMMODITY, "roce", 2, 100),
        ],
        "costs": {"server_capex": 80_000_000},
    }
    return tco_charts(compute_tco(TcoRequest.from_dict(body)), unpriced={COMMODITY})


def _texts(svg: str) -> list[ET.Element]:
    root = ET.fromstring(svg)  # noqa: S314 - our own output
    return list(root.iter(f"{SVG}text"))


def _box(text: ET.Element) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of a text by the chart's own width estimate."""
    size = float(text.get("font-size"))
    width = text_width(text.text or "", size)
    x, y = float(text.get("x")), float(text.get("y"))
    left = {"start": x, "middle": x - width / 2, "end": x - width}[text.get("text-anchor")]
    return left, y - 0.8 * size, left + width, y + 0.2 * size  # the em box on its baseline


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_full_width_characters_count_as_a_whole_em():
    assert char_width("网") == 1.0 and char_width("a") < 1.0
    assert text_width("网络未定价", 11) == 55.0
    assert text_width("network", 11) < text_width("网络未定价网络", 11)


def test_wrapping_is_deterministic_and_breaks_chinese_between_characters():
    chinese = "本设计（Quantum-2 NDR InfiniBand）"
    assert wrap(chinese, 80, lines=4) == wrap(chinese, 80, lines=4)
    lines = wrap("2×100G RoCE（通用方案）（网络未定价）", 60, lines=4)
    assert len(lines) > 1 and all(text_width(line) <= 60 for line in lines)
    assert wrap("This design (Quantum-2 NDR InfiniBand)", 120, lines=4) == [
        "This design",
        "(Quantum-2 NDR",
        "InfiniBand)",
    ]
    assert wrap("a very long name that cannot fit", 40, lines=2)[-1].endswith("\u2026")


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_no_label_is_wider_than_its_room_nor_outside_the_chart(charts, language):
    for chart in charts:
        for text in _texts(chart[language]):
            left, _top, right, _bottom = _box(text)
            assert left >= 0 and right <= WIDTH, text.text
            if text.get("class") == "bar-label":
                assert text_width(text.text, 11) <= float(text.get("data-room")), text.text
            if text.get("class") == "legend":
                assert text_width(text.text, 11) <= LEGEND_ROOM, text.text


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_no_two_labels_overlap(charts, language):
    for chart in charts:
        labels = [t for t in _texts(chart[language]) if t.get("class") in ("bar-label", "legend")]
        assert labels
        for a, b in itertools.combinations(labels, 2):
            assert not _overlap(_box(a), _box(b)), (a.text, b.text)


@pytest.mark.parametrize(
    ("language", "note", "name"),
    [
        ("en", "(network not priced)", "This design"),
        ("zh-hans", "（网络未定价）", "本设计"),
    ],
)
def test_names_read_whole_and_the_unpriced_build_is_labelled(charts, language, note, name):
    per_hour = charts[1][language]
    labels = [t.text for t in _texts(per_hour) if t.get("class") == "bar-label"]
    joined = " ".join(labels) if language == "en" else "".join(labels)
    assert joined.count(note) == 1, labels
    assert not any(label.endswith("\u2026") for label in labels), labels
    assert any(label.startswith(name) for label in labels)

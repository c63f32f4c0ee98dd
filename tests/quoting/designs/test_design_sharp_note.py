"""SHARP is not modelled (issue 26): where NVIDIA InfiniBand switches that reduce in the
network are quoted, the design's advice and the TCO's assumptions say the predicted all-reduce
bandwidth is without SHARP, in English and Chinese. NVIDIA SHARP runs on Quantum InfiniBand
switches only (NVIDIA SHARP Rev 3.13.0, "General Information"), so a Spectrum-X Ethernet
design gets neither note."""

import pytest
from django.utils import translation

from quoting.designs.services.designs import design_bom_priced, design_compute
from quoting.designs.services.tco import design_tco_body, tco_compute
from quoting.engine.fabric import FabricRequirements

NDR = {"gpu_count": 256, "family": "infiniband", "nic_generation": "NDR"}
SPECTRUM_X = {"gpu_count": 256, "family": "ethernet", "nic_generation": "400GbE"}
ADVICE = {
    "en": "The Quantum-2 switches can reduce in the network (NVIDIA SHARP)",
    "zh-hans": "Quantum-2 交换机支持网内归约（NVIDIA SHARP）",
}
ASSUMPTION = {
    "en": "InfiniBand in-network reduction (NVIDIA SHARP) is not modelled",
    "zh-hans": "未对 InfiniBand 网内归约（NVIDIA SHARP）建模",
}
SHARP_ROW = "transport.infiniband.sharp"


def _design(fields: dict):
    return design_compute(requirements=FabricRequirements(**fields))


def _assumptions(design, *, ethernet_only: bool = False) -> dict:
    priced = design_bom_priced(design=design, currency="CNY")
    body = design_tco_body(design=design, bom_total=priced.total, currency="CNY")
    if ethernet_only:  # the InfiniBand design it is compared with left out
        body["fabrics"] = [f for f in body["fabrics"] if f["transport"] != "infiniband"]
    return {a.key: a for a in tco_compute(data=body).assumptions}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_an_infiniband_ndr_design_says_sharp_is_not_modelled(seeded, language):
    design = _design(NDR)
    row = _assumptions(design)[SHARP_ROW]
    with translation.override(language):
        advice = [m.render(translation.gettext) for m in design.advice_messages]
        label = row.label.render(translation.gettext)
    assert any(ADVICE[language] in text for text in advice), advice
    assert ASSUMPTION[language] in label
    assert (row.value, row.unit, row.basis) == (0, "%", "Not included")


def test_a_spectrum_x_design_has_no_sharp_note(seeded):
    """Its comparison's InfiniBand option is the other family's design: the TCO row belongs to
    that option's transport, and goes when only Ethernet options are compared."""
    design = _design(SPECTRUM_X)
    assert design.bom and not any("SHARP" in str(m) for m in design.advice_messages)
    assert SHARP_ROW in _assumptions(design)  # the InfiniBand design it is compared with
    assert SHARP_ROW not in _assumptions(design, ethernet_only=True)

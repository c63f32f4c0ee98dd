"""The installation pack's README lists the design's and the site's inputs as a reader takes
them: an input left empty is "not set" in the pack's language, a switch yes or no; never
Python's None, True or False."""

from __future__ import annotations

import re

from django.utils import translation

from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.install import SiteInputs, exports, plan_layout


def _readme(catalog, translate=None) -> str:
    design = design_fabric(FabricRequirements(gpu_count=256, inband_management=True), catalog)
    layout = plan_layout(design, SiteInputs(), catalog)
    return "".join(exports.readme_txt(layout, translate=translate))


def _inputs(readme: str) -> str:
    """The lines `name = value` of the two input lists."""
    return "\n".join(re.findall(r"^\w+ = .*$", readme, flags=re.MULTILINE))


def test_the_readme_words_empty_inputs_and_switches_in_english(catalog):
    inputs = _inputs(_readme(catalog))

    assert "server_part_number = not set" in inputs
    assert "growth_gpus = not set" in inputs and "servers_per_rack = not set" in inputs
    assert "inband_management = yes" in inputs and "outofband_management = no" in inputs
    assert "gpu_count = 256" in inputs and "name_prefix = not set" in inputs
    assert not re.search(r"= (None|True|False|\(.*\))$", inputs, flags=re.MULTILINE), inputs


def test_the_readme_words_them_in_the_packs_language(catalog):
    with translation.override("zh-hans"):
        inputs = _inputs(_readme(catalog, translate=translation.gettext))

    assert "server_part_number = 未设置" in inputs
    assert "inband_management = 是" in inputs and "outofband_management = 否" in inputs
    assert "not set" not in inputs and "None" not in inputs and "True" not in inputs

"""Every quote says which cable lengths were measured on the site and which assumed (issue 26): a
tier left without a distance is measured on the racks of the design's site, each cable at its
own run's length class; a tier whose distance was typed takes that class for every cable.

NVIDIA LinkX cables are sold by length class (MFP7E10-N0xx fibres: 3 to 50 m), so an assumed
class decides the part number quoted.
"""

from __future__ import annotations

import pytest

from quoting.designs.display import cable_lengths
from quoting.designs.services.saved import design_save
from quoting.quotes.services.quotes import quote_create_from_design
from tests.quoting.api_world import token_client
from tests.quoting.quotes.workbook_reading import workbook

# Server to leaf measured on the site; leaf to spine typed as "same row" (30 m), not measured.
REQUIREMENTS = {
    "gpu_count": 128,
    "nic_generation": "NDR",
    "switch_part_number": "MQM9790-NS2F",
    "subnet_manager": "on-switch",
    "leaf_to_spine": "same-row",
}


@pytest.fixture
def quoted(seeded, world):
    design = design_save(
        project=world.project, name="128 GPUs", user=world.sales, requirements=REQUIREMENTS
    )
    quote = quote_create_from_design(project=world.project, design=design, user=world.sales)
    return world, quote


def metres(value) -> str:
    return f"{value:g}"


def test_the_design_knows_which_tiers_were_measured_and_which_assumed(quoted):
    _world, quote = quoted
    snapshot = quote.current_revision.design_snapshot
    lengths = cable_lengths(snapshot)
    assert [tier for tier, _m in lengths["measured"]] == ["server-leaf"]
    assert lengths["assumed"] == [("leaf-spine", 30)]  # the "same row" class, typed
    assert lengths["site"]["rack_power_kw"] == 12 and lengths["site"]["site_name"] == "DC1"


def test_a_snapshot_without_media_states_nothing_and_one_without_measured_reads_as_assumed():
    assert cable_lengths(None) is None and cable_lengths({"tiers": 2}) is None
    kept = {"media": {"server-leaf": {"length_m": 10}, "leaf-spine": {"length_m": 30}}}
    assert cable_lengths(kept)["measured"] == []
    assert cable_lengths(kept)["assumed"] == [("server-leaf", 10), ("leaf-spine", 30)]


@pytest.mark.parametrize(
    ("language", "measured_on", "measured", "assumed", "note"),
    [
        (
            "en",
            "Measured on site DC1: racks of 48 U and 12 kW, each cable at the length class of "
            "its own run.",
            "Measured, up to {m} m",
            "Assumed: {m} m for every cable",
            "Assumed lengths come from a distance class, not from the site",
        ),
        (
            "zh-hans",
            "在站点 DC1 实测：机柜 48 U、每柜 12 kW，每根线缆按其实际走线选取长度规格。",
            "实测，最长 {m} m",
            "假定：每根线缆均为 {m} m",
            "假定长度取自距离等级，并非站点实测",
        ),
    ],
)
def test_the_quote_page_says_which_lengths_were_measured_and_which_assumed(
    client, quoted, language, measured_on, measured, assumed, note
):
    world, quote = quoted
    world.sales.language = language
    world.sales.save(update_fields=["language"])
    client.force_login(world.sales)
    media = quote.current_revision.design_snapshot["media"]

    page = client.get(f"/quotes/{quote.pk}/").content.decode()

    assert measured_on in page
    assert measured.format(m=metres(media["server-leaf"]["length_m"])) in page
    assert assumed.format(m=metres(media["leaf-spine"]["length_m"])) in page
    assert note in page


@pytest.mark.parametrize(
    ("language", "measured_on", "measured", "assumed", "note"),
    [
        (
            "en",
            "Measured on site DC1: racks of 48 U and 12 kW, each cable at the length class of "
            "its own run.",
            "Measured, up to {m} m",
            "Assumed: {m} m for every cable",
            "Assumed lengths come from a distance class, not from the site: confirm them on site "
            "before ordering.",
        ),
        (
            "zh-hans",
            "在站点 DC1 实测：机柜 48 U、每柜 12 kW，每根线缆按其实际走线选取长度规格。",
            "实测，最长 {m} m",
            "假定：每根线缆均为 {m} m",
            "假定长度取自距离等级，并非站点实测：订货前请现场确认。",
        ),
    ],
)
def test_the_workbook_says_which_lengths_were_measured_in_the_words_of_the_quote_page(
    quoted, language, measured_on, measured, assumed, note
):
    world, quote = quoted
    media = quote.current_revision.design_snapshot["media"]
    response = token_client(world.sales, scope="read").get(
        f"/api/v1/quotes/{quote.pk}/xlsx/", {"lang": language}
    )
    cells = [
        str(cell.value)
        for sheet in workbook(response.content).worksheets
        for row in sheet.iter_rows()
        for cell in row
        if cell.value is not None
    ]

    assert measured_on in cells
    assert measured.format(m=metres(media["server-leaf"]["length_m"])) in cells
    assert assumed.format(m=metres(media["leaf-spine"]["length_m"])) in cells
    assert note in cells

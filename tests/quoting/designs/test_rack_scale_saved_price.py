"""A saved NVL72 design prices its other build as the design page does (rules 5c and 5d, "show
both"): 20 GB200 racks are not whole scalable units, so the smallest fabric for the 20 racks is
priced beside whole units of 24 racks (or those beside it when the smallest was asked). The
snapshot keeps the other build's parts; each read prices them in the page's currency and writes
nothing. A snapshot kept before those parts says it has no price."""

from __future__ import annotations

import re
from dataclasses import asdict
from unittest import mock
from urllib.parse import urlencode

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from quoting.designs.forms.designs import design_form_data
from quoting.designs.models import SavedDesign
from quoting.designs.services import designs as design_services
from quoting.designs.services import snapshots
from quoting.designs.services.designs import (
    RACK_SCALE_OTHER_BOM,
    design_compute,
    design_rack_scale_other_priced,
)
from quoting.designs.services.saved import design_save
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric.requirements import requirements_from_json
from tests.api_schema import assert_matches_schema
from tests.quoting.api_world import token_client

RACKS = 20
REQUIREMENTS = {
    "server_count": RACKS,
    "gpus_per_server": 72,
    "server_part_number": "DGX-GB200-NVL72",
    "nic_generation": "NDR",
}
OPTION = re.compile(r'<p class="muted" id="rack-scale-option">(.*?)</p>', re.S)
UNPRICED = {
    "en": "This design was saved before the price of its other build (the sizing advice names "
    "it) was kept: no list total can be given for it here. Design it again to see its price.",
    "zh-hans": "此设计保存时尚未保存其另一种建设方案（见选型建议）的价格，"
    "此处无法给出其目录价合计。请重新设计以查看其价格。",
}
WRITES = ("INSERT", "UPDATE", "DELETE")


@pytest.fixture(name="world")
def world_on_the_catalog(seeded, world):
    """The shared world (its customer quotes in CNY), made after the shipped catalog is loaded."""
    return world


@pytest.fixture(name="saved")
def saved_gb200_racks(world) -> SavedDesign:
    return design_save(
        project=world.project, name="20 GB200 racks", user=world.sales, requirements=REQUIREMENTS
    )


def _live_query(saved: SavedDesign) -> str:
    """The design page's query for the saved requirements, as its form submits them."""
    requirements = requirements_from_json(saved.requirements, stored=True)
    return urlencode(design_form_data(asdict(requirements)))


def _option(body: str) -> str:
    (option,) = OPTION.findall(body)
    return option


def _writes(captured) -> list[str]:
    return [q["sql"] for q in captured.captured_queries if q["sql"].lstrip().startswith(WRITES)]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_saved_page_shows_the_other_builds_list_total_as_the_live_page_does(
    client, world, saved, language
):
    client.force_login(world.sales)
    other = saved.result["rack_scale_other"]
    assert not other["whole_units"] and other["racks"] == RACKS
    design = design_compute(requirements=requirements_from_json(saved.requirements, stored=True))
    total = design_rack_scale_other_priced(design=design, currency="CNY").total

    live = client.get(
        f"/designs/new/?{_live_query(saved)}&currency=CNY", HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()
    # No currency asked: the page's, CNY, the saved design's (its customer's).
    page = client.get(f"/designs/new/?design={saved.pk}", HTTP_ACCEPT_LANGUAGE=language)

    assert page.context["rack_scale_priced"].total == total
    assert _option(page.content.decode()) == _option(live)
    if language == "en":
        assert _option(live) == (
            f"Smallest fabric for the racks asked (20): {other['leaf_count']} leaves + "
            f"{other['spine_count']} spines, list total {total:,.2f} CNY. Tick “Smallest fabric "
            "for the racks (NVL72)” to build it."
        )
    else:
        assert _option(live).startswith("所需机柜（20 个）的最小网络：")
        assert f"目录价合计 {total:,.2f} CNY" in _option(live)


def test_the_smallest_saved_prices_whole_units_in_the_currency_asked_like_its_bom(client, world):
    smallest = design_save(
        project=world.project,
        name="20 GB200 racks, smallest",
        user=world.sales,
        requirements=REQUIREMENTS | {"rack_scale_smallest": True},
    )
    client.force_login(world.sales)
    live = client.get(f"/designs/new/?{_live_query(smallest)}&currency=USD").content.decode()
    page = client.get(f"/designs/new/?design={smallest.pk}&currency=USD")

    assert page.context["priced"].currency == page.context["rack_scale_priced"].currency == "USD"
    assert _option(page.content.decode()) == _option(live)
    assert _option(live).startswith("As a whole scalable unit of 24 racks, ready to grow: ")
    assert _option(live).endswith(
        " USD. Untick “Smallest fabric for the racks (NVL72)” to build it."
    )


def test_reading_the_saved_page_writes_nothing_and_designs_nothing(client, world, saved):
    client.force_login(world.sales)
    client.get(f"/designs/new/?design={saved.pk}")  # the session's first use
    with (
        mock.patch.object(
            design_services, "design_on_site", wraps=design_services.design_on_site
        ) as designed,
        mock.patch.object(
            design_services, "design_placed", wraps=design_services.design_placed
        ) as placed,
        CaptureQueriesContext(connection) as captured,
    ):
        page = client.get(f"/designs/new/?design={saved.pk}")
    assert page.status_code == 200 and page.context["rack_scale_priced"] is not None
    assert (designed.call_count, placed.call_count) == (0, 0), "priced from the snapshot"
    assert _writes(captured) == []


def test_a_snapshot_of_an_older_version_is_priced_in_memory_and_left_as_stored(
    client, world, saved
):
    """A deploy raised SNAPSHOT_VERSION for the other build's parts: the read designs it again
    in memory (the refresh stores it), so the page prices it and the row stays as it was."""
    kept = {k: v for k, v in saved.result.items() if k != RACK_SCALE_OTHER_BOM}
    SavedDesign.objects.filter(pk=saved.pk).update(result=kept, snapshot_version=4)
    client.force_login(world.sales)
    client.get("/designs/new/")  # the session's first use
    with CaptureQueriesContext(connection) as captured:
        page = client.get(f"/designs/new/?design={saved.pk}")
    assert page.context["rack_scale_priced"].total > 0
    assert UNPRICED["en"] not in page.content.decode()
    assert _writes(captured) == []
    stored = SavedDesign.objects.get(pk=saved.pk)
    assert stored.snapshot_version == 4 and RACK_SCALE_OTHER_BOM not in stored.result


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_snapshot_kept_before_the_other_build_says_it_has_no_price(
    client, world, saved, monkeypatch, language
):
    """The current engine refuses the old design: its kept result, without the other build's
    parts, is shown; the page says the other build has no price instead of a number."""
    kept = {k: v for k, v in saved.result.items() if k != RACK_SCALE_OTHER_BOM}
    SavedDesign.objects.filter(pk=saved.pk).update(result=kept, snapshot_version=4)

    def refused(**_inputs):
        raise InvalidInput({"server_part_number": ["is no longer designable."]})

    monkeypatch.setattr(snapshots, "design_snapshot_values", refused)
    client.force_login(world.sales)
    page = client.get(f"/designs/new/?design={saved.pk}", HTTP_ACCEPT_LANGUAGE=language)

    assert page.context["rack_scale_priced"] is None
    assert _option(page.content.decode()) == UNPRICED[language]


def test_a_design_without_an_other_build_shows_neither(client, world):
    eight = design_save(
        project=world.project,
        name="8 GB200 racks",
        user=world.sales,
        requirements=REQUIREMENTS | {"server_count": 8},
    )
    assert eight.result["rack_scale_other"] is None
    assert eight.result[RACK_SCALE_OTHER_BOM] is None
    client.force_login(world.sales)
    body = client.get(f"/designs/new/?design={eight.pk}").content.decode()
    assert 'id="rack-scale-option"' not in body


def test_the_api_gives_the_other_builds_price_in_the_saved_designs_currency(world, saved):
    design = design_compute(requirements=requirements_from_json(saved.requirements, stored=True))
    total = design_rack_scale_other_priced(design=design, currency="CNY").total
    path = f"/api/v1/projects/{world.project.pk}/designs/"
    (listed,) = token_client(world.sales, scope="read").get(path).json()

    assert_matches_schema([listed], "/api/v1/projects/{id}/designs/")
    priced = listed["rack_scale_other_priced"]
    assert (priced["currency"], priced["total"]) == ("CNY", str(total))
    assert listed["priced_bom"]["currency"] == "CNY"
    assert listed["result"]["rack_scale_other"]["racks"] == RACKS  # as it was
    assert RACK_SCALE_OTHER_BOM not in listed["result"]  # its parts are the priced lines


def test_the_api_gives_null_without_a_price(world, saved, monkeypatch):
    kept = {k: v for k, v in saved.result.items() if k != RACK_SCALE_OTHER_BOM}
    SavedDesign.objects.filter(pk=saved.pk).update(result=kept)
    path = f"/api/v1/projects/{world.project.pk}/designs/"
    (listed,) = token_client(world.sales, scope="read").get(path).json()
    assert listed["rack_scale_other_priced"] is None
    assert listed["result"]["rack_scale_other"]["racks"] == RACKS


def test_a_quote_of_the_design_freezes_its_figures_without_the_other_builds_rows(world, saved):
    # The proposal does not show the other build: its rows stay with the saved design.
    from quoting.quotes.services.quotes import quote_create_from_design

    assert saved.result[RACK_SCALE_OTHER_BOM]
    quote = quote_create_from_design(project=world.project, design=saved, user=world.sales)
    frozen = quote.current_revision.design_snapshot

    assert RACK_SCALE_OTHER_BOM not in frozen
    assert frozen["rack_scale_other"] == saved.result["rack_scale_other"]

"""The TCO comparisons the sales engineer chooses (issue 27 item 6, tco-model §7).

The proposal shows the options chosen on the quote's TCO panel or through the API, by default
every option whose network is priced (the quoted one among them). An option whose network is not
priced is labelled so and is never marked as the cheapest, even when its TCO is the lowest.
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from proposals.documents.pdf import proposal_html
from quoting.designs.services.saved import design_save
from quoting.designs.services.tco import tco_presented
from quoting.engine.tco.names import COMMODITY
from quoting.errors import InvalidValue
from quoting.quotes.models import QuoteEvent, QuoteEventVerb, QuoteRevision
from quoting.quotes.services.quotes import quote_create_from_design, quote_update_terms
from quoting.quotes.services.snapshots import revision_tco_options
from tests.api_errors import field_errors
from tests.quoting.api_world import token_client

REQUIREMENTS = {
    "gpu_count": 128,
    "nic_generation": "NDR",
    "switch_part_number": "MQM9790-NS2F",
    "subnet_manager": "on-switch",
}


@pytest.fixture(name="world")
def world_on_the_catalog(seeded, world):
    return world


@pytest.fixture
def quote(world):
    design = design_save(
        project=world.project, name="128 GPUs", user=world.sales, requirements=REQUIREMENTS
    )
    return quote_create_from_design(project=world.project, design=design, user=world.sales)


def _revision(quote) -> QuoteRevision:
    return QuoteRevision.objects.get(pk=quote.current_revision_id)


def _names(revision) -> list[str]:
    return [o["name"] for o in revision.tco_snapshot["options"]]


def _tco_section(html: str) -> str:
    return html.split('data-section="tco"', 1)[1].split("</section>", 1)[0]


def _rows(section: str) -> list[str]:
    table = section.split('class="lines tco-options"', 1)[1].split("</table>", 1)[0]
    return re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>", 1)[1], re.S)


def _chart_series(html: str) -> set[str]:
    """The options the proposal's charts draw (their SVGs are data: URIs)."""
    import base64

    names = set()
    for uri in re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', _tco_section(html)):
        svg = base64.b64decode(uri).decode()
        names |= set(re.findall(r'<g class="series" data-name="([^"]*)"', svg))
    return names


def test_by_default_the_proposal_shows_every_priced_option_and_not_the_unpriced_build(quote):
    revision = _revision(quote)
    every = _names(revision)
    assert COMMODITY in every and len(every) >= 3
    shown = revision_tco_options(revision=revision)
    assert shown == [n for n in every if n != COMMODITY]
    assert revision.tco_snapshot["options"][0]["pricing"] == "quoted"
    assert every[0] in shown

    html = proposal_html(revision=revision, language="en")
    rows = _rows(_tco_section(html))
    assert len(rows) == len(shown)
    assert "commodity" not in _tco_section(html).split("<figure", 1)[0]
    assert _chart_series(html) == {n.replace('"', "&quot;") for n in shown}


def test_the_sales_engineer_chooses_the_options_and_the_proposal_shows_only_those(world, quote):
    revision = _revision(quote)
    this, commodity = _names(revision)[0], COMMODITY
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version, tco_options=[commodity, this]
    )
    revision = _revision(quote)
    assert revision.tco_options == [this, commodity]  # kept in the comparison's order
    event = QuoteEvent.objects.filter(quote=quote).latest("pk")
    assert event.verb == QuoteEventVerb.TCO_OPTIONS_CHANGED
    assert event.details["after"] == [this, commodity]

    html = proposal_html(revision=revision, language="en")
    section = _tco_section(html)
    assert len(_rows(section)) == 2
    assert _chart_series(html) == {this, commodity}
    assert "2×100G RoCE (commodity)" in section


def test_an_unknown_or_empty_choice_is_refused_naming_the_field_and_changes_nothing(world, quote):
    before = quote.version
    with pytest.raises(InvalidValue) as refused:
        quote_update_terms(
            quote=quote, user=world.sales, expected_version=before, tco_options=["Nope"]
        )
    assert refused.value.field == "tco_options" and "Nope" in str(refused.value)
    with pytest.raises(InvalidValue):
        quote_update_terms(quote=quote, user=world.sales, expected_version=before, tco_options=[])
    quote.refresh_from_db()
    assert quote.version == before and _revision(quote).tco_options is None


def test_the_api_reads_and_writes_the_choice_and_answers_400_for_an_unknown_option(world, quote):
    api = token_client(world.sales)
    url = f"/api/v1/quotes/{quote.pk}/"
    read = api.get(url)
    every = _names(_revision(quote))
    assert read.json()["tco_options"] == [n for n in every if n != COMMODITY]

    bad = api.patch(url, {"tco_options": ["Nope"]}, format="json", HTTP_IF_MATCH=read["ETag"])
    assert bad.status_code == 400, bad.json()
    assert "Nope" in " ".join(field_errors(bad)["tco_options"])
    empty = api.patch(url, {"tco_options": []}, format="json", HTTP_IF_MATCH=read["ETag"])
    assert empty.status_code == 400 and "tco_options" in field_errors(empty)

    chosen = api.patch(url, {"tco_options": [every[0]]}, format="json", HTTP_IF_MATCH=read["ETag"])
    assert chosen.status_code == 200, chosen.json()
    assert chosen.json()["tco_options"] == [every[0]]
    assert api.get(url).json()["tco_options"] == [every[0]]


def test_the_quote_tco_panel_offers_a_box_per_option_and_stores_the_choice(world, quote, client):
    client.force_login(world.sales)
    panel = client.get(f"/quotes/{quote.pk}/tco/").content.decode()
    every = _names(_revision(quote))
    boxes = re.findall(r'name="tco_options" value="([^"]*)"( checked)?', panel)
    assert [name for name, _ in boxes] == every
    assert {name for name, checked in boxes if checked} == set(every) - {COMMODITY}
    assert "network not priced" in panel

    response = client.post(
        f"/quotes/{quote.pk}/tco-options/",
        {"expected_version": quote.version, "tco_options": [every[0], COMMODITY]},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code in (200, 204, 302), response.content[:300]
    assert _revision(quote).tco_options == [every[0], COMMODITY]
    refused = client.post(
        f"/quotes/{quote.pk}/tco-options/",
        {"expected_version": quote.version + 1, "tco_options": ["Nope"]},
        HTTP_HX_REQUEST="true",
    )
    assert refused.status_code in (200, 400, 422)
    assert _revision(quote).tco_options == [every[0], COMMODITY]


def test_an_unpriced_build_with_the_lowest_tco_is_never_marked_cheapest(world, quote):
    """The issue's case: the commodity build's network is not priced, so its five-year TCO is
    the servers alone and the lowest of all. It is labelled, and "lowest TCO" goes to the
    cheapest priced option."""
    revision = _revision(quote)
    every = _names(revision)
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version, tco_options=every
    )
    revision = _revision(quote)
    options = {o["name"]: o for o in revision.tco_snapshot["options"]}
    tco = {name: Decimal(o["tco_n_years"]) for name, o in options.items()}
    assert min(tco, key=tco.get) == COMMODITY, "the case from the issue: lowest TCO unpriced"

    view = tco_presented(revision.tco_snapshot, revision.tco_options)
    priced = {n: t for n, t in tco.items() if options[n]["pricing"] != "not_priced"}
    assert view["lowest_tco"] == min(priced, key=priced.get) != COMMODITY
    per_hour = {n: Decimal(options[n]["cost_per_effective_gpu_hour"]) for n in priced}
    assert view["lowest_cost_per_hour"] == min(per_hour, key=per_hour.get)

    for language, unpriced, lowest in (
        ("en", "network not priced", "lowest TCO"),
        ("zh-hans", "网络未定价", "总拥有成本最低"),
    ):
        rows = _rows(_tco_section(proposal_html(revision=revision, language=language)))
        assert len(rows) == len(every)
        [commodity_row] = [r for r in rows if "RoCE" in r and ("commodity" in r or "通用方案" in r)]
        assert unpriced in commodity_row and lowest not in commodity_row
        assert sum(lowest in r for r in rows) == 1


def test_a_revision_sent_before_the_choice_keeps_showing_every_option(world, quote):
    """Migration quoting 0019: a sent revision printed every option of its comparison before the
    choice existed, and keeps printing them (null would now leave the unpriced build out)."""
    import importlib

    from django.apps import apps

    from quoting.quotes.services.quotes import quote_send

    migration = importlib.import_module("quoting.migrations.0022_revision_tco_options_chosen")
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    sent = _revision(quote)
    assert sent.is_frozen and sent.tco_options is None
    assert COMMODITY not in revision_tco_options(revision=sent)

    migration.frozen_revisions_keep_every_option(apps, None)
    sent.refresh_from_db()
    assert sent.tco_options == _names(sent)
    assert revision_tco_options(revision=sent) == _names(sent)

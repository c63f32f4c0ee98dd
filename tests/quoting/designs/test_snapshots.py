"""Compute once, read many (issue 12 items 1, 2 and the share page of item 5): a saved design
keeps its result, drawing, priced BOM and TCO; a quote revision freezes copies; pages, the PDF,
the share page and the API read them; one pricing rule for a BOM everywhere."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from unittest import mock

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalog.models import PriceListItem
from proposals.documents.selectors import proposal_content
from proposals.share.services import share_link_create
from quoting.designs.models import FxRate, SavedDesign
from quoting.designs.selectors import bom_priced
from quoting.designs.services import designs as design_services
from quoting.designs.services import snapshots
from quoting.designs.services import tco as tco_services
from quoting.designs.services.saved import design_save
from quoting.quotes.models import QuoteLine
from quoting.quotes.selectors import revision_totals
from quoting.quotes.services.quotes import quote_create_from_design, quote_send
from tests.quoting.api_world import token_client

REQUIREMENTS = {
    "gpu_count": 128,
    "nic_generation": "NDR",
    "switch_part_number": "MQM9790-NS2F",
    "subnet_manager": "on-switch",
}


@pytest.fixture(name="world")
def world_on_the_catalog(seeded, world):
    """The shared world, made after the shipped catalog is loaded."""
    return world


@pytest.fixture
def engines():
    """Spies on the fabric engine and the TCO engine: they still run, and count."""
    with (
        mock.patch.object(
            design_services, "design_on_site", wraps=design_services.design_on_site
        ) as fabric,
        mock.patch.object(tco_services, "compute_tco", wraps=tco_services.compute_tco) as tco,
    ):
        yield fabric, tco


def _page_query(requirements: dict) -> str:
    """The design page's query for these requirements, as the form submits them."""
    from dataclasses import asdict
    from urllib.parse import urlencode

    from quoting.designs.forms.designs import design_form_data
    from quoting.engine.fabric.requirements import requirements_from_json

    return urlencode(design_form_data(asdict(requirements_from_json(requirements))))


def _saved(world, name="128 GPUs", **changes) -> SavedDesign:
    return design_save(
        project=world.project, name=name, user=world.sales, requirements=REQUIREMENTS | changes
    )


def _usd_only(sku: str) -> None:
    """The product loses its CNY price; a USD price and a USD->CNY rate remain."""
    assert PriceListItem.objects.filter(
        product__part_number=sku, price_list__currency="USD"
    ).exists()
    PriceListItem.objects.filter(product__part_number=sku, price_list__currency="CNY").delete()
    FxRate.objects.create(
        source="USD", target="CNY", rate=Decimal("7.1234"), as_of=dt.date(2026, 1, 1)
    )


# --- one pricing rule ---------------------------------------------------------------------------


def test_the_design_page_the_quote_and_the_tco_capex_agree_with_a_usd_only_product(world, client):
    client.force_login(world.sales)
    switch = "MQM9790-NS2F"
    _usd_only(switch)
    query = _page_query(REQUIREMENTS)

    page = client.get(f"/designs/new/?{query}&currency=CNY").context["priced"]
    saved = _saved(world)
    quote = quote_create_from_design(
        project=world.project, design=saved, user=world.sales, currency="CNY"
    )
    revision = quote.current_revision
    quoted = revision_totals(revision=revision).subtotal
    capex = revision.tco.request["fabrics"][0]
    tco_total = Decimal(capex["network_capex"]) + Decimal(capex.get("network_opex_per_year", 0))

    assert not page.missing, "the USD price is converted, not left out"
    switch_line = next(ln for ln in page.lines if ln.sku == switch)
    assert switch_line.unit_price and "USD" in switch_line.source
    assert page.total == quoted == tco_total == Decimal(saved.priced_bom["total"])
    assert revision.fx_source_currency == "USD" and revision.fx_rate == Decimal("7.1234")
    assert QuoteLine.objects.get(revision=revision, sku=switch).unit_price == switch_line.unit_price
    project_page = client.get(f"/projects/{world.project.pk}/")
    assert project_page.context["designs"][0].list_total == page.total


def test_a_product_priced_in_no_currency_is_named_missing_and_left_out_of_the_total(world):
    priced = bom_priced(
        bom=[{"sku": "MQM9790-NS2F", "quantity": 2}, {"sku": "NO-SUCH-PART", "quantity": 1}],
        currency="CNY",
    )
    assert priced.missing == ("NO-SUCH-PART",)
    assert priced.total == priced.lines[0].amount == 2 * priced.lines[0].unit_price


# --- the snapshot ---------------------------------------------------------------------------------


def test_saving_a_design_computes_its_snapshot_once(world, engines):
    fabric, tco = engines
    saved = _saved(world)
    assert fabric.call_count == 2, "this design and the other family's, for the comparison"
    assert tco.call_count == 1
    assert saved.snapshot_version == snapshots.SNAPSHOT_VERSION
    assert saved.drawing.startswith("<svg") and saved.priced_bom["currency"] == "CNY"
    assert saved.tco["result"]["options"] and len(saved.tco["charts"]) == 3
    assert saved.engine_messages is not None


def test_reading_a_saved_design_runs_no_engine(world, client, engines):
    fabric, tco = engines
    saved = _saved(world)
    fabric.reset_mock(), tco.reset_mock()
    client.force_login(world.sales)

    page = client.get(f"/designs/new/?design={saved.pk}&project={world.project.pk}")
    panel = client.get(f"/designs/tco/?design={saved.pk}&currency=CNY")
    project = client.get(f"/projects/{world.project.pk}/")
    quote = quote_create_from_design(project=world.project, design=saved, user=world.sales)

    assert page.status_code == panel.status_code == project.status_code == 200
    assert page.context["summary"] == saved.result and "<svg" in page.content.decode()
    assert "This design" in panel.content.decode()
    assert (fabric.call_count, tco.call_count) == (0, 0)
    assert quote.current_revision.design_drawing == saved.drawing
    assert quote.current_revision.tco_charts == saved.tco["charts"]


def test_another_currency_reprices_without_designing_again(world, client, engines):
    fabric, tco = engines
    saved = _saved(world)
    fabric.reset_mock()
    client.force_login(world.sales)
    panel = client.get(f"/designs/tco/?design={saved.pk}&currency=USD")
    assert panel.status_code == 200 and "What the network is worth" in panel.content.decode()
    assert fabric.call_count == 0


def test_changing_an_input_designs_again_and_an_unchanged_page_does_not(world, client, engines):
    fabric, _ = engines
    saved = _saved(world)
    fabric.reset_mock()
    client.force_login(world.sales)
    client.get(f"/designs/new/?design={saved.pk}")
    assert fabric.call_count == 0
    query = _page_query(REQUIREMENTS | {"gpu_count": 256})
    changed = client.get(f"/designs/new/?design={saved.pk}&{query}")
    assert fabric.call_count == 1 and changed.context["summary"]["gpu_count"] == 256


def test_a_new_snapshot_version_is_read_in_memory_and_stored_once_by_the_refresh(
    world, engines, monkeypatch, capsys
):
    fabric, _ = engines
    saved = _saved(world)
    fabric.reset_mock()
    monkeypatch.setattr(snapshots, "SNAPSHOT_VERSION", snapshots.SNAPSHOT_VERSION + 1)

    read = snapshots.design_snapshot_current(design=SavedDesign.objects.get(pk=saved.pk))
    assert read.snapshot_version == snapshots.SNAPSHOT_VERSION  # this read sees it current
    assert SavedDesign.objects.get(pk=saved.pk).snapshot_version != snapshots.SNAPSHOT_VERSION
    assert fabric.call_count == 2, "designed again (and the other family for the TCO)"

    call_command("snapshots_refresh")
    assert "1 saved designs" in capsys.readouterr().out
    assert SavedDesign.objects.get(pk=saved.pk).snapshot_version == snapshots.SNAPSHOT_VERSION
    fabric.reset_mock()
    snapshots.design_snapshot_current(design=SavedDesign.objects.get(pk=saved.pk))
    call_command("snapshots_refresh")
    assert fabric.call_count == 0, "stored once: neither a read nor a second refresh designs"


def test_a_design_saved_before_snapshots_is_shown_whole_and_the_page_writes_nothing(world, client):
    saved = _saved(world)
    SavedDesign.objects.filter(pk=saved.pk).update(
        drawing="",
        engine_messages=None,
        tco_inputs=None,
        priced_bom=None,
        tco=None,
        snapshot_version=0,
        snapshot_at=None,
    )
    client.force_login(world.sales)
    page = client.get(f"/projects/{world.project.pk}/")
    assert page.status_code == 200
    assert SavedDesign.objects.get(pk=saved.pk).snapshot_version == 0, "a read never writes"

    call_command("snapshots_refresh")
    migrated = SavedDesign.objects.get(pk=saved.pk)
    assert migrated.snapshot_version == snapshots.SNAPSHOT_VERSION
    assert migrated.priced_bom["total"] == saved.priced_bom["total"]
    assert migrated.drawing == saved.drawing and migrated.tco["result"] == saved.tco["result"]


def test_a_revision_made_before_snapshots_shows_its_drawing_and_charts_and_the_refresh_keeps_them(
    world,
):
    from proposals.documents.selectors import proposal_content

    quote = quote_create_from_design(project=world.project, design=_saved(world), user=world.sales)
    revision = quote.current_revision
    type(revision).objects.filter(pk=revision.pk).update(
        design_drawing="", tco_charts=None, snapshot_version=None
    )

    content = proposal_content(revision=revision, language="en")
    assert content.drawing_uri and len(content.tco_charts) == 3
    revision.refresh_from_db()
    assert revision.snapshot_version is None and not revision.design_drawing  # read only

    call_command("snapshots_refresh")
    revision.refresh_from_db()
    assert revision.snapshot_version == snapshots.SNAPSHOT_VERSION
    assert revision.design_drawing and len(revision.tco_charts) == 3


# --- the share page and the PDF read the frozen revision ----------------------------------------


def _shared(world, django_capture_on_commit_callbacks):
    quote = quote_create_from_design(project=world.project, design=_saved(world), user=world.sales)
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    with django_capture_on_commit_callbacks(execute=True):
        _link, token = share_link_create(quote=quote, user=world.sales)
    return quote, token


def test_viewing_a_share_page_n_times_runs_no_engine_and_renders_once(
    world, client, engines, django_capture_on_commit_callbacks
):
    fabric, tco = engines
    quote, token = _shared(world, django_capture_on_commit_callbacks)
    fabric.reset_mock(), tco.reset_mock()
    with (
        mock.patch(
            "proposals.documents.pdf.proposal_content", wraps=proposal_content
        ) as pdf_content,
        mock.patch("proposals.share.pages.proposal_content", wraps=proposal_content) as page,
        django_capture_on_commit_callbacks(execute=True),
    ):
        pages = [client.get(f"/p/{token}") for _ in range(5)]
    assert all(p.status_code == 200 for p in pages)
    assert quote.number in pages[-1].content.decode()
    assert _without_open_id(pages[0]) == _without_open_id(pages[-1])  # one open id per view
    assert (fabric.call_count, tco.call_count) == (0, 0), "the snapshot is read, not recomputed"
    # Once for the share page's cached content, for good; no view makes a PDF (the send asked
    # for them).
    assert (page.call_count, pdf_content.call_count) == (1, 0)
    # Five opens recorded; none real yet (no script ran here: issue 15).
    assert quote.share_links.get().views.count() == 5


def test_the_share_page_keeps_its_headers_when_the_cache_is_down(
    world, client, django_capture_on_commit_callbacks, monkeypatch
):
    _quote, token = _shared(world, django_capture_on_commit_callbacks)
    first = client.get(f"/p/{token}")
    monkeypatch.setattr("proposals.share.pages.shared_cache.get_many", lambda *a, **k: {})
    monkeypatch.setattr("proposals.share.pages.shared_cache.set", lambda *a, **k: None)
    again = client.get(f"/p/{token}")
    assert again.status_code == 200 and _without_open_id(again) == _without_open_id(first)
    for header in ("Referrer-Policy", "Cache-Control", "X-Robots-Tag", "Content-Language"):
        assert again.get(header) == first.get(header)


def _without_open_id(response) -> str:
    """The page as every view gets it: each view's own open id blanked."""
    import re

    return re.sub(r'data-open="[^"]*"', 'data-open=""', response.content.decode())


# --- query counts do not grow with lines ------------------------------------------------------


def _sent_with_lines(world, lines: int):
    from tests.proposals.conftest import quote_with_lines

    return quote_with_lines(world, lines, send=True)


def _count(client, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_the_share_page_query_count_does_not_grow_with_lines(
    world, client, django_assert_max_num_queries, django_capture_on_commit_callbacks
):
    urls = []
    for lines in (3, 60):
        quote = _sent_with_lines(world, lines)
        with django_capture_on_commit_callbacks(execute=True):
            _link, token = share_link_create(quote=quote, user=world.sales)
        client.get(f"/p/{token}")  # the first view renders the page into the cache
        urls.append(f"/p/{token}")
    few = _count(client, urls[0])
    with django_assert_max_num_queries(few):
        client.get(urls[1])


def test_the_quote_page_of_a_sent_quote_query_count_does_not_grow_with_lines(
    world, client, django_assert_max_num_queries
):
    client.force_login(world.sales)
    small, large = _sent_with_lines(world, 3), _sent_with_lines(world, 60)
    few = _count(client, f"/quotes/{small.pk}/")
    with django_assert_max_num_queries(few):
        client.get(f"/quotes/{large.pk}/")


def test_the_api_quote_detail_query_count_does_not_grow_with_lines(
    world, django_assert_max_num_queries
):
    from tests.proposals.conftest import quote_with_lines

    api = token_client(world.sales)
    for send in (False, True):
        small, large = quote_with_lines(world, 3, send=send), quote_with_lines(world, 60, send=send)
        for path in ("", "revisions/1/"):
            few = _count(api, f"/api/v1/quotes/{small.pk}/{path}")
            with django_assert_max_num_queries(few):
                assert api.get(f"/api/v1/quotes/{large.pk}/{path}").status_code == 200


def test_the_proposal_prints_the_frozen_drawing_and_charts_without_running_an_engine(
    world, engines
):
    from proposals.documents.pdf import proposal_html

    fabric, tco = engines
    quote = quote_create_from_design(project=world.project, design=_saved(world), user=world.sales)
    fabric.reset_mock(), tco.reset_mock()
    html = proposal_html(revision=quote.current_revision, language="zh-hans")
    figures = len(quote.current_revision.design_racks["figures"])
    assert html.count("data:image/svg+xml;base64,") == 4 + figures, (
        "the drawing, three charts and the racks appendix's elevations"
    )
    assert (fabric.call_count, tco.call_count) == (0, 0)


def test_a_quote_given_a_tco_scenario_keeps_it_and_charts_it_once(world):
    from quoting.designs.models import TcoScenario
    from quoting.designs.services.tco import tco_compute
    from quoting.engine.tco.presets import WORKLOAD_PRESETS

    request = {
        "gpu": "H100",
        "nodes": 16,
        "gpus_per_node": 8,
        "workload": WORKLOAD_PRESETS["llm_pretrain_7b"].workload,
        "fabrics": [
            {"name": "8x400G IB", "transport": "infiniband", "nics_per_node": 8, "nic_gbps": 400}
        ],
    }
    scenario = TcoScenario.objects.create(
        project=world.project,
        name="IB only",
        request=request,
        result=tco_compute(data=request).as_dict(),
        created_by=world.sales,
    )
    quote = quote_create_from_design(
        project=world.project, design=_saved(world), user=world.sales, tco=scenario
    )
    revision = quote.current_revision
    assert revision.tco == scenario and revision.tco_snapshot == scenario.result
    assert len(revision.tco_charts) >= 2


def test_the_engines_messages_are_kept_translatable_and_read_back_the_same(world):
    from quoting.designs.services.designs import message_from_json, message_json
    from quoting.engine.messages import message

    nested = message("{sku} is end of life.", sku="MQM8700")
    original = message("At {distance:g} m: {why}", distance=Decimal("2.5"), why=nested)
    assert (
        str(message_from_json(message_json(original)))
        == str(original)
        == "At 2.5 m: MQM8700 is end of life."
    )


def test_the_api_returns_a_saved_designs_priced_bom_and_tco_without_designing_again(world, engines):
    fabric, tco = engines
    saved = _saved(world)
    fabric.reset_mock(), tco.reset_mock()

    listed = (
        token_client(world.sales, scope="read")
        .get(f"/api/v1/projects/{world.project.pk}/designs/")
        .json()
    )

    assert (fabric.call_count, tco.call_count) == (0, 0)
    (design,) = listed
    assert design["priced_bom"] == saved.priced_bom
    assert design["tco"]["result"] == saved.tco["result"]
    assert "charts" not in design["tco"]  # drawings stay on the pages


def test_the_api_completes_a_design_saved_before_snapshots_on_first_read(world):
    saved = _saved(world)
    SavedDesign.objects.filter(pk=saved.pk).update(
        priced_bom=None, tco=None, tco_inputs=None, snapshot_version=0, snapshot_at=None
    )
    (design,) = (
        token_client(world.sales, scope="read")
        .get(f"/api/v1/projects/{world.project.pk}/designs/")
        .json()
    )
    assert design["priced_bom"]["total"] == saved.priced_bom["total"]
    assert design["tco"]["result"] == saved.tco["result"]


def test_a_write_that_leaves_the_prices_as_they_were_computes_no_tco_and_draws_no_chart(
    world, engines
):
    """The draft's comparison follows every price change; the send freezes it as it is."""
    from quoting.quotes.services.quotes import quote_set_discount

    _, tco = engines
    quote = quote_create_from_design(project=world.project, design=_saved(world), user=world.sales)
    quote_set_discount(
        quote=quote, discount_percent="5", user=world.sales, expected_version=quote.version
    )
    quote.refresh_from_db()
    priced = quote.current_revision.tco_snapshot
    assert tco.call_count >= 1, "a discount prices the comparison again"

    tco.reset_mock()
    with mock.patch("quoting.designs.services.tco.tco_charts") as charts:
        quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    assert (tco.call_count, charts.call_count) == (0, 0)
    quote.refresh_from_db()
    assert quote.current_revision.tco_snapshot == priced and quote.current_revision.is_frozen


def test_the_api_words_a_saved_designs_warnings_in_the_requests_language(world):
    """The snapshot keeps the engine's messages beside the English result (engine_messages): the
    API words them as the request asks (#27 item 4); one kept without them reads as stored."""
    from quoting.engine.messages import message

    saved = _saved(world)
    kept = message("{sku} has its compute NICs built in: no NIC cards are quoted.", sku="X-1")
    SavedDesign.objects.filter(pk=saved.pk).update(
        result=saved.result | {"warnings": [str(kept)], "advice": []},
        engine_messages={"warnings": [kept.as_json()], "advice": []},
    )
    api = token_client(world.sales, scope="read")
    path = f"/api/v1/projects/{world.project.pk}/designs/"

    (chinese,) = api.get(path, HTTP_ACCEPT_LANGUAGE="zh-hans").json()
    (english,) = api.get(path, HTTP_ACCEPT_LANGUAGE="en").json()
    assert chinese["result"]["warnings"] == ["X-1 已内置计算网卡：不再报价网卡。"]
    assert english["result"]["warnings"] == [str(kept)]
    assert chinese["result"]["bom"] == english["result"]["bom"]  # the rest as stored

    SavedDesign.objects.filter(pk=saved.pk).update(engine_messages=None)
    (older,) = api.get(path, HTTP_ACCEPT_LANGUAGE="zh-hans").json()
    assert older["result"]["warnings"] == [str(kept)]

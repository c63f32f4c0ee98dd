"""The proposal PDF's appendix: the design's racks, their power against the budget, and the
rack elevations, read from the revision's snapshot in English and Chinese."""

from __future__ import annotations

import pytest

import quoting.designs.services.designs as design_services
import quoting.designs.services.snapshots as design_snapshots
from proposals.documents.pdf import proposal_html, proposal_pdf
from quoting.designs.services.designs import design_compute, design_install_layout
from quoting.designs.services.saved import design_save
from quoting.designs.svg.racks import ALL_RACKS_MAX, TABLE_RACKS_MAX, rack_appendix
from quoting.engine.fabric.requirements import requirements_from_json
from quoting.engine.install import SiteInputs
from quoting.quotes.models import QuoteRevision
from quoting.quotes.services import snapshots
from quoting.quotes.services.quotes import quote_create_from_design, quote_send
from tests.proposals.conftest import pdf_text

REQUIREMENTS = {
    "server_count": 16,
    "gpus_per_server": 8,
    "nic_generation": "NDR",
    "switch_part_number": "MQM9790-NS2F",
    "subnet_manager": "on-switch",
}
# Five 8 U servers of 10.2 kW fit a 48 U rack's height, not its 40 kW budget.
OVER_BUDGET_SITE = {"rack_power_kw": 40, "servers_per_rack": 5}
# The racks these tests count are 40 kW ones, three servers a rack (not the 12 kW default's one).
SITE_40_KW = {"rack_power_kw": 40}


def flat(text: str) -> str:
    return " ".join(text.split())


def quote_from_design(world, *, servers: int = 16, language: str = "en"):
    world.customer.language = language
    world.customer.save()
    design = design_save(
        project=world.project,
        name=f"{servers} servers",
        user=world.sales,
        requirements=REQUIREMENTS | {"server_count": servers},
        site=SITE_40_KW,
    )
    return quote_create_from_design(project=world.project, design=design, user=world.sales)


def layout_of(servers: int, **site):
    site = SiteInputs(**(SITE_40_KW | site))
    # The switches' own subnet manager runs up to 2,048 nodes (rule 8): past it, the engine's
    # choice (UFM).
    manager = {} if servers * 8 <= 1024 else {"subnet_manager": "auto"}
    design = design_compute(
        requirements=requirements_from_json(REQUIREMENTS | {"server_count": servers} | manager),
        site=site,
    )
    return design_install_layout(design=design, site=site)


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            "en",
            (
                "Appendix: racks and power",
                "Rack elevations: A01–A06",
                "Within budget",
                "Total, 8 racks",
            ),
        ),
        ("zh-hans", ("附录：机柜与功耗", "机柜立面图：A01–A06", "预算之内", "合计，8个机柜")),
    ],
)
def test_the_pdf_has_the_racks_appendix_with_a_row_per_rack(world, seeded, language, words):
    quote = quote_from_design(world, language=language)
    revision = quote.current_revision
    racks = revision.design_racks
    assert racks["rack_count"] == 8 and len(racks["rows"]) == 8 and not racks["grouped"]

    text = flat(pdf_text(proposal_pdf(revision=revision, language=language)))
    if language != "en":
        text = "".join(text.split())  # Chinese wraps between any two characters
    for word in words:
        assert word in text, word
    # Each rack's row: its name, U used / free, typical and max kW, as the snapshot has them.
    compact = "".join(text.split())
    for row in racks["rows"]:
        cells = f"{row['units_used']}/{row['units_free']}{row['typical_kw']:.1f}{row['max_kw']:.1f}"
        (name,) = row["racks"]  # one rack a row: 8 racks are not grouped
        assert name in compact and cells in compact, row


@pytest.mark.parametrize(
    ("language", "flag", "note"),
    [
        ("en", "Over budget", "3 racks draw more than their power budget."),
        ("zh-hans", "超出预算", "3个机柜超出功率预算。"),
    ],
)
def test_a_rack_over_its_budget_is_flagged_in_the_pdf(world, seeded, language, flag, note):
    quote = quote_from_design(world, language=language)
    revision = quote.current_revision
    snapshots.revision_racks_refresh(revision=revision, site=OVER_BUDGET_SITE)
    revision.refresh_from_db()
    over = [row for row in revision.design_racks["rows"] if row["over"]]
    assert [row["racks"] for row in over] == [["A01"], ["A02"], ["A03"]]  # 16 servers, 5 a rack

    text = flat(pdf_text(proposal_pdf(revision=revision, language=language)))
    compact = "".join(text.split())
    assert "".join(note.split()) in compact
    # The flag sits in the over-budget rack's own row, after its figures.
    row, kind = over[0], "Compute" if language == "en" else "计算"
    figures = f"{row['units_used']}/{row['units_free']}{row['typical_kw']:.1f}{row['max_kw']:.1f}"
    assert f"A01{kind}1{figures}{flag.replace(' ', '')}" in compact


def test_the_pdf_reads_the_snapshot_and_lays_nothing_out(world, seeded, monkeypatch):
    quote = quote_from_design(world)
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    revision = QuoteRevision.objects.get(pk=quote.current_revision_id)

    def no_layout(**kwargs):
        raise AssertionError("the PDF laid the design out again")

    monkeypatch.setattr(design_snapshots, "design_install_layout", no_layout)
    monkeypatch.setattr(design_services, "design_install_layout", no_layout)
    assert "Appendix: racks and power" in flat(
        pdf_text(proposal_pdf(revision=revision, language="en"))
    )


def test_a_revision_made_before_the_appendix_shows_it_on_read_and_stores_it_on_refresh(
    world, seeded
):
    quote = quote_from_design(world)
    QuoteRevision.objects.filter(pk=quote.current_revision_id).update(
        design_racks=None, snapshot_version=3
    )
    revision = QuoteRevision.objects.get(pk=quote.current_revision_id)

    for _read in range(2):  # each read lays it out in memory: reads never write
        assert "Appendix: racks and power" in proposal_html(revision=revision, language="en")
        stored = QuoteRevision.objects.get(pk=revision.pk)
        assert (stored.snapshot_version, stored.design_racks) == (3, None)

    # manage.py snapshots_refresh (run after migrate) stores it, once.
    assert snapshots.revisions_snapshot_refresh() == 1
    stored = QuoteRevision.objects.get(pk=revision.pk)
    assert stored.snapshot_version == snapshots.SNAPSHOT_VERSION
    assert stored.design_racks["rack_count"] == 8
    assert snapshots.revisions_snapshot_refresh() == 0
    assert "Appendix: racks and power" in proposal_html(revision=stored, language="en")


def test_a_revision_whose_saved_design_changed_gets_no_appendix(world, seeded):
    quote = quote_from_design(world)
    revision = quote.current_revision
    design = revision.design
    # No longer the quoted fabric, and designed again on its next read.
    design.requirements, design.snapshot_version = REQUIREMENTS | {"server_count": 32}, 0
    design.save(update_fields=["requirements", "snapshot_version"])
    QuoteRevision.objects.filter(pk=revision.pk).update(design_racks=None, snapshot_version=3)

    html = proposal_html(revision=QuoteRevision.objects.get(pk=revision.pk), language="en")
    assert "Appendix: racks and power" not in html
    assert QuoteRevision.objects.get(pk=revision.pk).design_racks is None


def test_a_revision_keeps_its_racks_when_a_later_engine_designs_its_fabric_otherwise(world, seeded):
    # A new SNAPSHOT_VERSION (saved designs keeping more) must not take away racks a revision
    # already has: today's design of its requirements may differ from the figures it was sent
    # with (a part added to the catalog since), and matching would then drop them.
    quote = quote_from_design(world)
    revision = quote.current_revision
    kept = revision.design_racks
    design = revision.design
    design.requirements, design.snapshot_version = REQUIREMENTS | {"server_count": 32}, 0
    design.save(update_fields=["requirements", "snapshot_version"])
    QuoteRevision.objects.filter(pk=revision.pk).update(
        snapshot_version=snapshots.SNAPSHOT_VERSION - 1
    )

    assert snapshots.revisions_snapshot_refresh() == 1
    stored = QuoteRevision.objects.get(pk=revision.pk)
    assert stored.snapshot_version == snapshots.SNAPSHOT_VERSION
    assert stored.design_racks == kept and kept["rack_count"] == 8
    assert "Appendix: racks and power" in proposal_html(revision=stored, language="en")


def test_a_quote_without_a_design_has_no_appendix(world):
    from tests.proposals.conftest import quote_sent

    quote = quote_sent(world)
    assert quote.current_revision.design_racks is None
    assert "Appendix: racks and power" not in proposal_html(
        revision=quote.current_revision, language="en"
    )


def test_the_share_page_content_has_no_appendix(world, seeded):
    from django.template.loader import render_to_string

    from proposals.documents.selectors import proposal_content

    quote = quote_from_design(world)
    content = proposal_content(revision=quote.current_revision, language="en")
    assert content.racks and content.rack_figures
    html = render_to_string("proposals/_content.html", {"c": content, "language": "en"})
    assert "Appendix: racks and power" not in html


# --- a large design: a representative drawing, every rack in the table -------------------------


def test_a_large_design_draws_one_scalable_unit_and_tables_every_rack(seeded):
    layout = layout_of(512)
    appendix = rack_appendix(layout, {"en": lambda text: text})
    assert appendix["rack_count"] == len(layout.racks) > TABLE_RACKS_MAX
    assert ALL_RACKS_MAX < appendix["shown_count"] < appendix["rack_count"] / 4
    # Grouped rows still count every rack, and add up to the layout's power.
    assert appendix["grouped"]
    assert sum(row["count"] for row in appendix["rows"]) == len(layout.racks)
    assert appendix["max_kw"] == pytest.approx(sum(r.max_kw for r in layout.racks), abs=0.01)
    # Scalable unit 1's racks are all drawn, and no other unit's compute racks.
    drawn = "".join(appendix["elevations"]["en"])
    su1 = [r.name for r in layout.racks if r.su == 1]
    assert all(f'data-rack="{name}"' in drawn for name in su1)
    assert not any(
        f'data-rack="{r.name}"' in drawn
        for r in layout.racks
        if r.su not in (1, None) and r.kind == "compute"
    )
    assert sum(f["count"] for f in appendix["figures"]) == appendix["shown_count"]


def test_a_small_design_draws_every_rack(seeded):
    layout = layout_of(16)
    appendix = rack_appendix(layout, {"en": lambda text: text})
    assert appendix["shown_count"] == appendix["rack_count"] == len(layout.racks)
    assert [f["racks"] for f in appendix["figures"]] == [["A01–A06"], ["A07"], ["B01"]]
    # A figure is captioned by the PDF: the drawing's own title (its rack count) is left out.
    assert not any("racks, budget" in svg for svg in appendix["elevations"]["en"])


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            "en",
            (
                "Compute, liquid-cooled rack-scale",
                "Own power shelves",
                "8 racks are liquid-cooled rack-scale systems with their own power shelves",
            ),
        ),
        ("zh-hans", ("计算（液冷机柜级）", "自带电源架", "8 个机柜为液冷机柜级系统")),
    ],
)
def test_nvl72_racks_are_listed_liquid_cooled_on_their_own_power(world, seeded, language, words):
    """A DGX GB200 NVL72 is a rack of its own (about 120 kW, liquid-cooled, its own power
    shelves): the appendix lists it with its power and not against the 12 kW budget."""
    world.customer.language = language
    world.customer.save()
    design = design_save(
        project=world.project,
        name="GB200 scalable unit",
        user=world.sales,
        requirements={
            "server_count": 8,
            "gpus_per_server": 72,
            "server_part_number": "DGX-GB200-NVL72",
        },
        site={},
    )
    quote = quote_create_from_design(project=world.project, design=design, user=world.sales)
    racks = quote.current_revision.design_racks
    assert (racks["liquid_count"], racks["over_count"]) == (8, 0)
    liquid = [row for row in racks["rows"] if row["liquid"]]
    assert len(liquid) == 8 and all(row["max_kw"] >= 120 and not row["over"] for row in liquid)
    html = flat(proposal_html(revision=quote.current_revision, language=language))
    for word in words:
        assert word in html, word
    assert "Over budget" not in html and "超出预算" not in html


@pytest.mark.parametrize(
    ("language", "listed", "old"),
    [("en", "A01–A03, A05", "B01, B03"), ("zh-hans", "A01–A03、A05", "B01、B03")],
)
def test_the_racks_of_a_row_and_a_figure_are_listed_in_the_reader_s_language(
    world, seeded, language, listed, old
):
    """The appendix keeps a row's and a figure's racks as a list, listed when the PDF is made;
    one kept before, joined with ", ", is listed again in the reader's language."""
    quote = quote_from_design(world, language=language)
    revision = quote.current_revision
    racks = revision.design_racks
    assert all(isinstance(row["racks"], list) for row in racks["rows"])
    racks["rows"][0]["racks"] = ["A01–A03", "A05"]
    racks["rows"][1]["racks"] = "B01, B03"  # kept before the list
    racks["figures"][0]["racks"] = ["A01–A03", "A05"]
    racks["figures"][1]["racks"] = "B01, B03"
    QuoteRevision.objects.filter(pk=revision.pk).update(design_racks=racks)
    revision.refresh_from_db()

    html = proposal_html(revision=revision, language=language)

    assert f"<td>{listed}</td>" in html and f"<td>{old}</td>" in html
    caption = "机柜立面图：" if language == "zh-hans" else "Rack elevations: "
    assert f"{caption}{listed}</figcaption>" in html and f"{caption}{old}</figcaption>" in html

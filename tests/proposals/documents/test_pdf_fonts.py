"""Fonts in the PDFs: a Chinese document embeds one CJK family (Noto Sans CJK SC, its regular and
bold faces), drawings included; an English one embeds none unless it prints Chinese text; and a
CJK font carries only the glyphs drawn, so a Chinese proposal is not ten times its English twin."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from django.conf import settings
from fontTools.cffLib import CFFFontSet
from pypdf.generic import DictionaryObject

from proposals.documents import cid_fonts
from proposals.documents.pdf import html_to_pdf, proposal_pdf
from tests.conftest import service_missing
from tests.proposals.conftest import pdf_reader, quote_rich, quote_with_lines

# The faces the templates and drawings name for Latin text (static/proposal/proposal.css,
# quoting/engine/drawing.py); every other embedded font counts as a CJK one.
LATIN_FAMILIES = {"DejaVu-Sans", "DejaVu-Sans-Mono", "Noto-Sans"}
ONE_CJK_FAMILY = {"Noto-Sans-CJK-SC"}
# zh/en bytes of the same quote: 4.7x for the richest quote and 11x for a 50-line one while every
# CJK subset kept its 60,000 empty glyphs (proposals.documents.cid_fonts); about 2x since, a
# Chinese glyph's outline being bigger than a Latin one's.
ZH_OVER_EN_AT_MOST = 2.5


def _fonts(data: bytes) -> list[DictionaryObject]:
    """Every descendant (or simple) font the pages draw with, drawings and stamps included."""
    found, seen = [], set()

    def walk(resources):
        resources = resources.get_object() if resources is not None else {}
        for ref in (resources.get("/Font") or {}).values():
            font = ref.get_object()
            for one in [d.get_object() for d in font.get("/DescendantFonts") or []] or [font]:
                if id(one) not in seen:
                    seen.add(id(one))
                    found.append(one)
        for ref in (resources.get("/XObject") or {}).values():
            xobject = ref.get_object()
            if xobject.get("/Subtype") == "/Form":
                walk(xobject.get("/Resources"))

    for page in pdf_reader(data).pages:
        walk(page.get("/Resources"))
    return found


def _families(data: bytes) -> set[str]:
    """Embedded families, without the subset tag and the weight: ABCDEF+Noto-Sans-CJK-SC-Bold is
    Noto-Sans-CJK-SC."""
    names = {str(font["/BaseFont"]).lstrip("/").split("+", 1)[-1] for font in _fonts(data)}
    return {re.sub(r"-(Bold|Oblique|BoldOblique|Italic|BoldItalic)$", "", n) for n in names}


def _cjk_families(data: bytes) -> set[str]:
    return _families(data) - LATIN_FAMILIES


def test_a_chinese_proposal_with_its_drawings_embeds_one_cjk_family(world, seeded):
    world.customer.company = "鹏城实验室"
    world.customer.save()
    quote = quote_rich(world, language="zh-hans")  # the fabric drawing, TCO charts, racks

    pdf = proposal_pdf(revision=quote.current_revision, language="zh-hans")

    assert _cjk_families(pdf) == ONE_CJK_FAMILY, _families(pdf)


def test_an_english_proposal_without_chinese_text_embeds_no_cjk_font(world, seeded):
    quote = quote_rich(world, language="en")

    pdf = proposal_pdf(revision=quote.current_revision, language="en")

    assert _cjk_families(pdf) == set(), _families(pdf)


def test_an_english_proposal_for_a_chinese_name_embeds_one_cjk_family(world, seeded):
    world.customer.company = "鹏城实验室"
    world.customer.save()
    quote = quote_rich(world, language="en")

    pdf = proposal_pdf(revision=quote.current_revision, language="en")

    assert _cjk_families(pdf) == ONE_CJK_FAMILY, _families(pdf)


@pytest.mark.parametrize(
    ("template", "selector"),
    [("certificate.html", ".hash"), ("as_built_report.html", ".id")],
)
def test_hashes_and_ids_set_in_mono_fall_back_to_the_same_cjk_family(template, selector):
    """The template's own rules for the page and for the mono text, on Chinese text."""
    path = Path(settings.BASE_DIR) / "templates" / "proposals" / template
    rules = [
        re.search(rf"^{re.escape(name)} {{[^}}]*}}", path.read_text(), re.MULTILINE).group(0)
        for name in ("html:lang(zh-hans)", selector)
    ]
    html = (
        f'<html lang="zh-hans"><style>{" ".join(rules)}</style>'
        f'<p>证书</p><p class="{selector[1:]}">3f9a 节点一</p></html>'
    )

    assert _cjk_families(html_to_pdf(html)) == ONE_CJK_FAMILY


def test_a_chinese_signed_copy_embeds_one_cjk_family(
    world, seeded, django_capture_on_commit_callbacks
):
    from proposals.models import Acceptance
    from tests.proposals.acceptance.test_countersignature import _accepted_quote

    _accepted_quote(world, django_capture_on_commit_callbacks, "zh-hans", name="欧阳李伟")

    signed = bytes(Acceptance.objects.get().signed_pdf)  # the stamp and the certificate too
    assert _cjk_families(signed) == ONE_CJK_FAMILY, _families(signed)


def test_a_chinese_proposal_is_at_most_two_and_a_half_times_the_english_one(world, seeded):
    quote = quote_with_lines(world, 50)

    english = proposal_pdf(revision=quote.current_revision, language="en")
    chinese = proposal_pdf(revision=quote.current_revision, language="zh-hans")

    assert len(chinese) <= ZH_OVER_EN_AT_MOST * len(english), (len(chinese), len(english))


def test_a_rich_chinese_proposal_is_at_most_two_and_a_half_times_the_english_one(world, seeded):
    quote = quote_rich(world, language="zh-hans")

    english = proposal_pdf(revision=quote.current_revision, language="en")
    chinese = proposal_pdf(revision=quote.current_revision, language="zh-hans")

    assert len(chinese) <= ZH_OVER_EN_AT_MOST * len(english), (len(chinese), len(english))


def test_a_cjk_font_carries_the_glyphs_drawn_and_hardly_any_other(world, seeded):
    quote = quote_rich(world, language="zh-hans")

    pdf = proposal_pdf(revision=quote.current_revision, language="zh-hans")

    cjk = [font for font in _fonts(pdf) if "CJK" in str(font["/BaseFont"])]
    assert cjk
    for font in cjk:
        widths = font["/W"]  # first CID, [widths], ...: the CIDs the pages draw
        drawn = {
            cid
            for first, run in zip(widths[::2], widths[1::2], strict=True)
            for cid in range(first, first + len(run))
        }
        program = font["/FontDescriptor"]["/FontFile3"].get_object()
        assert program["/Subtype"] == "/CIDFontType0C"  # glyphs found by CID, as read
        cff = CFFFontSet()
        cff.decompile(io.BytesIO(program.get_data()), None)
        charset = cff.topDictIndex[0].charset  # cid00042: the glyph of CID 42
        kept = {int(name[3:]) for name in charset if name != ".notdef"}
        # HarfBuzz may keep a glyph or two the kept ones point to; not the thousands before.
        assert drawn - {0} <= kept and len(kept) <= 1.05 * len(drawn), (len(kept), len(drawn))


def test_the_installed_cjk_font_numbers_its_cids_as_its_glyphs():
    """cid_fonts packs a font keeping its CIDs while WeasyPrint writes glyph ids as CIDs: right
    only for a font whose CID i is glyph i, which the packer assumes of Noto Sans CJK."""
    from fontTools.ttLib import TTFont

    path = next(Path("/usr/share/fonts").rglob("NotoSansCJK-Regular.tt[cf]"), None)
    if path is None:
        service_missing("fonts-noto-cjk is not installed (apt-get install fonts-noto-cjk)")
    cff = CFFFontSet()
    cff.decompile(io.BytesIO(TTFont(path, fontNumber=0, lazy=True).reader["CFF "]), None)
    top = cff.topDictIndex[0]

    assert tuple(top.ROS) == ("Adobe", "Identity", 0)
    assert cff.fontNames[0].startswith(cid_fonts._IDENTITY_FAMILIES)
    assert all(name == f"cid{i:05d}" for i, name in enumerate(top.charset) if i)


@pytest.mark.parametrize("harfbuzz", ["missing", "failing"])
def test_a_chinese_pdf_still_renders_when_harfbuzz_cannot_pack_its_fonts(
    world, seeded, monkeypatch, harfbuzz
):
    def fail(*args):
        raise RuntimeError("HarfBuzz failed")

    if harfbuzz == "missing":
        monkeypatch.setattr(cid_fonts, "_harfbuzz", lambda: None)
    else:
        monkeypatch.setattr(cid_fonts, "_packed", fail)
    quote = quote_with_lines(world, 5)

    pdf = proposal_pdf(revision=quote.current_revision, language="zh-hans")

    assert "项目" in "".join(page.extract_text() for page in pdf_reader(pdf).pages)
    assert _cjk_families(pdf) == ONE_CJK_FAMILY  # as WeasyPrint wrote it: bigger, whole


def test_a_machine_without_harfbuzzs_subsetter_is_told_and_keeps_the_fonts(monkeypatch):
    # ctypes.util.find_library answers None, and cffi's dlopen(None) opens this very process.
    monkeypatch.setattr(cid_fonts.ctypes.util, "find_library", lambda name: None)
    cid_fonts._harfbuzz.cache_clear()
    try:
        assert cid_fonts._harfbuzz() is None
    finally:
        cid_fonts._harfbuzz.cache_clear()


def _as_stored_before(svg: str) -> str:
    """A drawing as it was stored before the drawings named SVG_FONT_FAMILY: the bare family."""
    from quoting.engine.drawing import SVG_FONT_FAMILY

    assert SVG_FONT_FAMILY in svg
    return svg.replace(SVG_FONT_FAMILY, "sans-serif")


def test_a_design_stored_with_the_bare_family_prints_in_chinese_with_one_cjk_family(world, seeded):
    """Drawings are read in today's fonts (quoting.engine.drawing.drawing_fonts_current); what was
    stored stays as it was."""
    from quoting.quotes.models import QuoteRevision

    quote = quote_rich(world, language="zh-hans")
    revision = quote.current_revision
    drawings = {k: _as_stored_before(svg) for k, svg in revision.design_drawings.items()}
    racks = revision.design_racks
    racks["elevations"] = {
        k: [_as_stored_before(svg) for svg in svgs] for k, svgs in racks["elevations"].items()
    }
    QuoteRevision.objects.filter(pk=revision.pk).update(
        design_drawing=drawings["en"],
        design_drawings=drawings,
        design_racks=racks,
        tco_snapshot=None,  # no figures: the kept charts print
        tco_charts=[
            {k: _as_stored_before(svg) for k, svg in chart.items()} for chart in revision.tco_charts
        ],
    )
    revision.refresh_from_db()

    pdf = proposal_pdf(revision=revision, language="zh-hans")

    assert _cjk_families(pdf) == ONE_CJK_FAMILY, _families(pdf)
    assert "sans-serif;" in QuoteRevision.objects.get(pk=revision.pk).design_drawings["zh-hans"]

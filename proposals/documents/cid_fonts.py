"""Chinese fonts embedded by the glyphs drawn, not by the sixty thousand.

WeasyPrint subsets every font but keeps each glyph's id (its text refers to glyphs by id), so a
subset of Noto Sans CJK keeps every glyph up to the last one drawn, most of them empty: about
160 KB a face once zipped, for 20-40 KB of drawn glyphs. A Chinese PDF embeds two faces (regular
and bold), so the empty glyphs made a one-page Chinese proposal ten times its English twin.

In a CID-keyed CFF font (Noto CJK, Source Han) the text names each glyph by CID and the font's
charset maps CIDs to glyphs; HarfBuzz's subsetter keeps every kept glyph's CID. So the glyphs a
page draws can be packed together without touching the page: `cid_fonts_packed` does so as a
WeasyPrint finisher, on the PDF's objects before they are written. Any other font is left as
WeasyPrint wrote it, and so is a CID font when HarfBuzz is missing or refuses it. (cffi,
fontTools and pydyf are WeasyPrint's own dependencies; HarfBuzz is the library it subsets with.)
"""

from __future__ import annotations

import ctypes.util
import functools
import io
import logging

import cffi
import pydyf
from fontTools.cffLib import CFFFontSet
from fontTools.ttLib import TTFont

logger = logging.getLogger(__name__)

_CDEF = """
typedef struct hb_blob_t hb_blob_t;
typedef struct hb_face_t hb_face_t;
typedef struct hb_set_t hb_set_t;
typedef struct hb_subset_input_t hb_subset_input_t;
hb_blob_t *hb_blob_create(const char *data, unsigned int length, int mode, void *user_data,
                          void *destroy);
void hb_blob_destroy(hb_blob_t *blob);
const char *hb_blob_get_data(hb_blob_t *blob, unsigned int *length);
hb_face_t *hb_face_create(hb_blob_t *blob, unsigned int index);
void hb_face_destroy(hb_face_t *face);
hb_blob_t *hb_face_reference_blob(hb_face_t *face);
void hb_set_add(hb_set_t *set, unsigned int codepoint);
hb_subset_input_t *hb_subset_input_create_or_fail(void);
void hb_subset_input_destroy(hb_subset_input_t *input);
hb_set_t *hb_subset_input_glyph_set(hb_subset_input_t *input);
void hb_subset_input_set_flags(hb_subset_input_t *input, unsigned int value);
hb_face_t *hb_subset_or_fail(hb_face_t *source, const hb_subset_input_t *input);
"""
_HB_CALLS = (
    "hb_blob_create",
    "hb_blob_destroy",
    "hb_blob_get_data",
    "hb_face_create",
    "hb_face_destroy",
    "hb_face_reference_blob",
    "hb_set_add",
)
_SUBSET_CALLS = (
    "hb_subset_input_create_or_fail",
    "hb_subset_input_destroy",
    "hb_subset_input_glyph_set",
    "hb_subset_input_set_flags",
    "hb_subset_or_fail",
)
_MEMORY_MODE_DUPLICATE = 0  # HarfBuzz copies the bytes: nothing to keep alive on our side
# What WeasyPrint asks of its own subset (no GSUB closure: it dropped GSUB), less the ids kept.
_FLAGS = (
    0x04  # DESUBROUTINIZE
    | 0x20  # PASSTHROUGH_UNRECOGNIZED
    | 0x40  # NOTDEF_OUTLINE: a glyph the font lacks still draws as the font's .notdef
    | 0x200  # NO_LAYOUT_CLOSURE
)


@functools.cache
def _harfbuzz():
    """(ffi, libharfbuzz, libharfbuzz-subset), or None without them or without the calls used
    here (WeasyPrint renders without HarfBuzz's subsetter, and so must we)."""
    ffi = cffi.FFI()
    ffi.cdef(_CDEF)
    names = [ctypes.util.find_library(name) for name in ("harfbuzz", "harfbuzz-subset")]
    try:
        if None in names:  # dlopen(None) would open this process, not fail
            raise OSError(f"not found: {names}")
        hb, subset = ffi.dlopen(names[0]), ffi.dlopen(names[1])
        for library, calls in ((hb, _HB_CALLS), (subset, _SUBSET_CALLS)):
            for call in calls:
                getattr(library, call)  # an older HarfBuzz lacks some: AttributeError now
    except (OSError, AttributeError) as missing:
        logger.warning("Chinese PDFs keep WeasyPrint's larger font subsets: %s", missing)
        return None
    return ffi, hb, subset


def _number(reference) -> int:
    return int(reference.split()[0])  # b"12 0 R"


def _cids(widths) -> set[int]:
    """The CIDs of a CID font's W array: first CID, [widths], first CID, [widths], ..."""
    cids: set[int] = set()
    for first, run in zip(widths[::2], widths[1::2], strict=True):
        cids.update(range(first, first + len(run)))
    return cids


# Fonts whose CIDs are their glyph ids (ROS Adobe-Identity-0, charset cid00000, cid00001, ...:
# checked for the installed Noto Sans CJK in tests/proposals/documents/test_pdf_fonts.py).
# WeasyPrint writes glyph ids as CIDs; packing renumbers the glyphs and keeps their CIDs, so a
# font whose CIDs are not its glyph ids would draw the wrong glyphs once packed.
_IDENTITY_FAMILIES = ("NotoSansCJK", "NotoSerifCJK", "SourceHanSans", "SourceHanSerif")


def _cid_keyed(font: bytes) -> bool:
    """An OpenType font whose CFF table is CID-keyed by glyph id: Adobe-Identity-0, of a family
    known to number its CIDs as its glyphs."""
    try:
        table = TTFont(io.BytesIO(font), lazy=True).reader["CFF "]
        cff = CFFFontSet()
        cff.decompile(io.BytesIO(table), None)
        top = cff.topDictIndex[0]
        name = cff.fontNames[0].split("+")[-1]
        return (
            "ROS" in top.rawDict
            and tuple(top.ROS) == ("Adobe", "Identity", 0)
            and name.startswith(_IDENTITY_FAMILIES)
        )
    except Exception:  # noqa: BLE001 - not ours to judge: the font stays as written
        return False


def _packed(font: bytes, glyphs: set[int]) -> bytes | None:
    loaded = _harfbuzz()
    if loaded is None:
        return None
    ffi, hb, subset = loaded
    blob = hb.hb_blob_create(font, len(font), _MEMORY_MODE_DUPLICATE, ffi.NULL, ffi.NULL)
    face = hb.hb_face_create(blob, 0)
    request = subset.hb_subset_input_create_or_fail()
    packed = out = ffi.NULL
    try:
        if request == ffi.NULL:
            return None
        kept = subset.hb_subset_input_glyph_set(request)
        for glyph in glyphs:
            hb.hb_set_add(kept, glyph)
        subset.hb_subset_input_set_flags(request, _FLAGS)
        packed = subset.hb_subset_or_fail(face, request)
        if packed == ffi.NULL:
            return None
        out = hb.hb_face_reference_blob(packed)
        length = ffi.new("unsigned int *")
        data = hb.hb_blob_get_data(out, length)
        return bytes(ffi.buffer(data, length[0])) if length[0] else None
    finally:
        if out != ffi.NULL:
            hb.hb_blob_destroy(out)
        if packed != ffi.NULL:
            hb.hb_face_destroy(packed)
        if request != ffi.NULL:
            subset.hb_subset_input_destroy(request)
        hb.hb_face_destroy(face)
        hb.hb_blob_destroy(blob)


def cid_fonts_packed(_document, pdf: pydyf.PDF) -> None:
    """WeasyPrint finisher: each CID-keyed CFF font file keeps only the glyphs its fonts' W
    arrays list (every glyph WeasyPrint drew with it) and .notdef."""
    users: dict[int, list[pydyf.Dictionary]] = {}  # font file: the CID fonts drawn with it
    for thing in pdf.objects:
        if isinstance(thing, pydyf.Dictionary) and thing.get("Subtype") == "/CIDFontType0":
            descriptor = pdf.objects[_number(thing["FontDescriptor"])]
            if "FontFile3" in descriptor:  # several fonts may share one file (WeasyPrint's hash)
                users.setdefault(_number(descriptor["FontFile3"]), []).append(thing)
    for number, fonts in users.items():
        try:
            _font_file_packed(pdf.objects[number], fonts)
        except Exception:  # noqa: BLE001 - a font left as WeasyPrint wrote it still prints
            logger.exception("A CID font was left unpacked")


def _font_file_packed(stream: pydyf.Stream, fonts: list[pydyf.Dictionary]) -> None:
    font = b"".join(stream.stream)
    if not _cid_keyed(font):
        return
    packed = _packed(font, {0}.union(*(_cids(one.get("W", ())) for one in fonts)))
    if packed is None:
        return
    cff = TTFont(io.BytesIO(packed), lazy=True).reader["CFF "]  # before anything is changed
    # The bare CFF, not its OpenType wrapper: a reader looks a CIDFontType0C's glyphs up by
    # CID through the charset, while in the wrapper some (poppler with FreeType) take the
    # CID for the glyph's position, right only while nothing has moved. CIDToGIDMap is a
    # TrueType (CIDFontType2) entry: gone, so that no reader applies it here.
    stream.stream = [cff]
    stream.extra["Subtype"] = "/CIDFontType0C"
    for one in fonts:
        one.pop("CIDToGIDMap", None)

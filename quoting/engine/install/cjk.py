"""Chinese text in the pack's PDFs: Noto Sans CJK SC, embedded with the glyphs drawn only.

The pack's PDFs are written with PDF operators (install/pdf.py) in the standard Helvetica, which
has no Chinese. A line with a character outside Latin-1 is drawn in this face instead: a Type 0
font (Identity-H, two bytes a glyph) whose CID-keyed CFF (Adobe-Identity-0) is subset to the
glyphs the PDF drew when it is finished, so a page is written before the glyphs are known and the
file stays small. The font file is the one the proposals print Chinese with (the Debian package
fonts-noto-cjk; the Docker image installs it). fontTools is WeasyPrint's own dependency.

A subset keeps each glyph's CID (its charset), so the page's codes stay right once the other
glyphs are gone; the ToUnicode map lets a reader copy and search the text.
"""

from __future__ import annotations

import functools
import hashlib
import io
import string
import zlib
from pathlib import Path

CJK_FONT_PATH = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
CJK_FONT_INDEX = 2  # the collection's Simplified Chinese face (JP, KR, SC, TC, HK)
CJK_FONT_NAME = "NotoSansCJKsc-Regular"


class CjkFontMissing(RuntimeError):
    """A Chinese PDF cannot be drawn: the font is not installed (or cannot be read)."""


def needs_cjk(text: str) -> bool:
    """Whether Helvetica (WinAnsi, about Latin-1) cannot draw `text`."""
    return not text.isascii() and any(ord(c) > 0xFF for c in text)


@functools.cache
def _face():
    """(CID by character, advance by CID in 1/1000 em, the face's metrics), read once."""
    try:
        from fontTools.ttLib import TTFont

        font = TTFont(str(CJK_FONT_PATH), fontNumber=CJK_FONT_INDEX, lazy=True)
        cmap = font.getBestCmap()
        metrics = font["hmtx"].metrics
        scale = 1000 / font["head"].unitsPerEm
        cids = {ord(c): _cid(name) for c, name in ((chr(k), v) for k, v in cmap.items())}
        widths = {_cid(name): round(advance * scale) for name, (advance, _) in metrics.items()}
        os2, head = font["OS/2"], font["head"]
        face = {
            "bbox": [round(v * scale) for v in (head.xMin, head.yMin, head.xMax, head.yMax)],
            "ascent": round(os2.sTypoAscender * scale),
            "descent": round(os2.sTypoDescender * scale),
            "cap_height": round(getattr(os2, "sCapHeight", 733) * scale),
        }
    except Exception as error:  # noqa: BLE001 - any reason the face cannot be read: say which
        raise CjkFontMissing(
            f"Chinese PDFs need the Noto Sans CJK SC font at {CJK_FONT_PATH} (Debian package "
            f"fonts-noto-cjk): {error}"
        ) from error
    return cids, widths, face


def _cid(glyph_name: str) -> int:
    """A CID-keyed CFF's glyphs are named by CID ("cid20780"); .notdef is CID 0."""
    return int(glyph_name[3:]) if glyph_name.startswith("cid") else 0


class CjkFont:
    """The glyphs one PDF draws in the CJK face, and that PDF's font objects once finished."""

    def __init__(self) -> None:
        self.cids, self.advances, self.face = _face()
        self.used: dict[int, str] = {}  # CID: the character it was drawn for (ToUnicode)

    def encode(self, text: str) -> str:
        """A PDF hex string of the text's CIDs; noted as used."""
        codes = []
        for c in text:
            cid = self.cids.get(ord(c), 0)
            self.used.setdefault(cid, c)
            codes.append(f"{cid:04X}")
        return "<" + "".join(codes) + ">"

    def width(self, text: str, size: float) -> float:
        return sum(self.advances.get(self.cids.get(ord(c), 0), 1000) for c in text) * size / 1000

    def objects(self, first: int) -> list[tuple[int, bytes]]:
        """The font's five objects numbered from `first`: Type 0 font, CID font, descriptor,
        font file (the subset's bare CFF) and ToUnicode map."""
        font, cid_font, descriptor, file, to_unicode = range(first, first + 5)
        cids = sorted(self.used.keys() | {0})
        # The same glyphs give the same name, so the same pack gives the same bytes.
        tag = "".join(
            string.ascii_uppercase[b % 26] for b in hashlib.sha256(repr(cids).encode()).digest()[:6]
        )
        name = f"{tag}+{CJK_FONT_NAME}"
        cff = _subset_cff(tuple(cids))
        widths = " ".join(f"{cid} [{self.advances.get(cid, 1000)}]" for cid in cids)
        face = self.face
        bbox = " ".join(str(v) for v in face["bbox"])
        return [
            (
                font,
                f"<< /Type /Font /Subtype /Type0 /BaseFont /{name} /Encoding /Identity-H "
                f"/DescendantFonts [{cid_font} 0 R] /ToUnicode {to_unicode} 0 R >>".encode(),
            ),
            (
                cid_font,
                f"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /{name} /CIDSystemInfo "
                "<< /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> "
                f"/FontDescriptor {descriptor} 0 R /DW 1000 /W [{widths}] >>".encode(),
            ),
            (
                descriptor,
                f"<< /Type /FontDescriptor /FontName /{name} /Flags 4 /FontBBox [{bbox}] "
                f"/ItalicAngle 0 /Ascent {face['ascent']} /Descent {face['descent']} "
                f"/CapHeight {face['cap_height']} /StemV 80 /FontFile3 {file} 0 R >>".encode(),
            ),
            (file, _stream(cff, "/Subtype /CIDFontType0C")),
            (to_unicode, _stream(_to_unicode(self.used).encode())),
        ]


def _stream(data: bytes, extra: str = "") -> bytes:
    packed = zlib.compress(data, 6)
    head = f"<< /Length {len(packed)} /Filter /FlateDecode{' ' + extra if extra else ''} >>"
    return head.encode() + b"\nstream\n" + packed + b"\nendstream"


KEPT_TABLES = ("CFF ", "head", "hhea", "hmtx", "maxp", "post")


def _subset_cff(cids: tuple[int, ...]) -> bytes:
    """The face's CFF table with these CIDs' glyphs only (each keeps its CID)."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(str(CJK_FONT_PATH), fontNumber=CJK_FONT_INDEX)
    # Only the CFF table is embedded: the others, dropped unread, cost the subsetter seconds
    # (the layout tables of 65,000 glyphs).
    for tag in list(font.reader.keys()):
        if tag not in KEPT_TABLES:
            del font[tag]
    options = subset.Options()
    options.layout_features = []
    options.name_IDs = []
    options.notdef_outline = True
    options.desubroutinize = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(glyphs=[".notdef", *(f"cid{cid:05d}" for cid in cids if cid)])
    subsetter.subset(font)
    out = io.BytesIO()
    font["CFF "].cff.compile(out, font)
    return out.getvalue()


def _to_unicode(used: dict[int, str]) -> str:
    """A ToUnicode CMap: each CID drawn to its character (UTF-16BE)."""
    entries = sorted((cid, c) for cid, c in used.items() if cid)
    lines = [
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap",
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
        "/CMapName /Adobe-Identity-UCS def /CMapType 2 def",
        "1 begincodespacerange <0000> <FFFF> endcodespacerange",
    ]
    for start in range(0, len(entries), 100):  # at most 100 to a block
        block = entries[start : start + 100]
        lines.append(f"{len(block)} beginbfchar")
        lines += [f"<{cid:04X}> <{c.encode('utf-16-be').hex().upper()}>" for cid, c in block]
        lines.append("endbfchar")
    lines += ["endcmap CMapName currentdict /CMap defineresource pop end end"]
    return "\n".join(lines) + "\n"
